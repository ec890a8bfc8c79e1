import { type Kysely, sql } from 'kysely';
import { notFound } from '../../shared/index.ts';
import {
  PAID_ORDER_STATUSES,
  type PaidLines,
  type PriceHistory,
  type PriceHistoryQuery,
  type PriceHistorySeries,
  type PriceIndex,
  type SupplierRef,
} from '../contract.ts';
import type { ErpTables } from '../db/schema.ts';
import { type ErpContext, fromE4 } from './context.ts';

const DEFINITION =
  '每月（按订单日期，UTC）：同一产品（型号与类别相同）在已下单（ordered）、部分收货（partly_received）和已收货（received）订单中的订单行，' +
  '均价 = Σ(数量 × 单价) ÷ Σ数量（按数量加权），并给出行数与数量；草稿、待审批、已批准未下单和已取消的订单不计入，' +
  '没有这类订单行的月份不列出。/ Per month (by order date, UTC): the lines of ordered, partly received and received ' +
  'orders for the same product (same model and category); average unit price = Σ(quantity × unit price) ÷ Σ quantity (quantity-weighted), ' +
  'with the number of lines and the quantity. Drafts, pending, approved-but-not-ordered and cancelled orders are not ' +
  'counted, and a month without such lines is not listed.';

const INDEX_DEFINITION =
  '价格指数（index，链式，可比口径）：只比同一零部件（同一供应商的同一料号）在两个月的价格——每个有成交的月份与此前最近一个有指数、' +
  '且有相同零部件成交的月份相比，按前一月的数量计算（Σ 前月数量 × 本月均价 ÷ Σ 前月数量 × 前月均价），逐月连乘，首个有成交的月份 = 100；' +
  'pairs 为该环比所依据的零部件数。结构影响（mixPct）= 所有供应商均价的涨跌 % − 指数的涨跌 %，即改从其他供应商采购带来的变化；grew 为数量份额增加最多的供应商。' +
  '没有成交的月份不列出，不做插值。/ Price index (chained, like for like): a part (one supplier’s part number) is compared ' +
  'only with itself. Each month with paid lines is linked to the latest earlier month with an index that shares parts with it, at ' +
  'that month’s quantities (Σ earlier quantity × this month’s average ÷ Σ earlier quantity × earlier average), the links multiplied, ' +
  'the first month with paid lines = 100; pairs is the number of parts the link rests on. The mix effect (mixPct) = the change of the ' +
  'average across suppliers in % − the index’s change in %: what buying from other suppliers did; grew is the supplier whose share ' +
  'of the quantity grew most. Months without paid lines are not listed, never interpolated.';

/** One product part's paid lines in one month, as the database sums them (prices in 1/10,000 yuan). */
interface MonthSum {
  partId: number;
  month: string;
  lines: number;
  quantity: number;
  amountE4: number;
}

const sumOf = (rows: MonthSum[]) =>
  rows.reduce(
    (t, r) => ({ lines: t.lines + r.lines, quantity: t.quantity + r.quantity, amountE4: t.amountE4 + r.amountE4 }),
    { lines: 0, quantity: 0, amountE4: 0 },
  );

/** The figures of a set of paid lines; the average keeps the ERP's price precision (4 decimals). */
function paid(rows: MonthSum[]): PaidLines {
  const { lines, quantity, amountE4 } = sumOf(rows);
  return {
    avgUnitPrice: quantity ? Math.round(amountE4 / quantity) / 10_000 : null,
    lines,
    quantity,
    amount: fromE4(amountE4),
  };
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/** The quantity-weighted average of some lines as the ERP states it (4 decimals). */
const average4 = (rows: MonthSum[]) => paid(rows).avgUnitPrice as number;

/**
 * The chained like-for-like index of a product's paid lines (see INDEX_DEFINITION), and from its first month to the
 * last with an index, its change apart from the change of the plain average. Links are chained unrounded; only what
 * is answered is rounded.
 */
function priceIndex(rows: MonthSum[], supplierOf: (partId: number) => SupplierRef): PriceIndex {
  const months = [...new Set(rows.map((r) => r.month))].sort();
  const partsIn = (month: string) => new Map(rows.filter((r) => r.month === month).map((r) => [r.partId, r]));
  const exact = new Map<string, number>();
  const indexed = months.map((month, i) => {
    const now = partsIn(month);
    if (i === 0) {
      exact.set(month, 100);
      return { month, index: 100, linkedTo: null, pairs: now.size };
    }
    for (const base of months.slice(0, i).reverse()) {
      const before = exact.get(base);
      const common = [...partsIn(base).values()].filter((r) => now.has(r.partId));
      const then = common.reduce((t, r) => t + r.amountE4, 0);
      if (before === undefined || !then) continue;
      // The base month's quantities at this month's average prices, against what they cost then.
      const at = common.reduce((t, r) => {
        const later = now.get(r.partId) as MonthSum;
        return t + (r.quantity * later.amountE4) / later.quantity;
      }, 0);
      exact.set(month, (before * at) / then);
      return { month, index: round2((before * at) / then), linkedTo: base, pairs: common.length };
    }
    return { month, index: null, linkedTo: null, pairs: 0 };
  });
  const last = [...exact.keys()].at(-1) as string | undefined;
  if (!last || last === months[0]) return { method: 'chained', months: indexed, change: null };
  const [first, end] = [rows.filter((r) => r.month === months[0]), rows.filter((r) => r.month === last)];
  const indexPct = (exact.get(last) as number) - 100;
  const averagePct = ((average4(end) - average4(first)) / average4(first)) * 100;
  // Each supplier's share of the quantity in the two months; the one that grew most names the mix.
  const shareOf = (lines: MonthSum[], supplierId: number) =>
    (100 * lines.filter((r) => supplierOf(r.partId).id === supplierId).reduce((t, r) => t + r.quantity, 0)) /
    sumOf(lines).quantity;
  const grown = [...new Set([...first, ...end].map((r) => supplierOf(r.partId)))]
    .map((supplier) => ({ supplier, fromSharePct: shareOf(first, supplier.id), toSharePct: shareOf(end, supplier.id) }))
    .filter((g) => g.toSharePct > g.fromSharePct)
    .sort((a, b) => b.toSharePct - b.fromSharePct - (a.toSharePct - a.fromSharePct))[0];
  return {
    method: 'chained',
    months: indexed,
    change: {
      from: months[0],
      to: last,
      indexPct: round2(indexPct),
      averagePct: round2(averagePct),
      mixPct: round2(averagePct - indexPct),
      grew: grown ? { ...grown, fromSharePct: round2(grown.fromSharePct), toSharePct: round2(grown.toSharePct) } : null,
    },
  };
}

/** The first instant of the calendar month `months - 1` months before `now`'s (UTC). */
function periodStart(now: Date, months: number): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - (months - 1), 1));
}

