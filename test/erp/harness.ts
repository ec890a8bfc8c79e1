import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createErp, dropPostgresSchema, type Erp } from '../../src/erp/index.ts';

export interface Backend {
  name: 'sqlite' | 'postgres';
  enabled: boolean;
}

const databaseUrl = process.env.DATABASE_URL;

/** Both storage back-ends; PostgreSQL only when DATABASE_URL is set (CI), with a visible note otherwise. */
export const BACKENDS: Backend[] = [
  { name: 'sqlite', enabled: true },
  { name: 'postgres', enabled: Boolean(databaseUrl) },
];
if (!databaseUrl) console.warn('[erp tests] DATABASE_URL is not set: the PostgreSQL suite is skipped');

export interface ErpHarness {
  erp: Erp;
  tokens: Record<string, string>;
  /** Calls the ERP API in-process (the same fetch handler the server runs). */
  call(
    method: string,
    url: string,
    options?: { token?: string | null; body?: unknown; rawBody?: string; headers?: Record<string, string> },
  ): Promise<{
    status: number;
    headers: Headers;
    // biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted field by field
    body: any;
  }>;
  close(): Promise<void>;
}

/** A freshly seeded ERP on the given back-end (own temp dir, own PostgreSQL schema). */
export async function startHarness(backend: Backend): Promise<ErpHarness> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-erp-'));
  const schema =
    backend.name === 'postgres' ? `erp_test_${process.pid}_${Math.random().toString(36).slice(2, 8)}` : undefined;
  const erp = await createErp({ dataDir, databaseUrl: backend.name === 'postgres' ? databaseUrl : undefined, schema });
  const tokens = erp.demoTokens;
  return {
    erp,
    tokens,
    async call(method, url, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      const token = options.token === undefined ? tokens.laoxiao : options.token;
      if (token) headers.authorization = `Bearer ${token}`;
      let body: string | undefined = options.rawBody;
      if (options.body !== undefined) {
        body = JSON.stringify(options.body);
        headers['content-type'] = 'application/json';
      } else if (body !== undefined) headers['content-type'] ??= 'application/json';
      const response = await erp.fetch(new Request(`http://erp.test${url}`, { method, headers, body }));
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {}
      return { status: response.status, headers: response.headers, body: parsed };
    },
    async close() {
      await erp.close();
      if (schema && databaseUrl) await dropPostgresSchema(databaseUrl, schema);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
