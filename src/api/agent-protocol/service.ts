import type { z } from 'zod';
import { type AgentRuntime, clientInterruptId, PROCURA_GRAPH } from '../../agent/index.ts';
import { HumanDecisionSchema, type PendingInterrupt } from '../../protocol/index.ts';
import { conflict, notFound, sleep, validationFailed } from '../../shared/index.ts';
import type { ApiUser } from '../auth.ts';
import type { RunEventLog } from '../chat/events.ts';
import type { History } from '../chat/history.ts';
import type { RunEvent, RunRow, RunStatus, RunStore } from '../chat/run-store.ts';
import type { RunManager, RunRef } from '../chat/runs.ts';
import type { SessionRow, Sessions } from '../chat/sessions.ts';
import {
  type AssistantSearchBody,
  type RunCreateBody,
  type RunListQuery,
  RunMessage,
  type ThreadCreateBody,
  type ThreadSearchBody,
} from './schemas.ts';
import type { Metadata, ThreadMetadata } from './threads.ts';

export interface AgentProtocolDeps {
  runs: RunManager;
  runStore: RunStore;
  sessions: Sessions;
  history: History;
  events: RunEventLog;
  runtime: AgentRuntime;
  threads: ThreadMetadata;
}

/** A run's status as the protocol names it: a run waiting for a person, or stopped, is `interrupted`. */
const RUN_STATUS: Record<RunStatus, string> = {
  running: 'running',
  waiting: 'interrupted',
  done: 'success',
  error: 'error',
  cancelled: 'interrupted',
};

/** A thread's status from its latest run's. */
const THREAD_STATUS: Partial<Record<RunStatus, string>> = { running: 'busy', waiting: 'interrupted', error: 'error' };

/** How long a cancel waits for the run to record that it stopped (its abort reaches model and tools first). */
const SETTLE_MS = 30_000;

/**
 * Procura's chat as the Agent Protocol sees it: an assistant per graph, a thread per chat session, a run per chat
 * run. Nothing here executes the agent: runs start, resume and stop through the chat's {@link RunManager}, so they
 * share its limits, budgets, redaction, approvals, event store and restart recovery; state is read from the same
 * checkpoints. A thread or run of another user is missing (404), as the chat's sessions are.
 */
export class AgentProtocol {
  /** When this process began serving the assistants (they are declared in code, not created by clients). */
  private readonly since = new Date().toISOString();

  constructor(private readonly deps: AgentProtocolDeps) {}

  /** Procura's graphs: the orchestrator graph, which delegates to the sub-agents its YAML names. */
  async assistants(query?: z.infer<typeof AssistantSearchBody>) {
    const agents = await this.deps.runtime.agents();
    const all = [
      {
        assistant_id: PROCURA_GRAPH,
        graph_id: PROCURA_GRAPH,
        name: PROCURA_GRAPH,
        description:
          '采购助手：分析、比价与下单（子智能体见 metadata）/ the procurement agent (its sub-agents in metadata)',
        config: {},
        context: {},
        metadata: { sub_agents: agents.filter((a) => a.name !== 'orchestrator').map((a) => a.name) },
        version: 1,
        created_at: this.since,
        updated_at: this.since,
      },
    ];
    const matches = all.filter(
      (a) =>
        (!query?.graph_id || a.graph_id === query.graph_id) &&
        (!query?.name || a.name === query.name) &&
        metadataMatches(a.metadata, query?.metadata),
    );
    return query ? matches.slice(query.offset, query.offset + query.limit) : matches;
  }

  async assistant(id: string) {
    const found = (await this.assistants()).find((a) => a.assistant_id === id || a.graph_id === id);
    if (!found) throw notFound(`没有这个助手 / no assistant ${id}`);
    return found;
  }

  /** A new empty thread (a chat session with no run yet); with `do_nothing`, the caller's existing one is returned. */
  async createThread(user: ApiUser, body: z.infer<typeof ThreadCreateBody>) {
    const id = body.thread_id ?? crypto.randomUUID();
    const created = await this.deps.sessions.create(user, id);
    if (!created) {
      if (body.if_exists === 'raise') throw conflict(`线程已存在 / thread ${id} already exists`, { thread_id: id });
      return this.thread(user, id);
    }
    // Written even when empty: a client-chosen id once used by a deleted session must not inherit its metadata.
    await this.deps.threads.set(id, body.metadata ?? {});
    return this.threadOf(created, body.metadata ?? {}, undefined);
  }

