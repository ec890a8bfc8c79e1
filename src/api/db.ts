import fs from 'node:fs';
import path from 'node:path';
import Sqlite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { withPostgresSetupLock } from '../shared/index.ts';

/**
 * The API database before any store has named its tables. Each store declares and migrates its own tables and sees
 * the database through them (`db.withTables<…>()`), so this module knows no store and no store's tables.
 */
export type ApiDb = Kysely<Record<never, never>>;

export type ApiDialect = 'sqlite' | 'postgres';

/** Creates or upgrades one store's tables; idempotent, as every process runs it at start-up. */
export type ApiMigration = (db: ApiDb, dialect: ApiDialect) => Promise<void>;

export interface ApiDatabase {
  db: ApiDb;
  dialect: ApiDialect;
  close(): Promise<void>;
}

/**
 * Opens the chat API's database — `<dataDir>/api.sqlite` (WAL) by default, PostgreSQL with `databaseUrl` — and runs
 * the migrations it is handed, in order.
 */
export async function openApiDatabase(options: {
  dataDir: string;
  databaseUrl?: string;
  schema?: string;
  migrations: readonly ApiMigration[];
}): Promise<ApiDatabase> {
  if (options.databaseUrl) {
    const schema = options.schema ?? 'procura_api';
    if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`invalid PostgreSQL schema name: ${schema}`);
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 10, options: `-c search_path=${schema}` });
    const db: ApiDb = new Kysely({ dialect: new PostgresDialect({ pool }) });
    await withPostgresSetupLock(options.databaseUrl, async () => {
      await sql`create schema if not exists ${sql.id(schema)}`.execute(db);
      for (const migration of options.migrations) await migration(db, 'postgres');
    });
    return { db, dialect: 'postgres', close: () => db.destroy() };
  }
  fs.mkdirSync(options.dataDir, { recursive: true });
  const sqlite = new Sqlite(path.join(options.dataDir, 'api.sqlite'));
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  const db: ApiDb = new Kysely({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  for (const migration of options.migrations) await migration(db, 'sqlite');
  return { db, dialect: 'sqlite', close: () => db.destroy() };
}

/** Adds a nullable text column that a table created by an older version lacks. */
export async function addTextColumn(db: ApiDb, dialect: ApiDialect, table: string, column: string): Promise<void> {
  if (dialect === 'postgres') {
    await sql`alter table ${sql.table(table)} add column if not exists ${sql.ref(column)} text`.execute(db);
    return;
  }
  const columns = await sql<{ name: string }>`select name from pragma_table_info(${table})`.execute(db);
  if (!columns.rows.some((c) => c.name === column)) {
    await sql`alter table ${sql.table(table)} add column ${sql.ref(column)} text`.execute(db);
  }
}

/** Whether an insert failed on a unique constraint (SQLite or PostgreSQL). */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || /UNIQUE constraint/.test(e?.message ?? '');
}

/** Distinct SQL texts kept prepared; batch inserts of varying sizes make new texts, so the cache is bounded. */
const STATEMENT_CACHE = 500;

/**
 * The database as Kysely sees it, with each SQL text prepared once: Kysely prepares every query anew, and under
 * load preparing cost as much CPU as running the statements (it all happens on the event loop that answers
 * requests). A statement still being iterated (a streamed query) is busy, so another query gets a fresh one.
 */
function withStatementCache(sqlite: Sqlite.Database) {
  const prepared = new Map<string, Sqlite.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(text: string): Sqlite.Statement {
      const cached = prepared.get(text);
      if (cached && !cached.busy) return cached;
      const statement = sqlite.prepare(text);
      if (prepared.size >= STATEMENT_CACHE) prepared.clear();
      if (!cached) prepared.set(text, statement);
      return statement;
    },
  };
}
