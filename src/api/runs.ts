import { awaitAllCallbacks } from '@langchain/core/callbacks/promises';
import { Command } from '@langchain/langgraph';
import type { Kysely } from 'kysely';
import {
  type AgentRuntime,
  type HumanDecision,
  type HumanRequest,
  modelServiceFailure,
  type ProcuraRunContext,
  UsageMeter,
} from '../agent/index.ts';
import { conflict, type Logger, ProblemError, unprocessable } from '../shared/index.ts';
import { withConversation } from '../shared/telemetry.ts';
import type { ApiUser } from './auth.ts';
import { type ApiTables, isUniqueViolation, type RunStatus } from './db.ts';
import type { RunEventLog } from './events.ts';
import { type ApiEvent, StreamMapper } from './protocol.ts';
import { redact } from './redact.ts';
import { claimRetry } from './retry.ts';
import type { Sessions } from './sessions.ts';
import type { UsageLedger } from './usage.ts';

export interface RunLimits {
  /** A run without any event for this long is cancelled (waiting for a human does not count). */
  inactivityMs: number;
  /** Run starts (new messages) per user per minute. */
  startsPerMinute: number;
  /** Runs this process executes at once; later ones wait in line (their first event is sent right away). */
  maxConcurrent: number;
}

export interface PendingInterrupt {
  interrupt_id: string;
  value: HumanRequest;
}

export interface RunRef {
  runId: string;
  sessionId: string;
  /** Last event already stored when the caller got this run: follow from here. */
  afterSeq: number;
}

interface ActiveRun {
  sessionId: string;
  abort: AbortController;
  seq: number;
  /** Store → fan-out chain, so events leave in order even on an asynchronous database. */
  tail: Promise<void>;
}

const CANCELLED = 'cancelled';
const INACTIVE = 'inactive';
const TOUCH_MS = 30_000;

/**
 * Runs of the agent, independent of any HTTP connection: one active run per session (enforced in the database),
 * events stored per run and fanned out, interrupts kept as `waiting` runs that any process can resume, cancel by
 * abort signal (locally or through the event bus), and the inactivity timeout.
 */
export class RunManager {
  private readonly active = new Map<string, ActiveRun>();
  private readonly starts = new Map<string, number[]>();
  private executing = 0;
  private readonly line: Array<() => void> = [];

  constructor(
    private readonly deps: {
      db: Kysely<ApiTables>;
      events: RunEventLog;
      sessions: Sessions;
      runtime: AgentRuntime;
      limits: RunLimits;
      log: Logger;
      usage: UsageLedger;
      /** LangChain callback handlers for a run (tracing), given who runs it. */
      tracers?: (run: { runId: string; sessionId: string; user: ApiUser }) => Promise<unknown[]>;
    },
  ) {
    deps.events.onControl((message) => {
      if (message.action === 'cancel') this.active.get(message.runId)?.abort.abort(CANCELLED);
    });
  }

  /** Runs this process is executing right now. */
  get running(): number {
    return this.active.size;
  }

  /** Starts a run for a new message; 409 (with the active run's id) while the session has one. */
  async start(user: ApiUser, input: { message: string; sessionId?: string }): Promise<RunRef> {
    this.checkRate(user.username);
    await this.deps.usage.checkBudget(user.username);
    const session = await this.deps.sessions.openOrCreate(user, input.sessionId, input.message);
    const runId = crypto.randomUUID();
    const now = new Date().toISOString();
    try {
      await this.deps.db
        .insertInto('chat_runs')
        .values({
          id: runId,
          session_id: session.id,
          owner: user.username,
          status: 'running',
          message: redact(input.message, [user.token]),
          pending: null,
          created_at: now,
          updated_at: now,
        })
        .execute();
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      const activeRun = await this.activeRun(session.id);
      throw conflict(
        activeRun?.status === 'waiting'
          ? '会话正在等待您的确认，请先处理或停止 / the session waits for your decision: answer it or cancel first'
          : '会话已有正在运行的任务 / the session already has a running run',
        { run_id: activeRun?.id, run_status: activeRun?.status, session_id: session.id },
      );
    }
    await this.deps.sessions.touch(session.id);
    this.execute(user, session.id, runId, 0, { messages: [{ role: 'user', content: input.message }] });
    return { runId, sessionId: session.id, afterSeq: 0 };
  }

