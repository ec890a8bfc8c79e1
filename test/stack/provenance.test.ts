import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StartedStack, stackHarness, startStack } from '../../bench/eval/stack.ts';
import { type CategoryInfo, PART_CATEGORIES } from '../../src/erp/index.ts';
import { describeSource, listedSources, SOURCES_HEADING, type Source } from '../../src/protocol/index.ts';
import { sampleOf, testSeed } from '../evaluation.ts';
import { notEnglishComparison } from '../fresh-requests.ts';
import { checkSheets, checkText, figuresOf, reask, rederive, sourcesColumn } from './provenance.ts';

// biome-ignore lint/suspicious/noExplicitAny: the mutations reach into the result field by field
type Json = any;

/**
 * Every number of an analysis, re-derived from its sources on the system users run: the analysis goes through the
 * chat API of a started stack (ERP over MCP); each ERP request it recorded is asked again over the ERP MCP server and
 * each page read again; the result JSON, the answer, the report and its PDF and XLSX exports must all agree.
 */
let stack: StartedStack;
let work: string;

/** What an analysis left, with the fresh answers of its sources. */
interface Analysis {
  result: { sources: Source[]; [key: string]: unknown };
  answers: Map<string, unknown>;
  answer: string;
  report: string;
}
const analyses: Analysis[] = [];

