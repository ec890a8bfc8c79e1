import type { Kysely, Selectable } from 'kysely';
import { notFound } from '../../shared/index.ts';
import type { Supplier } from '../contract.ts';
import { containsText } from '../db/database.ts';
import type { ErpTables, SupplierRow } from '../db/schema.ts';
import type { ErpContext } from './context.ts';

export const toSupplier = (row: Selectable<ErpTables['suppliers']>): Supplier => ({
  id: Number(row.id),
  key: row.key,
  nameZh: row.name_zh,
  nameEn: row.name_en,
  contact: { name: row.contact_name, phone: row.contact_phone, email: row.contact_email },
  region: { city: row.city, province: row.province },
  rating: Number(row.rating),
  leadTimeDays: row.lead_time_days,
  paymentTerms: row.payment_terms,
});

/** The project's suppliers. Supplier lists are short, so search is a case-insensitive substring match on both names. */
export class SupplierDirectory {
  constructor(private readonly db: Kysely<ErpTables>) {}

  async search(ctx: ErpContext, name: string): Promise<Supplier[]> {
    const rows = await this.db
      .selectFrom('suppliers')
      .selectAll()
      .where('project_id', '=', ctx.projectId)
      .where((eb) => eb.or([containsText('name_zh', name), containsText('name_en', name), containsText('key', name)]))
      .orderBy('rating', 'desc')
      .orderBy('id')
      .limit(50)
      .execute();
    return rows.map(toSupplier);
  }

  async list(ctx: ErpContext): Promise<Supplier[]> {
    const rows = await this.db
      .selectFrom('suppliers')
      .selectAll()
      .where('project_id', '=', ctx.projectId)
      .orderBy('id')
      .execute();
    return rows.map(toSupplier);
  }

  async get(ctx: ErpContext, id: number): Promise<Supplier> {
    return toSupplier(await this.row(ctx, id));
  }

  /** The row, or 404 when it does not exist in the caller's project (other projects' ids are indistinguishable from missing). */
  async row(ctx: ErpContext, id: number): Promise<SupplierRow> {
    const row = await this.db
      .selectFrom('suppliers')
      .selectAll()
      .where('id', '=', id)
      .where('project_id', '=', ctx.projectId)
      .executeTakeFirst();
    if (!row) throw notFound(`供应商 ${id} 不存在 / supplier ${id} not found`);
    return row;
  }
}

/** The supplier's id when it exists in the caller's project; 404 otherwise (other projects' suppliers included). */
export async function requireSupplier(
  db: Kysely<ErpTables>,
  ctx: ErpContext,
  supplierId: number,
  missing: () => Error = () => notFound(`供应商 ${supplierId} 不存在 / supplier ${supplierId} not found`),
): Promise<number> {
  const supplier = await db
    .selectFrom('suppliers')
    .select('id')
    .where('id', '=', supplierId)
    .where('project_id', '=', ctx.projectId)
    .executeTakeFirst();
  if (!supplier) throw missing();
  return Number(supplier.id);
}
