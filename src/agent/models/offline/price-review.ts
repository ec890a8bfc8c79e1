import type { ConversationView, Plan, ToolStep } from './conversation.ts';
import { allFrom, citeAll, citeOf, type From, type SourceBook } from './provenance.ts';

/** One supplier offer of the product being analysed, with the web price its shop quoted (if any). */
export interface ReviewedOffer {
  partId: number;
  supplierId: number;
  supplier: string;
  code: string;
  erpPrice: number;
  webPrice: number | null;
  /** The sources of the list price (the ERP listing) and of the web quote (its page). */
  from: { erpPrice: string; webPrice?: string };
}

/** A price (ERP list price or web quote) as the ERP's `price_check` judged it against 12 months of paid prices. */
export interface CheckedPrice {
  supplier: string;
  code: string;
  source: 'erp' | 'web';
  unitPrice: number;
  median12m: number | null;
  minPrice12m: number | null;
  deviationPct: number | null;
  severity: string;
  reason: string;
  basisOrders: number | null;
  basisFrom: string | null;
  basisTo: string | null;
  /** The price's own source (listing or page); every other figure is the `price_check` answer's. */
  from: From;
}

/** A supplier's `supplier_scorecard`, flattened to the columns a report table and a sheet show. */
export interface ScoredSupplier {
  supplier: string;
  periodFrom: string;
  periodTo: string;
  received: number;
  onTimePct: number | null;
  avgDaysLate: number | null;
  vsMarketMedianPct: number | null;
  atOrBelowMedianPct: number | null;
  orders: number;
  amount: number;
  cancellations: number;
  cancellationPct: number | null;
  from: From;
}

interface PriceCheckResult {
  severity?: string;
  median12m?: number | null;
  minPrice12m?: number | null;
  deviationPct?: number | null;
  reason?: string;
  basis?: { orders?: number; from?: string; to?: string };
}

interface ScorecardResult {
  period?: { from: string; to: string };
  delivery?: { received: number; onTimePct: number | null; avgDaysLate: number | null };
  price?: { vsMarketMedianPct: number | null; atOrBelowMedianPct: number | null };
  volume?: { orders: number; amount: number };
  cancellations?: { count: number; pct: number | null };
}

const priceKey = (partId: unknown, unitPrice: unknown) => `${Number(partId)}@${Number(unitPrice)}`;

/** The prices to check: every list price and every web quote, each (part, price) once. */
function pricesToCheck(offers: ReviewedOffer[]) {
  const calls = new Map<string, { partId: number; unitPrice: number; supplierId: number }>();
  for (const o of offers) {
    for (const unitPrice of [o.erpPrice, o.webPrice]) {
      if (typeof unitPrice === 'number' && unitPrice > 0)
        calls.set(priceKey(o.partId, unitPrice), { partId: o.partId, unitPrice, supplierId: o.supplierId });
    }
  }
  return [...calls.values()];
}

/**
 * The ERP's own judgement of the offers, asked through the agent's tools: `price_check` for every list price and web
 * quote, `supplier_scorecard` for every supplier. Returns the calls still to make, or nothing once all are answered.
 */
export function reviewCalls(view: ConversationView, offers: ReviewedOffer[]): Plan | undefined {
  const calls: NonNullable<Plan['toolCalls']> = [];
  if (view.tools.has('price_check') && !view.steps.some((s) => s.name === 'price_check')) {
    calls.push(...pricesToCheck(offers).map((args) => ({ name: 'price_check', args })));
  }
  if (view.tools.has('supplier_scorecard') && !view.steps.some((s) => s.name === 'supplier_scorecard')) {
    const suppliers = [...new Set(offers.map((o) => o.supplierId))];
    calls.push(...suppliers.map((supplierId) => ({ name: 'supplier_scorecard', args: { supplierId, months: 12 } })));
  }
  if (calls.length) return { toolCalls: calls };
  const pending = view.steps.some(
    (s) => (s.name === 'price_check' || s.name === 'supplier_scorecard') && s.text === undefined,
  );
  return pending ? {} : undefined;
}

/** The answered checks and scorecards, matched back to the offers, each figure with its source; failed calls are
 *  left out. */
