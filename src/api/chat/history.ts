import path from 'node:path';
import { resolveBackend } from 'deepagents';
import type { Kysely } from 'kysely';
import { type AgentRuntime, addUsage, NO_USAGE, type ProcuraRunContext } from '../../agent/index.ts';
import type {
  DecisionRecord,
  HistoryPage,
  HistorySession,
  OrderDecisionData,
  PendingInterrupt,
  ProgressData,
  SessionDetail,
  SessionFile,
  SessionMessage,
  SessionState,
  ToolCallData,
} from '../../protocol/index.ts';
import { badRequest, conflict, notFound } from '../../shared/index.ts';
import type { UsageLedger } from '../admin/usage.ts';
import type { ApiUser } from '../auth.ts';
import type { ApiDb } from '../db.ts';
import type { RunStore } from './run-store.ts';
import type { Sessions, SessionTables } from './sessions.ts';

/** Tools whose completed step means the conversation wrote an order. */
const ORDER_WRITES = ['order_create'] as const;

/** Workspace areas that are not a session's output (shared skills, the global guidelines, the user's memories). */
const PRIVATE_PREFIXES = ['/skills/', '/AGENTS.md', '/memories/'];

/** Session history: listing, the conversation as it streamed (messages, steps, pending interrupt), files, rename, delete. */
export class History {
  private readonly db: Kysely<SessionTables>;

  constructor(
    private readonly deps: {
      db: ApiDb;
      runs: RunStore;
      sessions: Sessions;
      runtime: AgentRuntime;
      usage: UsageLedger;
    },
  ) {
    this.db = deps.db.withTables<SessionTables>();
  }

  /** The caller's sessions, newest first; those a schedule started say so, and whether they were opened yet. */
  async list(user: ApiUser, page: number, size: number): Promise<HistoryPage> {
    const db = this.db;
    const [rows, count, unseen] = await Promise.all([
      db
        .selectFrom('chat_sessions')
        .leftJoin('scheduled_sessions', 'scheduled_sessions.session_id', 'chat_sessions.id')
        .select([
          'chat_sessions.id',
          'chat_sessions.title',
          'chat_sessions.created_at',
          'chat_sessions.updated_at',
          'scheduled_sessions.schedule_id',
          'scheduled_sessions.schedule_name',
          'scheduled_sessions.seen_at',
        ])
        .where('chat_sessions.owner', '=', user.username)
        .orderBy('chat_sessions.updated_at', 'desc')
        .orderBy('chat_sessions.id')
        .limit(size)
        .offset((page - 1) * size)
        .execute(),
      db
        .selectFrom('chat_sessions')
        .select((eb) => eb.fn.countAll().as('total'))
        .where('owner', '=', user.username)
        .executeTakeFirst(),
      this.unseenScheduled(user),
    ]);
    const states = await this.states(rows.map((r) => r.id));
    const items = rows.map(
      ({ schedule_id, schedule_name, seen_at, ...session }): HistorySession => ({
        ...session,
        state: states.get(session.id) ?? null,
        ...(schedule_id
          ? { origin: 'schedule', schedule: { id: schedule_id, name: schedule_name ?? '' }, unseen: !seen_at }
          : { origin: 'chat' }),
      }),
    );
    return { items, total: Number(count?.total ?? 0), page, size, unseen_scheduled: unseen };
  }

  /** Each session's state: its latest run's if that is running, waiting or failed, else its last order outcome. */
  private async states(ids: string[]): Promise<Map<string, SessionState>> {
    const { runs, events } = await this.deps.runs.outcomesOf(ids, ORDER_WRITES);
    const states = new Map<string, SessionState>();
    for (const e of events) {
      const data = JSON.parse(e.data) as { decision?: string; status?: string };
      if (e.event === 'order_decision') states.set(e.session_id, data.decision === 'rejected' ? 'returned' : 'ordered');
      else if (data.status === 'completed') states.set(e.session_id, 'ordered');
    }
    const latest = new Map(runs.map((r) => [r.session_id, r.status]));
    for (const [id, status] of latest) {
      if (status === 'running' || status === 'waiting' || status === 'error') states.set(id, status);
    }
    return states;
  }

