import type { Kysely } from 'kysely';
import { conflict, forbidden, notFound, unprocessable } from '../../shared/index.ts';
import { type Category, MAX_UNIT_PRICE, type Page, type Part } from '../contract.ts';
import { containsText, countAll } from '../db/database.ts';
import { type PartFilter, type PartSearchIndex, partFilter, type SearchablePart } from '../db/part-search.ts';
import type { ErpTables, ReadQuery } from '../db/schema.ts';
import { isLatinToken, type SearchQuery, searchQuery } from '../search-tokens.ts';
import { CatalogCache } from './catalog-cache.ts';
import { type ErpContext, fromE4, toE4 } from './context.ts';
import { requireSupplier } from './suppliers.ts';

/** A catalogue entry as an administrator writes it. */
export type PartInput = Pick<
  Part,
  'code' | 'model' | 'category' | 'nameZh' | 'nameEn' | 'spec' | 'unit' | 'unitPrice' | 'moq'
> & {
  supplierId: number;
};

export interface PartQuery {
  page: number;
  size: number;
  name?: string;
  category?: string;
  supplierId?: number;
}

/** A paged list counts its matches up to here: enough to page through, cheap for a broad word. */
export const TOTAL_CAP = 1000;
/** Exact code matches listed first; a code or model shared by more parts than this is no exact hit. */
const MAX_EXACT = 100;

/** A search query, worked out on first use (see PartCatalog.queryOf). */
type QueryOf = () => Promise<SearchQuery>;

/**
 * One relevance tier of a name search: its ids in part order, and how many it holds (up to a cap). `before`
 * holds every id of the better tiers, when all of them are known.
 */
interface TierSource {
  ids(limit: number, offset: number, before?: number[]): Promise<number[]>;
  count(cap: number): Promise<number>;
}

/** The project's purchasable parts, each offered by one supplier at its list price. */
export class PartCatalog {
  constructor(
    private readonly db: Kysely<ErpTables>,
    private readonly read: ReadQuery,
    private readonly index: PartSearchIndex,
    private readonly cache = new CatalogCache(),
  ) {}

  private get dialect() {
    return this.index.dialect;
  }

  private base(ctx: ErpContext, db = this.db) {
    return db
      .selectFrom('parts')
      .innerJoin('suppliers', 'suppliers.id', 'parts.supplier_id')
      .leftJoin('categories', (join) =>
        join.onRef('categories.project_id', '=', 'parts.project_id').onRef('categories.code', '=', 'parts.category'),
      )
      .where('parts.project_id', '=', ctx.projectId);
  }

  /** Parts of the project narrowed by category and supplier, in part order. */
  private filtered(filter: PartFilter) {
    let query = this.db.selectFrom('parts').select('parts.id').where('parts.project_id', '=', filter.projectId);
    if (filter.category !== undefined) query = query.where('parts.category', '=', filter.category);
    if (filter.supplierId !== undefined) query = query.where('parts.supplier_id', '=', filter.supplierId);
    if (filter.exclude?.length) query = query.where('parts.id', 'not in', filter.exclude);
    return query.orderBy('parts.id');
  }

  private source(query: ReturnType<PartCatalog['filtered']>): TierSource {
    return {
      ids: async (limit, offset) => (await query.limit(limit).offset(offset).execute()).map((r) => Number(r.id)),
      count: async (cap) => {
        const row = await this.db
          .selectFrom(query.limit(cap).as('capped'))
          .select(countAll.as('n'))
          .executeTakeFirstOrThrow();
        return Number(row.n);
      },
    };
  }