/**
 * What the project paid for a product month by month: the quantity-weighted average unit price, line count and
 * quantity of the lines of its ordered and received orders, per supplier or across suppliers. The sums are made by
 * the database over every paid line of the period, never over a page of search results.
 */
export class PriceHistories {
  constructor(private readonly db: Kysely<ErpTables>) {}

  async history(ctx: ErpContext, partId: number, query: PriceHistoryQuery, now = new Date()): Promise<PriceHistory> {
    const part = await this.db
      .selectFrom('parts')
      .select(['model', 'category'])
      .where('id', '=', partId)
      .where('project_id', '=', ctx.projectId)
      .executeTakeFirst();
    if (!part) throw notFound(`零部件 ${partId} 不存在 / part ${partId} not found`);
    const products = await this.db
      .selectFrom('parts')
      .innerJoin('suppliers', 'suppliers.id', 'parts.supplier_id')
      .select(['parts.id', 'parts.code', 'suppliers.id as supplierId', 'suppliers.name_zh', 'suppliers.name_en'])
      .where('parts.project_id', '=', ctx.projectId)
      .where('parts.category', '=', part.category)
      .where('parts.model', '=', part.model)
      .orderBy('suppliers.id')
      .orderBy('parts.id')
      .execute();
    const from = periodStart(now, query.months);
    const month = sql<string>`substr(orders.created_at, 1, 7)`;
    const sums = await this.db
      .selectFrom('order_lines')
      .innerJoin('orders', 'orders.id', 'order_lines.order_id')
      .select([
        'order_lines.part_id as partId',
        month.as('month'),
        sql<number | string>`count(*)`.as('lines'),
        sql<number | string>`sum(order_lines.quantity)`.as('quantity'),
        // 64-bit on PostgreSQL too: a line's quantity times its price in 1/10,000 yuan outgrows 32 bits.
        sql<number | string>`sum(cast(order_lines.quantity as bigint) * order_lines.unit_price_e4)`.as('amountE4'),
      ])
      .where(
        'order_lines.part_id',
        'in',
        products.map((p) => Number(p.id)),
      )
      .where('orders.project_id', '=', ctx.projectId)
      .where('orders.status', 'in', PAID_ORDER_STATUSES)
      .where('orders.created_at', '>=', from.toISOString())
      .where('orders.created_at', '<=', now.toISOString())
      .groupBy(['order_lines.part_id', month])
      .execute();
    const rows: MonthSum[] = sums.map((s) => ({
      partId: Number(s.partId),
      month: s.month,
      lines: Number(s.lines),
      quantity: Number(s.quantity),
      amountE4: Number(s.amountE4),
    }));

    const seriesOf = (supplier: PriceHistorySeries['supplier'], parts: typeof products): PriceHistorySeries => {
      const ids = new Set(parts.map((p) => Number(p.id)));
      const own = rows.filter((r) => ids.has(r.partId));
      const months = [...new Set(own.map((r) => r.month))].sort();
      return {
        supplier,
        parts: parts.map((p) => ({ id: Number(p.id), code: p.code })),
        months: months.map((m) => {
          const figures = paid(own.filter((r) => r.month === m));
          // A month is listed only with paid lines, so it always has an average.
          return { month: m, ...figures, avgUnitPrice: figures.avgUnitPrice as number };
        }),
        total: paid(own),
      };
    };
    const supplierOf = (partId: number): SupplierRef => {
      const p = products.find((q) => Number(q.id) === partId) as (typeof products)[number];
      return { id: Number(p.supplierId), nameZh: p.name_zh, nameEn: p.name_en };
    };
    const suppliers = [...new Set(products.map((p) => Number(p.supplierId)))];
    const series =
      query.by === 'product'
        ? [seriesOf(null, products)]
        : suppliers.map((id) => {
            const parts = products.filter((p) => Number(p.supplierId) === id);
            return seriesOf({ id, nameZh: parts[0].name_zh, nameEn: parts[0].name_en }, parts);
          });
    return {
      partId,
      product: { model: part.model, category: part.category },
      by: query.by,
      period: { from: from.toISOString().slice(0, 10), to: now.toISOString().slice(0, 10), months: query.months },
      statuses: [...PAID_ORDER_STATUSES],
      definition: `${DEFINITION} ${INDEX_DEFINITION}`,
      series,
      index: priceIndex(rows, supplierOf),
    };
  }
}
