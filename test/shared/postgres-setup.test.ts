import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createAgentStore } from '../../src/agent/backends/index.ts';
import { openApiDatabase } from '../../src/api/db.ts';
import { API_MIGRATIONS } from '../../src/api/migrations.ts';
import { dropPostgresSchema, openErpDatabase } from '../../src/erp/index.ts';

const databaseUrl = process.env.DATABASE_URL;

describe.skipIf(!databaseUrl)('processes starting together on a fresh PostgreSQL database', () => {
  const suffix = `${process.pid}_${Date.now().toString(36)}`;
  const schemas = { api: `setup_api_${suffix}`, store: `setup_store_${suffix}`, erp: `setup_erp_${suffix}` };
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-pg-setup-'));

  afterAll(async () => {
    for (const schema of Object.values(schemas)) await dropPostgresSchema(databaseUrl as string, schema);
  });

  it('each set up the chat API, agent store and ERP schemas without tripping over the others', async () => {
    const url = databaseUrl as string;
    const opened = await Promise.allSettled(
      Array.from({ length: 4 }, () => [
        openApiDatabase({ dataDir, databaseUrl: url, schema: schemas.api, migrations: API_MIGRATIONS }).then((db) =>
          db.close(),
        ),
        createAgentStore({ dataDir, databaseUrl: url, schema: schemas.store }).then((store) => store.stop()),
        openErpDatabase({ databaseUrl: url, schema: schemas.erp }).then((db) => db.close()),
      ]).flat(),
    );
    expect(opened.filter((result) => result.status === 'rejected')).toEqual([]);
  }, 60_000);
});
