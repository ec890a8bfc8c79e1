import type { AgentName, ApiEvent, ProgressData, StepStatus as ProgressStatus } from '../../protocol/index.ts';

const SUBAGENT_TITLES: Record<string, string> = {
  'procurement-analyst': '采购分析 / procurement analysis',
  'procurement-order': '采购订单 / purchase order',
  'procurement-sourcing': '询价寻源 / request for quotation',
};

const DETAIL_LIMIT = 300;

interface MessageLike {
  getType?: () => string;
  _getType?: () => string;
  content?: unknown;
  tool_calls?: Array<{ id?: string; name: string; args: Record<string, unknown> }>;
  tool_call_id?: string;
  status?: string;
  name?: string;
}

interface StreamMetadata {
  langgraph_node?: string;
  lc_agent_name?: string;
}

/**
 * Turns LangGraph stream chunks (`streamMode: ['updates','messages','custom']`, `subgraphs: true`) into protocol
 * events: tool and sub-agent steps become `progress` upserts named after the agent that took them; the
 * orchestrator's answer text becomes `token` (sub-agent internals and model reasoning are not sent);
 * front-end tool calls become `tool_call`. One mapper per run.
 */
export class StreamMapper {
  /** Namespace (joined) → the agent running in it; the root namespace is the orchestrator. */
  private readonly agents = new Map<string, AgentName>([['', 'orchestrator']]);
  private readonly steps = new Map<
    string,
    { phase: 'subagent' | 'tool'; title: string; agent: AgentName; tool?: string }
  >();
  private readonly sent = new Set<string>();
  /** Whether the orchestrator's model step under way has sent its text as tokens. */
  private answerStreamed = false;

  constructor(private readonly labelOf: (tool: string) => string | undefined) {}

  map(chunk: unknown): ApiEvent[] {
    if (!Array.isArray(chunk) || chunk.length !== 3) return [];
    const [namespace, mode, data] = chunk as [string[], string, unknown];
    if (mode === 'messages') return this.fromMessage(namespace, data as [MessageLike, StreamMetadata]);
    if (mode === 'updates') return this.fromUpdate(namespace, data as Record<string, unknown>);
    if (mode === 'custom') {
      const agent =
        this.agents.get(namespace.join('|')) ?? this.agents.get(namespace.slice(0, -1).join('|')) ?? 'orchestrator';
      return this.fromCustom(data, agent);
    }
    return [];
  }

  /** Knows the steps a run already announced (a resumed run completes steps started before its interrupt). */
  remember(progress: ProgressData): void {
    if (progress.phase !== 'subagent' && progress.phase !== 'tool') return;
    const { phase, title, agent, tool } = progress;
    this.steps.set(progress.id, { phase, title, agent, ...(tool ? { tool } : {}) });
    this.sent.add(`${progress.id}:${progress.status}`);
  }

  /** The progress items still running (to close them when a run ends early). */
  openSteps(): string[] {
    return [...this.steps.keys()].filter((id) => !this.sent.has(`${id}:completed`) && !this.sent.has(`${id}:error`));
  }

  private fromMessage(namespace: string[], [message, metadata]: [MessageLike, StreamMetadata]): ApiEvent[] {
    const agent = agentName(metadata?.lc_agent_name);
    // A model node's namespace ends with its own task; the agent owns the namespace above it.
    if (namespace.length > 0) this.agents.set(namespace.slice(0, -1).join('|'), agent);
    if (agent !== 'orchestrator' || metadata?.langgraph_node !== 'model_request') return [];
    if (typeOf(message) !== 'ai') return [];
    const content = visibleText(message.content);
    if (!content) return [];
    this.answerStreamed = true;
    return [{ event: 'token', data: { content, agent } }];
  }

  /**
   * The orchestrator's reply when its model step sent no tokens: a reply that no model produced (a run guard's
   * stopping message answers the model call in its place) reaches the user too.
   */
  private unstreamedAnswer(agent: AgentName, node: string, message: MessageLike): ApiEvent[] {
    if (agent !== 'orchestrator' || node !== 'model_request' || typeOf(message) !== 'ai') return [];
    const streamed = this.answerStreamed;
    this.answerStreamed = false;
    const content = visibleText(message.content);
    return !streamed && content ? [{ event: 'token', data: { content, agent } }] : [];
  }

