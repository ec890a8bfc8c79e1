import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHarness, startApiHarness } from '../api/harness.ts';
import { buildUi, hasChromium, launchChromium } from './browser.ts';

const FIRST = '你好';
const ORDER = '给博世下 200 个 F7TC 火花塞的采购单';
const ELSEWHERE = '帮我查一下 F7TC 的库存';
const STREAM = '/api/v1/agent/chat/stream/';

describe.skipIf(!hasChromium)('browser UI: one conversation in many tabs', () => {
  let h: ApiHarness;
  let browser: Browser;
  /** One browser (its tabs share storage and hear each other) and a second browser, signed in apart. */
  let here: BrowserContext;
  let there: BrowserContext;
  let sessionId: string;
  let first: Page;

  const userMessages = (page: Page) => page.getByTestId('message-user').allTextContents();

  async function openConversation(context: BrowserContext, signIn: boolean): Promise<Page> {
    const page = await context.newPage();
    await page.goto(`${h.url}/#/s/${sessionId}`);
    if (signIn) {
      await page.locator('input[name=token]').fill(h.tokens.laoxiao);
      await page.getByRole('button', { name: '登录' }).click();
    }
    await expect.poll(() => userMessages(page), { timeout: 30_000 }).toEqual([FIRST]);
    await page.getByTestId('message-assistant').first().waitFor({ timeout: 30_000 });
    return page;
  }

  /** Times (ms since `from`) of the requests `page` makes for the conversation's event stream. */
  function streamRequests(page: Page, from: number): number[] {
    const times: number[] = [];
    page.on('request', (request) => {
      if (request.url().includes(STREAM + sessionId)) times.push(Date.now() - from);
    });
    return times;
  }

  beforeAll(async () => {
    await buildUi();
    h = await startApiHarness();
    const { events } = await h.chat(h.tokens.laoxiao, { message: FIRST });
    sessionId = events[0].data.session_id as string;
    browser = await launchChromium();
    const options = { viewport: { width: 1440, height: 900 }, locale: 'zh-CN' };
    here = await browser.newContext(options);
    there = await browser.newContext(options);
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('an open, finished conversation asks for its stream a few times a minute at most', async () => {
    first = await openConversation(here, true);
    const times = streamRequests(first, Date.now());
    await first.waitForTimeout(20_000);
    // Looks 10 s and 30 s after the first: at most two in 20 s, never a loop of 204s.
    expect(times.length, `stream requests at ${times.slice(0, 10).join(', ')}… ms`).toBeLessThanOrEqual(2);
  }, 120_000);

  it('a run started in one tab shows in the others; a send another tab’s run refused is said and never shown as sent', async () => {
    // Another tab of the same browser, and a tab of another browser, idle on the conversation.
    const sameBrowser = await openConversation(here, false);
    const otherBrowser = await openConversation(there, true);
    // Long enough for each to have settled into its pause: looks 10 s and 30 s after it opened, none between.
    await first.waitForTimeout(15_000);

    await first.getByTestId('composer').fill(ORDER);
    await first.getByTestId('composer').press('Enter');
    await expect
      .poll(async () => (await h.call('GET', `/api/v1/history/sessions/${sessionId}`)).body.active_run, {
        timeout: 30_000,
      })
      .toBeTruthy();
    const started = Date.now();

    // The other browser does not know yet: its send is refused by the server, and it says so.
    await otherBrowser.getByTestId('composer').fill(ELSEWHERE);
    await otherBrowser.getByTestId('composer').press('Enter');
    // The tab of the same browser was told by the first at once: it shows the new request long before its next look.
    await expect
      .poll(() => userMessages(sameBrowser), { timeout: Math.max(1, started + 6_000 - Date.now()) })
      .toEqual([FIRST, ORDER]);
    const hint = otherBrowser.getByTestId('composer-hint');
    await hint.waitFor({ timeout: 15_000 });
    expect(await hint.textContent()).toContain('另一个标签页正在运行');
    // It then shows the run that holds the conversation, from the server: the first tab's request and its card.
    await otherBrowser.getByTestId('approval-card').waitFor({ timeout: 60_000 });
    expect(await userMessages(otherBrowser)).toEqual([FIRST, ORDER]);
    expect(await otherBrowser.getByTestId('composer').inputValue()).toBe(ELSEWHERE);

    await first.getByTestId('approval-card').waitFor({ timeout: 60_000 });
    await sameBrowser.getByTestId('approval-card').waitFor({ timeout: 10_000 });
    expect(await userMessages(sameBrowser)).toEqual([FIRST, ORDER]);

    // Enter while the card waits sends nothing, and says why.
    await first.getByTestId('composer').fill(ELSEWHERE);
    await first.getByTestId('composer').press('Enter');
    await first.getByTestId('composer-hint').waitFor({ timeout: 5_000 });
    expect(await first.getByTestId('composer-hint').textContent()).toContain('请先处理上面的确认');
    expect(await userMessages(first)).toEqual([FIRST, ORDER]);

    // A reload shows the server's transcript, whatever each browser kept.
    for (const page of [otherBrowser, sameBrowser]) {
      await page.reload();
      await page.getByTestId('approval-card').waitFor({ timeout: 30_000 });
      expect(await userMessages(page)).toEqual([FIRST, ORDER]);
    }
    const saved = await h.call('GET', `/api/v1/history/sessions/${sessionId}`);
    expect(
      (saved.body.messages as Array<{ role: string; content: string }>)
        .filter((m) => m.role === 'user')
        .map((m) => m.content),
    ).toEqual([FIRST, ORDER]);
  }, 240_000);
});
