import fs from 'node:fs';
import path from 'node:path';
import {
  BaseStore,
  type GetOperation,
  type Item,
  type ListNamespacesOperation,
  type MatchCondition,
  type Operation,
  type OperationResults,
  type PutOperation,
  type SearchItem,
  type SearchOperation,
  validateNamespace,
} from '@langchain/langgraph-checkpoint';
import Database from 'better-sqlite3';

export interface SqliteStoreOptions {
  /** The database file (created with its directory); `:memory:` for a throw-away store. */
  file: string;
  /** Vector search is not offered by this store: passing an index configuration is refused. */
  index?: unknown;
}

interface Row {
  namespace: string;
  key: string;
  value: string;
  created_at: number;
  updated_at: number;
}

type SqlParam = string | number | null;

/** Tag for byte arrays inside stored JSON values, so `Uint8Array` file content survives a round trip. */
const BYTES_TAG = '__procura_bytes__';

const FILTER_OPERATORS = new Set(['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin', '$exists']);
const COMPARISONS: Record<string, string> = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' };

/**
 * LangGraph's `BaseStore` on one SQLite file (WAL): get / put / delete / search by namespace prefix with value
 * filters (`{field: value}` or `{field: {$eq|$ne|$gt|$gte|$lt|$lte|$in|$nin|$exists}}` on top-level fields),
 * limit/offset, and `listNamespaces`. A search `query` keeps items whose JSON value contains the text
 * (case-insensitive); there is no semantic/vector search. Results come newest first, like `PostgresStore`.
 */
export class SqliteStore extends BaseStore {
  private readonly db: Database.Database;

  constructor(options: SqliteStoreOptions) {
    super();
    if (options.index !== undefined) {
      throw new Error(
        'SqliteStore 不支持向量检索，请去掉 index 配置（需要语义检索时使用 PostgresStore + pgvector） / ' +
          'SqliteStore has no vector search: remove the index option (use PostgresStore with pgvector for semantic search)',
      );
    }
    if (options.file !== ':memory:') fs.mkdirSync(path.dirname(options.file), { recursive: true });
    this.db = new Database(options.file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS store_items (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        namespace TEXT NOT NULL,
        key TEXT NOT NULL,
        value TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        UNIQUE (namespace, key)
      )`);
  }

  async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    const run = this.db.transaction((ops: Operation[]) => ops.map((op) => this.apply(op)));
    return run(operations) as OperationResults<Op>;
  }

  stop(): void {
    if (this.db.open) this.db.close();
  }

  private apply(op: Operation): Item | null | SearchItem[] | string[][] | undefined {
    if ('namespacePrefix' in op) return this.runSearch(op);
    if (!('namespace' in op)) return this.runListNamespaces(op);
    return 'value' in op ? this.runPut(op as PutOperation) : this.runGet(op);
  }

  private runGet(op: GetOperation): Item | null {
    checkNamespace(op.namespace);
    const row = this.db
      .prepare<[string, string], Row>('SELECT * FROM store_items WHERE namespace = ? AND key = ?')
      .get(joinNamespace(op.namespace), op.key);
    return row ? toItem(row) : null;
  }

  private runPut(op: PutOperation): undefined {
    checkNamespace(op.namespace);
    const namespace = joinNamespace(op.namespace);
    if (op.value === null) {
      this.db.prepare('DELETE FROM store_items WHERE namespace = ? AND key = ?').run(namespace, op.key);
      return undefined;
    }
    if (typeof op.value !== 'object' || Array.isArray(op.value)) {
      throw new Error(`存储的值必须是对象 / a stored value must be an object (key ${op.key})`);
    }
    const now = Date.now();
    this.db
      .prepare(
        `INSERT INTO store_items (namespace, key, value, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
      )
      .run(namespace, op.key, encodeValue(op.value), now, now);
    return undefined;
  }

  private runSearch(op: SearchOperation): SearchItem[] {
    const where: string[] = [];
    const params: SqlParam[] = [];
    if (op.namespacePrefix.length > 0) {
      checkNamespace(op.namespacePrefix);
      const prefix = joinNamespace(op.namespacePrefix);
      // Whole labels only: `a:b` matches `a:b` and `a:b:…`, never `a:bc` (';' sorts right after ':').
      where.push('(namespace = ? OR (namespace >= ? AND namespace < ?))');
      params.push(prefix, `${prefix}:`, `${prefix};`);
    }
    for (const [field, condition] of Object.entries(op.filter ?? {})) where.push(filterSql(field, condition, params));
    if (op.query) {
      where.push('instr(lower(value), lower(?)) > 0');
      params.push(op.query);
    }
    const limit = nonNegativeInteger(op.limit ?? 10, 'limit');
    const offset = nonNegativeInteger(op.offset ?? 0, 'offset');
    const sql = `SELECT * FROM store_items ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY seq DESC LIMIT ? OFFSET ?`;
    return this.db
      .prepare<SqlParam[], Row>(sql)
      .all(...params, limit, offset)
      .map(toItem);
  }

  private runListNamespaces(op: ListNamespacesOperation): string[][] {
    const rows = this.db.prepare<[], { namespace: string }>('SELECT DISTINCT namespace FROM store_items').all();
    let namespaces = rows
      .map((row) => row.namespace.split(':'))
      .filter((namespace) => (op.matchConditions ?? []).every((condition) => matches(condition, namespace)));
    if (op.maxDepth !== undefined) {
      const depth = nonNegativeInteger(op.maxDepth, 'maxDepth');
      const unique = new Map(
        namespaces.map((namespace) => [namespace.slice(0, depth).join(':'), namespace.slice(0, depth)]),
      );
      namespaces = [...unique.values()];
    }
    namespaces.sort((a, b) => compareText(a.join(':'), b.join(':')));
    const offset = nonNegativeInteger(op.offset ?? 0, 'offset');
    return namespaces.slice(offset, offset + nonNegativeInteger(op.limit ?? 100, 'limit'));
  }
}

function checkNamespace(namespace: string[]): void {
  validateNamespace(namespace, { allowReservedRoot: true });
}

const joinNamespace = (namespace: string[]) => namespace.join(':');

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function nonNegativeInteger(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 0) {
    throw new Error(`${name} 必须是非负整数 / ${name} must be a non-negative integer, got ${value}`);
  }
  return value;
}

