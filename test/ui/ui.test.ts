import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { erpOrders, ROOT, type RunningProcura, startProcura } from './procura.ts';

const CHROMIUM = '/usr/bin/chromium';
const SHOTS = path.join(ROOT, 'test-output/ui');
const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium) console.warn(`跳过浏览器测试：没有 ${CHROMIUM} / browser tests skipped: ${CHROMIUM} is missing`);

const ANALYSIS = '帮我对摩托车火花塞做供应商比价分析';
const ORDER = '给博世下 200 个 F7TC 火花塞的采购单';
const RUN_MS = 150_000;

/** A part as the ERP's REST API answers it: names in both languages, its supplier's too. */
interface ErpPart {
  code: string;
  nameZh: string;
  nameEn: string;
  supplier: { nameZh: string; nameEn: string };
}

describe.skipIf(!hasChromium)('browser UI on procura start (offline model)', () => {
  let procura: RunningProcura;
  let browser: Browser;
  let page: Page;
  const shot = async (name: string) => {
    await page.evaluate('document.fonts.ready');
    await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
  };

  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    procura = await startProcura(120_000);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    page = await browser.newPage({ viewport: { width: 1440, height: 900 }, locale: 'zh-CN' });
    page.on('dialog', (dialog) => dialog.accept());
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await procura?.close();
  });

  const composer = () => page.getByTestId('composer');
  const send = async (message: string) => {
    await composer().fill(message);
    await page.getByTestId('send').click();
  };
  const idle = () => page.getByTestId('send').waitFor({ timeout: RUN_MS });
  const newChat = () => page.getByTestId('new-chat').click();
  const lastAnswer = () => page.getByTestId('message-assistant').last();
  const stepsTab = () => page.locator('.tabs [role=tab]').first().click();

  it('signs in with an API token', async () => {
    await page.goto(procura.apiUrl);
    await page.locator('input[name=token]').fill('pk_wrong-token');
    await page.getByRole('button', { name: '登录' }).click();
    await expect.poll(() => page.locator('.banner-error').count()).toBe(1);
    await shot('01-sign-in-error');
    await page.locator('input[name=token]').fill(procura.tokens.laoxiao);
    await shot('02-sign-in');
    await page.getByRole('button', { name: '登录' }).click();
    await composer().waitFor();
    expect(await page.getByText('有什么采购任务？').count()).toBe(1);
    await shot('03-empty-chat');
  });

  it(
    'runs the analysis: steps complete, a report, at least two charts drawn',
    async () => {
      await send(ANALYSIS);
      await page.locator('[data-testid=steps] .step').first().waitFor({ timeout: 30_000 });
      await shot('04-analysis-running');
      await idle();
      await stepsTab();
      const statuses = await page
        .locator('[data-testid=steps] .step')
        .evaluateAll((els) => els.map((e) => e.getAttribute('data-status')));
      expect(statuses.length).toBeGreaterThan(3);
      expect(statuses).not.toContain('running');
      expect(await page.getByTestId('error-banner').count()).toBe(0);
      // Charts: images actually decoded (or interactive canvases), in the answer.
      await expect
        .poll(
          () =>
            page.locator('.messages [data-testid=chart]').evaluateAll(
              (els) =>
                els.filter((e) => {
                  const el = e as unknown as {
                    complete?: boolean;
                    naturalWidth?: number;
                    querySelector(q: string): unknown;
                  };
                  return e.tagName === 'IMG'
                    ? Boolean(el.complete && el.naturalWidth)
                    : Boolean(el.querySelector('canvas'));
                }).length,
            ),
          { timeout: 30_000 },
        )
        .toBeGreaterThanOrEqual(2);
      // The answer names its charts by number, as the gallery captions them; no chart address is shown as text.
      const answerText = await page.locator('.messages .message-assistant .markdown').last().innerText();
      expect(answerText).not.toMatch(/https?:\/\/\S+\.(png|svg)/);
      expect(answerText).toContain('图表 1');
      // Each caption numbers its chart and says what it shows with its main figure.
      const captions = await page.locator('.messages .chart-figure figcaption').allInnerTexts();
      expect(captions.map((c) => c.split('：')[0])).toEqual(expect.arrayContaining(['图表 1', '图表 2']));
      for (const caption of captions) expect(caption).toMatch(/^图表 \d+：.+(最高|最大)/);
      await shot('05-analysis-done');
      // Each figure's citation names its source on hover: the ERP request and its trace id, or the page and when it
      // was read.
      const sourceTitles = (scope: string) =>
        page.locator(`${scope} sup abbr[title]`).evaluateAll((els) => els.map((e) => e.getAttribute('title')));
      const cited = await sourceTitles('.messages');
      expect(cited.length).toBeGreaterThan(10);
      expect(cited.filter((t) => !t)).toEqual([]);
      expect(cited.some((t) => /^ERP part_price_history \{.*\} · x-trace-id \S+$/.test(t ?? ''))).toBe(true);
      expect(cited.some((t) => /^http:\/\/\S+ · 读取于 \/ read at \d{4}-\d\d-\d\dT/.test(t ?? ''))).toBe(true);
      await page.getByTestId('report-tab').click();
      await page.locator('[data-testid=report-panel] .report-body h1').waitFor({ timeout: 30_000 });
      expect(await page.locator('[data-testid=report-panel] .report-body table').count()).toBeGreaterThan(0);
      expect((await sourceTitles('[data-testid=report-panel]')).filter((t) => !t)).toEqual([]);
      expect((await sourceTitles('[data-testid=report-panel]')).length).toBeGreaterThan(10);
      const downloads = await page.getByTestId('download').allTextContents();
      expect(downloads.some((d) => d.includes('.md'))).toBe(true);
      expect(downloads.some((d) => d.includes('.json'))).toBe(true);
      await shot('06-report');
      // The report converts on the server to a PDF and a workbook people can send on.
      for (const [button, extension, magic] of [
        ['export-pdf', 'pdf', '%PDF'],
        ['export-xlsx', 'xlsx', 'PK'],
      ]) {
        // A PDF renders in its own Chromium with the charts at 2×: on a busy two-core machine that passes 30 s.
        const [file] = await Promise.all([
          page.waitForEvent('download', { timeout: 120_000 }),
          page.getByTestId(button).click(),
        ]);
        expect(file.suggestedFilename()).toMatch(new RegExp(`^report_\\d{8}_\\d{6}\\.${extension}$`));
        expect(
          fs
            .readFileSync(await file.path())
            .subarray(0, magic.length)
            .toString('latin1'),
        ).toBe(magic);
      }
      // Click to enlarge.
      await page.locator('.messages .chart-thumb').first().click();
      await page.locator('.lightbox img').waitFor();
      await shot('07-chart-enlarged');
      await page.locator('.lightbox-close').click();
    },
    RUN_MS + 240_000,
  );

  it('refuses an image in an answer from any address but its own and the chart renderer', async () => {
    // A listener on another loopback port stands in for a server a hostile page would have an answer point at.
    const asked: string[] = [];
    const outside = http.createServer((req, res) => {
      asked.push(req.url ?? '');
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => outside.listen(0, '127.0.0.1', resolve));
    const { port } = outside.address() as AddressInfo;
    try {
      const src = `http://127.0.0.1:${port}/leak.png?q=secret`;
      const refused = await page.evaluate(`new Promise((resolve) => {
        const img = document.createElement('img');
        document.addEventListener('securitypolicyviolation', (e) => {
          img.remove(); // leave the page as the next tests expect it
          resolve(e.violatedDirective);
        }, { once: true });
        img.src = ${JSON.stringify(src)};
        document.querySelector('.messages').append(img);
      })`);
      expect(refused).toBe('img-src');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(asked).toEqual([]);
    } finally {
      outside.close();
    }
  });

  it(
    'approves an order in the card; the order is confirmed and in the ERP',
    async () => {
      await newChat();
      await send(ORDER);
      const card = page.getByTestId('approval-card');
      await card.waitFor({ timeout: RUN_MS });
      expect(await card.locator('table.order-lines tbody tr').count()).toBe(1);
      expect(await card.locator('table.order-lines tbody td').nth(2).textContent()).toBe('200');
      await shot('08-approval-card');
      // The card names the supplier and the part in the page's language, as the ERP names them.
      const partCell = card.locator('table.order-lines tbody td').nth(1);
      const [code] = ((await partCell.textContent()) ?? '').split(' ');
      const found = await fetch(`${procura.erpUrl}/parts/search?name=${encodeURIComponent(code)}`, {
        headers: { authorization: `Bearer ${procura.tokens.laoxiao}` },
      });
      const part = ((await found.json()) as { items: ErpPart[] }).items.find((p) => p.code === code);
      expect(part, code).toBeDefined();
      await page.getByRole('button', { name: 'English' }).click();
      expect(await partCell.textContent()).toBe(`${code} ${part?.nameEn}`);
      expect(await card.textContent()).toContain(`Supplier: ${part?.supplier.nameEn}`);
      await page.getByRole('button', { name: '中文' }).click();
      expect(await partCell.textContent()).toBe(`${code} ${part?.nameZh}`);
      expect(await card.textContent()).toContain(part?.supplier.nameZh);
      await card.getByRole('button', { name: '批准' }).click();
      await idle();
      await expect.poll(() => lastAnswer().textContent(), { timeout: RUN_MS }).toMatch(/PO-\d{6}-/);
      const orderNo = /PO-\d{6}-[A-Z]?\d+/.exec((await lastAnswer().textContent()) ?? '')?.[0] ?? '';
      const orders = await erpOrders(procura.erpUrl, procura.tokens.laoxiao, orderNo);
      expect(orders.map((o) => o.orderNo)).toEqual([orderNo]);
      expect(orders[0].lines[0].quantity).toBe(200);
      expect(await page.getByTestId('approval-card').count()).toBe(0);
      await shot('09-order-confirmed');
    },
    RUN_MS + 60_000,
  );

  it(
    'a buyer’s small order at a fair price is approved by the ERP at once; the card shows the price check',
    async () => {
      await newChat();
      await send('给火炬下 200 个 F7TC 火花塞的采购单');
      const card = page.getByTestId('approval-card');
      await card.waitFor({ timeout: RUN_MS });
      const badge = card.getByTestId('price-check');
      expect(await badge.getAttribute('data-severity')).toMatch(/^(ok|info)$/);
      await card.getByRole('button', { name: '批准' }).click();
      await idle();
      await expect.poll(() => lastAnswer().textContent(), { timeout: RUN_MS }).toMatch(/auto-approved/);
      const orderNo = /PO-\d{6}-[A-Z]?\d+/.exec((await lastAnswer().textContent()) ?? '')?.[0] ?? '';
      const [order] = await erpOrders(procura.erpUrl, procura.tokens.laoxiao, orderNo);
      expect(order).toMatchObject({ status: 'approved', approval: { rule: 'auto-approved' } });
      await shot('09b-auto-approved');
    },
    RUN_MS + 60_000,
  );

  it(
    'an order flagged critical waits for an admin, who approves it with a comment in the approval queue',
    async () => {
      await newChat();
      await send('给博世下 200 个 F7TC 火花塞的采购单');
      const card = page.getByTestId('approval-card');
      await card.waitFor({ timeout: RUN_MS });
      // The buyer raises the price far above what the project pays: the badge goes, the ERP flags it critical.
      await card.getByRole('button', { name: '修改' }).click();
      await card.getByLabel('单价').fill('25');
      // While edited, the card shows no stale policy line; the edit comes back previewed afresh by the ERP.
      expect(await card.getByTestId('approval-policy').count()).toBe(0);
      await card.getByRole('button', { name: '预览修改' }).click();
      await card.getByTestId('edited-card').waitFor({ timeout: RUN_MS });
      expect(await card.getByTestId('approval-policy').getAttribute('data-rule')).toBe('needs-admin');
      expect(await card.getByTestId('price-check').getAttribute('data-severity')).toBe('critical');
      await card.getByRole('button', { name: '批准' }).click();
      await idle();
      await expect.poll(() => lastAnswer().textContent(), { timeout: RUN_MS }).toMatch(/critical/);
      const orderNo = /PO-\d{6}-[A-Z]?\d+/.exec((await lastAnswer().textContent()) ?? '')?.[0] ?? '';
      const [pending] = await erpOrders(procura.erpUrl, procura.tokens.laoxiao, orderNo);
      expect(pending).toMatchObject({ status: 'pending_approval', approval: { rule: 'needs-admin' } });
      expect(pending.lines[0].priceCheck.severity).toBe('critical');

      const admin = await browser.newPage({ viewport: { width: 1440, height: 900 }, locale: 'zh-CN' });
      try {
        await admin.goto(procura.apiUrl);
        await admin.locator('input[name=token]').fill(procura.tokens.admin);
        await admin.getByRole('button', { name: '登录' }).click();
        await admin.getByTestId('approvals-tab').click();
        const row = admin.locator(`[data-testid=pending-order][data-order-no="${orderNo}"]`);
        await row.waitFor({ timeout: 30_000 });
        expect(await row.getByTestId('price-check').getAttribute('data-severity')).toBe('critical');
        expect(await row.locator('.queue-reason').textContent()).toMatch(/12-month median/);
        await row.getByLabel('审批意见（可选）').fill('紧急补货，同意');
        await admin.evaluate('document.fonts.ready');
        await admin.screenshot({ path: path.join(SHOTS, '09c-approval-queue.png') });
        await row.getByRole('button', { name: '批准' }).click();
        await row.waitFor({ state: 'detached', timeout: 30_000 });
      } finally {
        await admin.close();
      }
      const [approved] = await erpOrders(procura.erpUrl, procura.tokens.laoxiao, orderNo);
      expect(approved).toMatchObject({ status: 'approved', approval: { rule: 'admin-approved' } });
      expect(approved.note).toContain('紧急补货，同意');

      // The buyer's conversation, open all along, is told in place: who approved, with the comment.
      const notice = page.locator(`[data-testid=order-decision][data-order-no="${orderNo}"]`);
      await notice.waitFor({ timeout: 30_000 });
      expect(await notice.getAttribute('data-decision')).toBe('approved');
      expect(await notice.textContent()).toContain(`管理员 admin 已批准订单 ${orderNo}：紧急补货，同意`);
      await shot('09d-buyer-told-of-approval');
      // It stays there after a reload, once.
      await page.reload();
      await lastAnswer().waitFor({ timeout: 30_000 });
      await notice.waitFor({ timeout: 30_000 });
      expect(await page.getByTestId('order-decision').count()).toBe(1);
      await page.getByRole('button', { name: 'English' }).click();
      expect(await notice.textContent()).toContain(`Order ${orderNo} approved by admin: 紧急补货，同意`);
      await page.getByRole('button', { name: '中文' }).click();
    },
    RUN_MS + 60_000,
  );

  it(
    'always allow in this session: later orders within the approved part and amount go through without a card, others and revoked ones show it',
    async () => {
      await newChat();
      await send('给火炬下 201 个 F7TC 火花塞的采购单');
      const card = page.getByTestId('approval-card');
      await card.waitFor({ timeout: RUN_MS });
      // The card says what "always allow" would cover: this supplier, this part, at most this order's amount.
      const total = Number(
        ((await card.getByTestId('always-allow-scope').textContent()) ?? '')
          .match(/¥([\d,.]+)/)?.[1]
          ?.replace(/,/g, ''),
      );
      expect(await card.getByTestId('always-allow-scope').textContent()).toMatch(/F7TC · 不超过 \/ up to ¥[\d,.]+$/);
      await card.getByTestId('always-allow').click();
      await idle();
      await expect.poll(() => lastAnswer().textContent(), { timeout: RUN_MS }).toMatch(/PO-\d{6}-/);
      const firstNo = /PO-\d{6}-[A-Z]?\d+/.exec((await lastAnswer().textContent()) ?? '')?.[0] ?? '';
      const [first] = await erpOrders(procura.erpUrl, procura.tokens.laoxiao, firstNo);
      expect(first.totalAmount).toBeCloseTo(total, 2);
      expect(await page.getByTestId('standing-permissions').textContent()).toContain('创建采购订单');
      // A smaller order of the same part is approved without asking; the ERP still applies its policy.
      await send('给火炬下 150 个 F7TC 火花塞的采购单');
      await idle();
      await expect.poll(() => lastAnswer().textContent(), { timeout: RUN_MS }).toMatch(/× 150/);
      expect(await page.getByTestId('approval-card').count()).toBe(0);
      const secondNo = /PO-\d{6}-[A-Z]?\d+/.exec((await lastAnswer().textContent()) ?? '')?.[0] ?? '';
      const [second] = await erpOrders(procura.erpUrl, procura.tokens.laoxiao, secondNo);
      expect(second.lines[0].quantity).toBe(150);
      await shot('09d-standing-permission');
      // More than the approved amount is outside the permission: the card is shown again and nothing is written.
      const before = (await erpOrders(procura.erpUrl, procura.tokens.laoxiao, 'F7TC')).length;
      await send('给火炬下 400 个 F7TC 火花塞的采购单');
      await card.waitFor({ timeout: RUN_MS });
      expect(await card.textContent()).toContain('400');
      expect((await erpOrders(procura.erpUrl, procura.tokens.laoxiao, 'F7TC')).length).toBe(before);
      await card.getByRole('button', { name: '拒绝' }).click();
      await card.getByRole('button', { name: '确认拒绝' }).click();
      await idle();
      // Revoked, the card is back even within the amount.
      await page.getByTestId('revoke-permission').click();
      expect(await page.getByTestId('standing-permissions').count()).toBe(0);
      await send('给火炬下 150 个 F7TC 火花塞的采购单');
      await card.waitFor({ timeout: RUN_MS });
      await card.getByRole('button', { name: '批准' }).click();
      await idle();
    },
    RUN_MS * 3,
  );

  it(
    'rejects an order with a reason: nothing is written',
    async () => {
      await newChat();
      await send('给博世下 321 个 F7TC 火花塞的采购单');
      const card = page.getByTestId('approval-card');
      await card.waitFor({ timeout: RUN_MS });
      await card.getByRole('button', { name: '拒绝' }).click();
      await card.locator('textarea').fill('价格需要重新议价');
      await shot('10-reject-reason');
      await card.getByRole('button', { name: '确认拒绝' }).click();
      await idle();
      expect(await page.getByTestId('approval-card').count()).toBe(0);
      const orders = await erpOrders(procura.erpUrl, procura.tokens.laoxiao, 'F7TC');
      expect(orders.some((o) => o.lines.some((l) => l.quantity === 321))).toBe(false);
      await shot('11-rejected');
    },
    RUN_MS + 60_000,
  );

  // Each offline model call takes 700 ms on this Procura only, so a reload, a second browser or Stop lands while the
  // run is still working; the rest of the file runs on one that answers at once.
  describe('while a run is still working', () => {
    let atOnce: { procura: RunningProcura; page: Page };
    beforeAll(async () => {
      atOnce = { procura, page };
      procura = await startProcura(120_000, { PROCURA_OFFLINE_LATENCY_MS: '700' });
      const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, locale: 'zh-CN' });
      await context.addInitScript(`localStorage.setItem('procura.token', ${JSON.stringify(procura.tokens.laoxiao)})`);
      page = await context.newPage();
      await page.goto(procura.apiUrl);
      await composer().waitFor();
    }, 240_000);
    afterAll(async () => {
      await page?.context().close();
      await procura?.close();
      ({ procura, page } = atOnce);
    });

    it(
      'reloading mid-run re-attaches to the live run and restores it',
      async () => {
        await newChat();
        await send(ANALYSIS);
        await page.locator('[data-testid=steps] .step-completed').first().waitFor({ timeout: 30_000 });
        const before = await page.locator('[data-testid=steps] .step').count();
        await page.reload();
        await composer().waitFor();
        expect(await page.locator('.message-user').first().textContent()).toBe(ANALYSIS);
        // Re-attached to the live run: shown as running (Stop), steps restored and still streaming.
        await page.getByTestId('stop').waitFor({ timeout: 10_000 });
        expect(await page.locator('[data-testid=steps] .step').count()).toBeGreaterThanOrEqual(before);
        await shot('12-reloaded-mid-run');
        await idle();
        await expect
          .poll(() => page.locator('.messages [data-testid=chart]').count(), { timeout: 30_000 })
          .toBeGreaterThanOrEqual(2);
        // Replayed from Last-Event-ID: no duplicated step rows nor answers.
        await stepsTab();
        const ids = await page
          .locator('[data-testid=steps] .step')
          .evaluateAll((els) => els.map((e) => e.getAttribute('data-step')));
        expect(await page.locator('.message-user').count()).toBe(1);
        expect(await page.getByTestId('message-assistant').count()).toBe(1);
        expect(ids.length).toBeGreaterThan(3);
        expect(new Set(ids).size).toBe(ids.length);
        await shot('13-reloaded-run-finished');
      },
      RUN_MS + 60_000,
    );

    it(
      'another browser opens the running session from history and follows it live, without duplicates',
      async () => {
        await newChat();
        await send(ANALYSIS);
        await page.locator('[data-testid=steps] .step-completed').first().waitFor({ timeout: 30_000 });
        const url = page.url();
        const other = await browser.newContext({ viewport: { width: 1280, height: 800 } });
        await other.addInitScript(`localStorage.setItem('procura.token', ${JSON.stringify(procura.tokens.laoxiao)})`);
        const second = await other.newPage();
        try {
          await second.goto(url);
          await second.getByTestId('stop').waitFor({ timeout: 15_000 });
          await second.getByTestId('send').waitFor({ timeout: RUN_MS });
          expect(await second.locator('.message-user').count()).toBe(1);
          expect(await second.getByTestId('message-assistant').count()).toBe(1);
          const text = (await second.getByTestId('message-assistant').textContent()) ?? '';
          expect(text.match(/供应商比价结果/g)?.length).toBe(1);
          await expect
            .poll(() => second.locator('.messages [data-testid=chart][data-kind=image]').count(), { timeout: 30_000 })
            .toBe(2);
          await second.screenshot({ path: path.join(SHOTS, '14-second-browser.png') });
        } finally {
          await other.close();
        }
        await idle();
      },
      RUN_MS + 60_000,
    );

    it(
      'Stop cancels the run on the server and keeps the session usable',
      async () => {
        await newChat();
        await send(ANALYSIS);
        await page.locator('[data-testid=steps] .step').first().waitFor({ timeout: 30_000 });
        await page.getByTestId('stop').click();
        await page.getByTestId('stopped').waitFor({ timeout: 30_000 });
        await idle();
        expect(await page.locator('[data-testid=steps] .step-running').count()).toBe(0);
        await shot('18-stopped');
        const id = /#\/s\/([\w-]+)/.exec(page.url())?.[1] ?? '';
        const saved = await fetch(`${procura.apiUrl}/api/v1/history/sessions/${id}`, {
          headers: { authorization: `Bearer ${procura.tokens.laoxiao}` },
        }).then((r) => r.json() as Promise<{ active_run: string | null; messages: Array<{ status?: string }> }>);
        expect(saved.active_run).toBeNull();
        expect(saved.messages.at(-1)?.status).toBe('cancelled');
      },
      RUN_MS,
    );
  });

  it(
    'reloading with a pending approval shows the card once, and it still works',
    async () => {
      await newChat();
      await send('给博世下 150 个 F7TC 火花塞的采购单');
      await page.getByTestId('approval-card').waitFor({ timeout: RUN_MS });
      await page.reload();
      await page.getByTestId('approval-card').waitFor({ timeout: 30_000 });
      expect(await page.getByTestId('approval-card').count()).toBe(1);
      await shot('14-reloaded-pending-approval');
      await page.getByTestId('approval-card').getByRole('button', { name: '批准' }).click();
      await idle();
      await expect.poll(() => lastAnswer().textContent(), { timeout: RUN_MS }).toMatch(/PO-\d{6}-/);
      await page.reload();
      await composer().waitFor();
      await lastAnswer().waitFor();
      expect(await page.getByTestId('approval-card').count()).toBe(0);
    },
    RUN_MS + 60_000,
  );

  it(
    'asks which part with option buttons, and missing order fields with a form',
    async () => {
      await newChat();
      await send('给博世下 200 个火花塞的采购单');
      const ask = page.getByTestId('ask-card');
      await ask.waitFor({ timeout: RUN_MS }).catch(async (error) => {
        await shot('99-ask-missing');
        throw error;
      });
      const options = ask.locator('button.option');
      expect(await options.count()).toBeGreaterThan(1);
      expect(await options.count()).toBeLessThanOrEqual(8);
      await shot('15-ask-user');
      await ask.getByRole('button', { name: /D8TC/ }).click();
      const card = page.getByTestId('approval-card');
      await card.waitFor({ timeout: RUN_MS });
      // Edit the quantity in the card before approving.
      await card.getByRole('button', { name: '修改' }).click();
      await card.getByLabel('数量').fill('240');
      await shot('16-approval-edit');
      await card.getByRole('button', { name: '预览修改' }).click();
      await card.getByTestId('edited-card').waitFor({ timeout: RUN_MS });
      expect(await card.locator('table.order-lines tbody td').nth(2).textContent()).toBe('240');
      await card.getByRole('button', { name: '批准' }).click();
      await idle();
      await expect.poll(() => lastAnswer().textContent(), { timeout: RUN_MS }).toMatch(/D8TC[^\n]*× 240/);

      await newChat();
      await send('帮我下一个采购单');
      const form = page.getByTestId('order-info-card');
      await form.waitFor({ timeout: RUN_MS });
      await shot('17-order-info');
      const inputs = form.locator('input');
      await inputs.nth(0).fill('博世');
      await inputs.nth(1).fill('F7TC');
      await inputs.nth(2).fill('130');
      await form.getByRole('button', { name: '提交' }).click();
      const approval = page.getByTestId('approval-card');
      await approval.waitFor({ timeout: RUN_MS });
      expect(await approval.locator('table.order-lines tbody td').nth(2).textContent()).toBe('130');
      await approval.getByRole('button', { name: '拒绝' }).click();
      await approval.getByRole('button', { name: '确认拒绝' }).click();
      await idle();
    },
    RUN_MS * 2,
  );

  it('deletes a session from the history', async () => {
    const items = page.getByTestId('session-item');
    await expect.poll(() => items.count()).toBeGreaterThanOrEqual(5);
    const total = await items.count();
    await shot('19-history');
    const first = items.first();
    const id = await first.getAttribute('data-session');
    await first.hover();
    await first.getByTestId('delete-session').click();
    await expect.poll(() => items.count()).toBe(total - 1);
    expect(await page.locator(`[data-session="${id}"]`).count()).toBe(0);
    await shot('20-deleted');
  });

  it('switches to English', async () => {
    await page.getByRole('button', { name: 'English' }).click();
    await page.getByTestId('new-chat').click();
    expect(await page.getByText('What do you need to buy or analyse?').count()).toBe(1);
    await shot('21-english');
  });
});
