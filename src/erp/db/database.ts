import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Sqlite from 'better-sqlite3';
import { CompiledQuery, Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { withPostgresSetupLock } from '../../shared/index.ts';
import { migrateToLatest } from './migrations.ts';
import type { Dialect, ErpTables, ReadQuery } from './schema.ts';

export interface ErpDatabase {
  db: Kysely<ErpTables>;
  dialect: Dialect;
  /** Where the data lives, for start-up messages (file path or URL without password). */
  location: string;
  /** Runs a hand-written read query (`?` placeholders) straight on the driver, statements prepared once. */
  read: ReadQuery;
  close(): Promise<void>;
}

const MAX_STATEMENTS = 500;

export interface DatabaseOptions {
  /** SQLite file directory, used when no `databaseUrl` is given. */
  dataDir?: string;
  /** `postgres://…`: use PostgreSQL instead of SQLite. */
  databaseUrl?: string;
  /** PostgreSQL schema to work in (created if missing): isolates test runs and tenants sharing one database. */
  schema?: string;
  /** SQLite file name inside `dataDir`, or `:memory:`. */
  sqliteFile?: string;
}

/** Opens (and migrates) the ERP database: SQLite in WAL mode by default, PostgreSQL when a URL is given. */
export async function openErpDatabase(options: DatabaseOptions): Promise<ErpDatabase> {
  if (options.databaseUrl) {
    const schema = options.schema;
    if (schema && !/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`invalid PostgreSQL schema name: ${schema}`);
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: 10,
      // No JIT: a search of many words is estimated costly enough to be compiled, which took 8–14 ms for a query
      // that runs in 0.6 ms (1M parts).
      options: `-c jit=off${schema ? ` -c search_path=${schema}` : ''}`,
    });
    const db = new Kysely<ErpTables>({ dialect: new PostgresDialect({ pool }) });
    await withPostgresSetupLock(options.databaseUrl, async () => {
      if (schema) await sql`create schema if not exists ${sql.id(schema)}`.execute(db);
      await migrateToLatest(db, 'postgres', schema);
    });
    const url = new URL(options.databaseUrl);
    url.password = '';
    // Named statements: a connection parses and plans each query text once. Planning a search walk took
    // ~0.7 ms against ~0.15 ms to run it; named, a query takes about half the time.
    const named = new Map<string, { name: string; text: string }>();
    const read: ReadQuery = async <T>(text: string, params: readonly unknown[], options?: { arrays?: boolean }) => {
      let statement = named.get(text);
      if (!statement) {
        let n = 0;
        const numbered = text.replace(/\?/g, () => `$${++n}`);
        if (named.size >= MAX_STATEMENTS) named.clear();
        // Named by content, so a name always means the same text on every connection.
        statement = { name: `erp_${createHash('sha1').update(numbered).digest('hex').slice(0, 24)}`, text: numbered };
        named.set(text, statement);
      }
      const query = { ...statement, values: params as unknown[] };
      if (options?.arrays) return (await pool.query({ ...query, rowMode: 'array' })).rows as T[];
      return (await pool.query(query)).rows as T[];
    };
    return {
      db,
      dialect: 'postgres',
      read,
      location: `${url.toString()}${schema ? ` (schema ${schema})` : ''}`,
      close: () => db.destroy(),
    };
  }
  const file = options.sqliteFile ?? 'erp.sqlite';
  let location = file;
  if (file !== ':memory:') {
    const dir = path.resolve(options.dataDir ?? './data');
    fs.mkdirSync(dir, { recursive: true });
    location = path.join(dir, file);
  }
  const sqlite = new Sqlite(location);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  // 64 MiB of page cache (the default is 2 MiB): a page of search results reads rows scattered over a large
  // catalogue, and each cache miss is a system call.
  sqlite.pragma('cache_size = -65536');
  const db = new Kysely<ErpTables>({ dialect: new SqliteDialect({ database: sqlite }) });
  await migrateToLatest(db, 'sqlite');
  const statements = new Map<string, Sqlite.Statement>();
  const read: ReadQuery = async <T>(text: string, params: readonly unknown[], options?: { arrays?: boolean }) => {
    // Inside another request's open transaction the connection would show its uncommitted rows: queue
    // behind it through the query builder instead.
    if (sqlite.inTransaction) {
      const rows = (await db.executeQuery<Record<string, unknown>>(CompiledQuery.raw(text, [...params]))).rows;
      return (options?.arrays ? rows.map((row) => Object.values(row)) : rows) as T[];
    }
    let statement = statements.get(text);
    if (!statement) {
      if (statements.size >= MAX_STATEMENTS) statements.clear();
      statement = sqlite.prepare(text);
      statements.set(text, statement);
    }
    return statement.raw(options?.arrays === true).all(...params) as T[];
  };
  return { db, dialect: 'sqlite', location, read, close: () => db.destroy() };
}

/** Drops a PostgreSQL schema created for a test run. */
export async function dropPostgresSchema(databaseUrl: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`drop schema if exists ${schema} cascade`);
  } finally {
    await client.end();
  }
}

/** `count(*)` comes back as a string from PostgreSQL and a number from SQLite. */
export const countAll = sql<string | number>`count(*)`;

/** `lower(column) LIKE '%text%'` with wildcards in `text` taken literally, on both databases. */
export function containsText(column: string, text: string) {
  const needle = `%${text
    .trim()
    .toLowerCase()
    .replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return sql<boolean>`lower(${sql.ref(column)}) like ${needle} escape '\\'`;
}