  /**
   * The relevance tiers of `name`, best first, each excluding the ones before: the part whose code or model
   * is `name`; parts having every query word as a whole word (CJK text has no word boundaries, so its
   * bigrams count as whole); parts matching some word only by a prefix. A query of lone characters only falls
   * back to a substring scan of names, code and model.
   */
  private async tiers(name: string, filter: PartFilter, queryOf: QueryOf): Promise<TierSource[]> {
    const text = name.trim().toLowerCase();
    const where = partFilter(filter, 'parts.id', true);
    const exact = (
      await this.read<{ id: number }>(
        `select parts.id as id from parts where (lower(parts.code) = ? or lower(parts.model) = ?) and ${where.text}
         order by parts.id limit ${MAX_EXACT}`,
        [text, text, ...where.params],
      )
    ).map((r) => Number(r.id));
    const exactTier: TierSource = {
      ids: async (limit, offset) => exact.slice(offset, offset + limit),
      count: async (cap) => Math.min(exact.length, cap),
    };
    const query = await queryOf();
    const rest: PartFilter = { ...filter, exclude: exact, chars: query.chars };
    if (query.needsScan || !query.any.length) {
      const scan = this.filtered(rest).where((eb) =>
        eb.or(['parts.name_zh', 'parts.name_en', 'parts.code', 'parts.model'].map((c) => containsText(c, name))),
      );
      return [exactTier, this.source(scan)];
    }
    const indexed = (tier: 'whole' | 'partial'): TierSource => ({
      // Once the better tiers are known whole, the partial tier is every match but them: walking `any` without
      // checking each match against the whole-word tier took half the time (a query of six words, 100k parts).
      ids: (limit, offset, before) =>
        tier === 'partial' && before
          ? this.index.ids(this.read, 'any', query, { ...rest, exclude: before }, limit, offset)
          : this.index.ids(this.read, tier, query, rest, limit, offset),
      count: (cap) => this.index.count(this.read, tier, query, rest, cap),
    });
    // Without Latin words every token is whole, so there is no partial tier to walk.
    return query.any.some(isLatinToken)
      ? [exactTier, indexed('whole'), indexed('partial')]
      : [exactTier, indexed('whole')];
  }

  /** Ids of `limit` ranked matches from `offset` on, walking the tiers and counting only the ones skipped whole. */
  private async rankedIds(
    name: string,
    filter: PartFilter,
    offset: number,
    limit: number,
    queryOf = this.queryOf(name, filter.projectId),
  ): Promise<number[]> {
    const ids: number[] = [];
    let skip = offset;
    // Every id of the tiers walked so far, while a tier that ran out from its first match shows all of them.
    let before: number[] | undefined = [];
    for (const tier of await this.tiers(name, filter, queryOf)) {
      if (ids.length === limit) break;
      const wanted = limit - ids.length;
      const found = await tier.ids(wanted, skip, before);
      before = before && skip === 0 && found.length < wanted ? [...before, ...found] : undefined;
      if (found.length) skip = 0;
      else if (skip) skip -= await tier.count(skip);
      ids.push(...found);
    }
    return ids;
  }

  /** Capped count of every match of `name` (all tiers: the whole-word and exact tiers lie inside `any`). */
  private async countMatches(name: string, filter: PartFilter, cap: number, queryOf: QueryOf): Promise<number> {
    const query = await queryOf();
    if (query.needsScan || !query.any.length) {
      const tiers = await this.tiers(name, filter, queryOf);
      return Math.min(cap, (await tiers[0].count(cap)) + (await tiers[1].count(cap)));
    }
    return this.index.count(this.read, 'any', query, { ...filter, chars: query.chars }, cap);
  }

  /** `name` as a search query in the order the index walks it, worked out once however often it is asked for. */
  private queryOf(name: string, projectId: string): QueryOf {
    let query: Promise<SearchQuery> | undefined;
    return () => {
      query ??= this.index.rarestFirst(this.read, searchQuery(name), projectId);
      return query;
    };
  }

  private async rows(ctx: ErpContext, ids: number[]): Promise<Part[]> {
    if (!ids.length) return [];
    const rows = await this.read<PartValues>(
      `select ${PART_SELECT} from parts join suppliers on suppliers.id = parts.supplier_id ${CATEGORY_JOIN}
       where parts.project_id = ? and parts.id in (${ids.map(() => '?').join(', ')})`,
      [ctx.projectId, ...ids],
      { arrays: true },
    );
    const byId = new Map(rows.map((r) => [Number(r[0]), r]));
    return ids.flatMap((id) => {
      const row = byId.get(id);
      return row ? [partOf(row)] : [];
    });
  }