  /** Continues the session's waiting run with the human's decision on `interruptId`. */
  async resume(
    user: ApiUser,
    input: { sessionId: string; interruptId: string; decision: HumanDecision },
  ): Promise<RunRef> {
    await this.deps.sessions.owned(user, input.sessionId);
    const run = await this.activeRun(input.sessionId);
    if (run?.status !== 'waiting') {
      throw conflict('没有等待中的确认 / nothing in this session waits for a decision', {
        run_id: run?.id,
        run_status: run?.status,
      });
    }
    const pending = JSON.parse(run.pending ?? '[]') as PendingInterrupt[];
    const target = pending.find((p) => p.interrupt_id === input.interruptId);
    if (!target) {
      throw conflict('该确认已处理或已过期 / this interrupt was already answered or is stale', {
        run_id: run.id,
        interrupt_ids: pending.map((p) => p.interrupt_id),
      });
    }
    checkDecision(target.value, input.decision);
    // Only one resume wins, even across processes: the waiting → running flip is the lock.
    const claimed = await this.deps.db
      .updateTable('chat_runs')
      .set({ status: 'running', pending: null, updated_at: new Date().toISOString() })
      .where('id', '=', run.id)
      .where('status', '=', 'waiting')
      .executeTakeFirst();
    if (Number(claimed.numUpdatedRows) !== 1) {
      throw conflict('该确认已在处理中 / this decision is already being processed', { run_id: run.id });
    }
    const afterSeq = await this.deps.events.lastSeq(run.id);
    this.execute(
      user,
      input.sessionId,
      run.id,
      afterSeq,
      new Command({ resume: { [input.interruptId]: input.decision } }),
    );
    return { runId: run.id, sessionId: input.sessionId, afterSeq };
  }

  /**
   * Takes the session's failed or interrupted run up again from its last checkpoint: steps that completed (and
   * approved writes) are not repeated. Streams like a resume, continuing the run's event sequence.
   */
  async retry(user: ApiUser, sessionId: string): Promise<RunRef> {
    await this.deps.sessions.owned(user, sessionId);
    const runId = await claimRetry(this.deps.db, sessionId);
    const afterSeq = await this.deps.events.lastSeq(runId);
    this.execute(user, sessionId, runId, afterSeq, null);
    return { runId, sessionId, afterSeq };
  }

  /** Stops the session's run: aborts model and tool work wherever it runs; a waiting run just ends. */
  async cancel(user: ApiUser, sessionId: string): Promise<{ run_id: string; status: RunStatus }> {
    await this.deps.sessions.owned(user, sessionId);
    const run = await this.activeRun(sessionId);
    if (!run) throw conflict('没有可停止的任务 / nothing is running in this session', { session_id: sessionId });
    if (run.status === 'waiting') {
      const claimed = await this.deps.db
        .updateTable('chat_runs')
        .set({ status: 'cancelled', pending: null, updated_at: new Date().toISOString() })
        .where('id', '=', run.id)
        .where('status', '=', 'waiting')
        .executeTakeFirst();
      if (Number(claimed.numUpdatedRows) === 1) {
        const seq = await this.deps.events.lastSeq(run.id);
        await this.deps.events.append({
          runId: run.id,
          seq: seq + 1,
          event: 'done',
          data: JSON.stringify({ session_id: sessionId, run_id: run.id, status: 'cancelled' }),
        });
        return { run_id: run.id, status: 'cancelled' };
      }
    }
    await this.deps.events.requestCancel(run.id);
    return { run_id: run.id, status: 'running' };
  }

  /** The caller's session's latest run (for joining a stream), or undefined. */
  async latestRun(user: ApiUser, sessionId: string) {
    await this.deps.sessions.owned(user, sessionId);
    return this.deps.db
      .selectFrom('chat_runs')
      .selectAll()
      .where('session_id', '=', sessionId)
      .orderBy('created_at', 'desc')
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();
  }

  private activeRun(sessionId: string) {
    return this.deps.db
      .selectFrom('chat_runs')
      .selectAll()
      .where('session_id', '=', sessionId)
      .where('status', 'in', ['running', 'waiting'])
      .executeTakeFirst();
  }

  /**
   * Marks runs left `running` by a process that is gone as failed, so followers end instead of waiting forever:
   * every such run on a single-process SQLite set-up, runs quiet past the inactivity limit on PostgreSQL.
   */
  async recoverOrphans(singleProcess: boolean): Promise<number> {
    const cutoff = new Date(Date.now() - this.deps.limits.inactivityMs).toISOString();
    let query = this.deps.db.selectFrom('chat_runs').select(['id', 'session_id']).where('status', '=', 'running');
    if (!singleProcess) query = query.where('updated_at', '<', cutoff);
    const orphans = await query.execute();
    for (const run of orphans) {
      await this.finish(run.id, 'error');
      const seq = await this.deps.events.lastSeq(run.id);
      await this.deps.events.append({
        runId: run.id,
        seq: seq + 1,
        event: 'error',
        data: JSON.stringify({
          session_id: run.session_id,
          message: '服务重启，任务已中断 / the server restarted and this run was interrupted',
          detail: 'orphaned',
        }),
      });
    }
    return orphans.length;
  }

