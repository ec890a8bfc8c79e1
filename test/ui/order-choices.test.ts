import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FREE_TEXT_CHOICE } from '../../src/protocol/index.ts';
import { buildUi, hasChromium, launchChromium, screenshot, seriousViolations } from './browser.ts';
import { type RunningProcura, startProcura } from './procura.ts';

/**
 * The question cards in the browser, against `procura start` on the offline model: the ERP's candidates are buttons
 * with "其他（自己填写）" last, every one reached and pressed from the keyboard; a typed supplier and a picked part
 * resume the run into a draft for that supplier, and the decided cards stay in the transcript as what was answered.
 */

const OTHER = FREE_TEXT_CHOICE.label.split(' / ')[0];

describe.skipIf(!hasChromium)('question cards with options and a typed answer', () => {
  let procura: RunningProcura;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    await buildUi();
    procura = await startProcura();
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'zh-CN' });
    await context.addInitScript(`localStorage.setItem('procura.token', ${JSON.stringify(procura.tokens.laoxiao)})`);
    page = await context.newPage();
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await procura?.close();
  });

  /** The ERP's suppliers of its spark plugs, as its REST API lists them to this user. */
  async function sparkPlugSuppliers(): Promise<string[]> {
    const res = await fetch(`${procura.erpUrl}/parts/search?name=${encodeURIComponent('火花塞')}&limit=100`, {
      headers: { authorization: `Bearer ${procura.tokens.laoxiao}` },
    });
    const parts = ((await res.json()) as { items: Array<{ category: string; supplier: { nameZh: string } }> }).items;
    return [...new Set(parts.filter((p) => p.category === 'spark_plug').map((p) => p.supplier.nameZh))];
  }

  /** Presses Tab until `target` has the focus; fails if it is never reached. */
  async function tabTo(target: ReturnType<Page['locator']>) {
    for (let i = 0; i < 30; i++) {
      if (await target.evaluate((el) => el === el.ownerDocument.activeElement)) return;
      await page.keyboard.press('Tab');
    }
    throw new Error(`${await target.textContent()} is not reached with Tab`);
  }

  it('shows the options as buttons, Other last, all reached by keyboard; typed and picked answers resume the run', async () => {
    await page.goto(procura.apiUrl);
    await page.getByTestId('composer').fill('帮我订一些火花塞');
    await page.getByTestId('send').click();
    const card = page.getByTestId('order-info-card');
    await card.waitFor({ timeout: 120_000 });

    // The request restated, the ERP's suppliers as buttons, then "Other (type it)".
    expect(await card.locator('.card-head strong').textContent()).toMatch(/^要订火花塞，请选择供应商并填写数量/);
    const choices = card.getByTestId('choice-supplier').getByRole('button');
    const labels = await choices.allTextContents();
    expect(labels.at(-1)).toBe(OTHER);
    const suppliers = await sparkPlugSuppliers();
    expect(labels.length - 1).toBe(Math.min(suppliers.length, 8));
    for (const label of labels.slice(0, -1)) expect(suppliers.some((s) => label.startsWith(s))).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'choices', 'order-info');

    // Keyboard only: every option is on the Tab path, Other opens a box that takes the focus, Enter submits.
    await choices.first().focus();
    for (const option of await choices.all()) await tabTo(option);
    await page.keyboard.press('Enter');
    const typed = card.getByTestId('free-text-input');
    await typed.waitFor();
    expect(await typed.evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
    await page.keyboard.type('博世');
    await tabTo(card.locator('input[type=number]'));
    await page.keyboard.type('300');
    await page.keyboard.press('Enter');

    // Bosch has several spark plugs: which one, with Other last again; the first option picked from the keyboard.
    const ask = page.getByTestId('ask-card');
    await ask.waitFor({ timeout: 120_000 });
    expect(await ask.locator('.card-head strong').textContent()).toMatch(/^要向博世订 300 只火花塞/);
    const parts = ask.getByTestId('ask-options').getByRole('button');
    expect((await parts.allTextContents()).at(-1)).toBe(OTHER);
    expect(await seriousViolations(page)).toEqual([]);
    const picked = (await parts.first().textContent()) ?? '';
    await parts.first().focus();
    await page.keyboard.press('Enter');

    // The draft is for the typed supplier and the picked part; both cards stay as what was answered.
    const approval = page.getByTestId('approval-card');
    await approval.waitFor({ timeout: 120_000 });
    expect(await approval.textContent()).toContain('博世');
    expect(await approval.textContent()).toContain(picked.split(' · ')[1].split(' ')[0]);
    const records = page.locator('[data-testid=decision-record][data-outcome=answered]');
    await expect.poll(() => records.count()).toBe(2);
    expect(await records.nth(0).textContent()).toContain('博世（自己填写 / typed）');
    expect(await records.nth(1).textContent()).toContain(picked);
  }, 300_000);
});