  /** The caller's thread with its current values. */
  async thread(user: ApiUser, id: string) {
    const session = await this.deps.sessions.owned(user, id);
    const [metadata, statuses, values] = await Promise.all([
      this.deps.threads.of([id]),
      this.deps.runStore.latestStatuses([id]),
      this.values(user, id),
    ]);
    return { ...this.threadOf(session, metadata.get(id) ?? {}, statuses.get(id)), values };
  }

  /** The caller's threads (their chat sessions), filtered and paged; values are read by `GET /threads/{id}`. */
  async searchThreads(user: ApiUser, query: z.infer<typeof ThreadSearchBody>) {
    let sessions = await this.deps.sessions.ownedBy(user);
    if (query.ids) {
      const wanted = new Set(query.ids);
      sessions = sessions.filter((s) => wanted.has(s.id));
    }
    const ids = sessions.map((s) => s.id);
    const [metadata, statuses] = await Promise.all([this.deps.threads.of(ids), this.deps.runStore.latestStatuses(ids)]);
    const threads = sessions.map((s) => this.threadOf(s, metadata.get(s.id) ?? {}, statuses.get(s.id)));
    const key = query.sort_by;
    const order = query.sort_order === 'asc' ? 1 : -1;
    return threads
      .filter((t) => (!query.status || t.status === query.status) && metadataMatches(t.metadata, query.metadata))
      .sort((a, b) => (a[key] < b[key] ? -order : a[key] > b[key] ? order : 0))
      .slice(query.offset, query.offset + query.limit);
  }

  /** Deletes the caller's thread with its runs, checkpoints and files (409 while a run is active). */
  async deleteThread(user: ApiUser, id: string): Promise<void> {
    await this.deps.history.delete(user, id);
    await this.deps.threads.delete(id);
  }

  /** The thread's state from its latest checkpoint, as a LangGraph server answers `GET /threads/{id}/state`. */
  async state(user: ApiUser, id: string) {
    await this.deps.sessions.owned(user, id);
    const snapshot = await this.snapshot(user, id);
    const tasks = (snapshot.tasks ?? []).map((task) => ({
      id: task.id,
      name: task.name,
      error: task.error ? String((task.error as Error).message ?? task.error) : null,
      interrupts: (task.interrupts ?? []).map(interruptOf),
      checkpoint: null,
      state: null,
    }));
    return {
      values: asDict(snapshot.values ?? {}),
      next: snapshot.next ?? [],
      tasks,
      interrupts: tasks.flatMap((t) => t.interrupts),
      checkpoint: checkpointOf(snapshot.config),
      parent_checkpoint: snapshot.parentConfig ? checkpointOf(snapshot.parentConfig) : null,
      metadata: asDict(snapshot.metadata ?? {}),
      created_at: snapshot.createdAt ?? null,
    };
  }

  /** The thread's current values; while it waits for a person, with `__interrupt__` as a LangGraph server adds it. */
  async values(user: ApiUser, id: string): Promise<Record<string, unknown>> {
    const snapshot = await this.snapshot(user, id);
    const values = asDict(snapshot.values ?? {}) as Record<string, unknown>;
    const interrupts = (snapshot.tasks ?? []).flatMap((t) => (t.interrupts ?? []).map(interruptOf));
    return interrupts.length ? { ...values, __interrupt__: interrupts } : values;
  }

