import { logger } from '../shared/index.ts';
import { type BackgroundTasks, taskOwner } from './background.ts';
import type { ToolContext, ToolControl, ToolRegistry } from './registry.ts';

export const MAX_PARALLEL_TOOLS = 5;

export interface ToolCall {
  name: string;
  input: unknown;
  /** The model's tool-call id. */
  callId?: string;
}

const log = logger.child({ part: 'tools' });
const logUnexpected = (error: unknown, ctx: ToolContext) =>
  log.error({ err: error, traceId: ctx.traceId, userId: ctx.userId }, 'tool failed unexpectedly');

interface Waiter {
  exclusive: boolean;
  grant: () => void;
}

/**
 * Runs one agent run's tool calls by their declared execution mode (seed 003): `parallel` tools overlap, at most
 * `maxParallel` at once; any other tool runs alone — it waits for everything started before it, and nothing starts
 * until it ends. Calls are admitted strictly in arrival order, so sequential calls keep the model's order.
 * `background` tools return a task id at once and run on, under the same rules.
 */
export class ToolScheduler {
  private shared = 0;
  private exclusive = false;
  private readonly queue: Waiter[] = [];
  private readonly maxParallel: number;

  constructor(
    private readonly registry: ToolRegistry,
    private readonly options: {
      maxParallel?: number;
      tasks?: BackgroundTasks;
      /** Where unexpected tool exceptions are reported; logged with the run's trace id by default. */
      onUnexpected?: (error: unknown, ctx: ToolContext) => void;
    } = {},
  ) {
    this.maxParallel = options.maxParallel ?? MAX_PARALLEL_TOOLS;
  }

  /** Runs one call (never throws: failures are data, as from `registry.execute`). */
  async run(name: string, input: unknown, ctx: ToolContext, control: ToolControl = {}): Promise<unknown> {
    const definition = this.registry.get(name);
    const execute = (withControl: ToolControl) =>
      this.gated(definition?.execution !== 'parallel', () =>
        this.registry.execute(name, input, ctx, withControl, (error) =>
          (this.options.onUnexpected ?? logUnexpected)(error, ctx),
        ),
      );
    // Invalid input is refused now, not reported later as a failed task.
    if (definition?.background && this.options.tasks && definition.schema.safeParse(input).success) {
      // The call returns now: its progress goes to the task board, read with check_background_tasks.
      return this.options.tasks.start(taskOwner(ctx), name, (progress) =>
        execute({ ...control, signal: undefined, progress }),
      );
    }
    return execute(control);
  }

  /** One model turn: every call is admitted in order; results come back in call order. */
  runTurn(calls: readonly ToolCall[], ctx: ToolContext, control: Omit<ToolControl, 'callId'> = {}): Promise<unknown[]> {
    return Promise.all(calls.map((call) => this.run(call.name, call.input, ctx, { ...control, callId: call.callId })));
  }

  private async gated<T>(exclusive: boolean, work: () => Promise<T>): Promise<T> {
    await new Promise<void>((grant) => {
      this.queue.push({ exclusive, grant });
      this.admit();
    });
    try {
      return await work();
    } finally {
      if (exclusive) this.exclusive = false;
      else this.shared--;
      this.admit();
    }
  }

  /** Grants waiting calls from the head of the queue while the rules allow; never lets a later call jump ahead. */
  private admit(): void {
    while (this.queue.length && !this.exclusive) {
      const head = this.queue[0];
      if (head.exclusive ? this.shared > 0 : this.shared >= this.maxParallel) return;
      this.queue.shift();
      if (head.exclusive) this.exclusive = true;
      else this.shared++;
      head.grant();
    }
  }
}
