import { EventEmitter } from 'node:events';
import { Redis } from 'ioredis';
import { type ApiEvent, TERMINAL_EVENTS } from '../../protocol/index.ts';
import { type Logger, redactKnown } from '../../shared/index.ts';
import { MAX_SEQ, type RunEvent, type RunStore } from './run-store.ts';

const EVENTS_CHANNEL = 'procura:api:run-events';
const CONTROL_CHANNEL = 'procura:api:run-control';

/** Streamed answer text is stored and sent at most this often per run, or sooner once this much has gathered. */
export const TOKEN_FLUSH_MS = 50;
export const TOKEN_FLUSH_CHARS = 2_048;
/** How often a live run refreshes its row, so other processes never take it for an orphan. */
const TOUCH_MS = 30_000;

/**
 * Run events: stored per run in the database (the replay source of truth), then fanned out to followers in this
 * process and, with Redis, in every other API process. Control messages (cancel) travel the same way. Events are
 * written only through a run's {@link RunEmitter}, which numbers them.
 */
export class RunEventLog {
  private readonly local = new EventEmitter();
  private readonly origin = crypto.randomUUID();
  private readonly publisher?: Redis;
  private readonly subscriber?: Redis;

  constructor(
    private readonly store: RunStore,
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
        if (channel === EVENTS_CHANNEL) {
          for (const event of message.events as RunEvent[]) this.local.emit(`run:${event.runId}`, event);
        } else if (channel === CONTROL_CHANNEL) this.local.emit('control', message);
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

  /** The emit path of a run whose last stored event is `afterSeq`. */
  emitter(run: { runId: string; sessionId: string; afterSeq: number; secrets: string[] }): RunEmitter {
    return new RunEmitter(
      run,
      { write: (events) => this.write(events), touch: () => this.store.touch(run.runId) },
      this.log,
    );
  }

  /** The emit path of a run that this process does not execute (it ends a waiting or orphaned run). */
  async emitterAfterStored(run: { runId: string; sessionId: string; secrets: string[] }): Promise<RunEmitter> {
    return this.emitter({ ...run, afterSeq: await this.store.lastSeq(run.runId) });
  }

  /**
   * Emits events into a run that no process executes (it ended), as part of the caller's transaction `trx`, which
   * must hold the run so nothing else numbers its events meanwhile. Returns what to call once `trx` committed: it
   * delivers the events, so followers never see one that a rollback took back.
   */
  async emitWithin(
    trx: RunStore,
    run: { runId: string; sessionId: string; secrets: string[] },
    emit: (emitter: RunEmitter) => void,
  ): Promise<() => Promise<void>> {
    const stored: RunEvent[] = [];
    let failure: unknown;
    const emitter = new RunEmitter(
      { ...run, afterSeq: await trx.lastSeq(run.runId) },
      {
        write: async (events) => {
          await trx.appendEvents(events).catch((error) => {
            failure = error;
            throw error;
          });
          stored.push(...events);
        },
        touch: async () => undefined,
      },
      this.log,
    );
    emit(emitter);
    await emitter.flush();
    if (failure) throw failure;
    return () => this.deliver(stored);
  }

  /** Stores a batch of one run's events in one statement, then delivers them: followers never see an event a
   *  replay could not find. */
  private async write(events: RunEvent[]): Promise<void> {
    await this.store.appendEvents(events);
    await this.deliver(events);
  }

  /** Hands stored events to this process's followers and, in one Redis publish, to every other process's. */
  private async deliver(events: RunEvent[]): Promise<void> {
    if (!events.length) return;
    for (const event of events) this.local.emit(`run:${event.runId}`, event);
    if (this.publisher) {
      await this.publisher
        .publish(EVENTS_CHANNEL, JSON.stringify({ origin: this.origin, events }))
        .catch((error) => this.log.warn({ err: error, runId: events[0].runId }, 'run events not fanned out'));
    }
  }

  /** Stored events of a run after `afterSeq` (exclusive), optionally up to `untilSeq` (inclusive). */
  replay(runId: string, afterSeq: number, untilSeq = MAX_SEQ): Promise<RunEvent[]> {
    return this.store.replay(runId, afterSeq, untilSeq);
  }

  /**
   * Every event of a run after `afterSeq`, each exactly once and in order: replayed from the database, then live,
   * until a terminal event (or the signal aborts). Live events that overtake the replay fill the gap from storage.
   * A terminal event that later events follow does not end the stream (an interrupt that was resumed, an error
   * that was retried, an ended run that an order decision came to); nor does any terminal event up to
   * `resumedAfter` (a resumed run whose continuation has not stored anything yet).
   */
  async *follow(runId: string, afterSeq: number, signal: AbortSignal, resumedAfter = 0): AsyncGenerator<RunEvent> {
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
    const ends = (batch: RunEvent[], i: number) =>
      batch[i].seq > resumedAfter && TERMINAL_EVENTS.has(batch[i].event) && i === batch.length - 1;
    try {
      let batch = await this.replay(runId, last);
      while (!signal.aborted) {
        for (let i = 0; i < batch.length; i++) {
          last = batch[i].seq;
          yield batch[i];
          if (ends(batch, i)) return;
        }
        batch = [];
        const next = queue.shift();
        if (!next) {
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
          wake = undefined;
          continue;
        }
        if (next.seq <= last) continue;
        batch = next.seq > last + 1 ? await this.replay(runId, last, next.seq) : [next];
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

/**
 * The one way a run's events leave: numbered in order, redacted, stored then fanned out, one batch at a time.
 * Streamed answer text is coalesced: consecutive `token` events of the same agent merge until
 * {@link TOKEN_FLUSH_MS} passed or {@link TOKEN_FLUSH_CHARS} gathered, and any other event first seals the text
 * before it, so order is kept and every sent event is a stored one.
 */
export class RunEmitter {
  private seq: number;
  private text?: { agent: string; content: string };
  private textTimer?: NodeJS.Timeout;
  private sealed: RunEvent[] = [];
  private writing?: Promise<void>;
  private lastTouch = Date.now();

  constructor(
    private readonly run: { runId: string; sessionId: string; afterSeq: number; secrets: string[] },
    private readonly sink: { write(events: RunEvent[]): Promise<void>; touch(): Promise<void> },
    private readonly log: Logger,
  ) {
    this.seq = run.afterSeq;
  }

  /** The sequence number of the last event emitted (sealed text included). */
  get lastSeq(): number {
    return this.seq;
  }

  emit(event: ApiEvent): void {
    if (event.event === 'token') {
      if (this.text && this.text.agent !== event.data.agent) this.sealText();
      this.text ??= { agent: event.data.agent, content: '' };
      this.text.content += event.data.content;
      if (this.text.content.length >= TOKEN_FLUSH_CHARS) this.sealText();
      else this.textTimer ??= setTimeout(() => this.sealText(), TOKEN_FLUSH_MS);
      return;
    }
    this.sealText();
    this.seal(event);
  }

  /** Resolves once everything emitted so far is stored and sent. */
  async flush(): Promise<void> {
    this.sealText();
    while (this.writing) await this.writing;
  }

  private sealText(): void {
    clearTimeout(this.textTimer);
    this.textTimer = undefined;
    if (!this.text) return;
    const { agent, content } = this.text;
    this.text = undefined;
    this.seal({ event: 'token', data: { content, agent } });
  }

  private seal(event: ApiEvent): void {
    this.seq += 1;
    const data = JSON.stringify({ session_id: this.run.sessionId, ...event.data });
    this.sealed.push({
      runId: this.run.runId,
      seq: this.seq,
      event: event.event,
      data: redactKnown(data, this.run.secrets),
    });
    this.writing ??= this.drain();
  }

  /** Writes sealed events in batches until none are left; what gathers during a write goes in the next batch. */
  private async drain(): Promise<void> {
    await Promise.resolve();
    while (this.sealed.length) {
      const batch = this.sealed;
      this.sealed = [];
      await this.sink
        .write(batch)
        .catch((error) => this.log.error({ err: error, runId: this.run.runId }, 'run events not stored'));
      if (Date.now() - this.lastTouch > TOUCH_MS) {
        this.lastTouch = Date.now();
        await this.sink.touch().catch(() => undefined);
      }
    }
    this.writing = undefined;
  }
}
