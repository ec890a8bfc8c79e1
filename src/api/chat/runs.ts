import type { AgentRuntime, ProcuraRunContext } from '../../agent/index.ts';
import {
  type ApiEvent,
  answerProblems,
  type CancelledRun,
  decisionRecord,
  type HumanDecision,
  type HumanRequest,
} from '../../protocol/index.ts';
import {
  conflict,
  type Logger,
  notFound,
  redactSecrets,
  redactSecretsIn,
  sleep,
  unprocessable,
} from '../../shared/index.ts';
import type { UsageLedger } from '../admin/usage.ts';
import type { ApiUser } from '../auth.ts';
import type { RunEventLog } from './events.ts';
import { type LimiterSettings, RunLimiter } from './limiter.ts';
import { CANCELLED, RunExecution, type RunInput, type Tracers } from './run-execution.ts';
import type { PendingInterrupt, RunRow, RunStatus, RunStore, StoredDecision } from './run-store.ts';
import type { Sessions } from './sessions.ts';

/** How long a resume waits for a run that stored its interrupt to record that it waits. */
const INTERRUPT_SETTLE_MS = 2_000;

/** Ended runs that can be taken up again from their last checkpoint (failed, stopped, or left by a restart). */
const RETRYABLE: RunStatus[] = ['error', 'cancelled'];
/** The `error` detail of a run a restart ended. */
const ORPHANED = 'orphaned';

export interface RunLimits extends LimiterSettings {
  /** A run without any event for this long is cancelled (waiting for a human does not count). */
  inactivityMs: number;
}

export interface RunRef {
  runId: string;
  sessionId: string;
  /** Last event already stored when the caller got this run: follow from here. */
  afterSeq: number;
  /** Terminal events up to here no longer end the run (a resumed run's interrupt): followers go on past them. */
  resumedAfter?: number;
  /** The run has ended and the caller saw its last event. */
  ended?: boolean;
}

/** Run states after which no event comes unless someone acts (a retry, an order decision). */
const ENDED: RunStatus[] = ['done', 'error', 'cancelled'];

/** The session a keyed message without a session id opens: the same for every retry of it. */
async function keyedSessionId(owner: string, key: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`${owner}\n${key}`));
  return `k-${Buffer.from(digest).toString('base64url').slice(0, 40)}`;
}

/**
 * Runs of the agent, independent of any HTTP connection: one active run per session (enforced in the database),
 * interrupts kept as `waiting` runs that any process can resume, a resume stored before it is acknowledged,
 * cancel by abort signal (locally or through the event bus), and recovery of runs a crashed process left behind.
 */
export class RunManager {
  private readonly active = new Map<string, RunExecution>();
  private readonly limiter: RunLimiter;
  /** Runs untouched since before this moment cannot be executing here (single process: the process started). */
  private readonly startedAt = new Date().toISOString();

  constructor(
    private readonly deps: {
      store: RunStore;
      events: RunEventLog;
      sessions: Sessions;
      runtime: AgentRuntime;
      limits: RunLimits;
      log: Logger;
      /** Only this process uses the database (SQLite): every `running` run it does not execute is an orphan. */
      singleProcess: boolean;
      usage: UsageLedger;
      /** LangChain callback handlers for a run (tracing), given who runs it. */
      tracers?: Tracers;
    },
  ) {
    this.limiter = new RunLimiter(deps.limits);
    deps.events.onControl((message) => {
      if (message.action === 'cancel') this.active.get(message.runId)?.abort.abort(CANCELLED);
    });
  }

  /** Runs this process has admitted and not yet ended: executing, or waiting in line for a slot. */
  get running(): number {
    return this.active.size;
  }

  /** Of those, the runs waiting in line for a slot. */
  get queued(): number {
    return this.limiter.waiting;
  }

