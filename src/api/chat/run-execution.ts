import { awaitAllCallbacks } from '@langchain/core/callbacks/promises';
import { Command } from '@langchain/langgraph';
import {
  type AgentRuntime,
  clientInterruptId,
  graphInterruptId,
  modelServiceFailure,
  NO_USAGE,
  type ProcuraRunContext,
  serviceUnavailable,
  toolLabel,
  UsageMeter,
  type UsageTotals,
} from '../../agent/index.ts';
import type { AgentLabel, StepStatus } from '../../protocol/index.ts';
import type { Logger } from '../../shared/index.ts';
import { withConversation } from '../../shared/index.ts';
import type { UsageLedger } from '../admin/usage.ts';
import type { ApiUser } from '../auth.ts';
import type { RunEmitter } from './events.ts';
import type { RunLimiter } from './limiter.ts';
import type { PendingInterrupt, RunStore, StoredDecision } from './run-store.ts';
import { StreamMapper, visibleText } from './stream-mapper.ts';

/** What a run executes: a new message, a human's decision, or a decision a crashed process left unfinished. */
export type RunInput =
  | { kind: 'message'; message: string }
  | { kind: 'decision'; decision: StoredDecision }
  | { kind: 'recovered'; decision: StoredDecision }
  /** A failed or stopped run taken up again: no input, the graph goes on from its last checkpoint. */
  | { kind: 'retry' };

/** LangChain callback handlers for a run (tracing), given who runs it. */
export type Tracers = (run: { runId: string; sessionId: string; user: ApiUser }) => Promise<unknown[]>;

export interface ExecutionDeps {
  runtime: AgentRuntime;
  store: RunStore;
  limiter: RunLimiter;
  log: Logger;
  /** A run without any event for this long is cancelled (waiting in line or for a human does not count). */
  inactivityMs: number;
  usage: UsageLedger;
  tracers?: Tracers;
}

export const CANCELLED = 'cancelled';
/** The run step's title while a new run waits for a free slot. */
export const QUEUED = '排队中 / waiting for a free slot';
const INACTIVE = 'inactive';

/**
 * One run of the agent (or its continuation) in this process: waits for a slot, streams the graph, maps chunks to
 * protocol events through the run's emitter, and ends in exactly one terminal event and the matching run status.
 */