export function reviewResults(
  view: ConversationView,
  offers: ReviewedOffer[],
  book: SourceBook,
): { priceChecks: CheckedPrice[]; scorecards: ScoredSupplier[] } {
  const checks = new Map<string, { result: PriceCheckResult; step: ToolStep }>();
  for (const step of view.steps.filter((s) => s.name === 'price_check')) {
    const result = answered<PriceCheckResult>(step);
    if (result?.severity) checks.set(priceKey(step.args.partId, step.args.unitPrice), { result, step });
  }
  const priceChecks: CheckedPrice[] = [];
  for (const o of offers) {
    for (const [source, unitPrice] of [
      ['erp', o.erpPrice],
      ['web', o.webPrice],
    ] as const) {
      const answer = typeof unitPrice === 'number' ? checks.get(priceKey(o.partId, unitPrice)) : undefined;
      if (!answer || typeof unitPrice !== 'number') continue;
      const check = answer.result;
      const row: Omit<CheckedPrice, 'from'> = {
        supplier: o.supplier,
        code: o.code,
        source,
        unitPrice,
        median12m: check.median12m ?? null,
        minPrice12m: check.minPrice12m ?? null,
        deviationPct: check.deviationPct ?? null,
        severity: String(check.severity),
        reason: check.reason ?? '',
        basisOrders: check.basis?.orders ?? null,
        basisFrom: check.basis?.from ?? null,
        basisTo: check.basis?.to ?? null,
      };
      const priceFrom = source === 'erp' ? o.from.erpPrice : o.from.webPrice;
      priceChecks.push({
        ...row,
        from: allFrom(row, book.erp(answer.step), priceFrom ? { unitPrice: priceFrom } : {}),
      });
    }
  }
  const scorecards: ScoredSupplier[] = [];
  for (const step of view.steps.filter((s) => s.name === 'supplier_scorecard')) {
    const card = answered<ScorecardResult>(step);
    const offer = offers.find((o) => o.supplierId === Number(step.args.supplierId));
    if (!card?.delivery || !card.price || !card.volume || !card.cancellations || !card.period || !offer) continue;
    const row: Omit<ScoredSupplier, 'from'> = {
      supplier: offer.supplier,
      periodFrom: card.period.from,
      periodTo: card.period.to,
      received: card.delivery.received,
      onTimePct: card.delivery.onTimePct,
      avgDaysLate: card.delivery.avgDaysLate,
      vsMarketMedianPct: card.price.vsMarketMedianPct,
      atOrBelowMedianPct: card.price.atOrBelowMedianPct,
      orders: card.volume.orders,
      amount: card.volume.amount,
      cancellations: card.cancellations.count,
      cancellationPct: card.cancellations.pct,
    };
    scorecards.push({ ...row, from: allFrom(row, book.erp(step)) });
  }
  return { priceChecks, scorecards };
}

function answered<T>(step: ToolStep): T | undefined {
  const result = step.result as (T & { success?: boolean }) | undefined;
  return result && result.success !== false ? result : undefined;
}

/** The severities the ERP raises above the 12-month median (its thresholds are the project's policy). */
export const FLAGGED_SEVERITIES = ['info', 'warn', 'critical'];

const SEVERITY_TEXT: Record<string, string> = {
  ok: '正常 ok',
  info: '略高 info',
  warn: '偏高 warn',
  critical: '严重偏高 critical',
  unknown: '历史不足 unknown',
};
export const severityText = (severity: string) => SEVERITY_TEXT[severity] ?? severity;

const SOURCE_TEXT = { erp: 'ERP 目录价', web: '官网报价' } as const;
const SOURCE_TEXT_EN = { erp: 'ERP list price', web: 'web quote' } as const;

