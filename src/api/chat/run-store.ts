import { type Generated, type Kysely, sql } from 'kysely';
import type { HumanDecision, PendingInterrupt, RunStatus } from '../../protocol/index.ts';
import { type ApiDb, type ApiDialect, addTextColumn, isUniqueViolation } from '../db.ts';

export type { PendingInterrupt, RunStatus };

/** Run states that hold the session: a second start while one of these exists gets 409. */
export const ACTIVE_RUN_STATUSES: RunStatus[] = ['running', 'waiting'];

/** The runs of each session and the events each run streamed, numbered within the run. */
export type RunTables = {
  chat_runs: {
    id: string;
    session_id: string;
    owner: string;
    status: RunStatus;
    message: string;
    /** JSON of the interrupts the run waits on (while `waiting`). */
    pending: string | null;
    /** JSON of the decision a resumed run executes (while `running` after a resume): recovery re-executes it. */
    decision: string | null;
    /** The `Idempotency-Key` the message that started the run came with: a retry with it joins this run. */
    idempotency_key: string | null;
    created_at: string;
    updated_at: string;
  };
  run_events: {
    run_id: string;
    seq: number;
    event: string;
    /** JSON, already redacted. */
    data: string;
    created_at: Generated<string>;
  };
};

export async function migrateRuns(db: ApiDb, dialect: ApiDialect): Promise<void> {
  await db.schema
    .createTable('chat_runs')
    .ifNotExists()
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('session_id', 'text', (c) => c.notNull())
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('pending', 'text')
    .addColumn('decision', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await addTextColumn(db, dialect, 'chat_runs', 'decision');
  await addTextColumn(db, dialect, 'chat_runs', 'idempotency_key');
  // One run per user and key, across API processes: of two requests with the same key, one inserts.
  await db.schema
    .createIndex('chat_runs_idempotency')
    .ifNotExists()
    .unique()
    .on('chat_runs')
    .columns(['owner', 'idempotency_key'])
    .execute();
  await db.schema
    .createIndex('chat_runs_session')
    .ifNotExists()
    .on('chat_runs')
    .columns(['session_id', 'created_at'])
    .execute();
  // One active run per session, enforced by the database so it holds across API processes.
  await db.schema
    .createIndex('chat_runs_one_active')
    .ifNotExists()
    .unique()
    .on('chat_runs')
    .column('session_id')
    .where(sql.ref('status'), 'in', ACTIVE_RUN_STATUSES)
    .execute();
  await db.schema
    .createTable('run_events')
    .ifNotExists()
    .addColumn('run_id', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull().defaultTo(sql`CURRENT_TIMESTAMP`))
    .addPrimaryKeyConstraint('run_events_pk', ['run_id', 'seq'])
    .execute();
}

/** One event of a run as stored and sent: `id:` is `seq`, `event:` is `event`, `data:` is `data` (JSON). */
export interface RunEvent {
  runId: string;
  seq: number;
  event: string;
  data: string;
}

/** Sequence numbers are 32-bit integers in the database. */
export const MAX_SEQ = 2_147_483_647;

/** The human's answer a resumed run executes, stored before the resume is acknowledged. */
export interface StoredDecision {
  interrupt_id: string;
  decision: HumanDecision;
}

export type RunRow = RunTables['chat_runs'];

/**
 * Every read and write of runs and their events. Status changes that decide a race (start, resume, cancel of a
 * waiting run) are single conditional statements, so they hold across API processes.
 */
export class RunStore {
  private readonly db: Kysely<RunTables>;

  /** `db` may be a transaction: the store then reads and writes within it. */
  constructor(db: ApiDb) {
    this.db = db.withTables<RunTables>();
  }

  /**
   * Inserts a `running` run; false when the session already has an active one or the owner already used the
   * idempotency key (unique indexes).
   */
  async insertRunning(run: {
    id: string;
    sessionId: string;
    owner: string;
    message: string;
    idempotencyKey?: string;
  }): Promise<boolean> {
    const now = new Date().toISOString();
    try {
      await this.db
        .insertInto('chat_runs')
        .values({
          id: run.id,
          session_id: run.sessionId,
          owner: run.owner,
          status: 'running',
          message: run.message,
          pending: null,
          decision: null,
          idempotency_key: run.idempotencyKey ?? null,
          created_at: now,
          updated_at: now,
        })
        .execute();
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  /** The run `owner` started with an idempotency key. */
  byIdempotencyKey(owner: string, key: string): Promise<RunRow | undefined> {
    return this.db
      .selectFrom('chat_runs')
      .selectAll()
      .where('owner', '=', owner)
      .where('idempotency_key', '=', key)
      .executeTakeFirst();
  }

  active(sessionId: string): Promise<RunRow | undefined> {
    return this.db
      .selectFrom('chat_runs')
      .selectAll()
      .where('session_id', '=', sessionId)
      .where('status', 'in', ['running', 'waiting'])
      .executeTakeFirst();
  }

  latest(sessionId: string): Promise<RunRow | undefined> {
    return this.db
      .selectFrom('chat_runs')
      .selectAll()
      .where('session_id', '=', sessionId)
      .orderBy('created_at', 'desc')
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();
  }

  /** One run by id. */
  get(runId: string): Promise<RunRow | undefined> {
    return this.db.selectFrom('chat_runs').selectAll().where('id', '=', runId).executeTakeFirst();
  }

  /** The status of each of these sessions' latest run (sessions without runs are absent). */
  async latestStatuses(sessionIds: string[]): Promise<Map<string, RunStatus>> {
    if (!sessionIds.length) return new Map();
    const rows = await this.db
      .selectFrom('chat_runs')
      .select(['session_id', 'status'])
      .where('session_id', 'in', sessionIds)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return new Map(rows.map((r) => [r.session_id, r.status]));
  }

  ofSession(sessionId: string): Promise<RunRow[]> {
    return this.db
      .selectFrom('chat_runs')
      .selectAll()
      .where('session_id', '=', sessionId)
      .orderBy('created_at')
      .execute();
  }

  /**
   * The waiting → running flip that lets exactly one resume win, even across processes. The decision is stored in
   * the same statement, so once this returns true a crash cannot lose it (recovery executes it).
   */
  async claimWaiting(runId: string, decision: StoredDecision): Promise<boolean> {
    const claimed = await this.db
      .updateTable('chat_runs')
      .set({ status: 'running', pending: null, decision: JSON.stringify(decision), updated_at: now() })
      .where('id', '=', runId)
      .where('status', '=', 'waiting')
      .executeTakeFirst();
    return Number(claimed.numUpdatedRows) === 1;
  }

  /**
   * The ended → running flip of a retry (from one of `from`): the lock that keeps two retries from both running.
   * False when the run is no longer in one of those states or the session has another active run.
   */
  async claimEnded(runId: string, from: RunStatus[]): Promise<boolean> {
    try {
      const claimed = await this.db
        .updateTable('chat_runs')
        .set({ status: 'running', pending: null, decision: null, updated_at: now() })
        .where('id', '=', runId)
        .where('status', 'in', from)
        .executeTakeFirst();
      return Number(claimed.numUpdatedRows) === 1;
    } catch (error) {
      // A new message started a run in the session meanwhile (one active run per session).
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  /** Takes over an orphaned run last seen at `seenAt`; false when another process or request took it first. */
  async claimOrphan(runId: string, seenAt: string): Promise<boolean> {
    const claimed = await this.db
      .updateTable('chat_runs')
      .set({ updated_at: now() })
      .where('id', '=', runId)
      .where('status', '=', 'running')
      .where('updated_at', '=', seenAt)
      .executeTakeFirst();
    return Number(claimed.numUpdatedRows) === 1;
  }

  /** Ends a waiting run as cancelled; false when something else (a resume) took it first. */
  async cancelWaiting(runId: string): Promise<boolean> {
    const claimed = await this.db
      .updateTable('chat_runs')
      .set({ status: 'cancelled', pending: null, updated_at: now() })
      .where('id', '=', runId)
      .where('status', '=', 'waiting')
      .executeTakeFirst();
    return Number(claimed.numUpdatedRows) === 1;
  }

  /** Sets the run's state: `waiting` keeps the interrupts it waits on; a finished run forgets its decision. */
  async setStatus(runId: string, status: RunStatus, pending: PendingInterrupt[] | null = null): Promise<void> {
    await this.db
      .updateTable('chat_runs')
      .set({
        status,
        pending: pending ? JSON.stringify(pending) : null,
        ...(status === 'running' ? {} : { decision: null }),
        updated_at: now(),
      })
      .where('id', '=', runId)
      .execute();
  }

  /** A live run keeps its row fresh, so other processes never take it for an orphan. */
  async touch(runId: string): Promise<void> {
    await this.db.updateTable('chat_runs').set({ updated_at: now() }).where('id', '=', runId).execute();
  }

  /** Runs left `running` (optionally only those quiet since `quietSince`), oldest first. */
  running(quietSince?: string): Promise<RunRow[]> {
    let query = this.db.selectFrom('chat_runs').selectAll().where('status', '=', 'running');
    if (quietSince) query = query.where('updated_at', '<', quietSince);
    return query.orderBy('created_at').execute();
  }

  /** Stores events in one statement (a coalesced batch of a run is one round trip). */
  async appendEvents(events: RunEvent[]): Promise<void> {
    if (!events.length) return;
    await this.db
      .insertInto('run_events')
      .values(events.map((e) => ({ run_id: e.runId, seq: e.seq, event: e.event, data: e.data })))
      .execute();
  }

  /** Stored events of a run after `afterSeq` (exclusive), optionally up to `untilSeq` (inclusive). */
  async replay(runId: string, afterSeq: number, untilSeq = MAX_SEQ): Promise<RunEvent[]> {
    const rows = await this.db
      .selectFrom('run_events')
      .select(['seq', 'event', 'data'])
      .where('run_id', '=', runId)
      .where('seq', '>', afterSeq)
      .where('seq', '<=', untilSeq)
      .orderBy('seq')
      .execute();
    return rows.map((r) => ({ runId, seq: Number(r.seq), event: r.event, data: r.data }));
  }

  async lastSeq(runId: string): Promise<number> {
    const row = await this.db
      .selectFrom('run_events')
      .select((eb) => eb.fn.max('seq').as('seq'))
      .where('run_id', '=', runId)
      .executeTakeFirst();
    return Number(row?.seq ?? 0);
  }

  /** Events of the given kinds of several runs, by run then sequence (history rebuilds a session from them). */
  eventsOf(runIds: string[], kinds: string[]) {
    if (!runIds.length) return Promise.resolve([]);
    return this.db
      .selectFrom('run_events')
      .select(['run_id', 'seq', 'event', 'data'])
      .where('run_id', 'in', runIds)
      .where('event', 'in', kinds)
      .orderBy('run_id')
      .orderBy('seq')
      .execute();
  }

  /**
   * What the history list tells of each of these sessions: its runs' statuses and the order outcomes they streamed
   * (admins' decisions, completed steps of `orderTools`), oldest first.
   */
  async outcomesOf(sessionIds: string[], orderTools: readonly string[]) {
    if (!sessionIds.length) return { runs: [], events: [] };
    const [runs, events] = await Promise.all([
      this.db
        .selectFrom('chat_runs')
        .select(['session_id', 'status'])
        .where('session_id', 'in', sessionIds)
        .orderBy('created_at')
        .orderBy('id')
        .execute(),
      this.db
        .selectFrom('run_events')
        .innerJoin('chat_runs', 'chat_runs.id', 'run_events.run_id')
        .select(['chat_runs.session_id', 'run_events.event', 'run_events.data'])
        .where('chat_runs.session_id', 'in', sessionIds)
        .where((eb) =>
          eb.or([
            eb('run_events.event', '=', 'order_decision'),
            eb.and([
              eb('run_events.event', '=', 'progress'),
              eb.or(orderTools.map((tool) => eb('run_events.data', 'like', `%"tool":"${tool}"%`))),
            ]),
          ]),
        )
        .orderBy('chat_runs.created_at')
        .orderBy('run_events.run_id')
        .orderBy('run_events.seq')
        .execute(),
    ]);
    return { runs, events };
  }

  /** Deletes a session's runs and their events. */
  async deleteSessionRuns(sessionId: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const ids = (await trx.selectFrom('chat_runs').select('id').where('session_id', '=', sessionId).execute()).map(
        (r) => r.id,
      );
      if (ids.length) await trx.deleteFrom('run_events').where('run_id', 'in', ids).execute();
      await trx.deleteFrom('chat_runs').where('session_id', '=', sessionId).execute();
    });
  }
}

function now(): string {
  return new Date().toISOString();
}
