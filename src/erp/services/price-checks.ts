import type { Kysely } from 'kysely';
import { notFound } from '../../shared/index.ts';
import { PAID_ORDER_STATUSES, type PriceCheck, type PriceSeverity, type PriceThresholds } from '../contract.ts';
import type { ErpTables } from '../db/schema.ts';
import { type ErpContext, fromE4 } from './context.ts';
import { requireSupplier } from './suppliers.ts';

/** Fewer paid lines than this and a median says little: the check answers `unknown`. */
export const MIN_HISTORY_LINES = 3;
const YEAR_MS = 365 * 86_400_000;

const round1 = (n: number) => Math.round(n * 10) / 10;

function median(sorted: number[]): number {
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * Percent below the 12-month median at which a price is implausibly low: a data error (another currency or unit),
 * another product or a supplier in trouble, never a saving to take unasked. Far looser than the thresholds above the
 * median, since paying less is usually good.
 */
export const BELOW_MEDIAN_THRESHOLDS = { warnPct: 30, criticalPct: 50 } as const;

/**
 * The severity of a deviation: above the median under the project's thresholds, below it under
 * `BELOW_MEDIAN_THRESHOLDS`; anything between is `ok`.
 */
export function severityOf(deviationPct: number, t: PriceThresholds): Exclude<PriceSeverity, 'unknown'> {
  if (deviationPct < 0) {
    const below = -deviationPct;
    if (below >= BELOW_MEDIAN_THRESHOLDS.criticalPct) return 'critical';
    if (below >= BELOW_MEDIAN_THRESHOLDS.warnPct) return 'warn';
    return 'ok';
  }
  if (deviationPct >= t.criticalPct) return 'critical';
  if (deviationPct >= t.warnPct) return 'warn';
  if (deviationPct >= t.infoPct) return 'info';
  return 'ok';
}

/** Whether a checked price is flagged as too low: far below the median, or nothing at all. */
export const isFlaggedLow = (check: Pick<PriceCheck, 'severity' | 'deviationPct' | 'unitPrice'>) =>
  check.unitPrice <= 0 ||
  ((check.severity === 'warn' || check.severity === 'critical') && (check.deviationPct ?? 0) < 0);

/**
 * Price checks: a unit price compared with the 12-month median and minimum of the project's ordered and received
 * lines for the same product (same model and category, from any supplier), so an overpriced quote or order line is
 * flagged before it is paid, and an implausibly low one (far below the median, or ¥0 whatever the history) before it
 * is trusted.
 */
export class PriceChecks {
  constructor(private readonly db: Kysely<ErpTables>) {}

  async check(
    ctx: ErpContext,
    input: { partId: number; unitPrice: number; supplierId?: number },
    thresholds: PriceThresholds,
    now = new Date(),
    db: Kysely<ErpTables> = this.db,
  ): Promise<PriceCheck> {
    const part = await db
      .selectFrom('parts')
      .select(['id', 'model', 'category', 'supplier_id'])
      .where('id', '=', input.partId)
      .where('project_id', '=', ctx.projectId)
      .executeTakeFirst();
    if (!part) throw notFound(`零部件 ${input.partId} 不存在 / part ${input.partId} not found`);
    if (input.supplierId !== undefined) {
      await requireSupplier(db, ctx, input.supplierId);
    }
    const from = new Date(now.getTime() - YEAR_MS).toISOString();
    const to = now.toISOString();
    const paid = await db
      .selectFrom('order_lines')
      .innerJoin('orders', 'orders.id', 'order_lines.order_id')
      .innerJoin('parts', 'parts.id', 'order_lines.part_id')
      .select(['order_lines.unit_price_e4 as price', 'order_lines.order_id as orderId'])
      .where('orders.project_id', '=', ctx.projectId)
      .where('orders.status', 'in', PAID_ORDER_STATUSES)
      .where('orders.created_at', '>=', from)
      .where('orders.created_at', '<=', to)
      .where('parts.model', '=', part.model)
      .where('parts.category', '=', part.category)
      .execute();
    const basis = {
      orders: new Set(paid.map((l) => Number(l.orderId))).size,
      lines: paid.length,
      from: from.slice(0, 10),
      to: to.slice(0, 10),
    };
    const base = {
      partId: input.partId,
      unitPrice: input.unitPrice,
      supplierId: input.supplierId ?? Number(part.supplier_id),
      basis,
    };
    const prices = paid.map((l) => fromE4(Number(l.price))).sort((a, b) => a - b);
    const med = paid.length >= MIN_HISTORY_LINES ? median(prices) : null;
    const history = {
      median12m: med === null ? null : Math.round(med * 10_000) / 10_000,
      minPrice12m: med === null ? null : prices[0],
    };
    if (input.unitPrice <= 0)
      return {
        ...base,
        ...history,
        deviationPct: med === null ? null : -100,
        severity: 'critical',
        reason: `单价为 ¥0：不是可采纳的报价，须人工核实 / a unit price of ¥0 is not a price to take: a person must check it`,
      };
    if (med === null) {
      return {
        ...base,
        ...history,
        deviationPct: null,
        severity: 'unknown',
        reason: `近 12 个月只有 ${paid.length} 条成交记录（至少需要 ${MIN_HISTORY_LINES} 条），无法判断 / only ${paid.length} paid lines in 12 months (need ${MIN_HISTORY_LINES}): too little history to judge`,
      };
    }
    const deviationPct = round1(((input.unitPrice - med) / med) * 100);
    const severity = severityOf(deviationPct, thresholds);
    const [zh, en] = deviationPct >= 0 ? ['高', 'above'] : ['低', 'below'];
    const m = round1(med);
    const d = Math.abs(deviationPct);
    const tooLow = deviationPct < 0 && severity !== 'ok';
    const [riskZh, riskEn] = tooLow
      ? [
          '，远低于成交水平：可能是币种或单位不符、不是同一产品或供应风险，须人工核实',
          ': far below what was paid, possibly another currency or unit, another product or a supply risk; a person must check it',
        ]
      : ['', ''];
    return {
      ...base,
      ...history,
      deviationPct,
      severity,
      reason: `单价 ¥${input.unitPrice} 比近 12 个月中位价 ¥${m} ${zh} ${d}%（${basis.orders} 张订单）${riskZh} / ¥${input.unitPrice} is ${d}% ${en} the 12-month median ¥${m} (${basis.orders} orders)${riskEn}`,
    };
  }
}
