import fs from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHarness, startApiHarness } from '../api/harness.ts';

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = fs.existsSync(CHROMIUM);

describe.skipIf(!hasChromium)('browser UI: scheduled digests', () => {
  let h: ApiHarness;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    // The timer is off: only "run now" starts a run here.
    h = await startApiHarness({ scheduler: { timer: false } });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    page = await (await browser.newContext({ viewport: { width: 1440, height: 900 }, locale: 'zh-CN' })).newPage();
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('a schedule created and run now in the panel yields the badge and a marked session; opening it clears the badge', async () => {
    await page.goto(h.url);
    await page.locator('input[name=token]').fill(h.tokens.laoxiao);
    await page.getByRole('button', { name: '登录' }).click();
    await page.getByTestId('composer').waitFor();
    expect(await page.getByTestId('scheduled-badge').count()).toBe(0);

    await page.getByTestId('schedules').click();
    await page.getByTestId('schedule-name').fill('每日库存');
    await page.getByTestId('schedule-cron').fill('0 8 * * *');
    await page.getByTestId('schedule-create').click();
    const item = page.getByTestId('schedule-item').filter({ hasText: '每日库存' });
    await item.waitFor();
    expect(await item.textContent()).toContain('Asia/Shanghai');
    const [created] = (await h.call('GET', '/api/v1/schedules')).body.items;
    expect(created).toMatchObject({ name: '每日库存', cron: '0 8 * * *', kind: 'inventory_digest' });

    await item.getByTestId('schedule-run').click();
    const badge = page.getByTestId('scheduled-badge');
    await badge.waitFor();
    expect((await badge.textContent())?.trim()).toContain('1');
    const session = page.locator('[data-testid=session-item][data-unseen=true]');
    await session.waitFor();
    expect(await session.getByTestId('scheduled-mark').count()).toBe(1);
    expect(await session.textContent()).toContain('每日库存');

    await badge.click();
    await page.getByText('库存预警', { exact: false }).first().waitFor({ timeout: 60_000 });
    await badge.waitFor({ state: 'detached' });
    const opened = page.locator('[data-testid=session-item][data-scheduled=true]');
    expect(await opened.getAttribute('data-unseen')).toBeNull();
    // Still marked as scheduled after it was read.
    expect(await opened.getByTestId('scheduled-mark').count()).toBe(1);
    expect((await h.call('GET', '/api/v1/history/sessions')).body.unseen_scheduled).toBe(0);
  }, 180_000);

  it('lists each schedule in its own time zone, named by its cadence, whatever zone the browser is in', async () => {
    // A browser far from the schedules' zones: what it shows must not depend on it.
    const context = await browser.newContext({
      viewport: { width: 1440, height: 900 },
      locale: 'zh-CN',
      timezoneId: 'America/New_York',
    });
    const away = await context.newPage();
    await away.goto(h.url);
    await away.locator('input[name=token]').fill(h.tokens.zhangwei);
    await away.getByRole('button', { name: '登录' }).click();
    await away.getByTestId('composer').waitFor();
    await away.getByTestId('schedules').click();
    const cases = [
      { cron: '30 8 * * 1', timezone: 'Asia/Shanghai', label: '库存预警周报', time: '08:30:00' },
      { cron: '15 7 * * *', timezone: 'Asia/Shanghai', label: '库存预警日报', time: '07:15:00' },
      { cron: '0 9 * * 1-5', timezone: 'Europe/Berlin', label: '库存预警工作日日报', time: '09:00:00' },
      { cron: '45 6 1 * *', timezone: 'Asia/Tokyo', label: '库存预警月报', time: '06:45:00' },
    ];
    for (const [i, c] of cases.entries()) {
      await away.getByTestId('schedule-name').fill(`时区检查 ${i}`);
      await away.getByTestId('schedule-cron').fill(c.cron);
      await away.getByPlaceholder('Asia/Shanghai').fill(c.timezone);
      await away.getByTestId('schedule-create').click();
      const item = away.getByTestId('schedule-item').filter({ hasText: `时区检查 ${i}` });
      await item.waitFor();
      expect(await item.getByTestId('schedule-kind-label').textContent()).toBe(c.label);
      const next = (await item.getByTestId('schedule-next').textContent()) ?? '';
      expect(next).toContain(`${c.time} (${c.timezone})`);
      // The same instant as the API's, read in the schedule's zone.
      const listed = (await h.call('GET', '/api/v1/schedules', { token: h.tokens.zhangwei })).body.items as Array<{
        name: string;
        next_run_at: string;
      }>;
      const at = new Date(listed.find((s) => s.name === `时区检查 ${i}`)?.next_run_at ?? '');
      expect(next).toContain(at.toLocaleString('zh-CN', { timeZone: c.timezone, hour12: false }));
    }
    await context.close();
  }, 120_000);
});
