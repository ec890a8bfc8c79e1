import { type Kysely, sql } from 'kysely';
import { isLatinToken, type SearchQuery, searchDocument } from '../search-tokens.ts';
import type { Dialect, ErpTables, ReadQuery } from './schema.ts';

/*
 * The part search index, one per database, both over the tokens of search-tokens.ts.
 *
 * Measured at 100k parts (2 cores): a search must stop after the page it returns, because sorting every
 * match of a broad word ("火花塞" matches a fifth of the catalogue) costs milliseconds. So relevance comes in
 * tiers (exact code, whole words, partial words), each walked in part-id order with a LIMIT, instead of a
 * per-query score:
 * - SQLite: an FTS5 table with the whole words and the prefixes in two columns ~15 µs per tier query,
 *   where FTS5 `ORDER BY rank` (bm25) over the same matches took 3–20 ms, and the old token table joined
 *   with one EXISTS per token capped the whole search at 16 % of a bare HTTP server. Each token carries
 *   its project: a project column ANDed into every query walked a posting list as long as the project's
 *   whole catalogue, and took about half of each tier query and capped count.
 * - PostgreSQL: a B-tree of (token, project, part), walked in part order by index-only scans, ~0.15 ms per
 *   tier query and ~0.6 ms for a count capped at 1,000. A GIN index over a tsvector of the same tokens finds
 *   matches as an unordered bitmap, so every page fetched, rechecked and sorted all of them: 2–100 ms, and
 *   11 ms for the capped count.
 */

/** The columns a part is found by. */
export interface SearchablePart {
  id: number;
  project_id: string;
  code: string;
  model: string;
  category: string;
  name_zh: string;
  name_en: string;
}

/** Tiers the index answers: whole words, partial words (excluding whole), and any match (for counting). */
export type IndexedTier = 'whole' | 'partial' | 'any';

/** The narrowing a list applies besides the text. */
export interface PartFilter {
  projectId: string;
  category?: string;
  supplierId?: number;
  /** Ids already listed by a better tier. */
  exclude?: number[];
  /** Characters the part's Chinese name must hold (lone CJK characters of a query, which no token finds). */
  chars?: string[];
}

/** What a part is found by besides its own names: its category's names and synonyms, by project and code. */
export type CategoryTerms = Map<string, string[]>;

const termsKey = (projectId: string, code: string) => `${projectId}/${code}`;

/** The category words of these projects, from the `categories` table. */
export async function categoryTerms(db: Kysely<ErpTables>, projectIds: string[]): Promise<CategoryTerms> {
  const terms: CategoryTerms = new Map();
  if (!projectIds.length) return terms;
  const rows = await db
    .selectFrom('categories')
    .selectAll()
    .where('project_id', 'in', [...new Set(projectIds)])
    .execute();
  for (const c of rows) {
    terms.set(termsKey(c.project_id, c.code), [
      c.name_zh,
      c.name_en,
      ...(JSON.parse(c.synonyms_zh) as string[]),
      ...(JSON.parse(c.synonyms_en) as string[]),
    ]);
  }
  return terms;
}

function documentOf(part: SearchablePart, terms: CategoryTerms) {
  return searchDocument(
    part.code,
    part.model,
    part.name_zh,
    part.name_en,
    ...(terms.get(termsKey(part.project_id, part.category)) ?? []),
  );
}

/** PostgreSQL postings of a whole Latin word carry this mark, so a whole-word tier never matches a prefix. */
const WHOLE = '=';
const wholePosting = (token: string) => (isLatinToken(token) ? WHOLE + token : token);

/**
 * A search token scoped to its project: the project id in hex, `z` (never a hex digit) and the token, one
 * FTS5 token whatever characters the id holds.
 */
const projectScope = (projectId: string) => `p${Buffer.from(projectId).toString('hex')}z`;

/** FTS5 query text: every token quoted (tokens are [a-z0-9] or CJK, so no quote can occur inside). */
const ftsAll = (scope: string, tokens: string[]) => tokens.map((t) => `"${scope}${t}"`).join(' AND ');

const ROWS_PER_INSERT = 500;
/** Postings counted per token to tell rare from common ones (rarestFirst): enough to order them, cheap to count. */
const RARITY_CAP = 500;

export class PartSearchIndex {
  constructor(readonly dialect: Dialect) {}