  /** The version of the catalogue, which every write to parts or suppliers moves (see CatalogCache). */
  private async catalogVersion(): Promise<number> {
    const [[version]] = await this.read<[number | string]>('select version from catalog_version', [], {
      arrays: true,
    });
    return Number(version);
  }

  /** The parts of `ids`, in that order, as the JSON text of a `Part` array, from the cards kept for `version`. */
  private async rowsJson(ctx: ErpContext, ids: number[], version: number): Promise<string> {
    if (!ids.length) return '[]';
    return this.cache.cardArray(ids, ctx.projectId, version, (missing) => this.cards(ctx, missing));
  }

  /**
   * Cards of the parts of `ids` as `[id, json]`. SQLite writes the JSON itself: building a row's values as JS
   * strings, a `Part` from them and the JSON text again took about half of answering a page of parts.
   */
  private async cards(ctx: ErpContext, ids: number[]): Promise<Array<[number, string]>> {
    if (this.dialect !== 'sqlite') return (await this.rows(ctx, ids)).map((part) => [part.id, JSON.stringify(part)]);
    return this.read<[number, string]>(
      `select parts.id, json_object(
         'id', parts.id, 'code', parts.code, 'model', parts.model, 'category', parts.category,
         'categoryName', coalesce(categories.name_zh, parts.category), 'nameZh', parts.name_zh, 'nameEn', parts.name_en,
         'spec', parts.spec, 'unit', parts.unit, 'unitPrice', parts.unit_price_e4 / 10000.0, 'currency', 'CNY',
         'moq', parts.moq,
         'supplier', json_object('id', parts.supplier_id, 'nameZh', suppliers.name_zh, 'nameEn', suppliers.name_en)
       )
       from json_each(?) wanted join parts on parts.id = wanted.value join suppliers on suppliers.id = parts.supplier_id
       ${CATEGORY_JOIN} where parts.project_id = ?`,
      [JSON.stringify(ids), ctx.projectId],
      { arrays: true },
    );
  }

  /** Ids of a list page and its capped match count, kept for the catalogue `version`. */
  private async page(ctx: ErpContext, q: PartQuery, version: number): Promise<{ ids: number[]; counted: number }> {
    const filter: PartFilter = { projectId: ctx.projectId, category: q.category, supplierId: q.supplierId };
    const offset = (q.page - 1) * q.size;
    // The page and its count share one query (on PostgreSQL, one count of each word's postings).
    const queryOf = this.queryOf(q.name ?? '', ctx.projectId);
    const count = () =>
      q.name
        ? this.countMatches(q.name, filter, TOTAL_CAP + 1, queryOf)
        : this.source(this.filtered(filter)).count(TOTAL_CAP + 1);
    const ids = () =>
      q.name
        ? this.rankedIds(q.name, filter, offset, q.size, queryOf)
        : this.source(this.filtered(filter)).ids(q.size, offset);
    const key = JSON.stringify([ctx.projectId, q.category, q.supplierId, q.name]);
    const [pageIds, counted] = await Promise.all([
      this.cache.answer(`page ${key} ${offset} ${q.size}`, version, ids),
      this.cache.answer(`count ${key}`, version, count),
    ]);
    return { ids: pageIds, counted };
  }

  /** Paged list, filtered by name (ranked: exact code, whole words, partial words), category and supplier. */
  async list(ctx: ErpContext, q: PartQuery): Promise<Page<Part>> {
    const { ids, counted } = await this.page(ctx, q, await this.catalogVersion());
    return { items: await this.rows(ctx, ids), ...pageFields(q, counted) };
  }

  /** `list` as the JSON text of its page, for the HTTP API. */
  async listJson(ctx: ErpContext, q: PartQuery): Promise<string> {
    const version = await this.catalogVersion();
    const { ids, counted } = await this.page(ctx, q, version);
    return `{"items":${await this.rowsJson(ctx, ids, version)},${JSON.stringify(pageFields(q, counted)).slice(1)}`;
  }

  /** Parts whose name or code matches, most relevant first, at most `limit`. */
  async search(ctx: ErpContext, name: string, limit = 50): Promise<Part[]> {
    return this.rows(ctx, await this.rankedIds(name, { projectId: ctx.projectId }, 0, limit));
  }

