import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import type { LLMResult } from '@langchain/core/outputs';
import {
  type Attributes,
  type Context,
  context,
  type Histogram,
  metrics,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { type Conversation, conversationAttributes } from '../shared/index.ts';
import { requestedModel, usageOf } from './models/usage.ts';

const SCOPE = 'procura.agent';

/** Provider names as the GenAI conventions spell them (`gen_ai.provider.name`). */
const PROVIDERS: Record<string, string> = {
  deepseek: 'deepseek',
  'openai-compatible': 'openai',
  offline: 'procura.offline',
};

interface Instruments {
  tokens: Histogram;
  duration: Histogram;
  firstChunk: Histogram;
}

let instruments: Instruments | undefined;

/** The GenAI client metrics, created once on the global meter. */
function meters(): Instruments {
  if (!instruments) {
    const meter = metrics.getMeter(SCOPE);
    instruments = {
      tokens: meter.createHistogram('gen_ai.client.token.usage', {
        unit: '{token}',
        description: 'Tokens used per model call, by gen_ai.token.type',
      }),
      duration: meter.createHistogram('gen_ai.client.operation.duration', {
        unit: 's',
        description: 'Duration of a model call',
      }),
      firstChunk: meter.createHistogram('gen_ai.client.operation.time_to_first_chunk', {
        unit: 's',
        description: 'Time from request to the first streamed chunk of a model call',
      }),
    };
  }
  return instruments;
}

interface Open {
  span: Span;
  /** Model calls: start time, first chunk seen, metric attributes. */
  call?: { started: number; firstChunk: boolean; attributes: Attributes };
}

/**
 * GenAI spans of one run from LangChain's callbacks: `invoke_agent` for the orchestrator and each sub-agent,
 * `chat` for every model call (model, token usage, finish reasons), `execute_tool` for every tool (name, call id),
 * nested as the calls nest, all carrying the conversation (session) and the user; plus the GenAI client metrics.
 * Message contents and tool arguments are never recorded.
 */
export class GenAiTracer extends BaseCallbackHandler {
  name = 'procura-genai-tracer';
  private readonly open = new Map<string, Open>();
  /** LangChain runs that are no span (graph nodes, middleware) → the span their children belong under. */
  private readonly through = new Map<string, string | undefined>();
  private readonly tracer = trace.getTracer(SCOPE);
  private readonly base: Context;
  private readonly attributes: Attributes;

  constructor(
    conversation: Conversation,
    private readonly options: { provider: string; agents: ReadonlySet<string> },
  ) {
    super();
    this.base = context.active();
    this.attributes = conversationAttributes(conversation);
  }

  /** The context a child of LangChain run `parentRunId` starts in. */
  private parentContext(parentRunId?: string): Context {
    let id = parentRunId;
    for (let hops = 0; id && hops < 100; hops++) {
      const open = this.open.get(id);
      if (open) return trace.setSpan(this.base, open.span);
      id = this.through.get(id);
    }
    return this.base;
  }

  private start(runId: string, parentRunId: string | undefined, name: string, kind: SpanKind, attributes: Attributes) {
    const span = this.tracer.startSpan(
      name,
      { kind, attributes: { ...this.attributes, ...attributes } },
      this.parentContext(parentRunId),
    );
    this.open.set(runId, { span });
    return span;
  }

  private end(runId: string, error?: unknown): Open | undefined {
    const open = this.open.get(runId);
    this.through.delete(runId);
    if (!open) return undefined;
    this.open.delete(runId);
    if (error && !isInterrupt(error)) {
      open.span.setAttribute('error.type', errorType(error));
      open.span.setStatus({ code: SpanStatusCode.ERROR, message: String((error as Error)?.name ?? 'error') });
    }
    open.span.end();
    return open;
  }

  // LangChain calls this with (chain, inputs, runId, parentRunId, tags, metadata, runType, runName).
  override async handleChainStart(
    _chain: unknown,
    _inputs: unknown,
    runId: string,
    parentRunId?: unknown,
    _tags?: unknown,
    _metadata?: unknown,
    _runType?: unknown,
    runName?: unknown,
  ) {
    const parent = typeof parentRunId === 'string' ? parentRunId : undefined;
    const name = typeof runName === 'string' ? runName : '';
    if (!this.options.agents.has(name)) {
      this.through.set(runId, parent);
      return;
    }
    const agent = name === 'procura' ? 'orchestrator' : name;
    this.start(runId, parent, `invoke_agent ${agent}`, SpanKind.INTERNAL, {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': agent,
      'gen_ai.provider.name': PROVIDERS[this.options.provider] ?? this.options.provider,
    });
  }

  override async handleChainEnd(_outputs: unknown, runId: string) {
    this.end(runId);
  }

  override async handleChainError(error: unknown, runId: string) {
    this.end(runId, error);
  }

  override async handleChatModelStart(
    _llm: unknown,
    _messages: unknown,
    runId: string,
    parentRunId?: string,
    extraParams?: Record<string, unknown>,
    _tags?: string[],
    metadata?: Record<string, unknown>,
  ) {
    const model = requestedModel(extraParams, metadata);
    const attributes: Attributes = {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': PROVIDERS[this.options.provider] ?? this.options.provider,
      'gen_ai.request.model': model,
    };
    const span = this.start(runId, parentRunId, `chat ${model}`, SpanKind.CLIENT, attributes);
    const agent = metadata?.lc_agent_name;
    if (typeof agent === 'string') span.setAttribute('gen_ai.agent.name', agent === 'procura' ? 'orchestrator' : agent);
    (this.open.get(runId) as Open).call = { started: performance.now(), firstChunk: false, attributes };
  }

  override async handleLLMNewToken(_token: string, _idx: unknown, runId: string) {
    const call = this.open.get(runId)?.call;
    if (!call || call.firstChunk) return;
    call.firstChunk = true;
    meters().firstChunk.record((performance.now() - call.started) / 1000, call.attributes);
  }

  override async handleLLMEnd(output: LLMResult, runId: string) {
    const open = this.open.get(runId);
    if (!open?.call) return;
    const usage = usageOf(output, String(open.call.attributes['gen_ai.request.model']));
    const finish = (output.generations?.[0]?.[0] as { generationInfo?: { finish_reason?: string } } | undefined)
      ?.generationInfo?.finish_reason;
    open.span.setAttributes({
      'gen_ai.usage.input_tokens': usage.inputTokens,
      'gen_ai.usage.output_tokens': usage.outputTokens,
      'gen_ai.response.model': usage.model,
      ...(finish ? { 'gen_ai.response.finish_reasons': [finish] } : {}),
    });
    const attributes = { ...open.call.attributes, 'gen_ai.response.model': usage.model };
    meters().tokens.record(usage.inputTokens, { ...attributes, 'gen_ai.token.type': 'input' });
    meters().tokens.record(usage.outputTokens, { ...attributes, 'gen_ai.token.type': 'output' });
    meters().duration.record((performance.now() - open.call.started) / 1000, attributes);
    this.end(runId);
  }

  override async handleLLMError(error: unknown, runId: string) {
    const open = this.open.get(runId);
    if (open?.call) {
      meters().duration.record((performance.now() - open.call.started) / 1000, {
        ...open.call.attributes,
        'error.type': errorType(error),
      });
    }
    this.end(runId, error);
  }

  override async handleToolStart(
    _tool: unknown,
    _input: string,
    runId: string,
    parentRunId?: string,
    _tags?: string[],
    _metadata?: Record<string, unknown>,
    runName?: string,
    toolCallId?: string,
  ) {
    const name = runName ?? 'tool';
    this.start(runId, parentRunId, `execute_tool ${name}`, SpanKind.INTERNAL, {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': name,
      ...(toolCallId ? { 'gen_ai.tool.call.id': toolCallId } : {}),
    });
  }

  override async handleToolEnd(_output: unknown, runId: string) {
    this.end(runId);
  }

  override async handleToolError(error: unknown, runId: string) {
    this.end(runId, error);
  }
}

/** A run pausing for a human is not a failure. */
function isInterrupt(error: unknown): boolean {
  const name = (error as { name?: string })?.name ?? '';
  return (
    name === 'GraphInterrupt' ||
    name === 'NodeInterrupt' ||
    (error as { is_bubble_up?: boolean })?.is_bubble_up === true
  );
}

function errorType(error: unknown): string {
  const e = error as { name?: string; status?: number };
  return typeof e?.status === 'number' ? String(e.status) : (e?.name ?? 'Error');
}
