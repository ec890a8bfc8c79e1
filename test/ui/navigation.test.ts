import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHarness, startApiHarness } from '../api/harness.ts';
import { buildUi, hasChromium, launchChromium } from './browser.ts';

describe.skipIf(!hasChromium)('browser UI: the address names the conversation', () => {
  let h: ApiHarness;
  let browser: Browser;
  let page: Page;
  /** Session id by the first message said in it. */
  const sessions = new Map<string, string>();
  const messages = ['你好', '你能做什么？', '谢谢'];

  beforeAll(async () => {
    await buildUi();
    h = await startApiHarness();
    for (const message of messages) {
      const { events } = await h.chat(h.tokens.laoxiao, { message });
      sessions.set(message, events[0].data.session_id as string);
    }
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1440, height: 900 }, locale: 'zh-CN' })).newPage();
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  const shown = () => page.getByTestId('message-user').first().textContent();
  const link = (message: string) => `${h.url}/#/s/${sessions.get(message)}`;

  it('a pasted #/s/<id> link switches the open tab to it, and Back and Forward walk the conversations opened', async () => {
    await page.goto(link(messages[0]));
    await page.locator('input[name=token]').fill(h.tokens.laoxiao);
    await page.getByRole('button', { name: '登录' }).click();
    await expect.poll(shown, { timeout: 30_000 }).toBe(messages[0]);
    // A link pasted into the address bar of the open tab.
    await page.goto(link(messages[1]));
    await expect.poll(shown, { timeout: 15_000 }).toBe(messages[1]);
    // One picked from the history list.
    await page.getByTestId('session-item').filter({ hasText: messages[2] }).click();
    await expect.poll(shown, { timeout: 15_000 }).toBe(messages[2]);
    expect(page.url()).toBe(link(messages[2]));
    // Back goes to the conversations before, inside the app; Forward returns.
    await page.goBack();
    await expect.poll(shown, { timeout: 15_000 }).toBe(messages[1]);
    expect(page.url()).toBe(link(messages[1]));
    await page.goBack();
    await expect.poll(shown, { timeout: 15_000 }).toBe(messages[0]);
    expect(page.url()).toBe(link(messages[0]));
    await page.goForward();
    await expect.poll(shown, { timeout: 15_000 }).toBe(messages[1]);
    // A new chat is a step too: Back from it returns to the conversation.
    await page.getByTestId('new-chat').click();
    await expect.poll(() => page.getByTestId('message-user').count()).toBe(0);
    await page.goBack();
    await expect.poll(shown, { timeout: 15_000 }).toBe(messages[1]);
  }, 180_000);
});
