import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { ChatDeepSeek } from '@langchain/deepseek';
import { ChatOpenAI } from '@langchain/openai';
import { z } from 'zod';
import { OFFLINE_MODEL_NAME, OfflineChatModel } from './offline/model.ts';
import { idleTimeoutFetch, type ModelCallPolicy } from './resilience.ts';
import { loadPriceList, type PriceListInfo, type PriceTable } from './usage.ts';

export { OFFLINE_MODEL_NAME, OFFLINE_NOTICE, OfflineChatModel } from './offline/model.ts';

/** The models a Procura process uses: the main one for agents, a light one for summaries and memory extraction. */
export interface AgentModels {
  main: BaseChatModel;
  light: BaseChatModel;
  /** `deepseek`, `openai-compatible` or `offline` — shown in the UI (the offline model is labelled as such). */
  provider: 'deepseek' | 'openai-compatible' | 'offline';
  mainName: string;
  /** Tokens the main model accepts; summarization starts near 85 % of it. */
  contextWindow: number;
  /** Retries, timeouts and time budget of one model call. */
  policy: ModelCallPolicy;
  /** USD per million tokens, by model. */
  prices: PriceTable;
  /** Which price list `prices` come from: its date and source. */
  priceList: PriceListInfo;
  /** The model (`main` or `light`) as the agent named `agent` runs on it; the model itself when it need not know. */
  forAgent?: (agent: string, model: BaseChatModel) => BaseChatModel;
}

const modelSettings = z.object({
  DEEPSEEK_API_KEY: z.string().min(1).optional(),
  DEEPSEEK_MODEL: z.string().min(1).default('deepseek-v4-pro'),
  DEEPSEEK_LIGHT_MODEL: z.string().min(1).default('deepseek-v4-flash'),
  DEEPSEEK_BASE_URL: z.url().optional(),
  OPENAI_BASE_URL: z.url().optional(),
  OPENAI_API_KEY: z.string().min(1).optional(),
  OPENAI_MODEL: z.string().min(1).optional(),
  OPENAI_LIGHT_MODEL: z.string().min(1).optional(),
  PROCURA_MODEL_CONTEXT: z.coerce.number().int().min(4_000).max(10_000_000).optional(),
  PROCURA_OFFLINE_LATENCY_MS: z.coerce.number().int().min(0).max(60_000).optional(),
  PROCURA_MODEL_RETRIES: z.coerce.number().int().min(0).max(10).default(2),
  PROCURA_MODEL_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(15_000),
  PROCURA_MODEL_CALL_BUDGET_MS: z.coerce.number().int().min(100).max(3_600_000).default(45_000),
  PROCURA_MODEL_RETRY_AFTER_MAX_MS: z.coerce.number().int().min(0).max(600_000).default(20_000),
  PROCURA_MODEL_PRICES: z.string().optional(),
  PROCURA_MODEL_PRICES_FILE: z.string().min(1).optional(),
});

/**
 * Chooses the models from settings: DeepSeek when `DEEPSEEK_API_KEY` is set, any OpenAI-compatible endpoint
 * (vLLM, Ollama, …) when `OPENAI_BASE_URL` is set, otherwise the deterministic offline model.
 */
export function createAgentModels(env: NodeJS.ProcessEnv = process.env): AgentModels {
  const parsed = modelSettings.safeParse(Object.fromEntries(Object.entries(env).filter(([, v]) => v !== '')));
  if (!parsed.success) {
    throw new Error(
      `模型配置无效 / invalid model settings: ${parsed.error.issues.map((i) => `${String(i.path[0])}: ${i.message}`).join('; ')}`,
    );
  }
  const s = parsed.data;
  const { prices, ...priceList } = loadPriceList(s);
  const policy = (provider: AgentModels['provider']): ModelCallPolicy => ({
    provider,
    retries: s.PROCURA_MODEL_RETRIES,
    timeoutMs: s.PROCURA_MODEL_TIMEOUT_MS,
    budgetMs: s.PROCURA_MODEL_CALL_BUDGET_MS,
    retryAfterMaxMs: s.PROCURA_MODEL_RETRY_AFTER_MAX_MS,
    secrets: [s.DEEPSEEK_API_KEY, s.OPENAI_API_KEY].filter((k): k is string => Boolean(k)),
  });
  // Retries belong to the agent's retry middleware (which tells the user); the client itself never retries.
  const client = {
    maxRetries: 0,
    timeout: s.PROCURA_MODEL_TIMEOUT_MS,
    streaming: true,
    streamUsage: true,
  } as const;
  const fetchWithIdleTimeout = idleTimeoutFetch(s.PROCURA_MODEL_TIMEOUT_MS);
  if (s.DEEPSEEK_API_KEY) {
    const make = (model: string, temperature: number) =>
      new ChatDeepSeek({
        apiKey: s.DEEPSEEK_API_KEY,
        model,
        temperature,
        ...client,
        configuration: {
          ...(s.DEEPSEEK_BASE_URL ? { baseURL: s.DEEPSEEK_BASE_URL } : {}),
          fetch: fetchWithIdleTimeout,
        },
      });
    return {
      main: make(s.DEEPSEEK_MODEL, 1.1),
      light: make(s.DEEPSEEK_LIGHT_MODEL, 0.3),
      provider: 'deepseek',
      mainName: s.DEEPSEEK_MODEL,
      contextWindow: s.PROCURA_MODEL_CONTEXT ?? 128_000,
      policy: policy('deepseek'),
      prices,
      priceList,
    };
  }
  if (s.OPENAI_BASE_URL) {
    if (!s.OPENAI_MODEL)
      throw new Error('设置了 OPENAI_BASE_URL 时还需要 OPENAI_MODEL / OPENAI_MODEL is required with OPENAI_BASE_URL');
    const make = (model: string) =>
      new ChatOpenAI({
        model,
        apiKey: s.OPENAI_API_KEY ?? 'not-needed',
        ...client,
        configuration: { baseURL: s.OPENAI_BASE_URL, fetch: fetchWithIdleTimeout },
      });
    return {
      main: make(s.OPENAI_MODEL),
      light: make(s.OPENAI_LIGHT_MODEL ?? s.OPENAI_MODEL),
      provider: 'openai-compatible',
      mainName: s.OPENAI_MODEL,
      contextWindow: s.PROCURA_MODEL_CONTEXT ?? 32_000,
      policy: policy('openai-compatible'),
      prices,
      priceList,
    };
  }
  const offline = new OfflineChatModel({ latencyMs: s.PROCURA_OFFLINE_LATENCY_MS });
  return {
    main: offline,
    light: offline,
    provider: 'offline',
    mainName: OFFLINE_MODEL_NAME,
    contextWindow: s.PROCURA_MODEL_CONTEXT ?? 64_000,
    policy: policy('offline'),
    prices,
    priceList,
    // The offline model plans each agent's flow: it is told which agent it serves.
    forAgent: (agent, model) => (model instanceof OfflineChatModel ? model.serving(agent) : model),
  };
}
