import fs from 'node:fs';
import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import type { LLMResult } from '@langchain/core/outputs';
import { z } from 'zod';
import packaged from './prices.json' with { type: 'json' };

/** USD per million tokens. `cached_input` prices input the provider served from its cache (defaults to `input`). */
export interface ModelPrice {
  input: number;
  output: number;
  cached_input?: number;
}

export type PriceTable = Record<string, ModelPrice>;

const Price = z.strictObject({
  input: z.number().min(0).max(10_000),
  output: z.number().min(0).max(10_000),
  cached_input: z.number().min(0).max(10_000).optional(),
});

/**
 * A price list as a settings file holds it: when the prices were read and from where, then per model its provider
 * and prices (USD per 1M tokens). Procura ships `prices.json` beside this file; `PROCURA_MODEL_PRICES_FILE` names
 * another.
 */
const PriceListFile = z.strictObject({
  date: z.iso.date(),
  source: z.string().min(1).max(500),
  unit: z.literal('USD per 1M tokens'),
  models: z.record(z.string().min(1), Price.extend({ provider: z.string().min(1).max(60) })),
});

/** Which price list costs were computed with: its date and source (and an override, when one is set). */
export interface PriceListInfo {
  date: string;
  source: string;
}

export interface PriceList extends PriceListInfo {
  prices: PriceTable;
}

function fromFile(raw: unknown, where: string): PriceList {
  const parsed = PriceListFile.safeParse(raw);
  if (!parsed.success)
    throw new Error(
      `价格表无效 / invalid price list ${where}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  const prices = Object.fromEntries(
    Object.entries(parsed.data.models).map(([model, { provider: _provider, ...price }]) => [model, price]),
  );
  return { date: parsed.data.date, source: parsed.data.source, prices };
}

/** The packaged price list (DeepSeek's list prices; `deepseek-chat` / `deepseek-reasoner` are v4-flash's modes). */
const PACKAGED = fromFile(packaged, 'src/agent/models/prices.json');

/** The packaged prices. Other models cost 0 until a price list or `PROCURA_MODEL_PRICES` names them. */
export const DEFAULT_PRICES: PriceTable = PACKAGED.prices;

/**
 * The price list in force: `PROCURA_MODEL_PRICES_FILE` (a file of the packaged shape) or the packaged one, with
 * `PROCURA_MODEL_PRICES` (JSON `{model: price}`) overriding model by model — which the source then says.
 */
export function loadPriceList(env: { PROCURA_MODEL_PRICES_FILE?: string; PROCURA_MODEL_PRICES?: string }): PriceList {
  let list = PACKAGED;
  if (env.PROCURA_MODEL_PRICES_FILE) {
    let raw: unknown;
    try {
      raw = JSON.parse(fs.readFileSync(env.PROCURA_MODEL_PRICES_FILE, 'utf8'));
    } catch (error) {
      throw new Error(
        `无法读取价格表 / cannot read PROCURA_MODEL_PRICES_FILE ${env.PROCURA_MODEL_PRICES_FILE}: ${(error as Error).message}`,
      );
    }
    list = fromFile(raw, env.PROCURA_MODEL_PRICES_FILE);
  }
  if (!env.PROCURA_MODEL_PRICES) return { ...list, prices: { ...list.prices } };
  const prices = { ...list.prices, ...overrides(env.PROCURA_MODEL_PRICES) };
  return { date: list.date, source: `${list.source} + PROCURA_MODEL_PRICES`, prices };
}

/** The price table: the packaged prices, overridden model by model by `PROCURA_MODEL_PRICES` (JSON `{model: price}`). */
export function priceTable(override?: string): PriceTable {
  return loadPriceList({ PROCURA_MODEL_PRICES: override }).prices;
}

function overrides(override: string): PriceTable {
  let raw: unknown;
  try {
    raw = JSON.parse(override);
  } catch {
    throw new Error('PROCURA_MODEL_PRICES 不是有效的 JSON / PROCURA_MODEL_PRICES is not valid JSON');
  }
  const parsed = z.record(z.string().min(1), Price).safeParse(raw);
  if (!parsed.success) {
    throw new Error(
      `PROCURA_MODEL_PRICES 无效 / invalid PROCURA_MODEL_PRICES: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  }
  return parsed.data;
}