  /**
   * Starts a run for a new message; 409 (with the active run's id) while the session has one. The message is
   * redacted here, where it enters, so the title, the run, the checkpoints, memories, approval cards and ERP
   * writes all hold the same redacted text. With an idempotency key the owner already used, nothing starts: the
   * caller follows the run that key started, from its first event or after `lastEventId` (422 when the key came with
   * another message or session). Without a session id, the key names the session, so two requests racing with one key meet there.
   */
  async start(
    user: ApiUser,
    input: { message: string; sessionId?: string; idempotencyKey?: string; lastEventId?: number },
  ): Promise<RunRef> {
    const message = await redactSecrets(input.message, [user.token]);
    const key = input.idempotencyKey;
    const replayOf = () => key && this.replayOf(user, key, message, input.sessionId, input.lastEventId ?? 0);
    const replayed = await replayOf();
    if (replayed) return replayed;
    this.limiter.admitStart(user.username);
    await this.deps.usage.checkBudget(user.username);
    const sessionId = input.sessionId ?? (key && (await keyedSessionId(user.username, key)));
    const session = await this.deps.sessions.openOrCreate(user, sessionId, message);
    // A session created just now has no runs a crash could have left behind.
    if (!session.created) await this.adoptOrphan(user, session.id);
    const runId = crypto.randomUUID();
    const inserted = await this.deps.store.insertRunning({
      id: runId,
      sessionId: session.id,
      owner: user.username,
      message,
      idempotencyKey: key,
    });
    if (!inserted) {
      const raced = await replayOf();
      if (raced) return raced;
      const activeRun = await this.deps.store.active(session.id);
      throw conflict(
        activeRun?.status === 'waiting'
          ? '会话正在等待您的确认，请先处理或停止 / the session waits for your decision: answer it or cancel first'
          : '会话已有正在运行的任务 / the session already has a running run',
        { run_id: activeRun?.id, run_status: activeRun?.status, session_id: session.id },
      );
    }
    if (!session.created) await this.deps.sessions.touch(session.id);
    this.launch(user, { runId, sessionId: session.id, afterSeq: 0 }, { kind: 'message', message });
    return { runId, sessionId: session.id, afterSeq: 0 };
  }

  /** The run an earlier request with this idempotency key started, followed from its start; undefined when none. */
  private async replayOf(
    user: ApiUser,
    key: string,
    message: string,
    sessionId: string | undefined,
    afterSeq: number,
  ): Promise<RunRef | undefined> {
    const run = await this.deps.store.byIdempotencyKey(user.username, key);
    if (!run) return undefined;
    if (run.message !== message || (sessionId !== undefined && sessionId !== run.session_id)) {
      throw unprocessable('该幂等键已用于另一条消息 / this Idempotency-Key was used for another message', [
        { field: 'Idempotency-Key', message: 'already used with a different message or session' },
      ]);
    }
    await this.deps.sessions.ownedInProject(user, run.session_id);
    return this.followFrom(run, afterSeq);
  }

  /** Continues the session's waiting run with the human's decision on `interruptId` (redacted like a message). */
  async resume(
    user: ApiUser,
    input: { sessionId: string; interruptId: string; decision: HumanDecision },
  ): Promise<RunRef> {
    await this.deps.sessions.ownedInProject(user, input.sessionId);
    await this.adoptOrphan(user, input.sessionId);
    const run = await this.waitingRun(input.sessionId);
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
    const decision: StoredDecision = {
      interrupt_id: input.interruptId,
      decision: await redactSecretsIn(input.decision, [user.token]),
    };
    if (!(await this.deps.store.claimWaiting(run.id, decision))) {
      throw conflict('该确认已在处理中 / this decision is already being processed', { run_id: run.id });
    }
    const afterSeq = await this.deps.store.lastSeq(run.id);
    // The decision opens the resumed run's events: the conversation keeps it as a record where the card was.
    const record = decisionRecord(input.interruptId, target.value, decision.decision);
    this.launch(user, { runId: run.id, sessionId: input.sessionId, afterSeq }, { kind: 'decision', decision }, [
      { event: 'decision', data: record },
    ]);
    return { runId: run.id, sessionId: input.sessionId, afterSeq };
  }

  /**
   * The session's active run, once it has recorded that it waits. A run stores and sends its interrupt before it
   * records its status, so a client answering at once (from any process) can arrive in between: while the run's
   * last stored event is an interrupt, it is given up to {@link INTERRUPT_SETTLE_MS} to record it.
   */
  private async waitingRun(sessionId: string) {
    const deadline = Date.now() + INTERRUPT_SETTLE_MS;
    for (;;) {
      const run = await this.deps.store.active(sessionId);
      if (run?.status !== 'running' || Date.now() > deadline) return run;
      const [last] = await this.deps.store.replay(run.id, (await this.deps.store.lastSeq(run.id)) - 1);
      if (last?.event !== 'interrupt') return run;
      await sleep(25);
    }
  }

