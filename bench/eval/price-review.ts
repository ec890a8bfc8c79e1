import type { AgentHarness } from './local-stack.ts';

/** The text of a report section, from its `## heading` to the next one. */
export function reportSection(report: string, heading: string): string | undefined {
  const start = report.indexOf(`## ${heading}\n`);
  if (start < 0) return undefined;
  const end = report.indexOf('\n## ', start + 3);
  return report.slice(start, end < 0 ? undefined : end);
}

/** The Markdown table of a report section, as rows keyed by the header cells. */
export function sectionTable(report: string, heading: string): Array<Record<string, string>> | undefined {
  const lines = reportSection(report, heading)
    ?.split('\n')
    .filter((l) => l.startsWith('|'));
  if (!lines || lines.length < 2) return undefined;
  const cells = (line: string) =>
    line
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
  const header = cells(lines[0]);
  return lines.slice(2).map((line) => Object.fromEntries(cells(line).map((c, i) => [header[i], c])));
}

/** A number as a report prints it (¥1,234.50, +4.6%, 28). */
export const printedNumber = (cell: string | undefined) => Number((cell ?? '').replace(/[¥,%+]/g, ''));

/** Whether a cell shows `value` rounded to `decimals` places (a dash for no value). */
export const printedAs = (cell: string | undefined, value: number | null | undefined, decimals: number) =>
  typeof value === 'number' ? Math.abs(printedNumber(cell) - value) <= 0.5 * 10 ** -decimals + 1e-9 : cell === '—';

export const ANOMALIES_HEADING = '价格异常 / Price anomalies';
export const SCORECARDS_HEADING = '供应商评分 / Supplier scorecards';

/** Reads the ERP's HTTP API as a user: the ERP service's own answer, to judge the agent's by. */
export async function erpAsUser<T>(h: AgentHarness, route: string, user = 'laoxiao'): Promise<T> {
  const res = await h.erp.fetch(
    new Request(`http://erp.eval/api${route}`, { headers: { authorization: `Bearer ${h.tokens[user]}` } }),
  );
  return (await res.json()) as T;
}

interface Check {
  median12m: number | null;
  deviationPct: number | null;
  severity: string;
}
interface Card {
  delivery: { onTimePct: number | null; received: number };
  volume: { orders: number };
  cancellations: { pct: number | null };
}

/**
 * Judges a report's price anomalies and supplier scorecards against the ERP: every price row as the ERP's price check
 * judges that price, every scorecard row as the ERP scores that supplier. Returns why it fails, or undefined.
 */
export async function checkPriceReview(h: AgentHarness, report: string): Promise<string | undefined> {
  const anomalies = sectionTable(report, ANOMALIES_HEADING);
  const cards = sectionTable(report, SCORECARDS_HEADING);
  if (!anomalies?.length) return `no ${ANOMALIES_HEADING} table`;
  if (!cards?.length) return `no ${SCORECARDS_HEADING} table`;
  if (!anomalies.some((r) => r.价格来源 === '官网报价')) return 'no web quote was price-checked';
  const parts = await h.erp.database.db
    .selectFrom('parts')
    .select(['id', 'code', 'supplier_id'])
    .where('project_id', '=', 'P001')
    .where(
      'code',
      'in',
      anomalies.map((r) => r.料号),
    )
    .execute();
  const supplierOf = new Map<string, number>();
  for (const row of anomalies) {
    const part = parts.find((p) => p.code === row.料号);
    if (!part) return `${row.料号} is not an ERP part`;
    supplierOf.set(row.供应商, Number(part.supplier_id));
    const unitPrice = printedNumber(row.单价);
    const check = await erpAsUser<Check>(
      h,
      `/parts/${part.id}/price-check?unitPrice=${unitPrice}&supplierId=${part.supplier_id}`,
    );
    if (!printedAs(row['12 个月中位价'], check.median12m, 2) || !printedAs(row.偏离中位价, check.deviationPct, 1))
      return `${row.料号} ${row.价格来源}: ${JSON.stringify(row)} but the ERP says ${JSON.stringify(check)}`;
    if (!row.严重程度?.includes(check.severity)) return `${row.料号}: severity ${row.严重程度}, ERP ${check.severity}`;
  }
  for (const row of cards) {
    const supplierId = supplierOf.get(row.供应商);
    if (!supplierId) return `scorecard for ${row.供应商}, who has no price in the report`;
    const card = await erpAsUser<Card>(h, `/suppliers/${supplierId}/scorecard?months=12`);
    if (
      !printedAs(row.准时交付率, card.delivery.onTimePct, 1) ||
      printedNumber(row.订单数) !== card.volume.orders ||
      !printedAs(row.取消率, card.cancellations.pct, 1)
    )
      return `${row.供应商} scorecard ${JSON.stringify(row)} but the ERP says ${JSON.stringify(card)}`;
  }
  if (cards.length !== supplierOf.size) return `${cards.length} scorecards for ${supplierOf.size} suppliers`;
  return undefined;
}