  /** Aborts every run of this process (shutdown); their state stays in the checkpoints. */
  async close(): Promise<void> {
    const tails = [...this.active.values()].map((run) => {
      run.abort.abort(CANCELLED);
      return run.tail;
    });
    await Promise.allSettled(tails);
  }

  /** Waits for an execution slot (or the run's cancel). */
  private takeSlot(signal: AbortSignal): Promise<void> {
    if (this.executing < this.deps.limits.maxConcurrent) {
      this.executing += 1;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const turn = () => {
        signal.removeEventListener('abort', leave);
        resolve();
      };
      const leave = () => {
        this.line.splice(this.line.indexOf(turn), 1);
        reject(signal.reason);
      };
      signal.addEventListener('abort', leave, { once: true });
      this.line.push(turn);
    });
  }

  /** Hands the slot to the next run in line. */
  private releaseSlot(): void {
    const next = this.line.shift();
    if (next) next();
    else this.executing -= 1;
  }

  private checkRate(username: string): void {
    const now = Date.now();
    const recent = (this.starts.get(username) ?? []).filter((t) => t > now - 60_000);
    if (recent.length >= this.deps.limits.startsPerMinute) {
      throw new ProblemError(
        429,
        'rate_limited',
        `每分钟最多发起 ${this.deps.limits.startsPerMinute} 次对话 / at most ${this.deps.limits.startsPerMinute} runs per minute`,
        { retry_after: Math.ceil((recent[0] + 60_000 - now) / 1000) },
      );
    }
    recent.push(now);
    this.starts.set(username, recent);
  }

  /** Drives one run (or its continuation) in the background; every outcome ends in a terminal event. */
  private execute(user: ApiUser, sessionId: string, runId: string, afterSeq: number, input: unknown): void {
    const abort = new AbortController();
    const run: ActiveRun = { sessionId, abort, seq: afterSeq, tail: Promise.resolve() };
    this.active.set(runId, run);
    const { runtime, log } = this.deps;
    let idle: NodeJS.Timeout | undefined;
    let lastTouch = Date.now();
    const resetIdle = () => {
      clearTimeout(idle);
      idle = setTimeout(() => abort.abort(INACTIVE), this.deps.limits.inactivityMs);
    };
    const emit = (event: ApiEvent) => {
      run.seq += 1;
      const stored = {
        runId,
        seq: run.seq,
        event: event.event,
        data: redact(JSON.stringify({ session_id: sessionId, ...event.data }), [user.token]),
      };
      const touch = Date.now() - lastTouch > TOUCH_MS;
      if (touch) lastTouch = Date.now();
      run.tail = run.tail.then(async () => {
        await this.deps.events
          .append(stored)
          .catch((error) => log.error({ err: error, runId }, 'run event not stored'));
        // A live run keeps its row fresh, so other processes never take it for an orphan.
        if (touch) await this.finish(runId, 'running').catch(() => undefined);
      });
      resetIdle();
    };
    const ctx: ProcuraRunContext = {
      userId: user.username,
      username: user.displayName,
      role: user.role,
      token: user.token,
      projectId: user.projectId,
      traceId: runId,
      sessionId,
    };
    const work = async () => {
      let labelOf: (tool: string) => string | undefined = () => undefined;
      const mapper = new StreamMapper((tool) => labelOf(tool));
      const runProgress = (status: 'running' | 'completed' | 'error', title: string) =>
        emit({
          event: 'progress',
          data: { id: `run:${runId}`, phase: 'run', status, title, detail: '', agent: 'orchestrator' },
        });
      if (afterSeq > 0) {
        for (const stored of await this.deps.events.replay(runId, 0)) {
          if (stored.event === 'progress') mapper.remember(JSON.parse(stored.data));
        }
      }
      // A new run, or a retry (no input: the graph goes on from its last checkpoint).
      if (afterSeq === 0 || input === null)
        runProgress('running', input === null ? '重试中 / retrying' : '处理中 / working');
      const usageSoFar = async () => {
        await awaitAllCallbacks();
        await run.tail;
        return this.deps.usage.runTotal(runId);
      };
      let slot = false;
      try {
        await this.takeSlot(abort.signal);
        slot = true;
        resetIdle();
        const registry = await runtime.registry();
        labelOf = (tool) => registry.get(tool)?.label;
        const meter = new UsageMeter((await runtime.models()).prices, (call) => {
          run.tail = run.tail.then(() =>
            this.deps.usage
              .record({ runId, sessionId, owner: user.username }, call)
              .catch((error) => log.error({ err: error, runId }, 'model usage not stored')),
          );
        });
        const config = {
          configurable: { thread_id: sessionId },
          context: ctx,
          recursionLimit: 200,
          callbacks: [meter, ...((await this.deps.tracers?.({ runId, sessionId, user })) ?? [])],
        };
        const graph = await runtime.graph(ctx);
        const stream = await graph.stream(
          input as never,
          {
            ...config,
            streamMode: ['updates', 'messages', 'custom'],
            subgraphs: true,
            signal: abort.signal,
          } as never,
        );
        for await (const chunk of stream as AsyncIterable<unknown>) {
          if (abort.signal.aborted) break;
          for (const event of mapper.map(chunk)) emit(event);
        }
        abort.signal.throwIfAborted();
        const pending = await pendingInterrupts(graph, config);
        if (pending.length) {
          for (const p of pending) {
            emit({ event: 'interrupt', data: { interrupt_id: p.interrupt_id, agent: 'orchestrator', ...p.value } });
          }
          await run.tail;
          await this.finish(runId, 'waiting', JSON.stringify(pending));
          return;
        }
        runProgress('completed', '完成 / done');
        emit({ event: 'done', data: { run_id: runId, status: 'completed', usage: await usageSoFar() } });
        await run.tail;
        await this.finish(runId, 'done');
      } catch (error) {
        const reason = abort.signal.aborted ? abort.signal.reason : undefined;
        if (reason === CANCELLED) {
          for (const event of mapper.close('error', '已停止 / stopped')) emit(event);
          runProgress('error', '已停止 / stopped');
          emit({ event: 'done', data: { run_id: runId, status: 'cancelled', usage: await usageSoFar() } });
          await run.tail;
          await this.finish(runId, 'cancelled');
          return;
        }
        const modelFailure = modelServiceFailure(error);
        const message =
          reason === INACTIVE
            ? `${Math.round(this.deps.limits.inactivityMs / 60_000)} 分钟无活动，已取消 / cancelled after ${Math.round(this.deps.limits.inactivityMs / 1000)} s without activity`
            : (modelFailure?.message ?? '运行失败 / the run failed');
        if (reason !== INACTIVE) log.error({ err: error, runId, sessionId }, 'run failed');
        for (const event of mapper.close('error', message)) emit(event);
        runProgress('error', message);
        const detail = reason === INACTIVE ? 'inactive' : (modelFailure?.detail ?? errorText(error));
        emit({ event: 'error', data: { message, detail, retryable: reason !== INACTIVE } });
        await run.tail;
        await this.finish(runId, reason === INACTIVE ? 'cancelled' : 'error');
      } finally {
        if (slot) this.releaseSlot();
      }
    };
    withConversation({ sessionId, userId: user.username, runId }, work)
      .catch((error) => log.error({ err: error, runId }, 'run bookkeeping failed'))
      .finally(() => {
        clearTimeout(idle);
        this.active.delete(runId);
        runtime.releaseRun(sessionId);
      });
  }

  private async finish(runId: string, status: RunStatus, pending: string | null = null): Promise<void> {
    await this.deps.db
      .updateTable('chat_runs')
      .set({ status, pending, updated_at: new Date().toISOString() })
      .where('id', '=', runId)
      .execute();
  }
}

