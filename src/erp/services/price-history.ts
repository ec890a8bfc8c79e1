import { type Kysely, sql } from 'kysely';
import { notFound } from '../../shared/index.ts';
import {
  PAID_ORDER_STATUSES,
  type PaidLines,
  type PriceHistory,
  type PriceHistoryQuery,
  type PriceHistorySeries,
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
      definition: DEFINITION,
      series,
    };
  }
}
