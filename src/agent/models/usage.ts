import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import type { LLMResult } from '@langchain/core/outputs';
import { z } from 'zod';

/** USD per million tokens. `cached_input` prices input the provider served from its cache (defaults to `input`). */
export interface ModelPrice {
  input: number;
  output: number;
  cached_input?: number;
}

export type PriceTable = Record<string, ModelPrice>;

/**
 * DeepSeek's list prices (api-docs.deepseek.com, USD per 1M tokens; `deepseek-chat` / `deepseek-reasoner` are
 * the two modes of v4-flash). Other models cost 0 until `PROCURA_MODEL_PRICES` names them.
 */
export const DEFAULT_PRICES: PriceTable = {
  'deepseek-v4-pro': { input: 0.435, cached_input: 0.003625, output: 0.87 },
  'deepseek-v4-flash': { input: 0.14, cached_input: 0.0028, output: 0.28 },
  'deepseek-chat': { input: 0.14, cached_input: 0.0028, output: 0.28 },
  'deepseek-reasoner': { input: 0.14, cached_input: 0.0028, output: 0.28 },
};

const Price = z.strictObject({
  input: z.number().min(0).max(10_000),
  output: z.number().min(0).max(10_000),
  cached_input: z.number().min(0).max(10_000).optional(),
});

/** The price table: the defaults, overridden model by model by `PROCURA_MODEL_PRICES` (JSON `{model: price}`). */
export function priceTable(override?: string): PriceTable {
  if (!override) return { ...DEFAULT_PRICES };
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
  return { ...DEFAULT_PRICES, ...parsed.data };
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
