import type { Kysely } from 'kysely';
import { notFound } from '../../shared/index.ts';
import { PART_CATEGORIES } from '../catalog.ts';
import type { Page, Part } from '../contract.ts';
import { containsText, countAll } from '../db/database.ts';
import type { ErpTables } from '../db/schema.ts';
import { queryTokens } from '../search-tokens.ts';
import { type ErpContext, fromE4 } from './context.ts';

export interface PartQuery {
  page: number;
  size: number;
  name?: string;
  category?: string;
  supplierId?: number;
}

const categoryNames = new Map(PART_CATEGORIES.map((c) => [c.code, c.nameZh]));

/** The project's purchasable parts, each offered by one supplier at its list price. */
export class PartCatalog {
  constructor(private readonly db: Kysely<ErpTables>) {}

  private base(ctx: ErpContext) {
    return this.db
      .selectFrom('parts')
      .innerJoin('suppliers', 'suppliers.id', 'parts.supplier_id')
      .where('parts.project_id', '=', ctx.projectId);
  }

  /**
   * Narrows to parts matching `name`. Token matches are driven from the token index (the longest token
   * first, the others checked per row), in part-id order, so a LIMIT stops early instead of sorting every
   * match. Single characters fall back to a substring scan.
   */
  private matching(ctx: ErpContext, name: string) {
    const { tokens, needsScan } = queryTokens(name);
    const query = this.base(ctx);
    if (!tokens.length || needsScan) {
      const scan = query.where((eb) =>
        eb.or([
          containsText('parts.name_zh', name),
          containsText('parts.name_en', name),
          containsText('parts.code', name),
        ]),
      );
      return { query: scan, order: 'parts.id' as const };
    }
    const [driver, ...others] = [...tokens].sort((a, b) => b.length - a.length);
    let indexed = query
      .innerJoin('part_tokens as t0', 't0.part_id', 'parts.id')
      .where('t0.token', '=', driver)
      .where('t0.project_id', '=', ctx.projectId);
    for (const token of others) {
      indexed = indexed.where(({ exists, selectFrom }) =>
        exists(
          selectFrom('part_tokens as tx')
            .select('tx.part_id')
            .where('tx.token', '=', token)
            .where('tx.project_id', '=', ctx.projectId)
            .whereRef('tx.part_id', '=', 't0.part_id'),
        ),
      );
    }
    return { query: indexed as unknown as typeof query, order: 't0.part_id' as 'parts.id' };
  }

  /** Paged list, filtered by name (fuzzy, zh/en/code), category and supplier. */
  async list(ctx: ErpContext, q: PartQuery): Promise<Page<Part>> {
    let { query, order } = q.name ? this.matching(ctx, q.name) : { query: this.base(ctx), order: 'parts.id' as const };
    if (q.category) query = query.where('parts.category', '=', q.category);
    if (q.supplierId !== undefined) query = query.where('parts.supplier_id', '=', q.supplierId);
    const [rows, total] = await Promise.all([
      query
        .select(partColumns)
        .orderBy(order)
        .limit(q.size)
        .offset((q.page - 1) * q.size)
        .execute(),
      query.select(countAll.as('n')).executeTakeFirstOrThrow(),
    ]);
    return { items: rows.map(toPart), total: Number(total.n), page: q.page, size: q.size };
  }

  /** Parts whose name or code matches, in catalogue order, at most `limit`. */
  async search(ctx: ErpContext, name: string, limit = 50): Promise<Part[]> {
    const { query, order } = this.matching(ctx, name);
    const rows = await query.select(partColumns).orderBy(order).limit(limit).execute();
    return rows.map(toPart);
  }

  async bySupplier(ctx: ErpContext, supplierId: number): Promise<Part[]> {
    const rows = await this.base(ctx)
      .where('parts.supplier_id', '=', supplierId)
      .select(partColumns)
      .orderBy('parts.id')
      .execute();
    return rows.map(toPart);
  }

  async get(ctx: ErpContext, id: number): Promise<Part> {
    const row = await this.base(ctx).where('parts.id', '=', id).select(partColumns).executeTakeFirst();
    if (!row) throw notFound(`零部件 ${id} 不存在 / part ${id} not found`);
    return toPart(row);
  }

  /** Categories in use in the project, with their Chinese names and part counts. */
  async categories(ctx: ErpContext): Promise<Array<{ code: string; nameZh: string; nameEn: string; parts: number }>> {
    const rows = await this.db
      .selectFrom('parts')
      .select(['category', countAll.as('n')])
      .where('project_id', '=', ctx.projectId)
      .groupBy('category')
      .orderBy('category')
      .execute();
    return rows.map((r) => {
      const info = PART_CATEGORIES.find((c) => c.code === r.category);
      return {
        code: r.category,
        nameZh: info?.nameZh ?? r.category,
        nameEn: info?.nameEn ?? r.category,
        parts: Number(r.n),
      };
    });
  }
}

const partColumns = [
  'parts.id',
  'parts.code',
  'parts.model',
  'parts.category',
  'parts.name_zh',
  'parts.name_en',
  'parts.spec',
  'parts.unit',
  'parts.unit_price_e4',
  'parts.moq',
  'parts.supplier_id',
  'suppliers.name_zh as supplier_name_zh',
  'suppliers.name_en as supplier_name_en',
] as const;

interface PartJoinRow {
  id: number;
  code: string;
  model: string;
  category: string;
  name_zh: string;
  name_en: string;
  spec: string;
  unit: string;
  unit_price_e4: number;
  moq: number;
  supplier_id: number;
  supplier_name_zh: string;
  supplier_name_en: string;
}

export function toPart(row: PartJoinRow): Part {
  return {
    id: Number(row.id),
    code: row.code,
    model: row.model,
    category: row.category,
    categoryName: categoryNames.get(row.category) ?? row.category,
    nameZh: row.name_zh,
    nameEn: row.name_en,
    spec: row.spec,
    unit: row.unit,
    unitPrice: fromE4(row.unit_price_e4),
    currency: 'CNY',
    moq: row.moq,
    supplier: { id: Number(row.supplier_id), nameZh: row.supplier_name_zh, nameEn: row.supplier_name_en },
  };
}
