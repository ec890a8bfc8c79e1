import type { RunEvent } from '../chat/run-store.ts';
import type { SseFormat, SseMessage } from '../chat/sse.ts';
import type { StreamMode } from './schemas.ts';

/**
 * One Procura run's stored events as a LangGraph server streams a run, in the modes the client asked for:
 * - `metadata` first (`{run_id, attempt}`), always;
 * - `messages-tuple`: each piece of the orchestrator's answer as `messages` `[AIMessageChunk, metadata]`;
 * - `messages`: `messages/metadata`, then `messages/partial` with the answer so far, `messages/complete` at the end;
 * - `values`: the thread's values once the run stopped (with `__interrupt__` while it waits for a person);
 * - `updates`: the run's interrupts as `{__interrupt__: […]}`;
 * - `custom`: Procura's own events (steps, front-end tool calls, interrupts, decisions) as `{event, data}`;
 * - `error`: a failed run, as `{error, message}`.
 * Every message carries the stored event's sequence as its id, so a client rejoining with `Last-Event-ID` misses
 * nothing and gets nothing twice.
 */
export class LangGraphStream implements SseFormat {
  private readonly modes: ReadonlySet<StreamMode>;
  private text = '';

  constructor(
    private readonly run: { runId: string; threadId: string },
    modes: readonly StreamMode[],
    /** The thread's values, read when the run stopped. */
    private readonly values: () => Promise<Record<string, unknown>>,
  ) {
    this.modes = new Set(modes);
  }

  private get messageId(): string {
    return `run-${this.run.runId}`;
  }

  start(): SseMessage[] {
    return [message('metadata', { run_id: this.run.runId, attempt: 1 })];
  }

  async translate(event: RunEvent): Promise<SseMessage[]> {
    const data = JSON.parse(event.data) as Record<string, unknown>;
    const id = String(event.seq);
    const out: SseMessage[] = [];
    if (event.event === 'token') out.push(...this.token(String(data.content ?? '')));
    else if (this.modes.has('custom')) out.push(message('custom', { event: event.event, data }));
    if (event.event === 'interrupt' && this.modes.has('updates')) {
      out.push(message('updates', { __interrupt__: [{ id: data.interrupt_id, value: data }] }));
    }
    const stopped = event.event === 'interrupt' || (event.event === 'done' && data.status !== 'cancelled');
    if (stopped && this.modes.has('messages') && this.text) {
      out.push(message('messages/complete', [{ type: 'ai', id: this.messageId, content: this.text }]));
    }
    if (stopped && this.modes.has('values')) out.push(message('values', await this.values()));
    if (event.event === 'error') {
      out.push(message('error', { error: data.detail ?? 'error', message: data.message ?? '' }));
    }
    return out.map((m) => ({ ...m, id }));
  }

  private token(content: string): SseMessage[] {
    if (!content) return [];
    const first = !this.text;
    this.text += content;
    const out: SseMessage[] = [];
    const metadata = { run_id: this.run.runId, thread_id: this.run.threadId, langgraph_node: 'model' };
    if (this.modes.has('messages-tuple')) {
      out.push(message('messages', [{ type: 'AIMessageChunk', id: this.messageId, content }, metadata]));
    }
    if (this.modes.has('messages')) {
      if (first) out.push(message('messages/metadata', { [this.messageId]: { metadata } }));
      out.push(message('messages/partial', [{ type: 'ai', id: this.messageId, content: this.text }]));
    }
    return out;
  }
}

function message(event: string, data: unknown): SseMessage {
  return { event, data: JSON.stringify(data) };
}
