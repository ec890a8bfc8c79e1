import type { Kysely } from 'kysely';
import type { StartedScheduleRun as StartedRun } from '../../protocol/index.ts';
import { type CredentialSealer, conflict, type Logger, ProblemError } from '../../shared/index.ts';
import type { ApiUser } from '../auth.ts';
import type { RunManager } from '../chat/runs.ts';
import type { Sessions, SessionTables } from '../chat/sessions.ts';
import { type ApiDb, isUniqueViolation } from '../db.ts';
import { CronSchedule } from './cron.ts';
import { paramsOf, type ScheduleRow, type Schedules, type ScheduleTables, scheduleRequest } from './schedules.ts';

/** How often the production timer looks for due schedules (the claim, not the timer, keeps a run single). */
export const SCHEDULER_INTERVAL_MS = 30_000;
/** Scheduled runs a restart cut are taken up again when they started within this long before the start-up. */
const RETRY_WINDOW_MS = 24 * 3600_000;

type Trigger = ScheduleTables['schedule_runs']['trigger'];

/**
 * Starts the runs of due schedules. `runDue(now)` does one pass at the given time: tests drive it with their own
 * clock, the production timer calls it every 30 s. Each (schedule, due minute) is claimed by inserting a row under
 * a primary key, so of several API processes sharing the database exactly one starts it; a process that was down
 * at the due time starts it once when it comes back, then the schedule moves on to its next time after now.
 *
 * A run acts as the schedule's owner, with their ERP token re-checked against the ERP first (a revoked token or a
 * lost project stops it), and goes through the ordinary run machinery: events are stored and streamed like a
 * chat's, and any write it proposes waits in the session for the owner's approval like any other.
 */
export class Scheduler {
  private timer?: NodeJS.Timeout;
  private pass: Promise<unknown> = Promise.resolve();
  /** Its schedules, and the sessions it starts (marked as started by a schedule). */
  private readonly db: Kysely<ScheduleTables & SessionTables>;

  constructor(
    private readonly deps: {
      db: ApiDb;
      schedules: Schedules;
      sealer: CredentialSealer;
      sessions: Sessions;
      runs: RunManager;
      /** The owner as the ERP knows them now, from their stored token. */
      resolveUser: (token: string, projectId: string) => Promise<ApiUser>;
      now: () => Date;
      log: Logger;
    },
  ) {
    this.db = deps.db.withTables<ScheduleTables & SessionTables>();
  }

  /** Starts the schedules due at `now` (default: the clock) that no process has claimed yet. */
  async runDue(now: Date = this.deps.now()): Promise<StartedRun[]> {
    const db = this.db;
    const due = await db.selectFrom('schedules').selectAll().where('next_due_at', '<=', now.toISOString()).execute();
    const started: StartedRun[] = [];
    for (const row of due) {
      const claimed = await this.claim(row.id, row.next_due_at, 'cron');
      await this.advance(row, now);
      if (!claimed) continue;
      const run = await this.launch(row, row.next_due_at, 'cron');
      if (!('error' in run)) started.push(run);
    }
    return started;
  }

  /**
   * At start-up: takes up again, from its last checkpoint, each scheduled run that a restart cut (its session's
   * latest run ended `orphaned`), as the schedule's owner. The retry is claimed like a due run, under the trigger
   * `retry`, so of several API processes starting together exactly one retries it, and it is retried once.
   */
  async retryInterrupted(): Promise<StartedRun[]> {
    const db = this.db;
    const since = new Date(this.deps.now().getTime() - RETRY_WINDOW_MS).toISOString();
    const cut = await db
      .selectFrom('schedule_runs')
      .innerJoin('schedules', 'schedules.id', 'schedule_runs.schedule_id')
      .selectAll('schedules')
      .select(['schedule_runs.due_at as run_due_at', 'schedule_runs.session_id as run_session_id'])
      .where('schedule_runs.trigger', '!=', 'retry')
      .where('schedule_runs.session_id', 'is not', null)
      .where('schedule_runs.created_at', '>=', since)
      .execute();
    const started: StartedRun[] = [];
    for (const { run_due_at: dueAt, run_session_id: sessionId, ...row } of cut) {
      if (!sessionId || !(await this.deps.runs.interruptedByRestart(sessionId))) continue;
      if (!(await this.claim(row.id, dueAt, 'retry'))) continue;
      try {
        const token = this.deps.sealer.unseal(row.credential);
        if (!token) throw new Error('the schedule’s credential cannot be read');
        const user = await this.deps.resolveUser(token, row.project_id);
        const ref = await this.deps.runs.retry(user, sessionId);
        await this.record(row.id, dueAt, 'retry', { session_id: sessionId, error: null });
        started.push({ schedule_id: row.id, due_at: dueAt, session_id: sessionId, run_id: ref.runId });
      } catch (error) {
        this.deps.log.warn({ err: error, scheduleId: row.id, dueAt }, 'interrupted scheduled run not retried');
        await this.record(row.id, dueAt, 'retry', { session_id: sessionId, error: errorText(error) });
      }
    }
    return started;
  }

