import { type Kysely, sql } from 'kysely';
import { z } from 'zod';
import {
  addUsage,
  loadPriceList,
  type MeteredCall,
  NO_USAGE,
  type PriceListInfo,
  type UsageTotals,
} from '../../agent/index.ts';
import type { UsageReport } from '../../protocol/index.ts';
import { forbidden, ProblemError } from '../../shared/index.ts';
import type { ApiUser } from '../auth.ts';
import type { ApiDb } from '../db.ts';

/** One row per model call: who, which run, which model, the provider's token counts and their cost in USD. */
export type UsageTables = {
  model_usage: {
    run_id: string;
    session_id: string;
    owner: string;
    model: string;
    input_tokens: number;
    output_tokens: number;
    cached_input_tokens: number;
    cost: number;
    duration_ms: number;
    created_at: string;
  };
};

export interface UsageSettings {
  /** Tokens (input + output) a user may spend per UTC day; unset means no budget. */
  dailyTokens?: number;
  /** The price list costs are computed with (its date and source), shown with the usage. */
  prices?: PriceListInfo;
}

/** `PROCURA_USER_DAILY_TOKENS` (optional, a positive whole number). */
export function usageSettings(env: NodeJS.ProcessEnv): UsageSettings {
  const { date, source } = loadPriceList(env);
  const prices = { date, source };
  const raw = env.PROCURA_USER_DAILY_TOKENS;
  if (raw === undefined || raw === '') return { prices };
  const parsed = z.coerce.number().int().min(1).max(1e12).safeParse(raw);
  if (!parsed.success)
    throw new Error('PROCURA_USER_DAILY_TOKENS 须为正整数 / PROCURA_USER_DAILY_TOKENS must be a positive whole number');
  return { dailyTokens: parsed.data, prices };
}

export async function migrateUsage(db: ApiDb): Promise<void> {
  await db.schema
    .createTable('model_usage')
    .ifNotExists()
    .addColumn('run_id', 'text', (c) => c.notNull())
    .addColumn('session_id', 'text', (c) => c.notNull())
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('input_tokens', 'integer', (c) => c.notNull())
    .addColumn('output_tokens', 'integer', (c) => c.notNull())
    .addColumn('cached_input_tokens', 'integer', (c) => c.notNull())
    .addColumn('cost', 'double precision', (c) => c.notNull())
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('model_usage_run').ifNotExists().on('model_usage').column('run_id').execute();
  await db.schema
    .createIndex('model_usage_owner_day')
    .ifNotExists()
    .on('model_usage')
    .columns(['owner', 'created_at'])
    .execute();
}

const startOfUtcDay = (now: Date) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));

const totals = (row: { input?: unknown; output?: unknown; cost?: unknown } | undefined): UsageTotals => ({
  input_tokens: Number(row?.input ?? 0),
  output_tokens: Number(row?.output ?? 0),
  cost: Math.round(Number(row?.cost ?? 0) * 1_000_000) / 1_000_000,
});

/** Token usage and cost of model calls: recorded per run, summed per run, session and user-day, and the daily budget. */
export class UsageLedger {
  private readonly db: Kysely<UsageTables>;

  constructor(
    db: ApiDb,
    private readonly settings: UsageSettings = {},
  ) {
    this.db = db.withTables<UsageTables>();
  }

  async record(run: { runId: string; sessionId: string; owner: string }, call: MeteredCall): Promise<void> {
    await this.db
      .insertInto('model_usage')
      .values({
        run_id: run.runId,
        session_id: run.sessionId,
        owner: run.owner,
        model: call.model.slice(0, 200),
        input_tokens: call.inputTokens,
        output_tokens: call.outputTokens,
        cached_input_tokens: call.cachedInputTokens,
        cost: call.cost,
        duration_ms: Math.round(call.durationMs),
        created_at: new Date().toISOString(),
      })
      .execute();
  }

  /** Each run's totals (runs without model calls are absent). */
  async byRun(runIds: string[]): Promise<Map<string, UsageTotals>> {
    if (!runIds.length) return new Map();
    const rows = await this.db
      .selectFrom('model_usage')
      .select((eb) => [
        'run_id',
        eb.fn.sum<number>('input_tokens').as('input'),
        eb.fn.sum<number>('output_tokens').as('output'),
        eb.fn.sum<number>('cost').as('cost'),
      ])
      .where('run_id', 'in', runIds)
      .groupBy('run_id')
      .execute();
    return new Map(rows.map((r) => [r.run_id, totals(r)]));
  }

  async runTotal(runId: string): Promise<UsageTotals> {
    return (await this.byRun([runId])).get(runId) ?? { ...NO_USAGE };
  }

  /** Refuses a new run (429) while the user's tokens today reach the daily budget; says when it resets. */
  async checkBudget(username: string, now = new Date()): Promise<void> {
    const budget = this.settings.dailyTokens;
    if (!budget) return;
    const day = startOfUtcDay(now);
    const row = await this.db
      .selectFrom('model_usage')
      .select((eb) => [eb.fn.sum<number>('input_tokens').as('input'), eb.fn.sum<number>('output_tokens').as('output')])
      .where('owner', '=', username)
      .where('created_at', '>=', day.toISOString())
      .executeTakeFirst();
    const used = Number(row?.input ?? 0) + Number(row?.output ?? 0);
    if (used < budget) return;
    const resets = new Date(day.getTime() + 86_400_000);
    throw new ProblemError(
      429,
      'token_budget_exhausted',
      `今日模型用量已达上限（${used}/${budget} tokens），将于 ${resets.toISOString()} 重置 / today's token budget is used up (${used}/${budget}); it resets at ${resets.toISOString()}`,
      {
        used_tokens: used,
        daily_tokens: budget,
        resets_at: resets.toISOString(),
        retry_after: Math.ceil((resets.getTime() - now.getTime()) / 1000),
      },
    );
  }

  /** Usage per user per UTC day over the last `days` days, newest first (admins only). */
  async perUserDay(user: ApiUser, days: number, now = new Date()): Promise<UsageReport> {
    if (user.role !== 'admin') throw forbidden('仅管理员可查看用量 / only admins can see usage');
    const since = new Date(startOfUtcDay(now).getTime() - (days - 1) * 86_400_000).toISOString();
    const dayExpr = sql<string>`substr(created_at, 1, 10)`;
    const rows = await this.db
      .selectFrom('model_usage')
      .select((eb) => [
        dayExpr.as('day'),
        'owner',
        eb.fn.count<number>('run_id').distinct().as('runs'),
        eb.fn.countAll<number>().as('calls'),
        eb.fn.sum<number>('input_tokens').as('input'),
        eb.fn.sum<number>('output_tokens').as('output'),
        eb.fn.sum<number>('cost').as('cost'),
      ])
      .where('created_at', '>=', since)
      .groupBy([dayExpr, 'owner'])
      .orderBy(dayExpr, 'desc')
      .orderBy('owner')
      .execute();
    const items = rows.map((r) => ({
      day: r.day,
      user: r.owner,
      runs: Number(r.runs),
      calls: Number(r.calls),
      ...totals(r),
    }));
    return {
      since,
      daily_tokens: this.settings.dailyTokens ?? null,
      // Which prices the costs below are computed with.
      prices: this.settings.prices ?? null,
      items,
      total: items.reduce<UsageTotals>((sum, r) => addUsage(sum, r), { ...NO_USAGE }),
    };
  }
}