  /**
   * (Re)writes the search entries of these parts; call inside the transaction that wrote the parts. Category words
   * come from the `categories` table unless given (schema versions before it index the parts' own names).
   */
  async write(db: Kysely<ErpTables>, parts: SearchablePart[], terms?: CategoryTerms): Promise<void> {
    if (!parts.length) return;
    const words =
      terms ??
      (await categoryTerms(
        db,
        parts.map((p) => p.project_id),
      ));
    const ids = parts.map((p) => p.id);
    if (this.dialect === 'sqlite') {
      await sql`delete from part_search where rowid in (${sql.join(ids)})`.execute(db);
      for (let i = 0; i < parts.length; i += ROWS_PER_INSERT) {
        const rows = parts.slice(i, i + ROWS_PER_INSERT).map((p) => {
          const doc = documentOf(p, words);
          const scope = projectScope(p.project_id);
          const scoped = (tokens: string[]) => tokens.map((t) => scope + t).join(' ');
          return sql`(${p.id}, ${scoped(doc.words)}, ${scoped(doc.prefixes)})`;
        });
        await sql`insert into part_search (rowid, words, prefixes) values ${sql.join(rows)}`.execute(db);
      }
      return;
    }
    await db.deleteFrom('part_tokens').where('part_id', 'in', ids).execute();
    const tokens: string[] = [];
    const projects: string[] = [];
    const partIds: number[] = [];
    for (const p of parts) {
      const doc = documentOf(p, words);
      for (const token of new Set([
        ...doc.words,
        ...doc.prefixes,
        ...doc.words.filter(isLatinToken).map(wholePosting),
      ])) {
        tokens.push(token);
        projects.push(p.project_id);
        partIds.push(p.id);
      }
    }
    // Three array parameters instead of three per row: a bulk load's statements stay small and quick to parse.
    await sql`insert into part_tokens (token, project_id, part_id)
      select * from unnest(${tokens}::text[], ${projects}::text[], ${partIds}::int[])`.execute(db);
  }

  /** Rewrites the entries of every part (migrations), in batches; `withCategories` false before that table exists. */
  async rebuild(db: Kysely<ErpTables>, { withCategories = true } = {}): Promise<void> {
    let after = 0;
    for (;;) {
      const parts = await db
        .selectFrom('parts')
        .select(['id', 'project_id', 'code', 'model', 'category', 'name_zh', 'name_en'])
        .where('id', '>', after)
        .orderBy('id')
        .limit(5000)
        .execute();
      if (!parts.length) break;
      await this.write(
        db,
        parts.map((p) => ({ ...p, id: Number(p.id) })),
        withCategories ? undefined : new Map(),
      );
      after = Number(parts[parts.length - 1].id);
    }
    await this.compact(db, { inTransaction: true });
  }

  /**
   * After a bulk load: merges FTS5 segments and refreshes planner statistics. On PostgreSQL it also
   * vacuums (outside a transaction only), so index-only scans of the token table skip the heap.
   */
  async compact(db: Kysely<ErpTables>, { inTransaction = false } = {}): Promise<void> {
    if (this.dialect === 'sqlite') {
      await sql`insert into part_search (part_search) values ('optimize')`.execute(db);
      await analyzeSqlite(db);
    } else {
      await sql.raw(`${inTransaction ? '' : 'vacuum '}analyze parts, part_tokens`).execute(db);
    }
  }

  /**
   * The query with its rarest tokens first. PostgreSQL walks the postings of the first token and probes the others
   * for each part it meets, so the first should be the rarest: led by the longest token, a six-word product name
   * whose longest word was "motorcycle" walked a fifth of a 1M catalogue and took close to a second. SQLite's
   * FTS5 intersects the tokens itself.
   */
  async rarestFirst(read: ReadQuery, query: SearchQuery, projectId: string): Promise<SearchQuery> {
    if (this.dialect !== 'postgres' || query.any.length < 2) return query;
    // Each tier's tokens as it walks them: a whole-word posting is far rarer than the same text as a prefix.
    const tokens = [...new Set([...query.whole.map(wholePosting), ...query.any])];
    const rows = await read<[string, number | string]>(
      `select t.token, (select count(*) from (select 1 from part_tokens p where p.token = t.token and p.project_id = ?
         limit ${RARITY_CAP}) capped) from unnest(?::text[]) as t(token)`,
      [projectId, tokens],
      { arrays: true },
    );
    const postings = new Map(rows.map(([token, n]) => [token, Number(n)]));
    const rarest = (posting: (token: string) => string) => (a: string, b: string) =>
      (postings.get(posting(a)) ?? 0) - (postings.get(posting(b)) ?? 0) || b.length - a.length;
    return {
      ...query,
      whole: [...query.whole].sort(rarest(wholePosting)),
      any: [...query.any].sort(rarest((token) => token)),
    };
  }

  /** Ids of the parts in one tier, ascending, after skipping `offset`. */
  async ids(
    read: ReadQuery,
    tier: IndexedTier,
    query: SearchQuery,
    filter: PartFilter,
    limit: number,
    offset = 0,
  ): Promise<number[]> {
    const select = this.select(tier, query, filter);
    const rows = await read<{ id: number }>(`${select.text} limit ? offset ?`, [...select.params, limit, offset]);
    return rows.map((r) => Number(r.id));
  }

  /** How many parts a tier holds, counting no further than `cap`. */
  async count(
    read: ReadQuery,
    tier: IndexedTier,
    query: SearchQuery,
    filter: PartFilter,
    cap: number,
  ): Promise<number> {
    // Any `cap` matches count the same: SQLite's walk need not keep rowid order (a tenth of its cost).
    const select =
      this.dialect === 'sqlite' ? this.selectSqlite(tier, query, filter, false) : this.select(tier, query, filter);
    const rows = await read<{ n: number | string }>(`select count(*) as n from (${select.text} limit ?) capped`, [
      ...select.params,
      cap,
    ]);
    return Number(rows[0].n);
  }

