import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANOMALIES_HEADING, printedAs, SCORECARDS_HEADING, sectionTable } from '../../bench/eval/price-review.ts';
import { createAgentStorage } from '../../src/agent/backends/index.ts';
import { type ApiHarness, startApiHarness } from './harness.ts';

const hasChromium = fs.existsSync(process.env.PROCURA_CHROMIUM_PATH ?? '/usr/bin/chromium');
const hasPoppler = (() => {
  try {
    execFileSync('pdftotext', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
if (!hasChromium || !hasPoppler)
  console.warn('[exports] chromium or poppler-utils missing: the PDF checks are skipped');

async function download(h: ApiHarness, route: string, token = h.tokens.laoxiao) {
  const res = await fetch(`${h.url}${route}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, headers: res.headers, bytes: new Uint8Array(await res.arrayBuffer()) };
}

describe('report exports: the analysis report as PDF and XLSX', () => {
  let h: ApiHarness;
  let sessionId: string;
  let reportPath: string;
  let reportText: string;
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-export-'));

  beforeAll(async () => {
    h = await startApiHarness({}, {}, createAgentStorage);
    const run = await h.chat(h.tokens.laoxiao, { message: '帮我对摩托车火花塞做供应商比价分析' });
    expect(run.events.at(-1)).toMatchObject({ event: 'done', data: { status: 'completed' } });
    sessionId = run.headers.get('x-session-id') as string;
    const detail = await h.call('GET', `/api/v1/history/sessions/${sessionId}`);
    reportPath = detail.body.files.find((f: { path: string }) => f.path.endsWith('.md')).path;
    reportText = (await h.call('GET', `/api/v1/files/${sessionId}${reportPath}`)).body;
  }, 180_000);
  afterAll(async () => {
    await h?.close();
    fs.rmSync(out, { recursive: true, force: true });
  });

  it.skipIf(!hasChromium || !hasPoppler)(
    'PDF: renders to pages that carry the report’s Chinese text, its table values and its charts',
    async () => {
      const res = await download(h, `/api/v1/files/${sessionId}${reportPath}?format=pdf`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/pdf');
      expect(res.headers.get('content-disposition')).toMatch(/filename\*=UTF-8''report_\d{8}_\d{6}\.pdf/);
      const pdf = path.join(out, 'report.pdf');
      fs.writeFileSync(pdf, res.bytes);
      const text = execFileSync('pdftotext', ['-layout', pdf, '-'], { encoding: 'utf8' });
      // The heading and a supplier row of the report's own table, in the embedded CJK font.
      const heading = /^# (.+)$/m.exec(reportText)![1];
      const firstRow = reportText.split('\n').find((l) => /^\| [^-|]/.test(l) && !l.includes('供应商 |'))!;
      const supplier = firstRow.split('|')[1].trim();
      expect(text.replace(/\s+/g, '')).toContain(heading.replace(/\s+/g, ''));
      expect(text.replace(/\s+/g, '')).toContain(supplier.replace(/\s+/g, ''));
      const fonts = execFileSync('pdffonts', [pdf], { encoding: 'utf8' });
      expect(fonts).toMatch(/NotoSansSC/i);
      // One image per chart the report links.
      const charts = (reportText.match(/!\[[^\]]*\]\(https?:[^)]+\)/g) ?? []).length;
      expect(charts).toBeGreaterThan(0);
      const images = execFileSync('pdfimages', ['-list', pdf], { encoding: 'utf8' }).trim().split('\n').slice(2);
      expect(images.length).toBe(charts);
      execFileSync('pdftoppm', ['-png', '-r', '60', '-f', '1', '-l', '1', pdf, path.join(out, 'page')]);
      const page = fs.readdirSync(out).find((f) => f.startsWith('page') && f.endsWith('.png'));
      expect(page).toBeDefined();
      expect(fs.statSync(path.join(out, page!)).size).toBeGreaterThan(10_000);
    },
    90_000,
  );

  it('XLSX: one sheet per report table with numbers as numbers, plus the analysis data', async () => {
    const res = await download(h, `/api/v1/files/${sessionId}${reportPath}?format=xlsx`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('spreadsheetml');
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(Buffer.from(res.bytes) as never);
    const names = workbook.worksheets.map((s) => s.name);
    // The first table of the report: the comparison detail.
    const firstTable = reportText.slice(reportText.indexOf('\n|') + 1);
    const tableLines = firstTable.slice(0, firstTable.search(/\n(?!\|)/)).split('\n');
    const header = tableLines[0]
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
    const detail = workbook.worksheets.find((s) => (s.getRow(1).values as unknown[]).includes(header[0]))!;
    expect(detail, names.join(', ')).toBeDefined();
    expect((detail.getRow(1).values as unknown[]).slice(1)).toEqual(header);
    expect(detail.rowCount).toBe(tableLines.length - 1); // header + rows, no separator line
    // The ERP list price column reads back as a number formatted as money.
    const priceColumn = header.findIndex((c) => c.includes('ERP')) + 1;
    const cell = detail.getRow(2).getCell(priceColumn);
    expect(typeof cell.value).toBe('number');
    expect(cell.numFmt).toContain('¥');
    const firstRow = tableLines[2]
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
    expect(cell.value).toBeCloseTo(Number(firstRow[priceColumn - 1].replace(/[¥,]/g, '')), 2);
    // The price data behind the report: the analysis result's supplier list.
    const data = workbook.worksheets.find((s) => s.name === 'analysis_result.suppliers');
    expect(data, names.join(', ')).toBeDefined();
    expect(data!.rowCount - 1).toBe(tableLines.length - 2);
  });

  it('XLSX: the price anomalies and supplier scorecards become sheets of their own, numbers as numbers', async () => {
    const res = await download(h, `/api/v1/files/${sessionId}${reportPath}?format=xlsx`);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(Buffer.from(res.bytes) as never);
    for (const heading of [ANOMALIES_HEADING, SCORECARDS_HEADING]) {
      const rows = sectionTable(reportText, heading);
      expect(rows?.length, heading).toBeGreaterThan(0);
      // Named after the section's heading (a slash is not allowed in a sheet name).
      const sheet = workbook.worksheets.find((s) => s.name.startsWith(heading.split(' / ')[0]));
      expect(sheet, workbook.worksheets.map((s) => s.name).join(', ')).toBeDefined();
      const header = (sheet!.getRow(1).values as unknown[]).slice(1);
      expect(header).toEqual(Object.keys(rows![0]));
      expect(sheet!.rowCount - 1).toBe(rows!.length);
      rows!.forEach((row, i) => {
        const cells = sheet!.getRow(i + 2);
        header.forEach((column, c) => {
          const printed = row[String(column)];
          const cell = cells.getCell(c + 1);
          if (/^[¥+-]?[\d,.]+%?$/.test(printed) && /\d/.test(printed)) {
            // Money and percentages read back as the numbers the report prints.
            expect(typeof cell.value, `${heading} ${column} ${printed}`).toBe('number');
            const scale = printed.endsWith('%') ? 100 : 1;
            expect(printedAs(printed, (cell.value as number) * scale, 2)).toBe(true);
          } else expect(cell.value ?? '—').toBe(printed);
        });
      });
    }
    // The price data behind the sections: the analysis result's price checks and scorecards.
    const names = workbook.worksheets.map((s) => s.name);
    expect(names).toEqual(expect.arrayContaining(['analysis_result.priceChecks', 'analysis_result.scorecards']));
  });

  it('lists and serves only the session’s own output, not the global guidelines every run loads', async () => {
    const detail = await h.call('GET', `/api/v1/history/sessions/${sessionId}`);
    expect(detail.body.files.map((f: { path: string }) => f.path)).not.toContain('/AGENTS.md');
    expect((await h.call('GET', `/api/v1/files/${sessionId}/AGENTS.md?format=pdf`)).status).toBe(404);
  });

  it('refuses what it cannot export: other formats, non-report files, other users', async () => {
    expect((await h.call('GET', `/api/v1/files/${sessionId}${reportPath}?format=docx`)).status).toBe(422);
    const json = await h.call('GET', `/api/v1/files/${sessionId}/data/analysis_result.json?format=pdf`);
    expect(json.status).toBe(422);
    expect(json.headers.get('content-type')).toContain('problem+json');
    expect((await download(h, `/api/v1/files/${sessionId}${reportPath}?format=xlsx`, h.tokens.admin)).status).toBe(404);
  });
});
