import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateUsage, UsageLedger } from '../../src/api/admin/usage.ts';
import type { ApiUser } from '../../src/api/auth.ts';
import { type ApiDatabase, openApiDatabase } from '../../src/api/db.ts';
import { dropPostgresSchema } from '../../src/erp/index.ts';

const databaseUrl = process.env.DATABASE_URL;
const backends = [{ name: 'sqlite' }, ...(databaseUrl ? [{ name: 'postgres' }] : [])];

const user = (username: string, role: ApiUser['role']): ApiUser => ({
  username,
  displayName: username,
  role,
  projectId: 'P001',
  token: 'unused',
});

const call = (input: number, output: number, cost: number) => ({
  model: 'deepseek-v4-flash',
  inputTokens: input,
  outputTokens: output,
  cachedInputTokens: 0,
  cost,
  durationMs: 10,
});

describe.each(backends)('model usage ledger ($name)', ({ name }) => {
  let database: ApiDatabase;
  let dataDir: string;
  const schema = `usage_test_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-usage-'));
    database = await openApiDatabase({
      dataDir,
      databaseUrl: name === 'postgres' ? databaseUrl : undefined,
      schema,
      migrations: [migrateUsage],
    });
  });
  afterAll(async () => {
    await database?.close();
    if (name === 'postgres' && databaseUrl) await dropPostgresSchema(databaseUrl, schema);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('sums per run, refuses past the daily budget until the next UTC day, and lists usage per user and day', async () => {
    const ledger = new UsageLedger(database.db, { dailyTokens: 1_000 });
    await ledger.record({ runId: 'r1', sessionId: 's1', owner: 'laoxiao' }, call(400, 100, 0.0001));
    await ledger.record({ runId: 'r1', sessionId: 's1', owner: 'laoxiao' }, call(300, 50, 0.00005));
    await ledger.record({ runId: 'r2', sessionId: 's2', owner: 'admin' }, call(10, 5, 0.000002));

    expect(await ledger.runTotal('r1')).toEqual({ input_tokens: 700, output_tokens: 150, cost: 0.00015 });
    expect(await ledger.runTotal('nothing')).toEqual({ input_tokens: 0, output_tokens: 0, cost: 0 });

    await expect(ledger.checkBudget('laoxiao')).resolves.toBeUndefined(); // 850 < 1000
    await ledger.record({ runId: 'r3', sessionId: 's1', owner: 'laoxiao' }, call(100, 50, 0));
    const now = new Date();
    const refused = await ledger.checkBudget('laoxiao', now).catch((e) => e);
    const midnight = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
    expect(refused).toMatchObject({
      status: 429,
      code: 'token_budget_exhausted',
      extra: { used_tokens: 1_000, daily_tokens: 1_000, resets_at: midnight.toISOString() },
    });
    // Tomorrow the same usage no longer counts.
    await expect(ledger.checkBudget('laoxiao', new Date(midnight.getTime() + 1000))).resolves.toBeUndefined();
    await expect(ledger.checkBudget('admin', now)).resolves.toBeUndefined();

    const report = await ledger.perUserDay(user('admin', 'admin'), 7);
    const today = now.toISOString().slice(0, 10);
    expect(report.items).toEqual([
      { day: today, user: 'admin', runs: 1, calls: 1, input_tokens: 10, output_tokens: 5, cost: 0.000002 },
      { day: today, user: 'laoxiao', runs: 2, calls: 3, input_tokens: 800, output_tokens: 200, cost: 0.00015 },
    ]);
    expect(report.total).toEqual({ input_tokens: 810, output_tokens: 205, cost: 0.000152 });
    await expect(ledger.perUserDay(user('laoxiao', 'buyer'), 7)).rejects.toMatchObject({ status: 403 });
  });
});