const yuan = (n: number | null | undefined) => (typeof n === 'number' ? `¥${n.toFixed(2)}` : '—');
const pct = (n: number | null | undefined) => (typeof n === 'number' ? `${n > 0 ? '+' : ''}${n.toFixed(1)}%` : '—');
const share = (n: number | null | undefined) => (typeof n === 'number' ? `${n.toFixed(1)}%` : '—');
const money = (n: number) => `¥${n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
const describePrice = (c: CheckedPrice, en = false) =>
  en
    ? `${c.supplier} ${SOURCE_TEXT_EN[c.source]} ${yuan(c.unitPrice)} (${pct(c.deviationPct)}, ${c.severity}) ${citeOf(c.from, 'unitPrice', 'deviationPct')}`
    : `${c.supplier} ${SOURCE_TEXT[c.source]} ${yuan(c.unitPrice)}（${pct(c.deviationPct)}，${c.severity}）${citeOf(c.from, 'unitPrice', 'deviationPct')}`;

/** The analysis result's part of the review: what the report's sections and the summary are written from. */
export interface ReviewResult {
  priceChecks?: CheckedPrice[];
  anomalies?: CheckedPrice[];
  scorecards?: ScoredSupplier[];
}

/** "价格异常" (or "Price anomalies" in English): list prices and web quotes against what the project paid over 12 months. */
export function anomalySection(r: ReviewResult, en = false): string[] {
  const checks = r.priceChecks ?? [];
  if (!checks.length) return [];
  const basis = checks.find((c) => c.median12m !== null);
  const web = checks.filter((c) => c.source === 'web' && c.deviationPct !== null);
  const unknown = checks.find((c) => c.severity === 'unknown');
  const anomalies = r.anomalies ?? [];
  return [
    en ? '## Price anomalies' : '## 价格异常 / Price anomalies',
    basis
      ? en
        ? `ERP paid prices over 12 months (ordered/received, ${basis.basisFrom} to ${basis.basisTo}, ${basis.basisOrders} orders): median ${yuan(basis.median12m)}, lowest ${yuan(basis.minPrice12m)} ${citeOf(basis.from, 'median12m', 'minPrice12m', 'basisOrders')}. Severities are the ERP price check's, by the project's thresholds.`
        : `ERP 近 12 个月成交（已下单/已收货，${basis.basisFrom} 至 ${basis.basisTo}，${basis.basisOrders} 张订单）：中位价 ${yuan(basis.median12m)}，最低价 ${yuan(basis.minPrice12m)} ${citeOf(basis.from, 'median12m', 'minPrice12m', 'basisOrders')}。严重程度由 ERP 的价格检查按项目阈值给出。`
      : en
        ? 'Too few paid orders in the ERP over 12 months to judge the prices.'
        : 'ERP 近 12 个月成交记录不足，无法判断价格是否异常。',
    '',
    en
      ? '| Supplier | Code | Price source | Unit price | 12-month median | 12-month lowest | vs median | Severity | Sources |'
      : '| 供应商 | 料号 | 价格来源 | 单价 | 12 个月中位价 | 12 个月最低价 | 偏离中位价 | 严重程度 | 来源 |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...checks.map(
      (c) =>
        `| ${c.supplier} | ${c.code} | ${(en ? SOURCE_TEXT_EN : SOURCE_TEXT)[c.source]} | ${yuan(c.unitPrice)} | ${yuan(c.median12m)} | ${yuan(c.minPrice12m)} | ${pct(c.deviationPct)} | ${en ? c.severity : severityText(c.severity)} | ${citeAll(c.from)} |`,
    ),
    '',
    anomalies.length
      ? en
        ? `- Prices above the 12-month median: ${anomalies.map((c) => describePrice(c, en)).join(', ')}; negotiate or explain before ordering.`
        : `- 高于 12 个月中位价的报价：${anomalies.map((c) => describePrice(c)).join('、')}，下单前请议价或说明原因。`
      : en
        ? '- No price reaches the notice threshold above the 12-month median (info or higher).'
        : '- 没有报价达到高于 12 个月中位价的提示阈值（info 及以上）。',
    ...(web.length
      ? [
          `${en ? '- Web quotes against the 12-month median: ' : '- 官网报价相对 12 个月中位价：'}${[...web]
            .sort((a, b) => (a.deviationPct ?? 0) - (b.deviationPct ?? 0))
            .map((c) => `${c.supplier} ${pct(c.deviationPct)} ${citeOf(c.from, 'deviationPct')}`)
            .join(en ? ', ' : '、')}${en ? '.' : '。'}`,
        ]
      : []),
    ...(unknown ? [`- ${unknown.reason} ${citeAll(unknown.from)}`] : []),
    '',
  ];
}

/** "供应商评分" (or "Supplier scorecards"): delivery, price competitiveness, volume and cancellations from ERP history. */
export function scorecardSection(r: ReviewResult, en = false): string[] {
  const cards = r.scorecards ?? [];
  if (!cards.length) return [];
  const best = <K extends keyof ScoredSupplier>(key: K, lowest = false) =>
    cards
      .filter((c) => typeof c[key] === 'number')
      .sort((a, b) => (lowest ? 1 : -1) * ((a[key] as number) - (b[key] as number)))[0];
  const punctual = best('onTimePct');
  const cheapest = best('vsMarketMedianPct', true);
  return [
    en ? '## Supplier scorecards' : '## 供应商评分 / Supplier scorecards',
    en
      ? `ERP order history ${cards[0].periodFrom} to ${cards[0].periodTo}: on time compares the expected and the actual delivery date; price competitiveness is the supplier's list prices against the median of all offers of the same models.`
      : `ERP 订单历史 ${cards[0].periodFrom} 至 ${cards[0].periodTo}：准时交付按预计到货日与实际收货日比较；价格竞争力为该供应商目录价相对同型号各家中位价的平均偏差。`,
    '',
    en
      ? '| Supplier | On time | Avg days late | Received orders | List price vs market median | Parts at or below median | Orders | Amount | Cancelled | Sources |'
      : '| 供应商 | 准时交付率 | 平均延迟天数 | 已收货订单 | 目录价 vs 市场中位价 | 不高于中位价的零部件占比 | 订单数 | 采购金额 | 取消率 | 来源 |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...cards.map(
      (c) =>
        `| ${c.supplier} | ${share(c.onTimePct)} | ${c.avgDaysLate ?? '—'} | ${c.received} | ${pct(c.vsMarketMedianPct)} | ${share(c.atOrBelowMedianPct)} | ${c.orders} | ${money(c.amount)} | ${share(c.cancellationPct)} | ${citeAll(c.from)} |`,
    ),
    '',
    ...(punctual
      ? [
          en
            ? `- Most punctual: ${punctual.supplier} (${share(punctual.onTimePct)}) ${citeOf(punctual.from, 'onTimePct')}.`
            : `- 准时交付最好：${punctual.supplier}（${share(punctual.onTimePct)}）${citeOf(punctual.from, 'onTimePct')}。`,
        ]
      : []),
    ...(cheapest
      ? [
          en
            ? `- Most competitive list prices: ${cheapest.supplier} (${pct(cheapest.vsMarketMedianPct)}) ${citeOf(cheapest.from, 'vsMarketMedianPct')}.`
            : `- 目录价最有竞争力：${cheapest.supplier}（${pct(cheapest.vsMarketMedianPct)}）${citeOf(cheapest.from, 'vsMarketMedianPct')}。`,
        ]
      : []),
    '',
  ];
}

