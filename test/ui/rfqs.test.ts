import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StartedStack, startStack } from '../../bench/eval/stack.ts';
import { bodyCall } from '../http-call.ts';
import { rfqWithReplies } from '../mail/rfq-judges.ts';
import {
  buildUi,
  hasChromium,
  horizontalOverflow,
  launchChromium,
  screenshot,
  seriousViolations,
  unreachableControls,
} from './browser.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted field by field
type Any = any;

/** How the browser writes a CNY figure: the ERP's number, formatted, never recomputed. */
const cny = (n: number) => n.toLocaleString('zh-CN', { minimumFractionDigits: 2, maximumFractionDigits: 4 });

/**
 * The RFQ screens in Chromium against the started stack (every part, the RFQ mail and the simulated suppliers
 * answering by SMTP): the list, one RFQ with its invitations, quotes in CNY as the ERP converts them, each quote's
 * source mail and the proposal; at a phone's and a desktop's width, checked by axe-core. The award button asks the
 * sourcing agent in a conversation, where nothing is written before the person approves.
 */
describe.skipIf(!hasChromium)('browser UI: requests for quotation', () => {
  let stack: StartedStack;
  let browser: Browser;
  let rfq: Any;
  const erp = bodyCall(
    () => stack.erpUrl,
    () => stack.tokens.laoxiao,
  );
  const orderCount = async () => (await erp('GET', '/orders/search?size=1')).total as number;

  async function signedIn(user: string, width: number): Promise<Page> {
    const context = await browser.newContext({ viewport: { width, height: 900 }, locale: 'zh-CN' });
    await context.addInitScript(`localStorage.setItem('procura.token', ${JSON.stringify(stack.tokens[user])})`);
    const page = await context.newPage();
    await page.goto(stack.apiUrl);
    await page.getByTestId('composer').waitFor();
    return page;
  }

  async function checkPage(page: Page, name: string) {
    await screenshot(page, 'rfqs', name);
    expect(await seriousViolations(page), name).toEqual([]);
    expect(await horizontalOverflow(page), name).toBe(0);
    expect(await unreachableControls(page), name).toEqual([]);
  }

  beforeAll(async () => {
    await buildUi();
    stack = await startStack();
    browser = await launchChromium();
    rfq = await rfqWithReplies(erp, stack.tokens.admin, 200);
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  for (const width of [1440, 390]) {
    it(`at ${width} px: the list, the RFQ with the ERP's CNY figures and proposal, a quote's source mail`, async () => {
      const page = await signedIn('laoxiao', width);
      await page.getByTestId('rfqs').click();
      const row = page.locator(`[data-testid=rfq-row][data-rfq="${rfq.rfqNo}"]`);
      await row.waitFor();
      expect(await row.textContent()).toContain('收集报价中');
      expect((await row.getByTestId('rfq-replies').textContent())?.trim()).toBe('5/5');
      await checkPage(page, `list-${width}`);

      await row.getByRole('link', { name: rfq.rfqNo }).click();
      await page.getByTestId('rfq-quotes').waitFor();
      expect(page.url()).toContain(`#/rfqs/${rfq.id}`);
      const invitations = page.getByTestId('rfq-invitation');
      expect(await invitations.count()).toBe(5);
      expect(await page.locator('[data-testid=rfq-invitation][data-status=declined]').count()).toBe(1);
      // Every quote shows exactly the ERP's effective figures.
      const quotes = (await erp('GET', `/rfqs/${rfq.id}`)).quotes as Any[];
      expect(await page.getByTestId('rfq-quote').count()).toBe(quotes.length);
      for (const q of quotes) {
        const shown = page.locator(
          `[data-testid=rfq-quote][data-supplier="${q.supplier.id}"][data-line="${q.lineNo}"]`,
        );
        const total = (await shown.getByTestId('eff-total').textContent())?.trim();
        expect(total, q.supplier.nameZh).toBe(q.effective ? cny(q.effective.totalCny) : '—');
        const unit = (await shown.getByTestId('eff-unit').textContent()) ?? '';
        if (q.effective) expect(unit.startsWith(cny(q.effective.unitPriceCny))).toBe(true);
      }
      const proposal = await erp('GET', `/rfqs/${rfq.id}/proposal`);
      const ranked = page.getByTestId('rfq-ranked');
      expect(await ranked.evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-supplier'))))).toEqual(
        proposal.ranking.map((r: Any) => r.supplier.id),
      );
      expect(await ranked.first().getByTestId('rfq-recommended').count()).toBe(1);
      expect(await ranked.first().textContent()).toContain(proposal.ranking[0].why[0]);
      const excluded = await page
        .getByTestId('rfq-excluded')
        .locator('li')
        .evaluateAll((els) => els.map((e) => e.getAttribute('data-reason')));
      expect(excluded.sort()).toEqual(proposal.excluded.map((e: Any) => e.reason).sort());
      expect(await page.getByTestId('rfq-award-button').count()).toBe(proposal.ranking.length);
      await checkPage(page, `rfq-${width}`);

      // A quote read from a mail's attachment links to that mail, whose attachment downloads as it came.
      const mailed = quotes.find((q) => q.source.kind === 'mail' && q.status === 'quoted' && q.source.attachment);
      await page
        .locator(`[data-testid=rfq-quote][data-supplier="${mailed.supplier.id}"]`)
        .getByTestId('quote-source')
        .click();
      const message = page.getByTestId('rfq-message');
      await message.waitFor();
      expect(await message.textContent()).toContain(mailed.source.from);
      const attachment = page.getByTestId('rfq-attachments').locator('li', { hasText: mailed.source.attachment });
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        attachment.getByTestId('rfq-attachment-download').click(),
      ]);
      expect(download.suggestedFilename()).toBe(mailed.source.attachment);
      expect(fs.statSync(await download.path()).size).toBeGreaterThan(0);
      await checkPage(page, `message-${width}`);
      await page.goBack();
      await page.getByTestId('rfq-quotes').waitFor();
      await page.context().close();
    }, 120_000);
  }

  it('the supplier’s quote form, reached from the invitation mail’s link, at 390 and 1,440 px', async () => {
    const invitation = (await erp('GET', `/rfqs/${rfq.id}/messages`)).items.find((m: Any) => m.direction === 'out');
    const link = /在线报价 \/ quote online: (\S+)/.exec(invitation.body)?.[1] ?? '';
    expect(link.startsWith(`${stack.apiUrl}/quote/`)).toBe(true);
    for (const width of [390, 1440]) {
      const context = await browser.newContext({ viewport: { width, height: 900 }, locale: 'zh-CN' });
      const page = await context.newPage();
      await page.goto(link);
      await page.getByRole('button', { name: '提交报价 / send quote' }).waitFor();
      expect(await page.textContent('h1')).toContain(rfq.rfqNo);
      await checkPage(page, `quote-form-${width}`);
      await context.close();
    }
  }, 60_000);

  it('a viewer reads the RFQ but gets no award button; another project’s buyer does not see it', async () => {
    const page = await signedIn('viewer', 390);
    await page.goto(`${stack.apiUrl}/#/rfqs/${rfq.id}`);
    await page.getByTestId('rfq-quotes').waitFor();
    expect(await page.getByTestId('rfq-award-button').count()).toBe(0);
    expect(await page.getByTestId('rfq-award-reason').textContent()).toContain('viewer');
    await page.context().close();

    const other = await signedIn('zhangwei', 1440);
    await other.goto(`${stack.apiUrl}/#/rfqs/${rfq.id}`);
    await other.locator('.rfqs .banner-error').waitFor();
    expect(await other.getByTestId('rfq-quotes').count()).toBe(0);
    await other.goto(`${stack.apiUrl}/#/rfqs`);
    await other.getByRole('heading', { name: '询价单（RFQ）' }).waitFor();
    await other.waitForTimeout(200);
    expect(await other.locator(`[data-rfq="${rfq.rfqNo}"]`).count()).toBe(0);
    await other.context().close();
  }, 60_000);

  it('the award button asks the sourcing agent: one card shows the close and the order it writes; nothing is written before it is approved, then one order', async () => {
    const page = await signedIn('laoxiao', 1440);
    await page.goto(`${stack.apiUrl}/#/rfqs/${rfq.id}`);
    const proposal = await erp('GET', `/rfqs/${rfq.id}/proposal`);
    const recommended = page.locator(`[data-testid=rfq-ranked][data-supplier="${proposal.recommended.id}"]`);
    const before = await orderCount();
    await recommended.getByTestId('rfq-award-button').click();
    // A conversation of its own, where one decision (close, then award) waits, its card showing what the ERP writes.
    const card = page.getByTestId('approval-card');
    await card.waitFor({ timeout: 60_000 });
    expect(page.url()).toMatch(/#\/s\//);
    expect(await page.getByTestId('message-user').last().textContent()).toContain(
      `把 ${rfq.rfqNo} 授标给${proposal.recommended.nameZh}`,
    );
    expect((await erp('GET', `/rfqs/${rfq.id}`)).status).toBe('collecting');
    expect(await orderCount()).toBe(before);
    expect(await card.textContent()).toContain(proposal.recommended.nameZh);
    const summary = await card.getByTestId('award-summary').textContent();
    expect(summary).toContain(rfq.rfqNo);
    expect(summary).toContain('授标前先截止询价');
    expect(summary).toContain('排名第 1');
    const shownTotal = (await card.locator('table.order-lines tfoot td').last().textContent()) ?? '';
    await card.getByRole('button', { name: '批准' }).click();
    await expect.poll(async () => (await erp('GET', `/rfqs/${rfq.id}`)).status, { timeout: 60_000 }).toBe('awarded');
    const final = await erp('GET', `/rfqs/${rfq.id}`);
    expect(final.award.supplierId).toBe(proposal.recommended.id);
    expect(await orderCount()).toBe(before + 1);
    const written = await erp('GET', `/orders/${final.award.orderId}`);
    expect(Number(shownTotal.replace(/[¥,]/g, ''))).toBeCloseTo(written.totalAmount, 2);
    await expect
      .poll(() => page.getByTestId('message-assistant').last().textContent(), { timeout: 60_000 })
      .toContain(final.award.orderNo);
    // The RFQ's page now says who it went to and the order, and offers no second award.
    await page.getByTestId('rfqs').click();
    await page.locator(`[data-rfq="${rfq.rfqNo}"]`).getByRole('link').click();
    expect(await page.getByTestId('rfq-award').textContent()).toContain(final.award.orderNo);
    expect(await page.getByTestId('rfq-award-button').count()).toBe(0);
    await screenshot(page, 'rfqs', 'awarded-1440');
    await page.context().close();
  }, 180_000);
});
