import fs from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProcura, startProcura } from './procura.ts';

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = fs.existsSync(CHROMIUM);
const RUN_MS = 150_000;

interface Suggestions {
  offline: boolean;
  suggestions: Array<{ flow: string; text: string }>;
}

describe.skipIf(!hasChromium)('suggested requests on an empty conversation (offline model)', () => {
  let procura: RunningProcura;
  let browser: Browser;
  let page: Page;
  let offered: Suggestions;

  beforeAll(async () => {
    procura = await startProcura();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    page = await browser.newPage({ viewport: { width: 1440, height: 900 }, locale: 'zh-CN' });
    await page.goto(procura.apiUrl);
    await page.locator('input[name=token]').fill(procura.tokens.laoxiao);
    await page.getByRole('button', { name: '登录' }).click();
    await page.getByTestId('composer').waitFor();
    const res = await fetch(`${procura.apiUrl}/api/v1/agent/suggestions`, {
      headers: { authorization: `Bearer ${procura.tokens.laoxiao}` },
    });
    offered = (await res.json()) as Suggestions;
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await procura?.close();
  });

  const button = (flow: string) => page.locator(`[data-testid=suggestion][data-flow=${flow}]`);
  const lastAnswer = () => page.getByTestId('message-assistant').last();
  const startFresh = async () => {
    await page.getByTestId('new-chat').click();
    await page.getByTestId('suggestions').waitFor();
  };

  it('offers three requests from the ERP as this user, labelled by flow', async () => {
    expect(offered.offline).toBe(true);
    expect(offered.suggestions.map((s) => s.flow).sort()).toEqual(['analysis', 'order', 'trend']);
    await page.getByTestId('suggestions').waitFor();
    expect(await page.getByTestId('suggestion').allTextContents()).toEqual(offered.suggestions.map((s) => s.text));
    // The order suggestion names a supplier and a part the ERP really pairs.
    const order = offered.suggestions.find((s) => s.flow === 'order')?.text ?? '';
    const model = /下 \d+ \S+ (\S+)/.exec(order)?.[1] ?? '';
    const parts = await fetch(`${procura.erpUrl}/parts/search?name=${encodeURIComponent(model)}&limit=50`, {
      headers: { authorization: `Bearer ${procura.tokens.laoxiao}` },
    }).then((r) => r.json() as Promise<{ items: Array<{ model: string; supplier: { nameZh: string } }> }>);
    expect(parts.items.some((p) => p.model === model && order.includes(p.supplier.nameZh.slice(0, 2)))).toBe(true);
  });

  it(
    'the order suggestion drafts that order and waits for approval',
    async () => {
      await button('order').click();
      const card = page.getByTestId('approval-card');
      await card.waitFor({ timeout: RUN_MS });
      const [, quantity, model] =
        /下 (\d+) \S+ (\S+)/.exec(offered.suggestions.find((s) => s.flow === 'order')?.text ?? '') ?? [];
      expect(await card.locator('table.order-lines tbody td').nth(2).textContent()).toBe(quantity);
      expect(await card.textContent()).toContain(model);
    },
    RUN_MS + 30_000,
  );

  it(
    'the comparison suggestion runs the analysis to a report',
    async () => {
      await startFresh();
      await button('analysis').click();
      await expect.poll(() => lastAnswer().textContent(), { timeout: RUN_MS }).toContain('供应商比价结果');
      // The answer streams in: its report link comes last.
      await expect.poll(() => lastAnswer().textContent(), { timeout: RUN_MS }).toMatch(/report_\d{8}_\d{6}\.md/);
    },
    RUN_MS + 30_000,
  );

  it(
    'the trend suggestion reports the price trend',
    async () => {
      await startFresh();
      await button('trend').click();
      await expect.poll(() => lastAnswer().textContent(), { timeout: RUN_MS }).toContain('价格趋势与供应商比价结果');
      // The answer streams in: its report link comes last.
      await expect.poll(() => lastAnswer().textContent(), { timeout: RUN_MS }).toMatch(/report_\d{8}_\d{6}\.md/);
    },
    RUN_MS + 30_000,
  );
});
