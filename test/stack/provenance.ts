import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { pagePrice } from '../../src/agent/models/offline/analyst.ts';
import { type ErpSource, SOURCE_REFS, SOURCES_HEADING, type Source, SourceSchema } from '../../src/protocol/index.ts';
import { buildShops, productSlug, USD_CNY_RATE } from '../../src/suppliers/index.ts';
import { ToolRegistry } from '../../src/tools/index.ts';
import { registerWebTools } from '../../src/tools/web/index.ts';

/**
 * Re-deriving an analysis from its sources: every number of `/data/analysis_result.json` is asked again from the ERP
 * request or re-read from the page its record names, and every figure the answer, the report and the exports print
 * must be one of those numbers, cited with its sources.
 */

// biome-ignore lint/suspicious/noExplicitAny: results are read field by field, as a model may write them
type Json = any;
type From = Record<string, string | string[]>;

/** One number of the result: where it sits, its value and the sources its record names for it. */
export interface Figure {
  path: string;
  field: string;
  value: number;
  ids: string[];
  record: Json;
}

const idsOf = (entry: string | string[] | undefined) => (entry === undefined ? [] : [entry].flat());

/**
 * Every number of a result with the sources its record names for it. Numbers no `from` covers, and ids that name no
 * listed source, come back as problems.
 */
export function figuresOf(result: Json): { figures: Figure[]; problems: string[] } {
  const figures: Figure[] = [];
  const problems: string[] = [];
  const sources = new Set<string>();
  for (const source of result.sources ?? []) {
    const parsed = SourceSchema.safeParse(source);
    if (!parsed.success) problems.push(`sources: not a source: ${JSON.stringify(source)}`);
    else sources.add(parsed.data.id);
  }
  const walk = (value: Json, path: string): void => {
    if (Array.isArray(value)) {
      for (const [i, v] of value.entries()) walk(v, `${path}[${i}]`);
      return;
    }
    if (!value || typeof value !== 'object') return;
    const from = (value.from ?? {}) as From;
    for (const [field, inner] of Object.entries(value)) {
      if (field === 'from' || (path === '' && field === 'sources')) continue;
      if (typeof inner === 'number') {
        const ids = idsOf(from[field]);
        if (!ids.length) problems.push(`${path}.${field} = ${inner} names no source`);
        for (const id of ids) if (!sources.has(id)) problems.push(`${path}.${field} names ${id}, which is not listed`);
        figures.push({ path, field, value: inner, ids, record: value });
      } else walk(inner, `${path}.${field}`);
    }
  };
  walk(result, '');
  return { figures, problems };
}

/** The stack's answers to the recorded requests: ERP tools over its ERP MCP server as the user, pages read again. */
export async function reask(
  sources: Source[],
  options: { erpMcpUrl: string; token: string; suppliersUrl: string },
): Promise<Map<string, Json>> {
  const answers = new Map<string, Json>();
  const client = new Client({ name: 'procura-rederive', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(options.erpMcpUrl), {
      requestInit: { headers: { authorization: `Bearer ${options.token}`, 'x-trace-id': 'rederive' } },
    }),
  );
  const registry = new ToolRegistry();
  const web = registerWebTools(registry, { suppliersUrl: options.suppliersUrl, env: {} });
  try {
    for (const source of sources) {
      if (source.kind === 'erp') {
        const result = (await client.callTool({ name: source.tool, arguments: source.args })) as Json;
        answers.set(source.id, JSON.parse(result.content[0].text));
      } else {
        const ctx = { userId: 'rederive', role: 'viewer' as const, traceId: 'rederive' };
        answers.set(source.id, await registry.execute('fetch_url', { url: source.url }, ctx));
      }
    }
  } finally {
    await client.close();
    await web.close();
  }
  return answers;
}

