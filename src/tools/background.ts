import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { isToolFailure, Tool, type ToolContext, ToolError, type ToolRegistry } from './registry.ts';

export interface BackgroundTask {
  task_id: string;
  tool: string;
  status: 'running' | 'completed' | 'failed';
  startedAt: string;
  /** The latest progress the tool reported. */
  progress?: string;
  finishedAt?: string;
  result?: unknown;
}

const KEEP_FINISHED = 200;

/** Whose tasks these are: a user's session sees only its own. */
export const taskOwner = (ctx: Pick<ToolContext, 'userId' | 'sessionId'>) => `${ctx.userId}/${ctx.sessionId ?? '-'}`;

/** Background tool runs of a process: started with a task id at once, reported when asked. */
export class BackgroundTasks {
  private readonly tasks = new Map<string, BackgroundTask & { owner: string }>();

  /**
   * Starts `work` under a new task id and returns at once; what it reports through `progress` and its result (or
   * failure) are kept for `report`.
   */
  start(
    owner: string,
    tool: string,
    run: (progress: (message: string) => void) => Promise<unknown>,
  ): { task_id: string; status: 'running'; message: string } {
    const task: BackgroundTask & { owner: string } = {
      task_id: randomUUID(),
      owner,
      tool,
      status: 'running',
      startedAt: new Date().toISOString(),
    };
    this.tasks.set(task.task_id, task);
    const finish = (status: 'completed' | 'failed', result: unknown) => {
      Object.assign(task, { status, result, finishedAt: new Date().toISOString() });
      this.evictOldFinished();
    };
    const work = run((message) => {
      if (task.status === 'running') task.progress = message;
    });
    work.then(
      (result) => finish(isToolFailure(result) ? 'failed' : 'completed', result),
      (error) => finish('failed', { success: false, error: String(error), stateChanged: false, suggestion: '' }),
    );
    return {
      task_id: task.task_id,
      status: 'running',
      message: `${tool} 已在后台运行，用 check_background_tasks 查看结果 / running in the background: check_background_tasks`,
    };
  }

  /** The owner's tasks (or one of them), newest first. */
  report(owner: string, taskId?: string): BackgroundTask[] {
    return [...this.tasks.values()]
      .filter((t) => t.owner === owner && (!taskId || t.task_id === taskId))
      .reverse()
      .map(({ owner: _owner, ...task }) => task);
  }

  private evictOldFinished(): void {
    const finished = [...this.tasks.values()].filter((t) => t.status !== 'running');
    for (const task of finished.slice(0, Math.max(0, finished.length - KEEP_FINISHED))) this.tasks.delete(task.task_id);
  }
}

/** The `check_background_tasks` tool, serving one owner's view of the board. */
export class BackgroundTaskBoard {
  constructor(
    private readonly tasks: BackgroundTasks,
    private readonly owner: string,
  ) {}

  @Tool({
    name: 'check_background_tasks',
    label: '查看后台任务',
    description:
      '查看后台任务的状态与结果（不给 task_id 时列出本会话全部后台任务）。/ Status and results of background tasks.',
    schema: z.object({ task_id: z.string().min(1).max(64).optional() }),
    safety: 'read-only',
    group: 'background',
  })
  async check(input: { task_id?: string }) {
    const tasks = this.tasks.report(this.owner, input.task_id);
    if (input.task_id && tasks.length === 0)
      throw new ToolError(
        `没有后台任务 ${input.task_id} / no such task`,
        '不带 task_id 调用以列出全部任务 / call without task_id to list all',
      );
    return { tasks, running: tasks.filter((t) => t.status === 'running').length };
  }
}

export function registerBackgroundTasks(registry: ToolRegistry, tasks: BackgroundTasks): ToolRegistry {
  return registry.register(BackgroundTaskBoard, (ctx) => new BackgroundTaskBoard(tasks, taskOwner(ctx)));
}
