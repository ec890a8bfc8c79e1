import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { ChatDeepSeek } from '@langchain/deepseek';
import { ChatOpenAI } from '@langchain/openai';
import { z } from 'zod';
import { OFFLINE_MODEL_NAME, OfflineChatModel } from './offline/model.ts';

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
}

const modelSettings = z.object({
  DEEPSEEK_API_KEY: z.string().min(1).optional(),
  DEEPSEEK_MODEL: z.string().min(1).default('deepseek-v4-pro'),
  DEEPSEEK_LIGHT_MODEL: z.string().min(1).default('deepseek-v4-flash'),
  OPENAI_BASE_URL: z.url().optional(),
  OPENAI_API_KEY: z.string().min(1).optional(),
  OPENAI_MODEL: z.string().min(1).optional(),
  OPENAI_LIGHT_MODEL: z.string().min(1).optional(),
  PROCURA_MODEL_CONTEXT: z.coerce.number().int().min(4_000).max(10_000_000).optional(),
  PROCURA_OFFLINE_LATENCY_MS: z.coerce.number().int().min(0).max(60_000).optional(),
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
  if (s.DEEPSEEK_API_KEY) {
    const make = (model: string, temperature: number) =>
      new ChatDeepSeek({ apiKey: s.DEEPSEEK_API_KEY, model, temperature, streaming: true });
    return {
      main: make(s.DEEPSEEK_MODEL, 1.1),
      light: make(s.DEEPSEEK_LIGHT_MODEL, 0.3),
      provider: 'deepseek',
      mainName: s.DEEPSEEK_MODEL,
      contextWindow: s.PROCURA_MODEL_CONTEXT ?? 128_000,
    };
  }
  if (s.OPENAI_BASE_URL) {
    if (!s.OPENAI_MODEL)
      throw new Error('设置了 OPENAI_BASE_URL 时还需要 OPENAI_MODEL / OPENAI_MODEL is required with OPENAI_BASE_URL');
    const make = (model: string) =>
      new ChatOpenAI({
        model,
        apiKey: s.OPENAI_API_KEY ?? 'not-needed',
        configuration: { baseURL: s.OPENAI_BASE_URL },
        streaming: true,
      });
    return {
      main: make(s.OPENAI_MODEL),
      light: make(s.OPENAI_LIGHT_MODEL ?? s.OPENAI_MODEL),
      provider: 'openai-compatible',
      mainName: s.OPENAI_MODEL,
      contextWindow: s.PROCURA_MODEL_CONTEXT ?? 32_000,
    };
  }
  const offline = new OfflineChatModel({ latencyMs: s.PROCURA_OFFLINE_LATENCY_MS });
  return {
    main: offline,
    light: offline,
    provider: 'offline',
    mainName: OFFLINE_MODEL_NAME,
    contextWindow: s.PROCURA_MODEL_CONTEXT ?? 64_000,
  };
}
