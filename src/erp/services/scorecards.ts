import type { Kysely } from 'kysely';
import { notFound } from '../../shared/index.ts';
import type { SupplierScorecard } from '../contract.ts';
import type { ErpTables } from '../db/schema.ts';
import { type ErpContext, fromE4 } from './context.ts';

const DAY_MS = 86_400_000;
const round1 = (n: number) => Math.round(n * 10) / 10;
const pct = (part: number, whole: number) => (whole ? round1((part / whole) * 100) : null);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Supplier scorecards from the ERP's own history: what buyers weigh when choosing between suppliers. */
export class SupplierScorecards {
  constructor(private readonly db: Kysely<ErpTables>) {}

  async scorecard(ctx: ErpContext, supplierId: number, months = 12, now = new Date()): Promise<SupplierScorecard> {
    const supplier = await this.db
      .selectFrom('suppliers')
      .select(['id', 'name_zh', 'name_en'])
      .where('id', '=', supplierId)
      .where('project_id', '=', ctx.projectId)
      .executeTakeFirst();
    if (!supplier) throw notFound(`供应商 ${supplierId} 不存在 / supplier ${supplierId} not found`);
    const from = new Date(now);
    from.setUTCMonth(from.getUTCMonth() - months);
    const [orders, lines, ownParts] = await Promise.all([
      this.db
        .selectFrom('orders')
        .select(['id', 'status', 'expected_date', 'received_at'])
        .where('project_id', '=', ctx.projectId)
        .where('supplier_id', '=', supplierId)
        .where('created_at', '>=', from.toISOString())
        .execute(),
      this.db
        .selectFrom('order_lines')
        .innerJoin('orders', 'orders.id', 'order_lines.order_id')
        .select(['order_lines.quantity', 'order_lines.unit_price_e4'])
        .where('orders.project_id', '=', ctx.projectId)
        .where('orders.supplier_id', '=', supplierId)
        .where('orders.created_at', '>=', from.toISOString())
        .where('orders.status', '!=', 'cancelled')
        .execute(),
      this.db
        .selectFrom('parts')
        .select(['model', 'category', 'unit_price_e4'])
        .where('project_id', '=', ctx.projectId)
        .where('supplier_id', '=', supplierId)
        .execute(),
    ]);

    const delivered = orders.filter((o) => o.status === 'received' && o.expected_date && o.received_at);
    const lateDays = delivered
      .map((o) => Math.ceil((Date.parse(o.received_at!) - Date.parse(`${o.expected_date}T23:59:59.999Z`)) / DAY_MS))
      .filter((d) => d > 0);
    const cancelled = orders.filter((o) => o.status === 'cancelled').length;

    return {
      supplier: { id: Number(supplier.id), nameZh: supplier.name_zh, nameEn: supplier.name_en },
      period: { from: from.toISOString().slice(0, 10), to: now.toISOString().slice(0, 10), months },
      delivery: {
        received: delivered.length,
        onTime: delivered.length - lateDays.length,
        onTimePct: pct(delivered.length - lateDays.length, delivered.length),
        avgDaysLate: lateDays.length ? round1(lateDays.reduce((a, b) => a + b, 0) / lateDays.length) : null,
      },
      price: await this.priceCompetitiveness(ctx, supplierId, ownParts),
      volume: {
        orders: orders.length - cancelled,
        lines: lines.length,
        amount: Math.round(lines.reduce((sum, l) => sum + fromE4(l.unit_price_e4 * l.quantity), 0) * 100) / 100,
      },
      cancellations: { count: cancelled, pct: pct(cancelled, orders.length) },
    };
  }

  /** Each of the supplier's parts against the median list price of the same product across every supplier. */
  private async priceCompetitiveness(
    ctx: ErpContext,
    supplierId: number,
    ownParts: Array<{ model: string; category: string; unit_price_e4: number }>,
  ): Promise<SupplierScorecard['price']> {
    if (!ownParts.length) return { partsCompared: 0, vsMarketMedianPct: null, atOrBelowMedianPct: null };
    const market = await this.db
      .selectFrom('parts')
      .select(['model', 'category', 'unit_price_e4', 'supplier_id'])
      .where('project_id', '=', ctx.projectId)
      .where('model', 'in', [...new Set(ownParts.map((p) => p.model))])
      .execute();
    const deviations: number[] = [];
    for (const part of ownParts) {
      const peers = market.filter((m) => m.model === part.model && m.category === part.category);
      if (!peers.some((m) => Number(m.supplier_id) !== supplierId)) continue;
      const med = median(peers.map((m) => Number(m.unit_price_e4)));
      deviations.push(((Number(part.unit_price_e4) - med) / med) * 100);
    }
    return {
      partsCompared: deviations.length,
      vsMarketMedianPct: deviations.length ? round1(deviations.reduce((a, b) => a + b, 0) / deviations.length) : null,
      atOrBelowMedianPct: pct(deviations.filter((d) => d <= 0).length, deviations.length),
    };
  }
}