  /**
   * Takes the session's failed or interrupted run up again from its last checkpoint: steps that completed (and
   * approved writes) are not repeated. Streams like a resume, continuing the run's event sequence.
   */
  async retry(user: ApiUser, sessionId: string): Promise<RunRef> {
    await this.deps.sessions.ownedInProject(user, sessionId);
    const latest = await this.deps.store.latest(sessionId);
    if (!latest || !RETRYABLE.includes(latest.status)) {
      throw conflict('没有可重试的失败任务 / the latest run did not fail: nothing to retry', {
        session_id: sessionId,
        run_id: latest?.id,
        run_status: latest?.status,
      });
    }
    if (!(await this.deps.store.claimEnded(latest.id, RETRYABLE))) {
      throw conflict('该任务已在重试中 / this run is already being retried', { run_id: latest.id });
    }
    const afterSeq = await this.deps.store.lastSeq(latest.id);
    this.launch(user, { runId: latest.id, sessionId, afterSeq }, { kind: 'retry' });
    return { runId: latest.id, sessionId, afterSeq };
  }

  /** Whether the session's latest run was ended by a restart (marked by {@link recoverOrphans}), not by itself. */
  async interruptedByRestart(sessionId: string): Promise<boolean> {
    const latest = await this.deps.store.latest(sessionId);
    if (latest?.status !== 'error') return false;
    const [last] = await this.deps.store.replay(latest.id, (await this.deps.store.lastSeq(latest.id)) - 1);
    return last?.event === 'error' && (JSON.parse(last.data) as { detail?: string }).detail === ORPHANED;
  }

  /** Stops the session's run: aborts model and tool work wherever it runs; a waiting run just ends. */
  async cancel(user: ApiUser, sessionId: string): Promise<CancelledRun> {
    await this.deps.sessions.owned(user, sessionId);
    const run = await this.deps.store.active(sessionId);
    if (!run) throw conflict('没有可停止的任务 / nothing is running in this session', { session_id: sessionId });
    if (run.status === 'waiting' && (await this.deps.store.cancelWaiting(run.id))) {
      const emitter = await this.deps.events.emitterAfterStored({ runId: run.id, sessionId, secrets: [user.token] });
      emitter.emit({ event: 'done', data: { run_id: run.id, status: 'cancelled' } });
      await emitter.flush();
      return { run_id: run.id, status: 'cancelled' };
    }
    await this.deps.events.requestCancel(run.id);
    return { run_id: run.id, status: 'running' };
  }

  /**
   * Where a client rejoining the session's latest run follows from, or undefined without runs. A run resumed
   * since its interrupt goes on past it, so a client that missed the resume still sees the continuation.
   */
  async join(user: ApiUser, sessionId: string, afterSeq: number): Promise<RunRef | undefined> {
    await this.deps.sessions.owned(user, sessionId);
    await this.adoptOrphan(user, sessionId);
    const run = await this.deps.store.latest(sessionId);
    return run && this.followFrom(run, afterSeq);
  }

  /** Where a client following one run of the caller's session goes on from; 404 for a run not in that session. */
  async followRun(user: ApiUser, sessionId: string, runId: string, afterSeq: number): Promise<RunRef> {
    await this.deps.sessions.owned(user, sessionId);
    const run = await this.deps.store.get(runId);
    if (run?.session_id !== sessionId) throw notFound(`没有这个运行 / no run ${runId} in this thread`);
    await this.adoptOrphan(user, sessionId);
    return this.followFrom(run, afterSeq);
  }

  /**
   * Following `run` after `afterSeq`. A run resumed since its interrupt goes on past it; an ended run (done, failed,
   * cancelled) whose last event the client has seen is `ended`: nothing more will come.
   */
  private async followFrom(run: RunRow, afterSeq: number): Promise<RunRef> {
    const lastSeq = await this.deps.store.lastSeq(run.id);
    const resumedAfter = run.status === 'running' ? lastSeq : 0;
    const ended = ENDED.includes(run.status) && afterSeq >= lastSeq;
    return { runId: run.id, sessionId: run.session_id, afterSeq, resumedAfter, ended };
  }

