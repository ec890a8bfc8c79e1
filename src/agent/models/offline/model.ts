import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import {
  BaseChatModel,
  type BaseChatModelCallOptions,
  type BindToolsInput,
} from '@langchain/core/language_models/chat_models';
import { AIMessage, AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import { ChatGenerationChunk, type ChatResult } from '@langchain/core/outputs';
import { sleep } from '../../../shared/index.ts';
import { MEMORY_EXTRACTION_MARKER, SUMMARY_MARKER } from '../../prompts.ts';
import { planAnalysis } from './analyst.ts';
import { type Planner, viewConversation } from './conversation.ts';
import { planMemoryExtraction, planSummary } from './memory.ts';
import { planOrchestration } from './orchestrator.ts';
import { planOrder } from './order.ts';
import { planSourcing } from './sourcing.ts';

export const OFFLINE_MODEL_NAME = 'procura-offline';

export const OFFLINE_NOTICE =
  '我是 Procura 的离线模型（没有配置大模型服务时使用的确定性模型），只能处理标准流程：供应商比价分析、库存预警、下单/改单/取消/查询订单、询价（RFQ）和问候。' +
  '要处理任意问题，请设置 DEEPSEEK_API_KEY，或 OPENAI_BASE_URL + OPENAI_API_KEY（如 vLLM、Ollama）。' +
  '\n\nI am Procura’s offline model (a deterministic stand-in used when no LLM service is configured). I handle the standard flows: supplier price comparison, inventory warnings, creating/updating/cancelling/looking up orders, requests for quotation, and greetings. For anything else set DEEPSEEK_API_KEY, or OPENAI_BASE_URL + OPENAI_API_KEY.';

/** The planner of each agent the offline model can serve, by the agent's configured name. */
const PLANNERS: Record<string, Planner> = {
  orchestrator: planOrchestration,
  'procurement-analyst': planAnalysis,
  'procurement-order': planOrder,
  'procurement-sourcing': planSourcing,
};

/** The planner for this call: memory extraction and summaries by their prompts, an agent's by the agent it serves. */
function plannerFor(agent: string | undefined, system: string): Planner {
  if (system.includes(MEMORY_EXTRACTION_MARKER)) return planMemoryExtraction;
  if (system.includes(SUMMARY_MARKER)) return planSummary;
  return (agent && PLANNERS[agent]) || (() => ({ text: OFFLINE_NOTICE }));
}

export interface OfflineModelOptions {
  /** Fixed delay per call, to simulate a remote model in benchmarks. */
  latencyMs?: number;
  /** Characters per streamed token chunk (by default the answer is cut into {@link STREAM_CHUNKS} pieces). */
  chunkSize?: number;
  /** Pause between streamed chunks, as a remote model's tokens arrive over time. */
  chunkPauseMs?: number;
  /** The agent this instance serves (its configured name), which picks the flow it plans. */
  agent?: string;
}

let callSeq = 0;

/** Pieces a streamed answer is cut into by default, and the pause between them: the answer reaches a client as
 *  several text deltas over a fraction of a second, through the same path as a real model's tokens. */
const STREAM_CHUNKS = 12;
const STREAM_PAUSE_MS = 25;

/**
 * A deterministic chat model with tool calling and token streaming that drives Procura's canonical flows
 * without any LLM service. It reads the conversation (request, tool results so far) and plans the next step
 * the way the prompts ask a real model to; anything outside those flows gets a plain notice.
 */
export class OfflineChatModel extends BaseChatModel {
  readonly modelName = OFFLINE_MODEL_NAME;
  private readonly boundTools: Set<string>;

  constructor(
    private readonly options: OfflineModelOptions = {},
    tools: Iterable<string> = [],
  ) {
    super({});
    this.boundTools = new Set(tools);
  }

  _llmType(): string {
    return OFFLINE_MODEL_NAME;
  }

  /** This model as the one the agent named `agent` runs on. */
  serving(agent: string): OfflineChatModel {
    return new OfflineChatModel({ ...this.options, agent }, this.boundTools);
  }

  override bindTools(tools: BindToolsInput[]) {
    const names = tools.map((t) =>
      'name' in t && typeof t.name === 'string'
        ? t.name
        : ((t as { function?: { name?: string } }).function?.name ?? ''),
    );
    return new OfflineChatModel(this.options, [...this.boundTools, ...names]).withConfig({});
  }

  private async plan(messages: BaseMessage[], signal?: AbortSignal): Promise<AIMessage> {
    if (this.options.latencyMs) await sleep(this.options.latencyMs, signal);
    const view = viewConversation(messages, this.boundTools);
    const plan = plannerFor(this.options.agent, view.system)(view);
    const toolCalls = (plan.toolCalls ?? [])
      .filter((c) => this.boundTools.has(c.name))
      .map((c) => ({
        name: c.name,
        // Arguments travel as JSON in a real model: no undefined values, no shared objects.
        args: JSON.parse(JSON.stringify(c.args)) as Record<string, unknown>,
        id: `offline_${Date.now().toString(36)}_${(callSeq++).toString(36)}`,
        type: 'tool_call' as const,
      }));
    return new AIMessage({
      content: plan.text ?? '',
      tool_calls: toolCalls,
      response_metadata: { model_name: OFFLINE_MODEL_NAME },
    });
  }

  async _generate(messages: BaseMessage[], options: this['ParsedCallOptions']): Promise<ChatResult> {
    const message = await this.plan(messages, options.signal);
    return { generations: [{ text: String(message.content), message }] };
  }

  async *_streamResponseChunks(
    messages: BaseMessage[],
    options: this['ParsedCallOptions'],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const message = await this.plan(messages, options.signal);
    const content = String(message.content);
    const size = this.options.chunkSize ?? Math.max(1, Math.ceil(content.length / STREAM_CHUNKS));
    const pause = this.options.chunkPauseMs ?? STREAM_PAUSE_MS;
    for (let i = 0; i < content.length; i += size) {
      if (i > 0 && pause > 0) await sleep(pause, options.signal);
      options.signal?.throwIfAborted();
      const piece = content.slice(i, i + size);
      yield new ChatGenerationChunk({ text: piece, message: new AIMessageChunk({ content: piece, id: message.id }) });
      await runManager?.handleLLMNewToken(piece);
    }
    if (message.tool_calls?.length) {
      yield new ChatGenerationChunk({
        text: '',
        message: new AIMessageChunk({
          content: '',
          id: message.id,
          tool_call_chunks: message.tool_calls.map((c, index) => ({
            name: c.name,
            args: JSON.stringify(c.args),
            id: c.id,
            index,
            type: 'tool_call_chunk' as const,
          })),
          response_metadata: message.response_metadata,
        }),
      });
    }
  }
}

export type OfflineCallOptions = BaseChatModelCallOptions;