  /** `search` as the JSON text of `{ items }`, for the HTTP API. */
  async searchJson(ctx: ErpContext, name: string, limit = 50): Promise<string> {
    // Read before what is derived from it: a write in between then moves the version past what was kept.
    const version = await this.catalogVersion();
    const ids = await this.cache.answer(JSON.stringify(['search', ctx.projectId, name, limit]), version, () =>
      this.rankedIds(name, { projectId: ctx.projectId }, 0, limit),
    );
    return `{"items":${await this.rowsJson(ctx, ids, version)}}`;
  }

  /** Adds a part to the catalogue (administrators), searchable as soon as the transaction commits. */
  async create(ctx: ErpContext, input: PartInput): Promise<Part> {
    requireAdmin(ctx);
    const id = await this.db.transaction().execute(async (trx) => {
      await this.checkInput(trx, ctx, input);
      const row = await trx
        .insertInto('parts')
        .values({ project_id: ctx.projectId, ...partColumnsOf(input) })
        .returning('id')
        .executeTakeFirstOrThrow();
      const id = Number(row.id);
      await this.index.write(trx, [{ id, project_id: ctx.projectId, ...searchColumnsOf(input) }]);
      return id;
    });
    return this.get(ctx, id);
  }

  /** Changes a part (administrators); its search entries change in the same transaction. */
  async update(ctx: ErpContext, id: number, changes: Partial<PartInput>): Promise<Part> {
    requireAdmin(ctx);
    await this.db.transaction().execute(async (trx) => {
      const current = await this.get(ctx, id, trx);
      const input: PartInput = {
        supplierId: current.supplier.id,
        code: current.code,
        model: current.model,
        category: current.category,
        nameZh: current.nameZh,
        nameEn: current.nameEn,
        spec: current.spec,
        unit: current.unit,
        unitPrice: current.unitPrice,
        moq: current.moq,
        ...changes,
      };
      await this.checkInput(trx, ctx, input, id);
      await trx.updateTable('parts').set(partColumnsOf(input)).where('id', '=', id).execute();
      await this.index.write(trx, [{ id, project_id: ctx.projectId, ...searchColumnsOf(input) }]);
    });
    return this.get(ctx, id);
  }

  private async checkInput(db: Kysely<ErpTables>, ctx: ErpContext, input: PartInput, id?: number) {
    const errors = [];
    const category = await db
      .selectFrom('categories')
      .select('code')
      .where('project_id', '=', ctx.projectId)
      .where('code', '=', input.category)
      .executeTakeFirst();
    if (!category) errors.push({ field: 'category', message: `unknown category ${input.category}` });
    if (!Number.isFinite(input.unitPrice) || input.unitPrice < 0 || input.unitPrice > MAX_UNIT_PRICE)
      errors.push({ field: 'unitPrice', message: `must be from 0 to ${MAX_UNIT_PRICE}` });
    if (!Number.isInteger(input.moq) || input.moq < 1)
      errors.push({ field: 'moq', message: 'must be a whole number ≥ 1' });
    if (!input.code.trim()) errors.push({ field: 'code', message: 'must not be empty' });
    if (errors.length) throw unprocessable('字段校验失败 / invalid fields', errors);
    await requireSupplier(db, ctx, input.supplierId);
    const clash = await db
      .selectFrom('parts')
      .select('id')
      .where('project_id', '=', ctx.projectId)
      .where('code', '=', input.code)
      .executeTakeFirst();
    if (clash && Number(clash.id) !== id)
      throw conflict(`零部件编码 ${input.code} 已存在 / part code ${input.code} exists`);
  }

  async bySupplier(ctx: ErpContext, supplierId: number): Promise<Part[]> {
    const rows = await this.base(ctx)
      .where('parts.supplier_id', '=', supplierId)
      .select(partColumns)
      .orderBy('parts.id')
      .execute();
    return rows.map(toPart);
  }

  async get(ctx: ErpContext, id: number, db = this.db): Promise<Part> {
    const row = await this.base(ctx, db).where('parts.id', '=', id).select(partColumns).executeTakeFirst();
    if (!row) throw notFound(`零部件 ${id} 不存在 / part ${id} not found`);
    return toPart(row);
  }