/** Tokens of one model call as the provider reported them (0 when it reported none, e.g. the offline model). */
export interface CallUsage {
  model: string;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
}

/** USD of one call, rounded to a millionth of a dollar. */
export function costOf(prices: PriceTable, usage: CallUsage): number {
  const price = prices[usage.model];
  if (!price) return 0;
  const cached = Math.min(usage.cachedInputTokens, usage.inputTokens);
  const usd =
    ((usage.inputTokens - cached) * price.input +
      cached * (price.cached_input ?? price.input) +
      usage.outputTokens * price.output) /
    1_000_000;
  return Math.round(usd * 1_000_000) / 1_000_000;
}

interface UsageMetadataLike {
  input_tokens?: number;
  output_tokens?: number;
  input_token_details?: { cache_read?: number };
}

/** Reads a finished call's usage: the message's `usage_metadata`, else the provider's `tokenUsage`. */
export function usageOf(output: LLMResult, fallbackModel: string): CallUsage {
  const generation = output.generations?.[0]?.[0] as
    | { message?: { usage_metadata?: UsageMetadataLike; response_metadata?: { model_name?: string } } }
    | undefined;
  const meta = generation?.message?.usage_metadata;
  const tokenUsage = (output.llmOutput as { tokenUsage?: { promptTokens?: number; completionTokens?: number } })
    ?.tokenUsage;
  return {
    model:
      fallbackModel !== 'unknown'
        ? fallbackModel
        : (generation?.message?.response_metadata?.model_name ?? fallbackModel),
    inputTokens: meta?.input_tokens ?? tokenUsage?.promptTokens ?? 0,
    outputTokens: meta?.output_tokens ?? tokenUsage?.completionTokens ?? 0,
    cachedInputTokens: meta?.input_token_details?.cache_read ?? 0,
  };
}

/** The model a chat call asks for, from LangChain's run metadata. */
export function requestedModel(extraParams?: Record<string, unknown>, metadata?: Record<string, unknown>): string {
  const invocation = extraParams?.invocation_params as { model?: string; model_name?: string } | undefined;
  return String(metadata?.ls_model_name ?? invocation?.model ?? invocation?.model_name ?? 'unknown');
}

export interface MeteredCall extends CallUsage {
  cost: number;
  durationMs: number;
}

/** Totals of a run's calls. */
export interface UsageTotals {
  input_tokens: number;
  output_tokens: number;
  cost: number;
}

export function addUsage(a: UsageTotals, b: UsageTotals): UsageTotals {
  return {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    cost: Math.round((a.cost + b.cost) * 1_000_000) / 1_000_000,
  };
}

export const NO_USAGE: UsageTotals = { input_tokens: 0, output_tokens: 0, cost: 0 };

/**
 * Meters every chat-model call of a run (orchestrator, sub-agents, summaries, memory): tokens as the provider
 * reported them and their cost from the price table, handed to `onCall` as each call ends.
 */
export class UsageMeter extends BaseCallbackHandler {
  name = 'procura-usage-meter';
  totals: UsageTotals = { ...NO_USAGE };
  calls = 0;
  private readonly started = new Map<string, { model: string; at: number }>();

  constructor(
    private readonly prices: PriceTable,
    private readonly onCall: (call: MeteredCall) => void = () => undefined,
  ) {
    super();
  }

  override async handleChatModelStart(
    _llm: unknown,
    _messages: unknown,
    runId: string,
    _parentRunId?: string,
    extraParams?: Record<string, unknown>,
    _tags?: string[],
    metadata?: Record<string, unknown>,
  ) {
    this.started.set(runId, { model: requestedModel(extraParams, metadata), at: Date.now() });
  }

  override async handleLLMEnd(output: LLMResult, runId: string) {
    const start = this.started.get(runId);
    this.started.delete(runId);
    const usage = usageOf(output, start?.model ?? 'unknown');
    const cost = costOf(this.prices, usage);
    this.calls += 1;
    this.totals = addUsage(this.totals, {
      input_tokens: usage.inputTokens,
      output_tokens: usage.outputTokens,
      cost,
    });
    this.onCall({ ...usage, cost, durationMs: start ? Date.now() - start.at : 0 });
  }

  override async handleLLMError(_error: unknown, runId: string) {
    this.started.delete(runId);
  }
}