/** The review in the analyst's summary: the flagged prices and the best-scoring suppliers, one line each. */
export function reviewSummary(r: ReviewResult, en = false): string[] {
  const lines: string[] = [];
  const checks = r.priceChecks ?? [];
  const basis = checks.find((c) => c.median12m !== null);
  if (checks.length) {
    const median = `${yuan(basis?.median12m)}${basis ? ` ${citeOf(basis.from, 'median12m')}` : ''}`;
    lines.push(
      en
        ? `- Price anomalies (against the ERP's 12-month median paid price ${median}): ${
            r.anomalies?.length
              ? r.anomalies.map((c) => describePrice(c, en)).join(', ')
              : 'no price reaches a threshold'
          }.`
        : `- 价格异常（对比 ERP 近 12 个月成交中位价 ${median}）：${
            r.anomalies?.length ? r.anomalies.map((c) => describePrice(c)).join('、') : '没有报价达到提示阈值'
          }。`,
    );
  }
  const cards = r.scorecards ?? [];
  if (cards.length) {
    const cited = (c: ScoredSupplier) => citeOf(c.from, 'onTimePct', 'cancellationPct');
    lines.push(
      en
        ? `- Supplier scorecards: ${cards.map((c) => `${c.supplier} on time ${share(c.onTimePct)}, cancelled ${share(c.cancellationPct)} ${cited(c)}`).join('; ')}.`
        : `- 供应商评分：${cards.map((c) => `${c.supplier} 准时 ${share(c.onTimePct)}、取消 ${share(c.cancellationPct)} ${cited(c)}`).join('；')}。`,
    );
  }
  return lines;
}

/** Advice the review supports: negotiate the flagged prices down to what the project usually pays. */
export function reviewAdvice(r: ReviewResult, en = false): string[] {
  const flagged = [...new Set((r.anomalies ?? []).map((c) => c.supplier))];
  const basis = r.anomalies?.find((c) => c.median12m !== null);
  return flagged.length
    ? [
        en
          ? `- ${flagged.join(', ')} quote above the 12-month median paid price${basis ? ` ${yuan(basis.median12m)} ${citeOf(basis.from, 'median12m')}` : ''}: negotiate towards the median before ordering, or choose a better-scoring supplier.`
          : `- ${flagged.join('、')} 的报价高于近 12 个月成交中位价${basis ? ` ${yuan(basis.median12m)} ${citeOf(basis.from, 'median12m')}` : ''}：下单前以中位价为目标议价，或选择评分更好的供应商。`,
      ]
    : [];
}