  /** How many sessions schedules started for the caller that the caller has not opened (the browser's badge). */
  async unseenScheduled(user: ApiUser): Promise<number> {
    const row = await this.db
      .selectFrom('scheduled_sessions')
      .innerJoin('chat_sessions', 'chat_sessions.id', 'scheduled_sessions.session_id')
      .select((eb) => eb.fn.countAll().as('total'))
      .where('scheduled_sessions.owner', '=', user.username)
      .where('scheduled_sessions.seen_at', 'is', null)
      .executeTakeFirst();
    return Number(row?.total ?? 0);
  }

  /** One session rebuilt from its stored run events: what the user saw, including a partial answer of a stopped run. */
  async get(user: ApiUser, id: string): Promise<SessionDetail> {
    const session = await this.deps.sessions.owned(user, id);
    const scheduled = await this.openScheduled(id);
    const runs = await this.deps.runs.ofSession(id);
    const events = await this.deps.runs.eventsOf(
      runs.map((r) => r.id),
      ['token', 'progress', 'tool_call', 'error', 'order_decision', 'decision'],
    );
    const usage = await this.deps.usage.byRun(runs.map((r) => r.id));
    const messages: SessionMessage[] = [];
    const steps: SessionDetail['steps'] = [];
    for (const run of runs) {
      messages.push({ role: 'user', content: run.message, run_id: run.id, created_at: run.created_at });
      let answer = '';
      const byId = new Map<string, ProgressData & { run_id: string }>();
      const toolCalls: ToolCallData[] = [];
      const decisions: SessionMessage[] = [];
      let error: string | undefined;
      for (const e of events.filter((e) => e.run_id === run.id)) {
        // Stored as the run emitted it: the event's data as the protocol declares it.
        const data = JSON.parse(e.data);
        if (e.event === 'token') answer += String(data.content ?? '');
        else if (e.event === 'progress' && data.phase !== 'run') {
          const step: ProgressData = data;
          byId.set(step.id, { ...byId.get(step.id), ...step, run_id: run.id });
        } else if (e.event === 'tool_call') toolCalls.push({ tool: data.tool, params: data.params });
        else if (e.event === 'error') error = String(data.message ?? '');
        else if (e.event === 'order_decision') {
          const decision: OrderDecisionData = data;
          decisions.push({ role: 'notice', kind: 'order_decision', ...decision, run_id: run.id });
        } else if (e.event === 'decision') {
          const record: DecisionRecord = data;
          // A person's decision on a card splits the answer: what came before it, the record, what came after.
          messages.push({ role: 'assistant', content: answer, run_id: run.id, tool_calls: toolCalls.splice(0) });
          messages.push({ role: 'decision', ...record, run_id: run.id });
          answer = '';
        }
        // A retry takes a failed run up again: its earlier error is no longer the outcome.
        if (e.event === 'progress' && data.phase === 'run' && data.status === 'running') error = undefined;
      }
      steps.push(...byId.values());
      messages.push({
        role: 'assistant',
        content: answer,
        run_id: run.id,
        status: run.status,
        tool_calls: toolCalls,
        ...(error ? { error } : {}),
        usage: usage.get(run.id) ?? { ...NO_USAGE },
        updated_at: run.updated_at,
      });
      // An admin's decision on an order came after the run ended: it follows the answer.
      messages.push(...decisions);
    }
    const waiting = runs.find((r) => r.status === 'waiting');
    return {
      ...session,
      ...(scheduled
        ? { origin: 'schedule' as const, schedule: { id: scheduled.schedule_id, name: scheduled.schedule_name } }
        : { origin: 'chat' as const }),
      messages,
      steps,
      pending_interrupts: waiting ? (JSON.parse(waiting.pending ?? '[]') as PendingInterrupt[]) : [],
      usage: [...usage.values()].reduce(addUsage, { ...NO_USAGE }),
      active_run: runs.find((r) => r.status === 'running' || r.status === 'waiting')?.id ?? null,
      /** The latest run's last event: a client follows on from here to hear what comes next. */
      last_event_id: runs.length ? await this.deps.runs.lastSeq(runs[runs.length - 1].id) : 0,
      files: await this.files(user, id),
    };
  }