function matches(condition: MatchCondition, namespace: string[]): boolean {
  const { path: pattern, matchType } = condition;
  if (pattern.length > namespace.length) return false;
  const start = matchType === 'prefix' ? 0 : namespace.length - pattern.length;
  return pattern.every((label, i) => label === '*' || label === namespace[start + i]);
}

/** One SQL condition for a filter on a top-level value field; parameters are appended to `params`. */
function filterSql(field: string, condition: unknown, params: SqlParam[]): string {
  const isOperatorObject =
    condition !== null &&
    typeof condition === 'object' &&
    !Array.isArray(condition) &&
    Object.keys(condition).some((k) => k.startsWith('$'));
  if (!isOperatorObject) return equalsSql(field, condition, params);
  const parts: string[] = [];
  for (const [operator, operand] of Object.entries(condition as Record<string, unknown>)) {
    if (!FILTER_OPERATORS.has(operator)) {
      throw new Error(`不支持的过滤运算符 / unsupported filter operator ${operator} on ${field}`);
    }
    if (operator === '$eq') parts.push(equalsSql(field, operand, params));
    else if (operator === '$ne') parts.push(`NOT ${equalsSql(field, operand, params)}`);
    else if (operator === '$in' || operator === '$nin') {
      if (!Array.isArray(operand)) throw new Error(`${operator} 需要数组 / ${operator} needs an array (${field})`);
      const any = operand.length ? `(${operand.map((v) => equalsSql(field, v, params)).join(' OR ')})` : '0';
      parts.push(operator === '$in' ? any : `NOT ${any}`);
    } else if (operator === '$exists') {
      params.push(field);
      parts.push(`${operand ? '' : 'NOT '}EXISTS (SELECT 1 FROM json_each(store_items.value) AS j WHERE j.key = ?)`);
    } else {
      if (typeof operand !== 'number' || !Number.isFinite(operand)) {
        throw new Error(`${operator} 需要数字 / ${operator} needs a number (${field})`);
      }
      params.push(field, operand);
      parts.push(
        `EXISTS (SELECT 1 FROM json_each(store_items.value) AS j WHERE j.key = ? AND j.type IN ('integer', 'real') AND j.atom ${COMPARISONS[operator]} ?)`,
      );
    }
  }
  return parts.length ? `(${parts.join(' AND ')})` : '1';
}

/** Typed equality, as `===` in LangGraph's in-memory store: `1` never equals `"1"`; objects compare by JSON text. */
function equalsSql(field: string, expected: unknown, params: SqlParam[]): string {
  const match = (test: string, ...values: SqlParam[]) => {
    params.push(field, ...values);
    return `EXISTS (SELECT 1 FROM json_each(store_items.value) AS j WHERE j.key = ? AND ${test})`;
  };
  if (expected === null) return match("j.type = 'null'");
  if (typeof expected === 'boolean') return match(`j.type = '${expected}'`);
  if (typeof expected === 'number') return match("j.type IN ('integer', 'real') AND j.atom = ?", expected);
  if (typeof expected === 'string') return match("j.type = 'text' AND j.atom = ?", expected);
  if (typeof expected === 'object')
    return match("j.type IN ('object', 'array') AND j.value = json(?)", JSON.stringify(expected));
  throw new Error(`无法按此值过滤 / cannot filter ${field} by a ${typeof expected}`);
}

function encodeValue(value: Record<string, unknown>): string {
  return JSON.stringify(value, (_key, v) =>
    v instanceof Uint8Array ? { [BYTES_TAG]: Buffer.from(v).toString('base64') } : v,
  );
}

function decodeValue(text: string): Record<string, unknown> {
  return JSON.parse(text, (_key, v) =>
    v && typeof v === 'object' && typeof v[BYTES_TAG] === 'string' && Object.keys(v).length === 1
      ? new Uint8Array(Buffer.from(v[BYTES_TAG], 'base64'))
      : v,
  );
}

function toItem(row: Row): Item {
  return {
    namespace: row.namespace.split(':'),
    key: row.key,
    value: decodeValue(row.value),
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}
