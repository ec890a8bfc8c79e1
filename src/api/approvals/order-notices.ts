import type { Kysely } from 'kysely';
import { erpRequest, type Order } from '../../erp/index.ts';
import type { OrderDecisionData } from '../../protocol/index.ts';
import { TERMINAL_EVENTS } from '../../protocol/index.ts';
import type { Logger } from '../../shared/index.ts';
import type { ApiUser } from '../auth.ts';
import type { RunEventLog } from '../chat/events.ts';
import { ACTIVE_RUN_STATUSES, RunStore, type RunTables } from '../chat/run-store.ts';
import type { SessionTables } from '../chat/sessions.ts';
import type { ApiDatabase, ApiDb } from '../db.ts';

export type OrderNoticeTables = {
  /** Admin decisions already told to the conversation that drafted the order: one row, one notice. */
  order_notices: {
    project_id: string;
    order_id: number;
    /** With the order, names one decision: an order returned, resubmitted and decided again is told again. */
    decided_at: string;
    session_id: string;
    run_id: string;
    created_at: string;
  };
};

/** What a notice reads besides its own table: the sessions and runs it tells. */
type NoticeTables = OrderNoticeTables & SessionTables & RunTables;

export async function migrateOrderNotices(db: ApiDb): Promise<void> {
  await db.schema
    .createTable('order_notices')
    .ifNotExists()
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('order_id', 'integer', (c) => c.notNull())
    .addColumn('decided_at', 'text', (c) => c.notNull())
    .addColumn('session_id', 'text', (c) => c.notNull())
    .addColumn('run_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('order_notices_pk', ['project_id', 'order_id', 'decided_at'])
    .execute();
}

/** How often an open conversation with an order still waiting for an admin asks the ERP (`PROCURA_DECISION_POLL_MS`). */
export const DEFAULT_DECISION_POLL_MS = 15_000;
/** A slow ERP delays opening a conversation by at most this much. */
const CHECK_TIMEOUT_MS = 5_000;
/** Orders of a session looked at per check: its most recent ones. */
const ORDERS_PER_CHECK = 50;
/** Runs of a session whose orders are looked at: its most recent ones (the ERP takes up to 100 trace ids). */
const RUNS_PER_CHECK = 100;

const DECISIONS: Record<string, OrderDecisionData['decision']> = {
  'admin-approved': 'approved',
  'admin-rejected': 'rejected',
};

type Outcome = 'told' | 'known' | 'busy' | 'unlinked';

/**
 * Tells the conversation that drafted an order what the admin decided: an `order_decision` event in the session's
 * latest run, stored and numbered like every run event, so a live client sees it and history and a rejoin replay it.
 *
 * The link is the ERP's: an order keeps the trace id of the request that created it, and Procura's runs send their
 * run id as trace id. A decision made in Procura's queue is told at once. One made directly in the ERP (another
 * client, the ERP's own screens) is found by asking the ERP, as the session's owner, whenever the session is opened
 * or rejoined, and every `pollMs` while a client follows it and one of its orders still waits for an admin. Polling
 * rather than an ERP callback: the ERP stays a plain system of record that needs no address of ours, and the
 * question is asked with the buyer's own token (the API keeps no credentials of its own). With several API
 * processes, the `order_notices` row claimed in the same transaction as the event is what keeps a decision from
 * being told twice.
 */
export class OrderNotices {
  private readonly db: Kysely<NoticeTables>;

  constructor(
    private readonly deps: {
      database: ApiDatabase;
      events: RunEventLog;
      erpUrl: string;
      log: Logger;
      pollMs: number;
    },
  ) {
    this.db = deps.database.db.withTables<NoticeTables>();
  }

  get pollMs(): number {
    return this.deps.pollMs;
  }

  /** A decision just made through Procura's approval queue: told now (later checks catch a busy session). */
  async decided(order: Order): Promise<void> {
    await this.tell(order).catch((error) =>
      this.deps.log.warn({ err: error, orderId: order.id }, 'order decision not told to its conversation'),
    );
  }

  /**
   * Asks the ERP, as `user`, about the orders the session's runs created, and tells the session each admin decision
   * it has not been told. True while one of those orders still waits for an admin (worth asking again). Never
   * throws: the ERP being away must not keep anyone from their conversation.
   */
  async check(user: ApiUser, sessionId: string): Promise<boolean> {
    try {
      const db = this.db;
      const session = await db
        .selectFrom('chat_sessions')
        .select(['owner', 'project_id'])
        .where('id', '=', sessionId)
        .executeTakeFirst();
      if (!session || session.owner !== user.username || session.project_id !== user.projectId) return false;
      const runs = await db
        .selectFrom('chat_runs')
        .select(['id', 'status'])
        .where('session_id', '=', sessionId)
        .orderBy('created_at', 'desc')
        .orderBy('id')
        .limit(RUNS_PER_CHECK)
        .execute();
      if (!runs.length) return false;
      // A running session could not be told now; ask once it has ended.
      if (ACTIVE_RUN_STATUSES.includes(runs[0].status)) return true;
      const page = await erpRequest<{ items: Order[] }>(
        {
          baseUrl: this.deps.erpUrl,
          token: user.token,
          projectId: user.projectId,
          traceId: `notices-${sessionId}`,
          timeoutMs: CHECK_TIMEOUT_MS,
        },
        'GET',
        '/orders/search',
        { query: { traceIds: runs.map((r) => r.id), size: ORDERS_PER_CHECK } },
      );
      const decided = page.items.filter((o) => decisionOf(o));
      const known = decided.length
        ? await db
            .selectFrom('order_notices')
            .select(['order_id', 'decided_at'])
            .where('project_id', '=', user.projectId)
            .where(
              'order_id',
              'in',
              decided.map((o) => o.id),
            )
            .execute()
        : [];
      for (const order of decided) {
        if (known.some((k) => Number(k.order_id) === order.id && k.decided_at === order.approval?.decidedAt)) continue;
        await this.tell(order);
      }
      return page.items.some((o) => o.status === 'pending_approval');
    } catch (error) {
      this.deps.log.warn({ err: error, sessionId }, 'order decisions not checked');
      return false;
    }
  }

  /**
   * Stores the notice in the drafting session's latest run, once. A session whose latest run is still going (or
   * has not stored its last event yet) is `busy`: the run owns its numbering, and the next check tells it.
   */
  private async tell(order: Order): Promise<Outcome> {
    const decision = decisionOf(order);
    if (!decision || !order.traceId || !order.approval?.decidedAt) return 'unlinked';
    const origin = await this.db
      .selectFrom('chat_runs')
      .innerJoin('chat_sessions', 'chat_sessions.id', 'chat_runs.session_id')
      .select(['chat_runs.session_id', 'chat_runs.owner', 'chat_sessions.project_id'])
      .where('chat_runs.id', '=', order.traceId)
      .executeTakeFirst();
    // A trace id is the caller's word: only a run of the order's own creator, in its project, counts as its origin.
    if (!origin || origin.owner !== order.createdBy.username || origin.project_id !== order.projectId)
      return 'unlinked';
    const data: OrderDecisionData = {
      order_id: order.id,
      order_no: order.orderNo,
      decision,
      decided_by: order.approval.decidedBy ?? '',
      decided_at: order.approval.decidedAt,
      comment: order.approval.comment,
      total_amount: order.totalAmount,
    };
    let publish: (() => Promise<void>) | undefined;
    const outcome = await this.deps.database.db.transaction().execute(async (within): Promise<Outcome> => {
      const trx = within.withTables<NoticeTables>();
      let latest = trx
        .selectFrom('chat_runs')
        .select(['id', 'status'])
        .where('session_id', '=', origin.session_id)
        .orderBy('created_at', 'desc')
        .orderBy('id')
        .limit(1);
      // Holding the row keeps a retry of that run from numbering events until this commits (SQLite: the
      // transaction already has the only connection).
      if (this.deps.database.dialect === 'postgres') latest = latest.forUpdate();
      const run = await latest.executeTakeFirst();
      if (!run || ACTIVE_RUN_STATUSES.includes(run.status)) return 'busy';
      const store = new RunStore(within);
      const [last] = await store.replay(run.id, (await store.lastSeq(run.id)) - 1);
      // Ended, but its final event (a cancel's `done`, a recovery's `error`) is still on its way.
      if (last && !TERMINAL_EVENTS.has(last.event)) return 'busy';
      const claimed = await trx
        .insertInto('order_notices')
        .values({
          project_id: order.projectId,
          order_id: order.id,
          decided_at: data.decided_at,
          session_id: origin.session_id,
          run_id: run.id,
          created_at: new Date().toISOString(),
        })
        .onConflict((oc) => oc.columns(['project_id', 'order_id', 'decided_at']).doNothing())
        .returning('order_id')
        .executeTakeFirst();
      if (!claimed) return 'known';
      publish = await this.deps.events.emitWithin(
        store,
        { runId: run.id, sessionId: origin.session_id, secrets: [] },
        (emitter) => emitter.emit({ event: 'order_decision', data }),
      );
      return 'told';
    });
    await publish?.();
    return outcome;
  }
}

function decisionOf(order: Order): OrderDecisionData['decision'] | undefined {
  return order.approval ? DECISIONS[order.approval.rule] : undefined;
}
