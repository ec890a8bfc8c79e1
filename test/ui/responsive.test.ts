import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildUi,
  hasChromium,
  horizontalOverflow,
  launchChromium,
  screenshot,
  seriousViolations,
  unreachableControls,
  WIDTHS,
} from './browser.ts';
import { type RunningProcura, startProcura } from './procura.ts';

const ANALYSIS = '帮我对摩托车火花塞做供应商比价分析';
const ORDER = '给博世下 200 个 F7TC 火花塞的采购单';
const RUN_MS = 150_000;

/**
 * Every screen at a phone's, a tablet's, a small laptop's and a desktop's width: nothing scrolls sideways, every
 * control is on screen and uncovered, the history and the side panel (steps, report, exports, approval queue) are
 * reachable, and axe-core finds no critical or serious violation.
 */
describe.skipIf(!hasChromium)('the browser UI at every width', () => {
  let procura: RunningProcura;
  let browser: Browser;
  let analysisId: string;
  let orderId: string;

  beforeAll(async () => {
    await buildUi();
    procura = await startProcura();
    browser = await launchChromium();
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await procura?.close();
  });

  const pageAt = async (width: number, user?: string): Promise<Page> => {
    const context = await browser.newContext({ viewport: { width, height: 820 }, locale: 'zh-CN' });
    if (user)
      await context.addInitScript(`localStorage.setItem('procura.token', ${JSON.stringify(procura.tokens[user])})`);
    return context.newPage();
  };

  /** The checks every screen passes (all reported at once). */
  const fits = async (page: Page, name: string) => {
    await screenshot(page, 'widths', name);
    expect.soft(await horizontalOverflow(page), `${name}: sideways scroll`).toBe(0);
    expect.soft(await unreachableControls(page), `${name}: unreachable controls`).toEqual([]);
    expect.soft(await seriousViolations(page), `${name}: axe`).toEqual([]);
  };

  it(
    'runs an analysis (steps, report, charts) and drafts an order (the approval card waits) to look at',
    async () => {
      const page = await pageAt(1440, 'laoxiao');
      await page.goto(procura.apiUrl);
      const sessionOf = () => /#\/s\/([\w-]+)/.exec(page.url())?.[1] ?? '';
      await page.getByTestId('composer').fill(ANALYSIS);
      await page.getByTestId('send').click();
      await page.getByTestId('stop').waitFor();
      await page.getByTestId('send').waitFor({ timeout: RUN_MS });
      analysisId = sessionOf();
      await page.getByTestId('new-chat').click();
      await page.getByTestId('composer').fill(ORDER);
      await page.getByTestId('send').click();
      await page.getByTestId('approval-card').waitFor({ timeout: RUN_MS });
      orderId = sessionOf();
      // The card took the focus when it appeared; its actions are the next stops of the keyboard.
      await expect.poll(() => page.evaluate('document.activeElement?.dataset.pending ?? ""')).not.toBe('');
      await page.keyboard.press('Tab');
      expect(await page.evaluate('document.activeElement.textContent')).toBe('批准');
      expect(await page.locator('.pending-cards[aria-live]').count()).toBe(1);
      expect(await page.locator('.messages[role=log]').count()).toBe(1);
      // A quiet transcript: no empty bubble, no zero-cost line for the offline model.
      expect(await page.getByTestId('answer-usage').count()).toBe(0);
      for (const bubble of await page.getByTestId('message-assistant').all())
        expect(((await bubble.textContent()) ?? '').trim()).not.toBe('');
      expect(analysisId).not.toBe('');
      expect(orderId).not.toBe(analysisId);
      await page.context().close();
    },
    2 * RUN_MS,
  );

  it(
    'a decided card stays in the transcript as a record (edited 200 → 300, rejected with its reason), after a reload too',
    async () => {
      const page = await pageAt(1440, 'laoxiao');
      await page.goto(procura.apiUrl);
      await page.getByTestId('composer').fill(ORDER);
      await page.getByTestId('send').click();
      const card = page.getByTestId('approval-card');
      await card.waitFor({ timeout: RUN_MS });
      await card.getByRole('button', { name: '修改' }).click();
      await card.getByLabel('数量').fill('300');
      await card.getByRole('button', { name: '预览修改' }).click();
      const edited = page.locator('[data-testid=decision-record][data-outcome=edited]');
      await edited.waitFor();
      expect(await edited.textContent()).toContain('第 1 行 数量 200 → 300');
      // The edit is a card of its own, previewed again, and approved as shown.
      await card.getByTestId('edited-card').waitFor({ timeout: RUN_MS });
      await card.getByRole('button', { name: '批准' }).click();
      await page.getByTestId('send').waitFor({ timeout: RUN_MS });

      await page.getByTestId('composer').fill(ORDER);
      await page.getByTestId('send').click();
      await card.waitFor({ timeout: RUN_MS });
      await card.getByRole('button', { name: '拒绝' }).click();
      await card.getByLabel('拒绝原因（可选）').fill('价格太高');
      await card.getByRole('button', { name: '确认拒绝' }).click();
      const rejected = page.locator('[data-testid=decision-record][data-outcome=rejected]');
      await rejected.waitFor();
      await page.getByTestId('send').waitFor({ timeout: RUN_MS });
      expect(await rejected.textContent()).toContain('价格太高');
      // A refused write is not a failure: no step shows as one.
      expect(await page.locator('[data-testid=steps] .step[data-status=error]').count()).toBe(0);
      await screenshot(page, 'transcript', 'decided-cards');

      // The records come from the server's history: a fresh browser (no cache) shows them in place.
      const fresh = await pageAt(1440, 'laoxiao');
      await fresh.goto(page.url());
      await fresh.locator('[data-testid=decision-record]').nth(1).waitFor({ timeout: 30_000 });
      expect(
        await fresh
          .locator('[data-testid=decision-record]')
          .evaluateAll((els) => els.map((e) => e.getAttribute('data-outcome'))),
      ).toEqual(['edited', 'approved', 'rejected']);
      expect(await fresh.locator('[data-testid=decision-record][data-outcome=edited]').textContent()).toContain(
        '200 → 300',
      );
      expect(await fresh.getByTestId('approval-card').count()).toBe(0);
      await screenshot(fresh, 'transcript', 'decided-cards-reloaded');
      await fresh.context().close();
      await page.context().close();
    },
    3 * RUN_MS,
  );

  for (const width of WIDTHS) {
    it(`${width} px: sign-in, approval card, history, analysis, steps, report and exports, admin queue`, async () => {
      const signIn = await pageAt(width);
      await signIn.goto(procura.apiUrl);
      await signIn.getByTestId('demo-users').waitFor();
      await fits(signIn, `${width}-01-sign-in`);
      await signIn.context().close();

      const page = await pageAt(width, 'laoxiao');
      await page.goto(`${procura.apiUrl}/#/s/${orderId}`);
      const card = page.getByTestId('approval-card');
      await card.waitFor({ timeout: 30_000 });
      // The card takes the conversation's width (not a sliver of it).
      const box = await card.boundingBox();
      expect(box?.width).toBeGreaterThan(Math.min(width, 900) * 0.5);
      await fits(page, `${width}-02-approval-card`);
      await card.getByRole('button', { name: '修改' }).click();
      await fits(page, `${width}-03-approval-edit`);
      await card.getByRole('button', { name: '取消' }).click();

      // The history: beside the conversation, or a drawer from the top bar.
      const toggleHistory = page.getByTestId('open-history');
      const analysisItem = page.locator(`[data-testid=session-item][data-session="${analysisId}"]`);
      if (await toggleHistory.isVisible()) {
        expect(await analysisItem.isVisible()).toBe(false);
        await toggleHistory.click();
        await analysisItem.waitFor({ state: 'visible' });
        await fits(page, `${width}-04-history`);
        await page.keyboard.press('Escape');
        await analysisItem.waitFor({ state: 'hidden' });
        await toggleHistory.click();
      }
      // Opening a conversation from the history closes the drawer.
      await analysisItem.locator('.session-open').click();
      await page.locator('.messages [data-testid=chart]').first().waitFor({ timeout: 30_000 });
      expect(await toggleHistory.isVisible()).toBe(width < 768);
      await fits(page, `${width}-05-analysis`);

      // The side panel: beside the conversation, or a drawer from the top bar; its steps, report and exports.
      const togglePanel = page.getByTestId('open-panel');
      if (await togglePanel.isVisible()) {
        expect(await page.getByTestId('report-tab').isVisible()).toBe(false);
        await togglePanel.click();
      }
      await page.locator('.tabs [role=tab]').first().click();
      await page.getByTestId('steps').waitFor();
      await fits(page, `${width}-06-steps`);
      await page.getByTestId('report-tab').click();
      await page.getByTestId('export-pdf').waitFor({ timeout: 30_000 });
      await fits(page, `${width}-07-report`);
      if (await togglePanel.isVisible()) {
        await page.getByTestId('close-panel').click();
        await page.getByTestId('report-tab').waitFor({ state: 'hidden' });
      }
      await page.context().close();

      const admin = await pageAt(width, 'admin');
      await admin.goto(procura.apiUrl);
      await admin.getByTestId('composer').waitFor();
      await fits(admin, `${width}-08-admin-chat`);
      if (await admin.getByTestId('open-panel').isVisible()) await admin.getByTestId('open-panel').click();
      await admin.getByTestId('approvals-tab').click();
      await admin.getByTestId('approval-queue').waitFor();
      await fits(admin, `${width}-09-admin-queue`);
      await admin.context().close();
    }, 120_000);
  }

  // Last: it stops the server.
  it('a message sent while the server is down is marked unsent, with a resend, under one bilingual banner', async () => {
    const page = await pageAt(390, 'laoxiao');
    await page.goto(procura.apiUrl);
    await page.getByTestId('composer').waitFor();
    await procura.close();
    await page.getByTestId('composer').fill(ANALYSIS);
    await page.getByTestId('send').click();
    await page.getByTestId('resend').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('error-banner').count()).toBe(1);
    expect(await page.getByTestId('error-banner').textContent()).toContain(
      '连接中断：服务器暂时无法访问 / connection lost',
    );
    expect(await page.getByTestId('stop').count()).toBe(0);
    await fits(page, '390-10-unsent');
    await page.context().close();
  });
});