  /**
   * At start-up: runs a process that is gone left `running` (every such run on a single-process SQLite set-up,
   * runs quiet past the inactivity limit on PostgreSQL). A run that was carrying out a stored decision waits for
   * its owner's next request to finish it with their credentials; any other fails with an `error` event, so
   * followers end instead of waiting forever.
   */
  async recoverOrphans(): Promise<{ failed: number; resumable: number }> {
    let failed = 0;
    let resumable = 0;
    for (const run of await this.deps.store.running(this.orphanCutoff())) {
      if (run.decision) {
        resumable += 1;
        continue;
      }
      await this.deps.store.setStatus(run.id, 'error');
      const emitter = await this.deps.events.emitterAfterStored({
        runId: run.id,
        sessionId: run.session_id,
        secrets: [],
      });
      emitter.emit({
        event: 'error',
        data: {
          message: '服务重启，任务已中断 / the server restarted and this run was interrupted',
          detail: ORPHANED,
        },
      });
      await emitter.flush();
      failed += 1;
    }
    return { failed, resumable };
  }

  /** Stops this process's runs acting with `token` (revoked): each ends `cancelled`, its state in the checkpoints. */
  async stopFor(token: string): Promise<void> {
    const stopped = [...this.active.values()].filter((run) => run.user.token === token);
    for (const run of stopped) run.abort.abort(CANCELLED);
    await Promise.allSettled(stopped.map((run) => run.finished));
  }

  /** Aborts every run of this process (shutdown); their state stays in the checkpoints. */
  async close(): Promise<void> {
    const runs = [...this.active.values()].map((run) => {
      run.abort.abort(CANCELLED);
      return run.finished;
    });
    await Promise.allSettled(runs);
    this.limiter.close();
  }

  /** Runs quiet since before this moment are not executing anywhere. */
  private orphanCutoff(): string {
    return this.deps.singleProcess
      ? this.startedAt
      : new Date(Date.now() - this.deps.limits.inactivityMs).toISOString();
  }

  /**
   * Finishes a decision a crashed process acknowledged but did not complete, as the decision's owner. The claim is
   * one conditional update, so of two processes (or two requests) only one executes it.
   */
  private async adoptOrphan(user: ApiUser, sessionId: string): Promise<void> {
    const run = await this.deps.store.active(sessionId);
    if (run?.status !== 'running' || !run.decision || run.owner !== user.username || this.active.has(run.id)) return;
    if (run.updated_at >= this.orphanCutoff()) return;
    if (!(await this.deps.store.claimOrphan(run.id, run.updated_at))) return;
    this.deps.log.warn({ runId: run.id, sessionId }, 'carrying out a decision left by a restart');
    const afterSeq = await this.deps.store.lastSeq(run.id);
    const decision = JSON.parse(run.decision) as StoredDecision;
    this.launch(user, { runId: run.id, sessionId, afterSeq }, { kind: 'recovered', decision });
  }

  /** Starts `input` on the run `ref`; `first` are events it sends before its own. */
  private launch(user: ApiUser, ref: RunRef, input: RunInput, first: ApiEvent[] = []): void {
    const ctx: ProcuraRunContext & { sessionId: string } = {
      userId: user.username,
      username: user.displayName,
      role: user.role,
      token: user.token,
      projectId: user.projectId,
      traceId: ref.runId,
      sessionId: ref.sessionId,
    };
    const emitter = this.deps.events.emitter({ ...ref, secrets: [user.token] });
    for (const event of first) emitter.emit(event);
    const { runtime, store, log, limits, usage, tracers } = this.deps;
    const execution = new RunExecution(
      { runtime, store, log, usage, tracers, limiter: this.limiter, inactivityMs: limits.inactivityMs },
      ctx,
      emitter,
      user,
    );
    this.active.set(ref.runId, execution);
    execution.start(input).finally(() => this.active.delete(ref.runId));
  }
}

/** The decision must fit what the interrupt asked: approvals take their allowed decisions, questions an answer. */
function checkDecision(request: HumanRequest, decision: HumanDecision): void {
  const allowed = request.kind === 'approval' ? request.allowed : ['answer'];
  if (!allowed.includes(decision.type as never)) {
    throw unprocessable('决定与确认类型不符 / the decision does not fit this interrupt', [
      { field: 'decision.type', message: `expected one of: ${allowed.join(', ')}` },
    ]);
  }
  // An answer must fit its question: an offered option or a typed answer within bounds, every asked field given.
  const problems = decision.type === 'answer' ? answerProblems(request, decision.answer) : [];
  if (problems.length) {
    throw unprocessable(
      '回答与问题不符 / the answer does not fit the question',
      problems.map((p) => ({ ...p, field: `decision.${p.field}` })),
    );
  }
}