  /** A scheduled session's mark, noting that its owner opened it (which clears it from the badge). */
  private async openScheduled(id: string) {
    const row = await this.db
      .selectFrom('scheduled_sessions')
      .select(['schedule_id', 'schedule_name', 'seen_at'])
      .where('session_id', '=', id)
      .executeTakeFirst();
    if (row && !row.seen_at) {
      await this.db
        .updateTable('scheduled_sessions')
        .set({ seen_at: new Date().toISOString() })
        .where('session_id', '=', id)
        .execute();
    }
    return row;
  }

  async rename(user: ApiUser, id: string, title: string) {
    await this.deps.sessions.owned(user, id);
    await this.db
      .updateTable('chat_sessions')
      .set({ title, updated_at: new Date().toISOString() })
      .where('id', '=', id)
      .execute();
    return this.deps.sessions.owned(user, id);
  }

  /** Deletes a session with its runs, events, checkpoints and workspace files. A running session must be stopped first. */
  async delete(user: ApiUser, id: string): Promise<void> {
    await this.deps.sessions.owned(user, id);
    const active = await this.deps.runs.active(id);
    if (active?.status === 'running')
      throw conflict('任务运行中，请先停止 / stop the running run first', { run_id: active.id });
    const backend = await this.backendFor(user, id);
    for (const file of await this.files(user, id)) await backend.delete?.(file.path);
    await (await this.deps.runtime.checkpointer()).deleteThread(id);
    await this.deps.runs.deleteSessionRuns(id);
    await this.db.deleteFrom('scheduled_sessions').where('session_id', '=', id).execute();
    await this.db.deleteFrom('chat_sessions').where('id', '=', id).execute();
  }

  /** Files the agent produced in this session's workspace. */
  async files(user: ApiUser, id: string): Promise<SessionFile[]> {
    const backend = await this.backendFor(user, id);
    const found = await backend.glob('**/*', '/');
    return (found.files ?? [])
      .filter((f) => !f.is_dir && !PRIVATE_PREFIXES.some((p) => f.path.startsWith(p)))
      .map((f) => ({ path: f.path, size: f.size, modified_at: f.modified_at }))
      .sort((a, b) => a.path.localeCompare(b.path));
  }

  /** A workspace file of the caller's session (404 for anyone else, for paths outside the workspace, or missing). */
  async download(user: ApiUser, id: string, rawPath: string): Promise<{ name: string; bytes: Uint8Array }> {
    await this.deps.sessions.owned(user, id);
    const normalized = path.posix.normalize(`/${rawPath}`);
    if (rawPath.includes('\0') || rawPath.split('/').includes('..') || normalized === '/') {
      throw badRequest('文件路径无效 / invalid file path');
    }
    if (PRIVATE_PREFIXES.some((p) => normalized.startsWith(p))) throw notFound(`文件不存在 / no file ${normalized}`);
    const backend = await this.backendFor(user, id);
    const [result] = (await backend.downloadFiles?.([normalized])) ?? [];
    if (!result?.content) throw notFound(`文件不存在 / no file ${normalized}`);
    return { name: path.posix.basename(normalized), bytes: result.content };
  }

  private async backendFor(user: ApiUser, sessionId: string) {
    const context: ProcuraRunContext = {
      userId: user.username,
      username: user.displayName,
      role: user.role,
      token: user.token,
      projectId: user.projectId,
      traceId: `files-${sessionId}`,
      sessionId,
    };
    const { backend } = await this.deps.runtime.storage();
    return resolveBackend(backend, { context, state: { files: {} } } as never);
  }
}