/** The price a supplier's shop publishes for a part at its smallest quantity tier, in yuan: what its page states. */
function shopPrice(code: string): number | undefined {
  for (const shop of buildShops()) {
    const product = shop.products.find((p) => p.sku === code);
    if (!product) continue;
    const price = product.tiers[0].unitPrice;
    return product.currency === 'USD' ? Math.round(price * USD_CNY_RATE * 100) / 100 : price;
  }
  return undefined;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/** How each ERP tool's answer gives a record's field, once the answer is known to be about the record. */
const SCORECARD_FIELDS: Record<string, (card: Json) => unknown> = {
  received: (c) => c.delivery.received,
  onTimePct: (c) => c.delivery.onTimePct,
  avgDaysLate: (c) => c.delivery.avgDaysLate,
  vsMarketMedianPct: (c) => c.price.vsMarketMedianPct,
  atOrBelowMedianPct: (c) => c.price.atOrBelowMedianPct,
  orders: (c) => c.volume.orders,
  amount: (c) => c.volume.amount,
  cancellations: (c) => c.cancellations.count,
  cancellationPct: (c) => c.cancellations.pct,
};
const CHECK_FIELDS: Record<string, (check: Json) => unknown> = {
  median12m: (c) => c.median12m,
  minPrice12m: (c) => c.minPrice12m,
  deviationPct: (c) => c.deviationPct,
  basisOrders: (c) => c.basis.orders,
};
const PAID_FIELDS: Record<string, string> = {
  avgPaid: 'avgUnitPrice',
  paidLines: 'lines',
  orderedQty: 'quantity',
  avgPrice: 'avgUnitPrice',
  lines: 'lines',
  quantity: 'quantity',
};
const LISTING_TOOLS = new Set(['part_query', 'part_search', 'part_by_supplier']);

/**
 * Each number of the result, derived again from its sources' fresh answers. Mismatches — a value, an answer about
 * another part or supplier, a field no source gives — come back as problems, one line each.
 */
export function rederive(result: Json, answers: Map<string, Json>): string[] {
  const { figures, problems } = figuresOf(result);
  const sources = new Map<string, Source>((result.sources as Source[]).map((s) => [s.id, s]));
  const codeOf = (record: Json) =>
    record.code ?? result.suppliers.find((s: Json) => s.supplier === record.supplier)?.code;
  const listed = (source: ErpSource, code: string) =>
    (answers.get(source.id)?.items ?? []).find((item: Json) => item.code === code);
  const check = (f: Figure, expected: unknown, why = '') => {
    if (typeof expected !== 'number' || Math.abs(expected - f.value) > 1e-9)
      problems.push(`${f.path}.${f.field} = ${f.value}, its sources ${f.ids.join(', ')} give ${expected}${why}`);
  };
  /** A price as its one source gives it: the listing's price of the record's part, or the page's price. */
  const priceFrom = (id: string, code: string): number | undefined => {
    const source = sources.get(id);
    if (source?.kind === 'web') {
      if (!source.url.includes(`/${productSlug(code)}`)) return undefined;
      return pagePrice(answers.get(id));
    }
    return source && LISTING_TOOLS.has(source.tool) ? listed(source, code)?.unitPrice : undefined;
  };

  for (const f of figures) {
    const { record, field } = f;
    const code = codeOf(record);
    if (f.ids.length > 1) {
      // Computed from other figures of the result: the same computation over their re-derived sources.
      if (field === 'webVsErpPct') {
        const row = result.suppliers.find((s: Json) => s.code === code);
        const erp = priceFrom(idsOf(row.from.erpPrice)[0], code);
        const web = priceFrom(idsOf(row.from.webPrice)[0], code);
        check(f, erp && web ? round2(((web - erp) / erp) * 100) : undefined);
      } else if (field === 'priceSpreadPct') {
        const prices = result.suppliers.map((s: Json) =>
          priceFrom(idsOf(s.webPrice !== null ? s.from.webPrice : s.from.erpPrice)[0], s.code),
        );
        const [max, min] = [Math.max(...prices), Math.min(...prices)];
        check(f, round2(((max - min) / min) * 100));
      } else problems.push(`${f.path}.${field}: no rule re-derives a figure from ${f.ids.join(', ')}`);
      continue;
    }
    const [id] = f.ids;
    const source = sources.get(id);
    const answer = answers.get(id);
    if (!source || answer === undefined || answer?.success === false) {
      problems.push(`${f.path}.${field}: ${id} gave no answer when asked again: ${JSON.stringify(answer)}`);
      continue;
    }
    if (source.kind === 'web') {
      const truth = shopPrice(code);
      check(f, priceFrom(id, code), ` (page ${source.url})`);
      if (truth !== f.value) problems.push(`${f.path}.${field} = ${f.value}, but ${code}'s shop publishes ${truth}`);
      continue;
    }
    if (LISTING_TOOLS.has(source.tool)) {
      const item = listed(source, code);
      check(f, field === 'moq' ? item?.moq : item?.unitPrice, ` (${code} in ${source.tool})`);
    } else if (source.tool === 'part_price_history') {
      const supplier = f.path.startsWith('.supplierTrends')
        ? result.supplierTrends[Number(/\[(\d+)\]/.exec(f.path)?.[1])].supplier
        : record.supplier;
      const series = (answer.series as Json[]).find((s) =>
        source.args.by === 'product' ? s.supplierId === null : s.label === supplier || s.labelEn === supplier,
      );
      if (field === 'trendChangePct') {
        // The last month with paid lines against the first, of the series across suppliers.
        const months = (series?.months ?? []) as Json[];
        const [first, last] = [months[0]?.avgUnitPrice, months.at(-1)?.avgUnitPrice];
        check(f, months.length >= 2 ? round2(((last - first) / first) * 100) : undefined, ' (first to last month)');
        continue;
      }
      if (f.path === '.priceIndex') {
        // The index's change, the average's and the mix, and the shares of the supplier that grew: as the ERP answers.
        const change = source.args.by === 'product' ? answer.index?.change : undefined;
        check(f, field in (change ?? {}) ? change[field] : change?.grew?.[field], ' (price index change)');
        continue;
      }
      const figures = record.month ? series?.months.find((m: Json) => m.month === record.month) : series?.total;
      check(f, figures?.[PAID_FIELDS[field]], ` (${source.args.by} ${supplier ?? ''} ${record.month ?? 'total'})`);
    } else if (source.tool === 'price_check') {
      const part = result.suppliers.find((s: Json) => s.code === code);
      const asked = Number(source.args.unitPrice) === record.unitPrice;
      if (!part || !asked) problems.push(`${f.path}: ${id} checked ${JSON.stringify(source.args)}, not this price`);
      if (typeof answer.severity === 'string' && answer.severity !== record.severity)
        problems.push(`${f.path}.severity = ${record.severity}, ${id} says ${answer.severity}`);
      check(f, CHECK_FIELDS[field]?.(answer));
    } else if (source.tool === 'supplier_scorecard') {
      // The analysis names a supplier in its request's language.
      if (answer.supplier?.nameZh !== record.supplier && answer.supplier?.nameEn !== record.supplier)
        problems.push(`${f.path}: ${id} is ${answer.supplier?.nameZh}'s scorecard, not ${record.supplier}'s`);
      check(f, SCORECARD_FIELDS[field]?.(answer));
    } else problems.push(`${f.path}.${field}: no rule reads a figure from ${source.tool}`);
  }
  // Every part's list price checked is the one the listing gives for it.
  for (const c of result.priceChecks ?? []) {
    const id = idsOf(c.from?.unitPrice)[0];
    if (id && priceFrom(id, c.code) !== c.unitPrice) problems.push(`priceChecks ${c.code} ${c.source}: price source`);
  }
  return problems;
}

/** A printed figure, with the number of decimals it was printed with. */
interface Printed {
  text: string;
  value: number;
  decimals: number;
}

/** Figures as text prints them: money, percentages, quantities and counts of orders. Thresholds (≥10%) are not. */
const FIGURE = /(?<![≥≤<>\w.])(¥-?[\d,]+(?:\.\d+)?|[+-]?\d[\d,]*(?:\.\d+)?(?=%)|\d[\d,]*(?=\s*(?:件|张订单)))/g;
/** A table cell that is a number: `¥12.30`, `+5.0%`, `1,200`, `3.5`. */
const NUMERIC_CELL = /^(?:¥-?[\d,]+(?:\.\d+)?|[+-]?[\d,]*\d(?:\.\d+)?%?)$/;

function printed(text: string): Printed {
  const digits = text.replace(/[¥,%+\s]/g, '');
  return { text, value: Number(digits), decimals: digits.split('.')[1]?.length ?? 0 };
}

const citedIn = (text: string) => [...text.matchAll(SOURCE_REFS)].flatMap((m) => m[1].split(/,\s*/));

/** The column of a table's header that cites the row's sources: `来源`, or `Sources` in an English report; -1 if none. */
export const sourcesColumn = (header: ReadonlyArray<unknown>) =>
  header.findIndex((h) => h === '来源' || h === 'Sources');

/** Whether a printed figure shows `value` at its precision. */
const shows = (p: Printed, value: number) => Math.abs(p.value - value) <= 0.5 * 10 ** -p.decimals + 1e-9;

/**
 * Checks the figures of a text (an answer or a report, in Markdown) against the result's verified figures: each must
 * be followed by a citation — in a table, the row's sources cell (`来源`, or `Sources` in an English report) — whose sources include every source of a figure of
 * that value. The sources list itself is not read for figures.
 */
export function checkText(text: string, figures: Figure[], name: string): string[] {
  const problems: string[] = [];
  const matches = (p: Printed, cited: string[]) =>
    figures.some((f) => shows(p, f.value) && f.ids.every((id) => cited.includes(id)));
  const body = text.split(new RegExp(`^(?:## |\\*\\*)${SOURCES_HEADING.replace(/[/]/g, '\\/')}`, 'm'))[0];
  let header: string[] | undefined;
  for (const line of body.split('\n')) {
    if (line.startsWith('|')) {
      const cells = line
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim());
      if (!header) {
        header = cells;
        continue;
      }
      if (cells.every((c) => /^:?-+:?$/.test(c))) continue;
      const cited = citedIn(cells[sourcesColumn(header)] ?? '');
      for (const cell of cells.filter((c) => NUMERIC_CELL.test(c))) {
        if (!cited.length) problems.push(`${name}: ${cell} in a row citing no source: ${line}`);
        else if (!matches(printed(cell), cited)) problems.push(`${name}: ${cell} is no figure of ${cited}: ${line}`);
      }
      continue;
    }
    header = undefined;
    for (const m of line.matchAll(FIGURE)) {
      const after = line.slice((m.index ?? 0) + m[0].length);
      const cite = after.match(SOURCE_REFS)?.[0] ?? '';
      const p = printed(m[0]);
      if (!cite) problems.push(`${name}: ${m[0]} names no source: ${line}`);
      else if (!matches(p, citedIn(cite))) problems.push(`${name}: ${m[0]} is no figure of ${cite}: ${line}`);
    }
  }
  return problems;
}

/** Checks a workbook's sheets of report tables the same way: each numeric cell against its row's `来源` cell. */
export function checkSheets(
  sheets: Array<{ name: string; rows: Array<Array<string | number | null>> }>,
  figures: Figure[],
): string[] {
  const problems: string[] = [];
  for (const sheet of sheets) {
    const [header, ...rows] = sheet.rows;
    const column = header ? sourcesColumn(header) : -1;
    if (column < 0) continue;
    for (const row of rows) {
      const cited = citedIn(String(row[column] ?? ''));
      row.forEach((cell, i) => {
        if (typeof cell !== 'number') return;
        // Money and counts as printed (2 decimals at most); percentages as fractions of the 1-decimal figure.
        const near = (f: Figure) =>
          Math.abs(f.value - cell) <= 0.005 + 1e-9 || Math.abs(f.value - cell * 100) <= 0.05 + 1e-9;
        const ok = figures.some((f) => near(f) && f.ids.every((id) => cited.includes(id)));
        if (!ok)
          problems.push(`${sheet.name}: ${header[i]} ${cell} is no figure of ${cited.join(', ') || 'any source'}`);
      });
    }
  }
  return problems;
}
