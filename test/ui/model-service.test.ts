import fs from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelStandIn } from '../agent/model-stand-in.ts';
import { type RunningProcura, startProcura } from './procura.ts';

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = fs.existsSync(CHROMIUM);

describe.skipIf(!hasChromium)('browser UI on a model service: Retry on the error, cost per answer, admin usage', () => {
  let procura: RunningProcura;
  let browser: Browser;
  let page: Page;
  const model = new ModelStandIn();
  let failing = true;

  beforeAll(async () => {
    await model.start();
    model.script([
      { when: () => failing, reply: { error: 500 }, times: Number.POSITIVE_INFINITY },
      {
        when: (req) => Boolean(req.tools?.length),
        reply: { text: '您好，我是 Procura。' },
        times: Number.POSITIVE_INFINITY,
      },
      { reply: { text: '{}' }, times: Number.POSITIVE_INFINITY },
    ]);
    procura = await startProcura(120_000, {
      OPENAI_BASE_URL: model.url,
      OPENAI_MODEL: 'deepseek-v4-flash',
      OPENAI_API_KEY: 'sk-ui-test-key-000000',
    });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await procura?.close();
    await model.close();
  });

  // Each user signs in on a fresh page of its own: clearing storage under a running app races with
  // the app saving the previous user's token once its sign-in check answers.
  const signIn = async (token: string) => {
    await page?.context().close();
    page = await (await browser.newContext({ viewport: { width: 1440, height: 900 }, locale: 'zh-CN' })).newPage();
    await page.goto(procura.apiUrl);
    await page.locator('input[name=token]').fill(token);
    await page.getByRole('button', { name: '登录' }).click();
    await page.getByTestId('composer').waitFor();
  };

  it('a failing service shows the error with Retry; Retry completes the answer, which shows its cost', async () => {
    await signIn(procura.tokens.laoxiao);
    await page.getByTestId('composer').fill('你好');
    await page.getByTestId('send').click();
    const banner = page.getByTestId('error-banner');
    await banner.waitFor({ timeout: 60_000 });
    expect(await banner.textContent()).toContain('HTTP 500');
    failing = false;
    await page.getByTestId('retry').click();
    await page.getByText('您好，我是 Procura。').waitFor({ timeout: 60_000 });
    expect(await banner.count()).toBe(0);
    // deepseek-v4-flash is priced by default, so the answer has a cost.
    const usage = page.getByTestId('answer-usage');
    await usage.waitFor();
    expect(await usage.textContent()).toMatch(/^\$0\.\d{4} · [\d,]+ tokens$/);
    expect(await page.getByTestId('conversation-usage').textContent()).toBe(await usage.textContent());
  }, 180_000);

  it('admins see usage per user and day', async () => {
    await signIn(procura.tokens.admin);
    await page.getByTestId('usage').click();
    const row = page.getByTestId('usage-row').filter({ hasText: 'laoxiao' });
    await row.waitFor();
    expect(await row.textContent()).toContain(new Date().toISOString().slice(0, 10));
  }, 60_000);
});