export class RunExecution {
  readonly abort = new AbortController();
  private readonly mapper: StreamMapper;
  private labelOf: (tool: string) => string | undefined = () => undefined;
  private agents: readonly AgentLabel[] = [];
  private idle?: NodeJS.Timeout;
  /** Usage rows of this run's model calls, stored one after another. */
  private usageWrites: Promise<void> = Promise.resolve();
  /** Settles when the run ended (its terminal event and status stored). */
  finished: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: ExecutionDeps,
    private readonly ctx: ProcuraRunContext & { sessionId: string; traceId: string },
    private readonly emitter: RunEmitter,
    /** Who the run acts for: its usage and traces are theirs. */
    readonly user: ApiUser,
  ) {
    this.mapper = new StreamMapper(
      (tool) => this.labelOf(tool),
      () => this.agents,
    );
  }

  get runId(): string {
    return this.ctx.traceId;
  }

  /** Executes in the background to the end; never rejects (failures become the run's `error` event). */
  start(input: RunInput): Promise<void> {
    const { sessionId } = this.ctx;
    const { user } = this;
    this.finished = withConversation({ sessionId, userId: user.username, runId: this.runId }, () =>
      this.execute(input),
    );
    return this.finished;
  }

  private async execute(input: RunInput): Promise<void> {
    try {
      await this.run(input);
    } catch (error) {
      await this.fail(error);
    } finally {
      clearTimeout(this.idle);
      this.deps.runtime.releaseRun(this.ctx.sessionId);
    }
  }

  private async run(input: RunInput): Promise<void> {
    // The first event goes out at admission, before a slot: a run that waits in line says so, then says it works.
    const queued = input.kind === 'message' && this.deps.limiter.wouldWait(this.user.username);
    if (input.kind === 'message') this.runProgress('running', queued ? QUEUED : '处理中 / working');
    else await this.rememberSteps();
    if (input.kind === 'retry') this.runProgress('running', '重试中 / retrying');
    if (input.kind === 'recovered') {
      this.runProgress('running', '服务已重启，继续执行您的确认 / the server restarted: carrying out your decision');
    }
    const release = await this.deps.limiter.acquire(this.user.username, this.abort.signal);
    if (queued) this.runProgress('running', '处理中 / working');
    try {
      this.resetIdle();
      const registry = await this.deps.runtime.registry();
      this.labelOf = (tool) => toolLabel(registry, tool);
      this.agents = await this.deps.runtime.agents();
      const graph = await this.deps.runtime.graph(this.ctx);
      const graphInput = await this.graphInput(graph, input);
      if (graphInput !== DONE) {
        const stream = await graph.stream(
          graphInput as never,
          {
            ...this.config(),
            callbacks: await this.callbacks(),
            streamMode: ['updates', 'messages', 'custom'],
            subgraphs: true,
            signal: this.abort.signal,
          } as never,
        );
        for await (const chunk of stream as AsyncIterable<unknown>) {
          if (this.abort.signal.aborted) break;
          this.emitAll(this.mapper.map(chunk));
        }
        this.abort.signal.throwIfAborted();
      }
      const state = await stateOf(graph, this.config());
      const pending = interruptsOf(state);
      if (pending.length) await this.wait(pending);
      else await this.complete(finalAnswer(state));
    } finally {
      release();
    }
  }

  /** Graph input for this run; a recovered decision resumes the interrupt if it still waits, else continues from
   *  the last checkpoint (the approved write replays under its idempotency key), or nothing is left to do. */
  private async graphInput(graph: unknown, input: RunInput): Promise<unknown> {
    if (input.kind === 'message') return { messages: [{ role: 'user', content: input.message }] };
    if (input.kind === 'retry') return null;
    const resume = new Command({
      resume: { [graphInterruptId(input.decision.interrupt_id)]: input.decision.decision },
    });
    if (input.kind === 'decision') return resume;
    const state = await stateOf(graph, this.config());
    if (interruptsOf(state).some((p) => p.interrupt_id === input.decision.interrupt_id)) return resume;
    return state.next?.length ? null : DONE;
  }

  private config() {
    return { configurable: { thread_id: this.ctx.sessionId }, context: this.ctx, recursionLimit: 200 };
  }

  /** The usage meter (each model call stored in the ledger) and the tracers of this run. */
  private async callbacks(): Promise<unknown[]> {
    const { runtime, usage, tracers, log } = this.deps;
    const { sessionId } = this.ctx;
    const { user } = this;
    const meter = new UsageMeter((await runtime.models()).prices, (call) => {
      this.usageWrites = this.usageWrites.then(() =>
        usage
          .record({ runId: this.runId, sessionId, owner: user.username }, call)
          .catch((error) => log.error({ err: error, runId: this.runId }, 'model usage not stored')),
      );
    });
    return [meter, ...((await tracers?.({ runId: this.runId, sessionId, user })) ?? [])];
  }

  /** The run's usage so far, once every model call's callbacks have run and their rows are stored. */
  private async usageSoFar(): Promise<UsageTotals> {
    try {
      await awaitAllCallbacks();
      await this.usageWrites;
      return await this.deps.usage.runTotal(this.runId);
    } catch (error) {
      this.deps.log.error({ err: error, runId: this.runId }, 'run usage not read');
      return { ...NO_USAGE };
    }
  }

  /** A resumed run completes steps it announced before its interrupt, under the same ids. */
  private async rememberSteps(): Promise<void> {
    for (const stored of await this.deps.store.replay(this.runId, 0)) {
      if (stored.event === 'progress') this.mapper.remember(JSON.parse(stored.data));
    }
  }

  private async wait(pending: PendingInterrupt[]): Promise<void> {
    for (const p of pending) {
      this.emit({ event: 'interrupt', data: { interrupt_id: p.interrupt_id, agent: 'orchestrator', ...p.value } });
    }
    await this.end('waiting', pending);
  }

  private async complete(answer: string): Promise<void> {
    this.runProgress('completed', '完成 / done');
    const usage = await this.usageSoFar();
    this.emit({ event: 'done', data: { run_id: this.runId, status: 'completed', usage, answer } });
    await this.end('done');
  }

  private async fail(error: unknown): Promise<void> {
    const reason = this.abort.signal.aborted ? this.abort.signal.reason : undefined;
    if (reason === CANCELLED) {
      this.emitAll(this.mapper.close('error', '已停止 / stopped'));
      this.runProgress('error', '已停止 / stopped');
      this.emit({ event: 'done', data: { run_id: this.runId, status: 'cancelled', usage: await this.usageSoFar() } });
      await this.end('cancelled');
      return;
    }
    const { inactivityMs } = this.deps;
    // A failing model service or a service the run needs (the ERP) is named; anything else is a failed run.
    const modelFailure = modelServiceFailure(error) ?? serviceUnavailable(error);
    const message =
      reason === INACTIVE
        ? `${Math.round(inactivityMs / 60_000)} 分钟无活动，已取消 / cancelled after ${Math.round(inactivityMs / 1000)} s without activity`
        : (modelFailure?.message ?? '运行失败 / the run failed');
    if (reason !== INACTIVE) this.deps.log.error({ err: error, runId: this.runId }, 'run failed');
    this.emitAll(this.mapper.close('error', message));
    this.runProgress('error', message);
    const detail = reason === INACTIVE ? 'inactive' : (modelFailure?.detail ?? errorText(error));
    this.emit({ event: 'error', data: { message, detail, retryable: reason !== INACTIVE } });
    await this.end(reason === INACTIVE ? 'cancelled' : 'error');
  }

  /** Stores every event first, then the status: a follower that saw the terminal event finds the run ended. */
  private async end(status: 'waiting' | 'done' | 'cancelled' | 'error', pending?: PendingInterrupt[]) {
    clearTimeout(this.idle);
    await this.emitter.flush();
    await this.deps.store
      .setStatus(this.runId, status, pending ?? null)
      .catch((error) => this.deps.log.error({ err: error, runId: this.runId }, 'run status not stored'));
  }

  private runProgress(status: StepStatus, title: string): void {
    this.emit({
      event: 'progress',
      data: { id: `run:${this.runId}`, phase: 'run', status, title, detail: '', agent: 'orchestrator' },
    });
  }

  private emitAll(events: Parameters<RunEmitter['emit']>[0][]): void {
    for (const event of events) this.emit(event);
  }

  private emit(event: Parameters<RunEmitter['emit']>[0]): void {
    this.emitter.emit(event);
    if (this.idle) this.resetIdle();
  }

  private resetIdle(): void {
    clearTimeout(this.idle);
    this.idle = setTimeout(() => this.abort.abort(INACTIVE), this.deps.inactivityMs);
  }
}

