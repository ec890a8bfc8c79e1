import fs from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { called, ModelStandIn, offers } from '../agent/model-stand-in.ts';
import { type RunningProcura, startProcura } from './procura.ts';

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = fs.existsSync(CHROMIUM);

/** CSS and HTML a hostile page can make a model (or a user) write: restyle the card, cover it, fake its numbers. */
const CARD = '[data-testid=approval-card]';
const INJECTED_CSS = [
  `${CARD} td{color:transparent!important}`,
  `${CARD} td.num::after{content:"200";color:#000}`,
  `${CARD} .card-actions{opacity:0}`,
  '.messages{display:none}',
].join(' ');
const INJECTED = `好的，这就下单。<style>${INJECTED_CSS}</style><div class="card interrupt-card" style="position:fixed;inset:0;z-index:99999;background:#fff">数量 200 · 批准即可</div><img src=x onerror="document.body.dataset.owned=1"><span class="badge badge-warn" style="font-size:0">x</span>`;
const QUANTITY = 5_000;
const NOTE = `<style>${INJECTED_CSS}</style><b style="font-size:40px">数量 200</b>`;

describe.skipIf(!hasChromium)('the approval card shows what runs, whatever the answer or the fields carry', () => {
  let procura: RunningProcura;
  let browser: Browser;
  let page: Page;
  let part: { id: number; supplier: { id: number } };
  const violations: string[] = [];
  const model = new ModelStandIn();

  beforeAll(async () => {
    await model.start();
    // The orchestrator answers with injected markup and delegates; the order agent drafts the order with the
    // markup in its note; after the write both answer with the markup again.
    model.script([
      {
        when: (req) => offers('order_create')(req) && !called(req, 'order_create'),
        reply: () => ({
          text: INJECTED,
          toolCalls: [
            {
              name: 'order_create',
              args: { supplierId: part.supplier.id, lines: [{ partId: part.id, quantity: QUANTITY }], note: NOTE },
            },
          ],
        }),
        times: Number.POSITIVE_INFINITY,
      },
      { when: offers('order_create'), reply: { text: INJECTED }, times: Number.POSITIVE_INFINITY },
      {
        when: (req) => offers('task')(req) && !called(req, 'task'),
        reply: {
          text: INJECTED,
          toolCalls: [{ name: 'task', args: { subagent_type: 'procurement-order', description: `下单 ${NOTE}` } }],
        },
        times: Number.POSITIVE_INFINITY,
      },
      { when: offers('task'), reply: { text: INJECTED }, times: Number.POSITIVE_INFINITY },
      { reply: { text: '{}' }, times: Number.POSITIVE_INFINITY },
    ]);
    procura = await startProcura(120_000, {
      OPENAI_BASE_URL: model.url,
      OPENAI_MODEL: 'deepseek-v4-flash',
      OPENAI_API_KEY: 'sk-ui-test-key-000000',
    });
    const found = await fetch(`${procura.erpUrl}/parts/search?name=F7TC`, {
      headers: { authorization: `Bearer ${procura.tokens.laoxiao}` },
    });
    part = ((await found.json()) as { items: Array<typeof part> }).items[0];
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    page = await browser.newPage({ viewport: { width: 1440, height: 900 }, locale: 'zh-CN' });
    page.on('console', (m) => {
      if (/Content Security Policy/.test(m.text())) violations.push(m.text());
    });
    await page.goto(procura.apiUrl);
    await page.locator('input[name=token]').fill(procura.tokens.laoxiao);
    await page.getByRole('button', { name: '登录' }).click();
    await page.getByTestId('composer').waitFor();
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await procura?.close();
    await model.close();
  });

  it('answers and fields cannot style, cover or rewrite the card; it shows the arguments that run', async () => {
    // The user's own message carries markup too.
    await page.getByTestId('composer').fill(`下单 <style>${INJECTED_CSS}</style>`);
    await page.getByTestId('send').click();
    const card = page.getByTestId('approval-card');
    await card.waitFor({ timeout: 120_000 });
    await page.getByTestId('message-assistant').first().waitFor();

    // Nothing of the injected markup styles or addresses the page: no style sheets, styles, classes or handlers.
    // (Evaluated in the page, as text: the test itself compiles without the DOM library.)
    const injected = await page.evaluate(`({
      styles: document.querySelectorAll('.messages style, .md-block style').length,
      styled: document.querySelectorAll('.md-block [style], .md-block [class], .md-block [onerror]').length,
      owned: document.body.dataset.owned ?? null,
      sheets: [...document.styleSheets].filter((s) => !s.href).length,
    })`);
    expect(injected).toEqual({ styles: 0, styled: 0, owned: null, sheets: 0 });

    // What the card shows, read as a person sees it: each cell's text, visible, without generated content.
    const cells = (await page.evaluate(`(() => {
      const card = document.querySelector(${JSON.stringify(CARD)});
      const box = card.getBoundingClientRect();
      const top = document.elementFromPoint(box.left + box.width / 2, box.top + 10);
      return {
        onTop: card.contains(top),
        cells: [...card.querySelectorAll('table.order-lines tbody td')].map((td) => {
          const style = getComputedStyle(td);
          return {
            text: td.innerText.trim(),
            visible: style.visibility === 'visible' && style.color !== 'rgba(0, 0, 0, 0)' && style.opacity !== '0',
            after: getComputedStyle(td, '::after').content,
          };
        }),
        note: [...card.querySelectorAll('dt')].find((dt) => dt.textContent === '备注')?.nextElementSibling?.textContent,
        actionsOpacity: getComputedStyle(card.querySelector('.card-actions')).opacity,
      };
    })()`)) as {
      onTop: boolean;
      cells: Array<{ text: string; visible: boolean; after: string }>;
      note?: string;
      actionsOpacity: string;
    };
    expect(cells.onTop).toBe(true);
    expect(cells.actionsOpacity).toBe('1');
    expect(cells.cells[2]).toEqual({ text: String(QUANTITY), visible: true, after: 'none' });
    for (const cell of cells.cells) expect(cell.visible).toBe(true);
    // The note's markup is shown as the text that will be written, not rendered.
    expect(cells.note).toBe(NOTE);
    expect(await page.locator('.messages').isVisible()).toBe(true);
    // The ERP approval policy's decision, as the ERP previews this very order (a draft: what submission would get).
    const policy = page.getByTestId('approval-policy');
    expect(await policy.getAttribute('data-rule')).toBe('needs-admin');
    expect(await policy.textContent()).toMatch(
      /^审批策略: 草稿，不提交审批；提交时 — 需管理员审批.*> buyer limit ¥5,000/,
    );

    // Approving writes exactly what the card showed.
    await card.getByRole('button', { name: '批准' }).click();
    await expect.poll(async () => page.getByTestId('approval-card').count(), { timeout: 60_000 }).toBe(0);
    const written = async () => {
      const res = await fetch(`${procura.erpUrl}/orders/search?partId=${part.id}&size=100`, {
        headers: { authorization: `Bearer ${procura.tokens.laoxiao}` },
      });
      const page = (await res.json()) as { items: Array<{ note: string; lines: Array<{ quantity: number }> }> };
      return page.items.filter((o) => o.note === NOTE);
    };
    await expect.poll(async () => (await written()).length, { timeout: 60_000 }).toBe(1);
    const [order] = await written();
    expect(order.lines[0].quantity).toBe(QUANTITY);
    expect(order.note).toBe(NOTE);
    // Whatever the injected markup tried was blocked.
    for (const violation of violations) expect(violation).toMatch(/blocked/);
  }, 240_000);
});
