import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BaseStore } from '@langchain/langgraph-checkpoint';
import pg from 'pg';
import { createAgentStore } from '../../../src/agent/backends/index.ts';

const databaseUrl = process.env.DATABASE_URL;

export interface StoreKind {
  name: 'sqlite' | 'postgres';
  enabled: boolean;
}

/** Both store back-ends; PostgreSQL only when DATABASE_URL is set (CI), with a visible note otherwise. */
export const STORE_KINDS: StoreKind[] = [
  { name: 'sqlite', enabled: true },
  { name: 'postgres', enabled: Boolean(databaseUrl) },
];
if (!databaseUrl) console.warn('[agent backend tests] DATABASE_URL is not set: the PostgreSQL store suite is skipped');

export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export interface StoreHarness {
  store: BaseStore;
  dataDir: string;
  close(): Promise<void>;
}

/** A fresh store: its own data directory, and on PostgreSQL its own schema, dropped on close. */
export async function openStore(kind: StoreKind): Promise<StoreHarness> {
  const dataDir = tempDir('procura-store-');
  const schema =
    kind.name === 'postgres' ? `store_test_${process.pid}_${Math.random().toString(36).slice(2, 8)}` : undefined;
  const store = await createAgentStore({
    dataDir,
    databaseUrl: kind.name === 'postgres' ? databaseUrl : undefined,
    schema,
  });
  return {
    store,
    dataDir,
    async close() {
      await store.stop();
      if (schema && databaseUrl) {
        const client = new pg.Client({ connectionString: databaseUrl });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await client.end();
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
