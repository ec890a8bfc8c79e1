import fs from 'node:fs';
import path from 'node:path';
import Sqlite from 'better-sqlite3';
import { type Generated, Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { withPostgresSetupLock } from '../shared/index.ts';
import { migrateOrderNotices, type OrderNoticeTables } from './order-notices.ts';
import { migrateSchedules, type ScheduleTables } from './schedules.ts';
import { migrateUsage, type UsageTables } from './usage.ts';

export type RunStatus = 'running' | 'waiting' | 'done' | 'error' | 'cancelled';

/** Run states that hold the session: a second start while one of these exists gets 409. */
export const ACTIVE_RUN_STATUSES: RunStatus[] = ['running', 'waiting'];

export interface ApiTables extends UsageTables, OrderNoticeTables, ScheduleTables {
  chat_sessions: {
    id: string;
    owner: string;
    project_id: string;
    title: string;
    created_at: string;
    updated_at: string;
  };
  chat_runs: {
    id: string;
    session_id: string;
    owner: string;
    status: RunStatus;
    message: string;
    /** JSON of the interrupts the run waits on (while `waiting`). */
    pending: string | null;
    /** JSON of the decision a resumed run executes (while `running` after a resume): recovery re-executes it. */
    decision: string | null;
    created_at: string;
    updated_at: string;
  };
  run_events: {
    run_id: string;
    seq: number;
    event: string;
    /** JSON, already redacted. */
    data: string;
    created_at: Generated<string>;
  };
}

export interface ApiDatabase {
  db: Kysely<ApiTables>;
  dialect: 'sqlite' | 'postgres';
  close(): Promise<void>;
}

/** Opens the chat API's tables: `<dataDir>/api.sqlite` (WAL) by default, PostgreSQL with `databaseUrl`. */
export async function openApiDatabase(options: {
  dataDir: string;
  databaseUrl?: string;
  schema?: string;
}): Promise<ApiDatabase> {
  if (options.databaseUrl) {
    const schema = options.schema ?? 'procura_api';
    if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`invalid PostgreSQL schema name: ${schema}`);
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 10, options: `-c search_path=${schema}` });
    const db = new Kysely<ApiTables>({ dialect: new PostgresDialect({ pool }) });
    await withPostgresSetupLock(options.databaseUrl, async () => {
      await sql`create schema if not exists ${sql.id(schema)}`.execute(db);
      await migrate(db, 'postgres');
    });
    return { db, dialect: 'postgres', close: () => db.destroy() };
  }
  fs.mkdirSync(options.dataDir, { recursive: true });
  const sqlite = new Sqlite(path.join(options.dataDir, 'api.sqlite'));
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  const db = new Kysely<ApiTables>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  await migrate(db, 'sqlite');
  return { db, dialect: 'sqlite', close: () => db.destroy() };
}

async function migrate(db: Kysely<ApiTables>, dialect: ApiDatabase['dialect']): Promise<void> {
  await db.schema
    .createTable('chat_sessions')
    .ifNotExists()
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('chat_sessions_owner')
    .ifNotExists()
    .on('chat_sessions')
    .columns(['owner', 'updated_at'])
    .execute();
  await db.schema
    .createTable('chat_runs')
    .ifNotExists()
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('session_id', 'text', (c) => c.notNull())
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('pending', 'text')
    .addColumn('decision', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await addTextColumn(db, dialect, 'chat_runs', 'decision');
  await db.schema
    .createIndex('chat_runs_session')
    .ifNotExists()
    .on('chat_runs')
    .columns(['session_id', 'created_at'])
    .execute();
  // One active run per session, enforced by the database so it holds across API processes.
  await db.schema
    .createIndex('chat_runs_one_active')
    .ifNotExists()
    .unique()
    .on('chat_runs')
    .column('session_id')
    .where(sql.ref('status'), 'in', ACTIVE_RUN_STATUSES)
    .execute();
  await db.schema
    .createTable('run_events')
    .ifNotExists()
    .addColumn('run_id', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull().defaultTo(sql`CURRENT_TIMESTAMP`))
    .addPrimaryKeyConstraint('run_events_pk', ['run_id', 'seq'])
    .execute();
  await migrateUsage(db);
  await migrateOrderNotices(db);
  await migrateSchedules(db);
}

/** Adds a nullable text column that a table created by an older version lacks. */
async function addTextColumn(
  db: Kysely<ApiTables>,
  dialect: ApiDatabase['dialect'],
  table: string,
  column: string,
): Promise<void> {
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
