import ExcelJS from 'exceljs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgentStorage } from '../../src/agent/backends/index.ts';
import { type ApiHarness, startApiHarness } from '../api/harness.ts';
import { buildUi, hasChromium, launchChromium } from './browser.ts';

const ANALYSES = [
  { request: '帮我对摩托车火花塞做供应商比价分析', part: '火花塞' },
  { request: '帮我对摩托车刹车片做供应商比价分析', part: '刹车片' },
];
/** The headers of a part-code column: the report's tables (料号) and the analysis data's records (code). */
const CODE_HEADERS = new Set(['料号', 'code']);

/** Every part code a workbook lists, in any sheet's part-code column. */
async function workbookCodes(bytes: ArrayBuffer): Promise<Set<string>> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(bytes);
  const codes = new Set<string>();
  workbook.eachSheet((sheet) => {
    const columns: number[] = [];
    sheet.getRow(1).eachCell((cell, column) => {
      if (CODE_HEADERS.has(String(cell.text).trim())) columns.push(column);
    });
    sheet.eachRow((row, number) => {
      if (number === 1) return;
      for (const column of columns) if (row.getCell(column).text) codes.add(String(row.getCell(column).text).trim());
    });
  });
  return codes;
}

describe.skipIf(!hasChromium)('a run’s artifacts are its own: two analyses in one session', () => {
  let h: ApiHarness;
  let browser: Browser;
  let sessionId: string;
  /** Each analysis's report: its path and its text as it was when its run ended. */
  const reports: Array<{ path: string; text: string }> = [];

  const reportPaths = async () =>
    ((await h.call('GET', `/api/v1/history/sessions/${sessionId}`)).body.files as Array<{ path: string }>)
      .map((f) => f.path)
      .filter((p) => /^\/analysis\/report_\d{8}_\d{6}\.md$/.test(p));
  const download = (route: string) =>
    fetch(`${h.url}/api/v1/files/${sessionId}${route}`, { headers: { authorization: `Bearer ${h.tokens.laoxiao}` } });

  beforeAll(async () => {
    await buildUi();
    h = await startApiHarness({}, {}, createAgentStorage);
    for (const { request } of ANALYSES) {
      const run = await h.chat(h.tokens.laoxiao, { message: request, ...(sessionId ? { session_id: sessionId } : {}) });
      expect(run.events.at(-1)).toMatchObject({ event: 'done', data: { status: 'completed' } });
      sessionId = run.headers.get('x-session-id') as string;
      const fresh = (await reportPaths()).filter((p) => !reports.some((r) => r.path === p));
      expect(fresh).toHaveLength(1);
      reports.push({ path: fresh[0], text: await (await download(fresh[0])).text() });
    }
  }, 360_000);

  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('keeps both reports, each as its run wrote it', async () => {
    expect((await reportPaths()).sort()).toEqual(reports.map((r) => r.path).sort());
    for (const [i, report] of reports.entries()) {
      expect(report.text).toContain(ANALYSES[i].part);
      expect(await (await download(report.path)).text()).toBe(report.text);
    }
  });

  it('exports each report as a workbook of its own analysis: the later run’s data is not the earlier report’s', async () => {
    const codes: Array<Set<string>> = [];
    for (const report of reports) {
      const res = await download(`${report.path}?format=xlsx`);
      expect(res.status).toBe(200);
      codes.push(await workbookCodes(await res.arrayBuffer()));
    }
    // Each workbook lists the parts of its own report, and none of the other analysis's.
    for (const [i, own] of codes.entries()) {
      expect(own.size).toBeGreaterThan(0);
      for (const code of own) expect(reports[i].text).toContain(code);
      expect([...own].filter((code) => codes[1 - i].has(code))).toEqual([]);
    }
  }, 120_000);

  it('still prints the earlier report as a PDF after the later analysis', async () => {
    const res = await download(`${reports[0].path}?format=pdf`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toContain(
      encodeURIComponent(reports[0].path.split('/').pop()!.replace(/\.md$/, '.pdf')),
    );
    expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(10_000);
  }, 120_000);

  it('the report panel lists the reports first, newest first, each with its exports; the agent’s own files under details; an export shows that it is at work', async () => {
    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 }, locale: 'zh-CN' });
    await page.goto(`${h.url}/#/s/${sessionId}`);
    await page.locator('input[name=token]').fill(h.tokens.laoxiao);
    await page.getByRole('button', { name: '登录' }).click();
    await page.getByTestId('report-tab').click();
    const items = page.getByTestId('report-item');
    await expect.poll(() => items.count(), { timeout: 30_000 }).toBe(2);
    expect(await items.evaluateAll((els) => els.map((el) => el.getAttribute('data-path')))).toEqual(
      reports.map((r) => r.path).reverse(),
    );
    // The newest report is the one shown; the earlier one a click away.
    await expect
      .poll(() => page.locator('[data-testid=report-panel] .report-body').textContent(), { timeout: 30_000 })
      .toContain(ANALYSES[1].part);
    await items.nth(1).getByTestId('report-choice').click();
    await expect
      .poll(() => page.locator('[data-testid=report-panel] .report-body').textContent(), { timeout: 30_000 })
      .toContain(ANALYSES[0].part);
    // What the agent wrote for itself is folded away, after the reports.
    const details = page.getByTestId('internal-files');
    expect(await details.evaluate((el) => (el as unknown as { open: boolean }).open)).toBe(false);
    const internal = await details.getByTestId('download').allTextContents();
    expect(internal.some((name) => name.includes('.json'))).toBe(true);
    expect(internal.some((name) => name.includes('.md'))).toBe(false);
    const order = await page
      .locator('[data-testid=reports], [data-testid=internal-files]')
      .evaluateAll((els) => els.map((el) => el.getAttribute('data-testid')));
    expect(order).toEqual(['reports', 'internal-files']);
    // An export says it is being made until the file arrives.
    const [file] = await Promise.all([
      page.waitForEvent('download', { timeout: 120_000 }),
      (async () => {
        await items.nth(1).getByTestId('export-pdf').click();
        await items.nth(1).getByTestId('export-progress').waitFor({ timeout: 10_000 });
      })(),
    ]);
    expect(file.suggestedFilename()).toBe(reports[0].path.split('/').pop()!.replace(/\.md$/, '.pdf'));
    await expect.poll(() => page.getByTestId('export-progress').count(), { timeout: 10_000 }).toBe(0);
  }, 180_000);
});
