import { type Kysely, sql } from 'kysely';
import type { InventoryWarning } from '../contract.ts';
import type { ErpTables } from '../db/schema.ts';
import type { ErpContext } from './context.ts';

/** Stock levels and the parts that need reordering. */
export class InventoryService {
  constructor(private readonly db: Kysely<ErpTables>) {}

  /** Parts at or below safety stock, most urgent (lowest cover) first. */
  warnings(ctx: ErpContext): Promise<InventoryWarning[]> {
    return this.levels(ctx, { lowOnly: true });
  }

  /**
   * Stock of the parts of a category, a supplier or one part — on hand, on order, safety stock and what to reorder —
   * lowest cover first: "点火线圈还有多少库存" is answered for every part of it, low or not.
   */
  async levels(
    ctx: ErpContext,
    filter: { category?: string; supplierId?: number; partId?: number; lowOnly?: boolean },
  ): Promise<InventoryWarning[]> {
    const onOrder = this.db
      .selectFrom('order_lines')
      .innerJoin('orders', 'orders.id', 'order_lines.order_id')
      .select(['order_lines.part_id', sql<number>`sum(order_lines.quantity)`.as('qty')])
      .where('orders.project_id', '=', ctx.projectId)
      .where('orders.status', 'in', ['pending_approval', 'approved', 'ordered'])
      .groupBy('order_lines.part_id')
      .as('open');
    const rows = await this.db
      .selectFrom('inventory')
      .innerJoin('parts', 'parts.id', 'inventory.part_id')
      .innerJoin('suppliers', 'suppliers.id', 'parts.supplier_id')
      .leftJoin(onOrder, 'open.part_id', 'inventory.part_id')
      .select([
        'parts.id',
        'parts.code',
        'parts.name_zh',
        'parts.name_en',
        'parts.category',
        'parts.unit',
        'parts.moq',
        'parts.supplier_id',
        'suppliers.name_zh as supplier_name_zh',
        'suppliers.name_en as supplier_name_en',
        'inventory.on_hand',
        'inventory.safety_stock',
        'inventory.reorder_point',
        'inventory.location',
        'open.qty',
      ])
      .where('inventory.project_id', '=', ctx.projectId)
      .$if(filter.lowOnly === true, (q) => q.whereRef('inventory.on_hand', '<=', 'inventory.safety_stock'))
      .$if(filter.category !== undefined, (q) => q.where('parts.category', '=', filter.category as string))
      .$if(filter.supplierId !== undefined, (q) => q.where('parts.supplier_id', '=', filter.supplierId as number))
      .$if(filter.partId !== undefined, (q) => q.where('parts.id', '=', filter.partId as number))
      .orderBy(sql`cast(inventory.on_hand as real) / nullif(inventory.safety_stock, 0)`)
      .orderBy('parts.id')
      .execute();
    return rows.map((r) => {
      const onOrderQty = Number(r.qty ?? 0);
      const shortfall = r.reorder_point + r.safety_stock - r.on_hand - onOrderQty;
      return {
        partId: Number(r.id),
        code: r.code,
        nameZh: r.name_zh,
        nameEn: r.name_en,
        category: r.category,
        unit: r.unit,
        supplier: { id: Number(r.supplier_id), nameZh: r.supplier_name_zh, nameEn: r.supplier_name_en },
        onHand: r.on_hand,
        safetyStock: r.safety_stock,
        reorderPoint: r.reorder_point,
        onOrder: onOrderQty,
        moq: r.moq,
        location: r.location,
        suggestedQuantity: shortfall > 0 ? Math.ceil(shortfall / r.moq) * r.moq : 0,
      };
    });
  }
}
