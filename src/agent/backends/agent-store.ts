import path from 'node:path';
import type { BaseStore } from '@langchain/langgraph-checkpoint';
import { PostgresStore } from '@langchain/langgraph-checkpoint-postgres/store';
import { withPostgresSetupLock } from '../../shared/index.ts';
import { SqliteStore } from './sqlite-store.ts';

export interface AgentStoreOptions {
  dataDir: string;
  /** `postgres://…`: LangGraph's `PostgresStore` instead of the SQLite file. */
  databaseUrl?: string;
  /** PostgreSQL schema holding the store tables (tests use their own). */
  schema?: string;
}

export const DEFAULT_STORE_SCHEMA = 'agent_store';

/**
 * The agent's persistent store (memories, persisted skills): `<dataDir>/agent-store.sqlite` by default,
 * PostgreSQL with `databaseUrl`. Tables are created before it is returned; `store.stop()` closes it.
 */
export async function createAgentStore(options: AgentStoreOptions): Promise<BaseStore> {
  if (!options.databaseUrl) return new SqliteStore({ file: path.join(options.dataDir, 'agent-store.sqlite') });
  const store = PostgresStore.fromConnString(options.databaseUrl, { schema: options.schema ?? DEFAULT_STORE_SCHEMA });
  try {
    await withPostgresSetupLock(options.databaseUrl, () => store.setup());
  } catch (error) {
    await store.stop().catch(() => undefined);
    throw new Error(`无法初始化 PostgreSQL 存储 / cannot set up the PostgreSQL store: ${(error as Error).message}`);
  }
  return store;
}