  /** The project's categories with their names, synonyms and part counts (0 for one no part uses yet). */
  async categories(ctx: ErpContext): Promise<Category[]> {
    const rows = await this.db
      .selectFrom('categories')
      .leftJoin('parts', (join) =>
        join.onRef('parts.project_id', '=', 'categories.project_id').onRef('parts.category', '=', 'categories.code'),
      )
      .select([
        'categories.code',
        'categories.name_zh',
        'categories.name_en',
        'categories.synonyms_zh',
        'categories.synonyms_en',
        (eb) => eb.fn.count<number | string>('parts.id').as('n'),
      ])
      .where('categories.project_id', '=', ctx.projectId)
      .groupBy([
        'categories.code',
        'categories.name_zh',
        'categories.name_en',
        'categories.synonyms_zh',
        'categories.synonyms_en',
      ])
      .orderBy('categories.code')
      .execute();
    return rows.map((r) => ({
      code: r.code,
      nameZh: r.name_zh,
      nameEn: r.name_en,
      synonymsZh: JSON.parse(r.synonyms_zh) as string[],
      synonymsEn: JSON.parse(r.synonyms_en) as string[],
      parts: Number(r.n),
    }));
  }
}

function pageFields(q: PartQuery, counted: number) {
  return { total: Math.min(counted, TOTAL_CAP), totalCapped: counted > TOTAL_CAP, page: q.page, size: q.size };
}

/** The part's category row, for its name (the code stands in when the row is missing). */
const CATEGORY_JOIN =
  'left join categories on categories.project_id = parts.project_id and categories.code = parts.category';

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
  'categories.name_zh as category_name',
] as const;

/** `partColumns` as SQL text, for the hand-written queries of the search path. */
const PART_SELECT = partColumns.join(', ');

/** A part row with its supplier's names, as the search path's join reads it. */
type PartJoinRow = Omit<ErpTables['parts'], 'id' | 'project_id'> & {
  id: number;
  supplier_name_zh: string;
  supplier_name_en: string;
  category_name: string | null;
};

/** A `PART_SELECT` row as its values, in `partColumns` order. */
type PartValues = [
  number,
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  number,
  number,
  number,
  string,
  string,
  string | null,
];

/** A part from its row's values: the search path reads rows as arrays, so it builds one object per part. */
function partOf(v: PartValues): Part {
  return {
    id: Number(v[0]),
    code: v[1],
    model: v[2],
    category: v[3],
    categoryName: v[13] ?? v[3],
    nameZh: v[4],
    nameEn: v[5],
    spec: v[6],
    unit: v[7],
    unitPrice: fromE4(v[8]),
    currency: 'CNY',
    moq: v[9],
    supplier: { id: Number(v[10]), nameZh: v[11], nameEn: v[12] },
  };
}

export function toPart(row: PartJoinRow): Part {
  return partOf([
    row.id,
    row.code,
    row.model,
    row.category,
    row.name_zh,
    row.name_en,
    row.spec,
    row.unit,
    row.unit_price_e4,
    row.moq,
    row.supplier_id,
    row.supplier_name_zh,
    row.supplier_name_en,
    row.category_name,
  ]);
}

function requireAdmin(ctx: ErpContext) {
  if (ctx.role !== 'admin')
    throw forbidden('只有管理员可以维护零部件目录 / only administrators maintain the catalogue');
}

function partColumnsOf(input: PartInput) {
  return {
    supplier_id: input.supplierId,
    code: input.code,
    model: input.model,
    category: input.category,
    name_zh: input.nameZh,
    name_en: input.nameEn,
    spec: input.spec,
    unit: input.unit,
    unit_price_e4: toE4(input.unitPrice),
    moq: input.moq,
  };
}

function searchColumnsOf(input: PartInput): Omit<SearchablePart, 'id' | 'project_id'> {
  return {
    code: input.code,
    model: input.model,
    category: input.category,
    name_zh: input.nameZh,
    name_en: input.nameEn,
  };
}