  private fromUpdate(namespace: string[], update: Record<string, unknown>): ApiEvent[] {
    const agent = this.agents.get(namespace.join('|')) ?? 'orchestrator';
    const events: ApiEvent[] = [];
    for (const [node, value] of Object.entries(update ?? {})) {
      const messages = (value as { messages?: unknown })?.messages;
      if (!Array.isArray(messages)) continue;
      for (const message of messages as MessageLike[]) {
        events.push(...this.unstreamedAnswer(agent, node, message));
        const type = typeOf(message);
        if (type === 'ai') {
          for (const call of message.tool_calls ?? []) {
            if (!call.id) continue;
            const step =
              call.name === 'task'
                ? {
                    phase: 'subagent' as const,
                    agent: agentName(String(call.args?.subagent_type ?? 'subagent')),
                    title: `委派子智能体：${SUBAGENT_TITLES[String(call.args?.subagent_type)] ?? String(call.args?.subagent_type)}`,
                  }
                : { phase: 'tool' as const, agent, title: this.labelOf(call.name) ?? call.name, tool: call.name };
            this.steps.set(call.id, step);
            const detail = call.name === 'task' ? String(call.args?.description ?? '') : JSON.stringify(call.args);
            events.push(...this.progress(call.id, 'running', truncate(detail)));
          }
        } else if (type === 'tool' && message.tool_call_id && this.steps.has(message.tool_call_id)) {
          const text = visibleText(message.content);
          const failed = message.status === 'error' || /^\s*\{\s*"success"\s*:\s*false/.test(text);
          events.push(...this.progress(message.tool_call_id, failed ? 'error' : 'completed', truncate(text)));
        }
      }
    }
    return events;
  }

  private progress(id: string, status: ProgressStatus, detail: string): ApiEvent[] {
    const step = this.steps.get(id);
    if (!step || this.sent.has(`${id}:${status}`)) return [];
    this.sent.add(`${id}:${status}`);
    return [{ event: 'progress', data: { id, status, detail, ...step } }];
  }

  /** Front-end tool calls become `tool_call`; a running tool's `progress()` updates its step (same id). */
  private fromCustom(data: unknown, agent: AgentName): ApiEvent[] {
    const retry = data as {
      type?: string;
      id?: string;
      status?: ProgressStatus;
      attempt?: number;
      retries?: number;
      detail?: string;
    };
    if (retry?.type === 'model_retry' && retry.id && retry.status) {
      const title =
        retry.status === 'running'
          ? `模型服务出错，正在重试 (${retry.attempt}/${retry.retries}) / model service failed, retrying (${retry.attempt}/${retry.retries})`
          : retry.status === 'completed'
            ? '模型服务已恢复 / model service recovered'
            : '模型服务重试失败 / model service retries failed';
      return [
        {
          event: 'progress',
          data: {
            id: retry.id,
            phase: 'model',
            status: retry.status,
            title,
            detail: truncate(retry.detail ?? ''),
            agent,
          },
        },
      ];
    }
    const chunk = data as { type?: string; tool?: unknown; params?: unknown; call_id?: unknown; message?: unknown };
    if (chunk?.type === 'tool_call' && typeof chunk.tool === 'string')
      return [
        { event: 'tool_call', data: { tool: chunk.tool, params: (chunk.params ?? {}) as Record<string, unknown> } },
      ];
    if (chunk?.type !== 'tool_progress' || typeof chunk.call_id !== 'string') return [];
    const id = chunk.call_id;
    const step = this.steps.get(id);
    if (!step || this.sent.has(`${id}:completed`) || this.sent.has(`${id}:error`)) return [];
    const detail = truncate(String(chunk.message ?? ''));
    return [{ event: 'progress', data: { id, status: 'running', detail, ...step } }];
  }

  /** Progress events closing every still-running step (cancel, error). */
  close(status: 'error' | 'completed', detail: string): ApiEvent[] {
    return this.openSteps().flatMap((id) => this.progress(id, status, detail));
  }
}

function agentName(raw: string | undefined): AgentName {
  return !raw || raw === 'procura' ? 'orchestrator' : raw;
}

function typeOf(message: MessageLike): string | undefined {
  return message?.getType?.() ?? message?._getType?.();
}

/** Text meant for the user: string content or `text` blocks; reasoning/thinking blocks are left out. */
export function visibleText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((block) => block && typeof block === 'object' && (block as { type?: string }).type === 'text')
    .map((block) => String((block as { text?: unknown }).text ?? ''))
    .join('');
}

function truncate(text: string): string {
  return text.length > DETAIL_LIMIT ? `${text.slice(0, DETAIL_LIMIT)}…` : text;
}
