import { EventEmitter } from 'node:events';
import { Redis } from 'ioredis';
import type { Logger } from '../shared/index.ts';
import type { ApiDatabase } from './db.ts';

/** One event of a run as stored and sent: `id:` is `seq`, `event:` is `event`, `data:` is `data` (JSON). */
export interface RunEvent {
  runId: string;
  seq: number;
  event: string;
  data: string;
}

/** Events that end what a client is following: the run finished, failed or waits for a human. */
export const TERMINAL_EVENTS = new Set(['done', 'error', 'interrupt']);

/** Sequence numbers are 32-bit integers in the database. */
export const MAX_SEQ = 2_147_483_647;

const EVENTS_CHANNEL = 'procura:api:run-events';
const CONTROL_CHANNEL = 'procura:api:run-control';

/**
 * Run events: stored per run in the database (the replay source of truth), then fanned out to followers in this
 * process and, with Redis, in every other API process. Control messages (cancel) travel the same way.
 */
export class RunEventLog {
  private readonly local = new EventEmitter();
  private readonly origin = crypto.randomUUID();
  private readonly publisher?: Redis;
  private readonly subscriber?: Redis;

  constructor(
    private readonly database: ApiDatabase,
    redisUrl: string | undefined,
    private readonly log: Logger,
  ) {
    this.local.setMaxListeners(0);
    if (!redisUrl) return;
    this.publisher = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 3 });
    this.subscriber = new Redis(redisUrl, { lazyConnect: true });
    for (const client of [this.publisher, this.subscriber])
      client.on('error', (error) => log.warn({ err: error }, 'redis error'));
    this.subscriber.on('message', (channel, raw) => {
      try {
        const message = JSON.parse(raw) as { origin: string } & Record<string, unknown>;
        if (message.origin === this.origin) return;
        if (channel === EVENTS_CHANNEL) this.local.emit(`run:${message.runId}`, message as unknown as RunEvent);
        else if (channel === CONTROL_CHANNEL) this.local.emit('control', message);
      } catch (error) {
        log.warn({ err: error }, 'unreadable message on the run event channel');
      }
    });
  }

  async start(): Promise<void> {
    if (!this.publisher || !this.subscriber) return;
    await Promise.all([this.publisher.connect(), this.subscriber.connect()]);
    await this.subscriber.subscribe(EVENTS_CHANNEL, CONTROL_CHANNEL);
  }

  get distributed(): boolean {
    return Boolean(this.publisher);
  }

  /** Stores the event, then delivers it; followers never see an event that a replay could not find. */
  async append(event: RunEvent): Promise<void> {
    await this.database.db
      .insertInto('run_events')
      .values({
        run_id: event.runId,
        seq: event.seq,
        event: event.event,
        data: event.data,
      })
      .execute();
    this.local.emit(`run:${event.runId}`, event);
    if (this.publisher) {
      await this.publisher
        .publish(EVENTS_CHANNEL, JSON.stringify({ origin: this.origin, ...event }))
        .catch((error) => this.log.warn({ err: error, runId: event.runId }, 'run event not fanned out'));
    }
  }

  /** Stored events of a run after `afterSeq` (exclusive), optionally up to `untilSeq` (inclusive). */
  async replay(runId: string, afterSeq: number, untilSeq = MAX_SEQ): Promise<RunEvent[]> {
    const rows = await this.database.db
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
    const row = await this.database.db
      .selectFrom('run_events')
      .select((eb) => eb.fn.max('seq').as('seq'))
      .where('run_id', '=', runId)
      .executeTakeFirst();
    return Number(row?.seq ?? 0);
  }

  /**
   * Every event of a run after `afterSeq`, each exactly once and in order: replayed from the database, then live,
   * until a terminal event (or the signal aborts). Live events that overtake the replay fill the gap from storage.
   */
  async *follow(runId: string, afterSeq: number, signal: AbortSignal): AsyncGenerator<RunEvent> {
    const queue: RunEvent[] = [];
    let wake: (() => void) | undefined;
    const onEvent = (event: RunEvent) => {
      queue.push(event);
      wake?.();
    };
    const onAbort = () => wake?.();
    this.local.on(`run:${runId}`, onEvent);
    signal.addEventListener('abort', onAbort);
    let last = afterSeq;
    try {
      for (const event of await this.replay(runId, last)) {
        last = event.seq;
        yield event;
        if (TERMINAL_EVENTS.has(event.event)) return;
      }
      while (!signal.aborted) {
        const next = queue.shift();
        if (!next) {
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
          wake = undefined;
          continue;
        }
        if (next.seq <= last) continue;
        const batch = next.seq > last + 1 ? await this.replay(runId, last, next.seq) : [next];
        for (const event of batch) {
          last = event.seq;
          yield event;
          if (TERMINAL_EVENTS.has(event.event)) return;
        }
      }
    } finally {
      this.local.off(`run:${runId}`, onEvent);
      signal.removeEventListener('abort', onAbort);
    }
  }

  /** Asks whichever process runs `runId` to cancel it. */
  async requestCancel(runId: string): Promise<void> {
    this.local.emit('control', { action: 'cancel', runId });
    await this.publisher?.publish(CONTROL_CHANNEL, JSON.stringify({ origin: this.origin, action: 'cancel', runId }));
  }

  onControl(listener: (message: { action: string; runId: string }) => void): void {
    this.local.on('control', listener);
  }

  async close(): Promise<void> {
    this.local.removeAllListeners();
    await Promise.all([this.publisher?.quit(), this.subscriber?.quit()].map((p) => p?.catch(() => undefined)));
  }
}