  /**
   * Starts a run on the caller's thread: `input` is a new message (its last user message, held to the chat's rules),
   * `command.resume` answers the thread's pending interrupt. With `multitask_strategy: interrupt`, the thread's active
   * run is stopped first; otherwise an active run is a 409, as in the chat.
   */
  async startRun(user: ApiUser, threadId: string, body: RunCreateBody): Promise<{ ref: RunRef; run: RunView }> {
    await this.assistant(body.assistant_id);
    if (body.if_not_exists === 'create') await this.deps.sessions.create(user, threadId);
    await this.deps.sessions.ownedInProject(user, threadId);
    const active = await this.deps.runStore.active(threadId);
    if (active && body.multitask_strategy === 'interrupt' && !body.command) {
      await this.cancelRun(user, threadId, active.id, true);
    }
    const ref = body.command
      ? await this.resume(user, threadId, body.command.resume)
      : await this.deps.runs.start(user, { message: messageOf(body.input?.messages ?? []), sessionId: threadId });
    return { ref, run: await this.run(user, threadId, ref.runId) };
  }

  async run(user: ApiUser, threadId: string, runId: string): Promise<RunView> {
    await this.deps.sessions.owned(user, threadId);
    const row = await this.deps.runStore.get(runId);
    if (row?.session_id !== threadId) throw notFound(`没有这个运行 / no run ${runId} in this thread`);
    return runOf(row);
  }

  async listRuns(user: ApiUser, threadId: string, query: z.infer<typeof RunListQuery>): Promise<RunView[]> {
    await this.deps.sessions.owned(user, threadId);
    const runs = (await this.deps.runStore.ofSession(threadId)).map(runOf).reverse();
    return runs
      .filter((r) => !query.status || r.status === query.status)
      .slice(query.offset, query.offset + query.limit);
  }

  /** Stops the thread's active run `runId` (409 when it is not the active one); with `wait`, until it recorded so. */
  async cancelRun(user: ApiUser, threadId: string, runId: string, wait: boolean): Promise<void> {
    await this.run(user, threadId, runId);
    const active = await this.deps.runStore.active(threadId);
    if (active?.id !== runId) throw conflict('该运行已结束 / this run is not active', { run_id: runId });
    await this.deps.runs.cancel(user, threadId);
    if (!wait) return;
    const deadline = Date.now() + SETTLE_MS;
    while ((await this.deps.runStore.active(threadId))?.id === runId) {
      if (Date.now() > deadline) throw conflict('运行仍在停止中 / the run is still stopping', { run_id: runId });
      await sleep(50);
    }
  }

  /** Where a client following run `runId` goes on from (after `afterSeq`, a `Last-Event-ID`). */
  follow(user: ApiUser, threadId: string, runId: string, afterSeq: number): Promise<RunRef> {
    return this.deps.runs.followRun(user, threadId, runId, afterSeq);
  }

  /**
   * What `runs/wait` and `runs/{id}/join` answer once the run stopped: the thread's values (with `__interrupt__`
   * when it waits for a person), or `__error__` for a failed run. A client that goes away stops waiting, never the run.
   */
  async outcome(user: ApiUser, ref: RunRef, signal: AbortSignal): Promise<Record<string, unknown>> {
    let last: RunEvent | undefined;
    if (!ref.ended) {
      for await (const event of this.deps.events.follow(ref.runId, ref.afterSeq, signal, ref.resumedAfter)) {
        last = event;
      }
    }
    if (last?.event === 'error') {
      const data = JSON.parse(last.data) as { message?: string; detail?: string };
      return { __error__: { error: data.detail ?? 'error', message: data.message ?? '' } };
    }
    return this.values(user, ref.sessionId);
  }

  private async resume(user: ApiUser, threadId: string, resume: unknown): Promise<RunRef> {
    const active = await this.deps.runStore.active(threadId);
    const pending = JSON.parse(active?.pending ?? '[]') as PendingInterrupt[];
    // Keyed by interrupt id as LangGraph clients answer several at once, or the bare answer to the one that waits.
    const keyed = pending.find((p) => typeof resume === 'object' && resume !== null && p.interrupt_id in resume);
    const target = keyed ?? (pending.length === 1 ? pending[0] : undefined);
    if (!target) {
      throw conflict('没有等待中的确认 / nothing in this thread waits for an answer', {
        interrupt_ids: pending.map((p) => p.interrupt_id),
      });
    }
    const answer = keyed ? (resume as Record<string, unknown>)[target.interrupt_id] : resume;
    const decision = HumanDecisionSchema.safeParse(answer);
    if (!decision.success) {
      throw validationFailed(
        decision.error.issues.map((i) => ({ ...i, path: ['command', 'resume', ...i.path] })),
        'command.resume',
      );
    }
    return this.deps.runs.resume(user, {
      sessionId: threadId,
      interruptId: target.interrupt_id,
      decision: decision.data,
    });
  }