const DONE = Symbol('nothing left to run');

interface GraphState {
  next?: string[];
  values?: { messages?: Array<{ getType?: () => string; content?: unknown }> };
  tasks: Array<{ interrupts?: Array<{ id?: string; value?: unknown }> }>;
}

function stateOf(graph: unknown, config: unknown): Promise<GraphState> {
  return (graph as { getState(c: unknown): Promise<GraphState> }).getState(config);
}

/** Interrupts the graph waits on after a run paused (sub-agent interrupts surface on the root task too). */
function interruptsOf(state: GraphState): PendingInterrupt[] {
  const seen = new Set<string>();
  const pending: PendingInterrupt[] = [];
  for (const task of state.tasks ?? []) {
    for (const interrupt of task.interrupts ?? []) {
      if (!interrupt.id || seen.has(interrupt.id)) continue;
      seen.add(interrupt.id);
      const value = interrupt.value as PendingInterrupt['value'];
      pending.push({ interrupt_id: clientInterruptId(interrupt.id, value), value });
    }
  }
  return pending;
}

/** The orchestrator's last reply: the answer a completed run ends with. */
function finalAnswer(state: GraphState): string {
  const last = (state.values?.messages ?? []).at(-1);
  return last?.getType?.() === 'ai' ? visibleText(last.content) : '';
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message.slice(0, 500) : String(error).slice(0, 500);
}
