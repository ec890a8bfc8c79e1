import { type Kysely, sql } from 'kysely';
import type { InventoryWarning } from '../contract.ts';
import type { ErpTables } from '../db/schema.ts';
import type { ErpContext } from './context.ts';

/** Stock levels and the parts that need reordering. */
export class InventoryService {
  constructor(private readonly db: Kysely<ErpTables>) {}

  /** Parts at or below safety stock, most urgent (lowest cover) first. */
  async warnings(ctx: ErpContext): Promise<InventoryWarning[]> {
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
      .whereRef('inventory.on_hand', '<=', 'inventory.safety_stock')
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
