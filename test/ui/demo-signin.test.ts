import fs from 'node:fs';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_SESSION_PREFIX } from '../../src/api/index.ts';
import { type RunningProcura, startProcura } from './procura.ts';

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = fs.existsSync(CHROMIUM);

describe.skipIf(!hasChromium)('one-click demo sign-in on procura start', () => {
  let procura: RunningProcura;
  let browser: Browser;

  beforeAll(async () => {
    procura = await startProcura();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await procura?.close();
  });

  it('says at start-up who may use demo sign-in', () => {
    expect(procura.output()).toContain('demo sign-in: browsers on this machine only, non-admin users');
  });

  it('lists non-admin demo users and signs in with a short-lived session, never an ERP token', async () => {
    const page = await browser.newPage({ locale: 'zh-CN' });
    await page.goto(procura.apiUrl);
    const users = page.getByTestId('demo-users');
    await users.waitFor();
    const names = await users
      .locator('button[data-user]')
      .evaluateAll((b) => b.map((e) => e.getAttribute('data-user')));
    expect(names.sort()).toEqual(['laoxiao', 'viewer', 'zhangwei']);
    await users.locator('button[data-user=laoxiao]').click();
    // The token is kept once the API has accepted it.
    const storedToken = () => page.evaluate("localStorage.getItem('procura.token') ?? ''") as Promise<string>;
    await expect.poll(storedToken).toMatch(new RegExp(`^${DEMO_SESSION_PREFIX}`));
    await page.getByTestId('composer').waitFor();
    const stored = await storedToken();
    expect(Object.values(procura.tokens)).not.toContain(stored);
    await page.close();
  });
});