  private threadOf(session: SessionRow, metadata: Metadata, latest: RunStatus | undefined) {
    return {
      thread_id: session.id,
      created_at: session.created_at,
      updated_at: session.updated_at,
      state_updated_at: session.updated_at,
      metadata,
      status: (latest && THREAD_STATUS[latest]) ?? 'idle',
      interrupts: {},
    };
  }

  private async snapshot(user: ApiUser, threadId: string) {
    const graph = await this.deps.runtime.graph({ role: user.role });
    return (await graph.getState({ configurable: { thread_id: threadId } })) as unknown as Snapshot;
  }
}

interface Snapshot {
  values?: unknown;
  next?: string[];
  config?: { configurable?: Record<string, unknown> };
  parentConfig?: { configurable?: Record<string, unknown> };
  metadata?: unknown;
  createdAt?: string;
  tasks?: Array<{ id: string; name: string; error?: unknown; interrupts?: Array<{ id?: string; value?: unknown }> }>;
}

export type RunView = ReturnType<typeof runOf>;

function runOf(row: RunRow) {
  return {
    run_id: row.id,
    thread_id: row.session_id,
    assistant_id: PROCURA_GRAPH,
    created_at: row.created_at,
    updated_at: row.updated_at,
    status: RUN_STATUS[row.status],
    metadata: {},
    multitask_strategy: 'reject',
    kwargs: {},
  };
}

/** An interrupt as a LangGraph server shows it, under the id Procura's chat answers it by. */
function interruptOf(interrupt: { id?: string; value?: unknown }) {
  return { id: clientInterruptId(interrupt.id ?? '', interrupt.value), value: asDict(interrupt.value) };
}

function checkpointOf(config: Snapshot['config']) {
  const c = config?.configurable ?? {};
  return {
    thread_id: c.thread_id ?? null,
    checkpoint_ns: c.checkpoint_ns ?? '',
    checkpoint_id: c.checkpoint_id ?? null,
    checkpoint_map: null,
  };
}

/** Every field of `wanted` is equal in `metadata` (exact match, as a LangGraph server filters). */
function metadataMatches(metadata: Record<string, unknown>, wanted: Record<string, unknown> | undefined): boolean {
  return Object.entries(wanted ?? {}).every(([k, v]) => JSON.stringify(metadata[k]) === JSON.stringify(v));
}

/** The text of the input's last user message, held to the chat's rules for a message (a 422 names the field). */
function messageOf(messages: Array<{ role?: string; type?: string; content: unknown }>): string {
  const index = messages.findLastIndex((m) => m.role === 'user' || m.role === 'human' || m.type === 'human');
  const content = messages[index]?.content;
  const text =
    typeof content === 'string'
      ? content
      : Array.isArray(content)
        ? content
            .map((part: { type: string; text?: string }) => (part.type === 'text' ? (part.text ?? '') : ''))
            .join('')
        : '';
  const checked = RunMessage.safeParse(text);
  if (checked.success) return checked.data;
  const path = index < 0 ? ['input', 'messages'] : ['input', 'messages', index, 'content'];
  throw validationFailed(
    checked.error.issues.map((i) => ({ ...i, path })),
    'input.messages',
  );
}

/**
 * A value as plain JSON, LangChain messages as the dicts LangGraph servers send (`{type, content, id, …}`): what the
 * SDK's clients and `useStream` read.
 */
export function asDict(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value ?? null, function (this: Record<string, unknown>, key, replaced) {
      const raw = this[key] as { toDict?: () => { type: string; data: Record<string, unknown> } } | undefined;
      if (raw && typeof raw === 'object' && typeof raw.toDict === 'function') {
        const { type, data } = raw.toDict();
        return { ...data, type };
      }
      return replaced;
    }),
  );
}