beforeAll(async () => {
  stack = await startStack();
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-provenance-'));
}, 120_000);
afterAll(async () => {
  await stack?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

/** A chat API call as laoxiao: JSON, text or bytes. */
async function api(route: string): Promise<Response> {
  const res = await fetch(`${stack.apiUrl}${route}`, { headers: { authorization: `Bearer ${stack.tokens.laoxiao}` } });
  expect(res.status, route).toBe(200);
  return res;
}

const hasPdfTools = (() => {
  try {
    execFileSync('pdftotext', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/**
 * One comparison request per category of the ERP's catalogue, phrased in turn as a buyer would in Chinese and in
 * English. `npm run eval` analyses and re-derives every category the ERP holds; CI two of them, fixed by the seed:
 * one asked in Chinese, one in English.
 */
const PHRASINGS = [
  (c: CategoryInfo) => `帮我对摩托车${c.nameZh}做供应商比价分析`,
  (c: CategoryInfo) => `Compare suppliers for motorcycle ${c.nameEn.toLowerCase()} and write a report`,
  (c: CategoryInfo) => `${c.nameZh}各家供应商比价，看看最近的价格趋势`,
];
const REQUESTS = sampleOf(
  PART_CATEGORIES.map((c, i) => [PHRASINGS[i % PHRASINGS.length](c), c.code] as const),
  ([message]) => (/[\u3400-\u9fff]/.test(message) ? 'zh' : 'en'),
  1,
  testSeed(20261207),
);

describe('every number of an analysis re-derives from its sources', () => {
  it.each(REQUESTS)(
    '「%s」 (%s): result, answer, report, PDF and XLSX',
    async (message, category) => {
      const session = `provenance-${category}`;
      const h = stackHarness(stack);
      const turn = (await h.send(h.contextFor('laoxiao', session), message)) as Awaited<ReturnType<typeof h.send>> & {
        events: Array<{ event: string; data: Record<string, unknown> }>;
      };
      expect(turn.error, turn.answer).toBeUndefined();
      const runId = turn.events.find((e) => e.event === 'done')?.data.run_id;

      // The files, as the chat API serves them to their owner.
      const files = ((await (await api(`/api/v1/history/sessions/${session}`)).json()) as { files: { path: string }[] })
        .files;
      const file = (pattern: RegExp) => {
        const found = files.find((f) => pattern.test(f.path));
        expect(found, `${pattern} in ${files.map((f) => f.path)}`).toBeDefined();
        return `/api/v1/files/${session}${found!.path}`;
      };
      const result = (await (await api(file(/^\/data\/analysis_result\.json$/))).json()) as Analysis['result'];
      // The analysis is of the category asked about: its name (in the request's language), and only parts the ERP
      // lists under it.
      const info = PART_CATEGORIES.find((c) => c.code === category)!;
      const english = !/[\u3400-\u9fff]/.test(message);
      expect(String(result.category), message).toContain(english ? info.nameEn : info.nameZh);
      const listed = await fetch(`${stack.erpUrl}/parts?category=${category}&size=100`, {
        headers: { authorization: `Bearer ${stack.tokens.laoxiao}` },
      }).then((r) => r.json() as Promise<{ items: Array<{ code: string }> }>);
      const codes = new Set(listed.items.map((p) => p.code));
      const compared = (result.suppliers as Array<{ code: string }>).map((s) => s.code);
      expect(compared.length, message).toBeGreaterThanOrEqual(2);
      for (const code of compared) expect(codes.has(code), `${code} is a ${category}`).toBe(true);
      const reportPath = file(/^\/analysis\/report_\d{8}_\d{6}\.md$/);
      const report = await (await api(reportPath)).text();
      // In English every supplier goes by the English name the ERP keeps, in the answer and the report alike.
      if (english) {
        const names = await stack.erp.database.db.selectFrom('suppliers').select('name_en').execute();
        const compared = (result.suppliers as Array<{ supplier: string }>).map((s) => s.supplier);
        const englishNames = names.map((n) => n.name_en);
        expect(notEnglishComparison(compared, englishNames, turn.answer, report), message).toBeUndefined();
      }

      // Every number of the result names its sources, and every source is a recorded request or page.
      const { figures, problems } = figuresOf(result);
      expect(problems).toEqual([]);
      expect(figures.length).toBeGreaterThan(40);
      const sources = result.sources as Source[];
      expect(sources.some((s) => s.kind === 'web')).toBe(true);
      expect(sources.filter((s) => s.kind === 'erp').map((s) => s.tool)).toEqual(
        expect.arrayContaining(['part_price_history', 'price_check', 'supplier_scorecard']),
      );
      // The ERP's trace id travelled from its response through the ERP MCP server to the analysis: the run's own.
      for (const s of sources) if (s.kind === 'erp') expect(s.traceId, s.id).toBe(runId);

      // Asked again, the ERP and the pages give every number back.
      const answers = await reask(sources, {
        erpMcpUrl: stack.parts.get('ERP MCP')!.url,
        token: stack.tokens.laoxiao,
        suppliersUrl: stack.parts.get('Supplier sites')!.url,
      });
      expect(rederive(result, answers)).toEqual([]);
      analyses.push({ result, answers, answer: turn.answer, report });

      // The answer and the report print only those numbers, each cited, and list every source they cite.
      const described = new Map(sources.map((s) => [s.id, describeSource(s).replace(/`/g, '')]));
      for (const [name, text] of [
        ['answer', turn.answer],
        ['report', report],
      ]) {
        expect(checkText(text, figures, name)).toEqual([]);
        expect(listedSources(text), name).toEqual(described);
      }

      // The workbook: each report table's numbers cited per row, the sources as a sheet, the data with its sources.
      const workbook = new ExcelJS.Workbook();
      await workbook.xlsx.load(Buffer.from(await (await api(`${reportPath}?format=xlsx`)).arrayBuffer()) as never);
      const sheets = workbook.worksheets.map((sheet) => {
        const rows: Array<Array<string | number | null>> = [];
        sheet.eachRow((row) => {
          rows.push((row.values as unknown[]).slice(1).map((v) => (v ?? null) as string | number | null));
        });
        return { name: sheet.name, rows };
      });
      expect(checkSheets(sheets, figures)).toEqual([]);
      expect(sheets.filter((s) => s.rows[0] && sourcesColumn(s.rows[0]) >= 0).length).toBeGreaterThanOrEqual(4);
      const sourceSheet = sheets.find((s) => s.name === SOURCES_HEADING.replace('/', ' '));
      expect(new Map(sourceSheet?.rows.slice(1).map(([id, text]) => [id, String(text).replace(/`/g, '')]))).toEqual(
        described,
      );
      const data = sheets.find((s) => s.name === 'analysis_result.suppliers');
      expect(data?.rows[0]).toEqual(expect.arrayContaining(['from.erpPrice', 'from.webPrice', 'from.avgPaid']));
      expect(sheets.find((s) => s.name === 'analysis_result.sources')?.rows.length).toBe(sources.length + 1);

      // The PDF carries the sources section: every source with its request and trace id, or its page and read time.
      if (!hasPdfTools) return;
      const pdf = path.join(work, `${session}.pdf`);
      fs.writeFileSync(pdf, Buffer.from(await (await api(`${reportPath}?format=pdf`)).arrayBuffer()));
      const text = execFileSync('pdftotext', [pdf, '-'], { encoding: 'utf8' }).replace(/\s+/g, '');
      const section = text.slice(text.indexOf(SOURCES_HEADING.replace(/\s+/g, '')));
      expect(section.length).toBeGreaterThan(SOURCES_HEADING.length);
      for (const s of sources) {
        const detail = s.kind === 'erp' ? [s.tool, String(s.traceId)] : [s.url, s.fetchedAt];
        for (const piece of [s.id, ...detail]) expect(section, `${s.id} ${piece}`).toContain(piece.replace(/\s+/g, ''));
      }
    },
    240_000,
  );

  it('a stock warning cites the ERP request its quantities come from', async () => {
    const h = stackHarness(stack);
    const turn = await h.send(h.contextFor('laoxiao', 'provenance-stock'), '哪些零部件库存低于安全库存？给出补货建议');
    expect(turn.error, turn.answer).toBeUndefined();
    const listed = listedSources(turn.answer);
    expect([...listed.keys()]).toEqual(['E1']);
    expect(listed.get('E1')).toMatch(/^ERP inventory_warning \{\} · x-trace-id \S+$/);
    const [asked] = (
      await reask([{ id: 'E1', kind: 'erp', tool: 'inventory_warning', args: {}, traceId: null }], {
        erpMcpUrl: stack.parts.get('ERP MCP')!.url,
        token: stack.tokens.laoxiao,
        suppliersUrl: stack.parts.get('Supplier sites')!.url,
      })
    ).values() as Iterable<Json>;
    const lines = [
      ...turn.answer.matchAll(/^- (\S+) .*：现有 (\d+)，在途 (\d+)，安全库存 (\d+)，建议补货 (\d+) \[E1\]$/gm),
    ];
    expect(lines.length).toBe(asked.items.length);
    for (const [, code, onHand, onOrder, safety, suggested] of lines) {
      const item = asked.items.find((i: Json) => i.code === code);
      expect([onHand, onOrder, safety, suggested].map(Number), code).toEqual([
        item.onHand,
        item.onOrder ?? 0,
        item.safetyStock,
        item.suggestedQuantity,
      ]);
    }
  }, 120_000);

  it('fails on any mismatch: a changed number, a wrong or missing source, an uncited figure', () => {
    expect(analyses.length).toBeGreaterThan(0);
    const { result, answers, answer, report } = analyses[0];
    const changed = (edit: (copy: Json) => void) => {
      const copy = structuredClone(result) as Json;
      edit(copy);
      return copy;
    };
    const problems = (edit: (copy: Json) => void) => {
      const copy = changed(edit);
      return [...figuresOf(copy).problems, ...rederive(copy, answers)];
    };
    expect(problems(() => undefined)).toEqual([]);
    // A number off by a cent, a month of the trend, a price check's median, a scorecard's rate.
    expect(problems((r) => (r.suppliers[0].erpPrice += 0.01))).not.toEqual([]);
    expect(problems((r) => (r.trend.at(-1).avgPrice += 0.01))).not.toEqual([]);
    expect(problems((r) => (r.supplierTrends[0].months[0].quantity += 1))).not.toEqual([]);
    expect(problems((r) => (r.priceChecks[0].median12m += 0.01))).not.toEqual([]);
    expect(problems((r) => (r.scorecards[0].onTimePct += 0.1))).not.toEqual([]);
    expect(problems((r) => (r.priceSpreadPct += 0.1))).not.toEqual([]);
    expect(problems((r) => (r.trendChangePct += 0.1))).not.toEqual([]);
    // A figure credited to another supplier's page, to the across-suppliers series, or to nothing.
    expect(problems((r) => (r.suppliers[0].from.webPrice = r.suppliers[1].from.webPrice))).not.toEqual([]);
    expect(problems((r) => (r.suppliers[0].from.avgPaid = r.trend[0].from.avgPrice))).not.toEqual([]);
    expect(problems((r) => delete r.priceChecks[0].from.deviationPct)).not.toEqual([]);
    expect(problems((r) => (r.scorecards[0].from.orders = 'E999'))).not.toEqual([]);
    // A trend averaged over a page of order lines instead of the paid ones.
    expect(
      problems((r) => {
        for (const m of r.trend) m.avgPrice = Math.round(m.avgPrice * 0.97 * 100) / 100;
      }),
    ).not.toEqual([]);
    // Text: a printed number changed, or a figure without its citation.
    const { figures } = figuresOf(result);
    const price = /¥(\d+\.\d\d) \[E1\]/.exec(answer)!;
    expect(
      checkText(answer.replace(price[0], `¥${(Number(price[1]) + 1).toFixed(2)} [E1]`), figures, 'answer'),
    ).not.toEqual([]);
    expect(checkText(answer.replace(price[0], `¥${price[1]}`), figures, 'answer')).not.toEqual([]);
    const row = report.split('\n').find((l) => l.startsWith('| ') && /\[E\d+, E\d+\] \|$/.test(l))!;
    expect(checkText(report.replace(row, row.replace(/\[E\d+, E\d+\]/, '')), figures, 'report')).not.toEqual([]);
  });
});