  private select(tier: IndexedTier, query: SearchQuery, filter: PartFilter): Sql {
    return this.dialect === 'sqlite'
      ? this.selectSqlite(tier, query, filter)
      : this.selectPostgres(tier, query, filter);
  }

  private selectSqlite(tier: IndexedTier, query: SearchQuery, filter: PartFilter, ordered = true): Sql {
    const scope = projectScope(filter.projectId);
    const whole = `words : (${ftsAll(scope, query.whole)})`;
    const any = ftsAll(scope, query.any);
    // Tokens carry the project, so the common case never leaves the FTS5 index.
    const match = tier === 'whole' ? whole : tier === 'partial' ? `(${any}) NOT (${whole})` : any;
    const joined = needsParts(filter);
    const where = partFilter(filter, 'part_search.rowid', false);
    // CROSS JOIN keeps FTS5 as the outer loop, so rows come in rowid order and the LIMIT stops the walk;
    // NOT INDEXED makes each part a primary-key lookup, never a scan of a category-wide index.
    return {
      text: `select part_search.rowid as id from part_search
        ${joined ? 'cross join parts not indexed on parts.id = part_search.rowid' : ''}
        where part_search match ? and ${where.text} ${ordered ? 'order by part_search.rowid' : ''}`,
      params: [match, ...where.params],
    };
  }

  private selectPostgres(tier: IndexedTier, query: SearchQuery, filter: PartFilter): Sql {
    const required = tier === 'whole' ? query.whole.map(wholePosting) : query.any;
    // The first token drives the walk (see rarestFirst), the others are probed per part.
    const [driver, ...others] = required;
    // `offset 0` keeps each probe a per-part index lookup: flattened into a join, the planner (which cannot tell a
    // rare token from a common one) merged the postings of a common word whole, 20 ms at 1M parts for 5 matches.
    const has =
      'exists (select 1 from part_tokens tx where tx.token = ? and tx.project_id = ? and tx.part_id = t0.part_id offset 0)';
    const conditions = others.map(() => has);
    const params: unknown[] = others.flatMap((token) => [token, filter.projectId]);
    if (tier === 'partial') {
      const whole = query.whole.map(wholePosting);
      conditions.push(`not (${whole.map(() => has).join(' and ')})`);
      params.push(...whole.flatMap((token) => [token, filter.projectId]));
    }
    const joined = needsParts(filter);
    const where = partFilter(filter, 't0.part_id', joined);
    return {
      text: `select t0.part_id as id from part_tokens t0 ${joined ? 'join parts on parts.id = t0.part_id' : ''}
        where t0.token = ? and t0.project_id = ? ${conditions.map((c) => `and ${c}`).join(' ')} and ${where.text}
        order by t0.part_id`,
      params: [driver, filter.projectId, ...params, ...where.params],
    };
  }
}

/**
 * Refreshes SQLite's planner statistics without the per-value samples (`sqlite_stat4`). With samples, a
 * statement whose bound value meets an indexed column (`project_id = ?`, `lower(code) = ?`) is parsed and
 * planned again every time it runs with new bindings: a search's row fetch spent more time re-planning
 * than reading. The per-index averages (`sqlite_stat1`) stay.
 */
export async function analyzeSqlite(db: Kysely<ErpTables>): Promise<void> {
  await sql`analyze`.execute(db);
  const stat4 = await sql`select 1 from sqlite_master where name = 'sqlite_stat4'`.execute(db);
  if (!stat4.rows.length) return;
  await sql`delete from sqlite_stat4`.execute(db);
  // Reloads the statistics, so open statements and this connection forget the samples too.
  await sql`analyze sqlite_schema`.execute(db);
}

/** Query text with `?` placeholders and its parameters, in order. */
export interface Sql {
  text: string;
  params: unknown[];
}

/** Whether a filter needs the `parts` row besides the index. */
export const needsParts = (filter: PartFilter) =>
  filter.category !== undefined || filter.supplierId !== undefined || Boolean(filter.chars?.length);

/** The project, category, supplier, name and exclusion conditions, on `parts` when it is joined. */
export function partFilter(filter: PartFilter, id: string, joined: boolean): Sql {
  const conditions: string[] = [];
  const params: unknown[] = [];
  const add = (condition: string, ...values: unknown[]) => {
    conditions.push(condition);
    params.push(...values);
  };
  if (joined) add('parts.project_id = ?', filter.projectId);
  if (filter.category !== undefined) add('parts.category = ?', filter.category);
  if (filter.supplierId !== undefined) add('parts.supplier_id = ?', filter.supplierId);
  if (filter.exclude?.length) add(`${id} not in (${filter.exclude.map(() => '?').join(', ')})`, ...filter.exclude);
  // CJK characters: no LIKE wildcard can occur in them.
  for (const char of filter.chars ?? []) add('parts.name_zh like ?', `%${char}%`);
  return { text: conditions.length ? conditions.join(' and ') : '1 = 1', params };
}