/** Interrupts the graph waits on after a run paused (sub-agent interrupts surface on the root task too). */
async function pendingInterrupts(graph: unknown, config: unknown): Promise<PendingInterrupt[]> {
  const state = await (
    graph as {
      getState(c: unknown): Promise<{ tasks: Array<{ interrupts?: Array<{ id?: string; value?: unknown }> }> }>;
    }
  ).getState(config);
  const seen = new Set<string>();
  const pending: PendingInterrupt[] = [];
  for (const task of state.tasks ?? []) {
    for (const interrupt of task.interrupts ?? []) {
      if (!interrupt.id || seen.has(interrupt.id)) continue;
      seen.add(interrupt.id);
      pending.push({ interrupt_id: interrupt.id, value: interrupt.value as HumanRequest });
    }
  }
  return pending;
}

/** The decision must fit what the interrupt asked: approvals take their allowed decisions, questions an answer. */
function checkDecision(request: HumanRequest, decision: HumanDecision): void {
  const allowed = request.kind === 'approval' ? request.allowed : ['answer'];
  if (!allowed.includes(decision.type as never)) {
    throw unprocessable('决定与确认类型不符 / the decision does not fit this interrupt', [
      { field: 'decision.type', message: `expected one of: ${allowed.join(', ')}` },
    ]);
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message.slice(0, 500) : String(error).slice(0, 500);
}