  /** Runs the caller's schedule now, besides its timetable. */
  async runNow(user: ApiUser, id: string): Promise<StartedRun> {
    const row = await this.deps.schedules.owned(user, id);
    const dueAt = this.deps.now().toISOString();
    // Refused before the claim, so a run asked for in the wrong project leaves no claim without a run.
    if (row.project_id !== user.projectId) {
      throw conflict(
        `定时任务属于项目 ${row.project_id}，请在该项目中运行 / this schedule belongs to project ${row.project_id}: run it there`,
        { schedule_id: id, project_id: row.project_id },
      );
    }
    if (!(await this.claim(row.id, dueAt, 'manual'))) {
      throw conflict('该定时任务刚刚已启动 / this schedule was just started', { schedule_id: id });
    }
    // The owner is signed in: the run uses their current token, and the schedule keeps it for its timed runs.
    const credential = this.deps.sealer.seal(user.token);
    await this.db.updateTable('schedules').set({ credential }).where('id', '=', row.id).execute();
    const run = await this.launch({ ...row, credential }, dueAt, 'manual', user);
    if ('error' in run) {
      // The caller's own limits (rate, budget, a revoked token) answer as they would for a chat; anything else is
      // the ERP or the agent failing.
      if (run.error instanceof ProblemError && run.error.status < 500) throw run.error;
      throw new ProblemError(
        502,
        'schedule_failed',
        `定时任务未能启动 / the schedule did not start: ${errorText(run.error)}`,
        {
          schedule_id: id,
        },
      );
    }
    return run;
  }

  /** The production timer: one pass now and every `intervalMs`, never two passes at once in this process. */
  start(intervalMs = SCHEDULER_INTERVAL_MS): void {
    const tick = () => {
      this.pass = this.pass
        .then(() => this.runDue())
        .catch((error) => this.deps.log.error({ err: error }, 'scheduled runs not started'));
    };
    tick();
    this.timer = setInterval(tick, intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.pass;
  }

  /** Inserts the claim row; false when another process (or pass) inserted it first. */
  private async claim(scheduleId: string, dueAt: string, trigger: Trigger): Promise<boolean> {
    try {
      await this.db
        .insertInto('schedule_runs')
        .values({
          schedule_id: scheduleId,
          due_at: dueAt,
          trigger,
          session_id: null,
          error: null,
          created_at: this.deps.now().toISOString(),
        })
        .execute();
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  /** Moves the schedule to its first time after `now`; only from the due time this pass saw (another may have). */
  private async advance(row: ScheduleRow, now: Date): Promise<void> {
    const next = new CronSchedule(row.cron, row.timezone).nextAfter(now);
    await this.db
      .updateTable('schedules')
      // A schedule that never fires again parks far in the future rather than firing on every pass.
      .set({ next_due_at: next?.toISOString() ?? '9999-12-31T00:00:00.000Z', updated_at: now.toISOString() })
      .where('id', '=', row.id)
      .where('next_due_at', '=', row.next_due_at)
      .execute();
  }

  /** Opens a session marked as scheduled and starts the run in it as the owner; failures are kept on the schedule. */
  private async launch(
    row: ScheduleRow,
    dueAt: string,
    trigger: 'cron' | 'manual',
    /** The owner, when they started it themselves. */
    signedIn?: ApiUser,
  ): Promise<StartedRun | { error: unknown }> {
    const db = this.db;
    const { log } = this.deps;
    let sessionId: string | undefined;
    try {
      const token = signedIn?.token ?? this.deps.sealer.unseal(row.credential);
      if (!token) {
        throw new Error(
          '无法读取定时任务的凭据（PROCURA_SCHEDULE_KEY 已更换？），请重新创建 / the schedule’s credential cannot be read (was PROCURA_SCHEDULE_KEY changed?): create it again',
        );
      }
      const user = signedIn ?? (await this.deps.resolveUser(token, row.project_id));
      const session = await this.deps.sessions.openOrCreate(
        user,
        undefined,
        `${row.name} · ${localTime(dueAt, row.timezone)}`,
      );
      sessionId = session.id;
      await db
        .insertInto('scheduled_sessions')
        .values({
          session_id: session.id,
          owner: row.owner,
          schedule_id: row.id,
          schedule_name: row.name,
          seen_at: null,
          created_at: this.deps.now().toISOString(),
        })
        .execute();
      const ref = await this.deps.runs.start(user, {
        message: scheduleRequest(paramsOf(row), row.cron),
        sessionId: session.id,
      });
      await this.record(row.id, dueAt, trigger, { session_id: session.id, error: null });
      return { schedule_id: row.id, due_at: dueAt, session_id: session.id, run_id: ref.runId };
    } catch (error) {
      const message = errorText(error);
      log.warn({ err: error, scheduleId: row.id, dueAt }, 'scheduled run not started');
      // A session without a run would sit empty in the history.
      if (sessionId) {
        await db.deleteFrom('scheduled_sessions').where('session_id', '=', sessionId).execute();
        await db.deleteFrom('chat_sessions').where('id', '=', sessionId).execute();
      }
      await this.record(row.id, dueAt, trigger, { session_id: null, error: message });
      return { error };
    }
  }

  /** What came of a claimed run, on its claim row and as the schedule's last run. */
  private async record(
    scheduleId: string,
    dueAt: string,
    trigger: Trigger,
    outcome: { session_id: string | null; error: string | null },
  ): Promise<void> {
    const db = this.db;
    await db
      .updateTable('schedule_runs')
      .set(outcome)
      .where('schedule_id', '=', scheduleId)
      .where('due_at', '=', dueAt)
      .where('trigger', '=', trigger)
      .execute();
    await db
      .updateTable('schedules')
      .set({ last_run_at: dueAt, last_error: outcome.error })
      .where('id', '=', scheduleId)
      .execute();
  }
}

/** `2026-12-03 08:00` in the schedule's time zone: the session title says when it ran, as the owner reads time. */
function localTime(iso: string, timezone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: timezone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(new Date(iso));
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${get('year')}-${get('month')}-${get('day')} ${get('hour')}:${get('minute')}`;
}

function errorText(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 500);
}
