import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { type Logger, markConversation } from '../../shared/index.ts';
import type { ApiEnv } from '../http.ts';
import type { RunEventLog } from './events.ts';
import type { RunEvent } from './run-store.ts';
import type { RunRef } from './runs.ts';

/** One SSE message as written: `event:`, `data:` (JSON text) and, when it has one, `id:`. */
export interface SseMessage {
  id?: string;
  event: string;
  data: string;
}

/**
 * How a stream writes a run's events for another protocol: what it sends first, what each stored event becomes
 * (ids must stay the event's sequence, so `Last-Event-ID` resumes after it), and what it sends once the run ended.
 */
export interface SseFormat {
  start(): SseMessage[];
  translate(event: RunEvent): Promise<SseMessage[]>;
}

export interface SseOptions {
  /** Called every `recheckMs` while the stream is open, until it answers false. */
  recheck?: () => Promise<boolean>;
  recheckMs?: number;
  /** Procura's own events by default. */
  format?: SseFormat;
}

const HEARTBEAT_MS = 15_000;
/** How often an open stream asks whether its user's token still signs them in (answered from a cache of 4 s). */
export const SIGNED_IN_CHECK_MS = 1_000;

/**
 * The SSE response following one run from `afterSeq`: replay then live, `id:` = sequence in the run, heartbeat
 * comments every 15 s, no proxy buffering; closed at once for a run that ended and whose last event the client has
 * seen. A client going away stops only its own stream, never the run. A stream whose user's token is revoked ends
 * with an `error` event (`detail: unauthorized`) within 10 s. With a `format`, the events are written in another
 * protocol's shape (the Agent Protocol's), with the same replay, heartbeats and sign-in checks.
 */
export function sse(
  c: Context<ApiEnv>,
  events: RunEventLog,
  ref: RunRef,
  log: Logger,
  options: SseOptions = {},
): Response {
  const { recheck, recheckMs = 0, format } = options;
  markConversation({ sessionId: ref.sessionId, userId: c.var.user.username, runId: ref.runId });
  c.header('X-Accel-Buffering', 'no');
  c.header('Cache-Control', 'no-cache, no-transform');
  c.header('X-Session-Id', ref.sessionId);
  c.header('X-Run-Id', ref.runId);
  return streamSSE(c, async (stream) => {
    const stop = new AbortController();
    stream.onAbort(() => stop.abort());
    const heartbeat = setInterval(() => {
      stream.write(': heartbeat\n\n').catch(() => stop.abort());
    }, HEARTBEAT_MS);
    let revoked = false;
    const signedIn = c.var.signedIn;
    let asking = false;
    const signInChecks = setInterval(() => {
      if (asking || !signedIn) return;
      asking = true;
      void signedIn()
        .then((ok) => {
          if (ok) return;
          revoked = true;
          stop.abort();
        })
        .catch(() => undefined)
        .finally(() => {
          asking = false;
        });
    }, SIGNED_IN_CHECK_MS);
    let checking = false;
    const rechecks = recheck
      ? setInterval(() => {
          if (checking) return;
          checking = true;
          void recheck()
            .then((again) => {
              if (!again) clearInterval(rechecks);
            })
            .finally(() => {
              checking = false;
            });
        }, recheckMs)
      : undefined;
    try {
      // A run that ended and whose last event the client saw has nothing more to send: the stream closes at once —
      // unless one of the session's orders still waits for an admin, whose decision is appended to this run.
      for (const message of format?.start() ?? []) await stream.writeSSE(message);
      if (ref.ended && !recheck) return;
      for await (const event of events.follow(ref.runId, ref.afterSeq, stop.signal, ref.resumedAfter)) {
        if (revoked) break;
        const messages = format
          ? await format.translate(event)
          : [{ id: String(event.seq), event: event.event, data: event.data }];
        for (const message of messages) await stream.writeSSE(message);
      }
      // A run ended by the revocation itself (its runs are cancelled) ends before the periodic check notices: ask once.
      if (!revoked && signedIn && !(await signedIn().catch(() => true))) revoked = true;
      if (revoked) {
        await stream.writeSSE({
          event: 'error',
          data: JSON.stringify({
            session_id: ref.sessionId,
            message: '登录已失效，请重新登录 / your sign-in was revoked: sign in again',
            detail: 'unauthorized',
          }),
        });
      }
    } catch (error) {
      // The run goes on; this stream cannot. Say so, so the client reconnects instead of waiting.
      log.error({ err: error, runId: ref.runId }, 'event stream failed');
      await stream
        .writeSSE({
          event: 'error',
          data: JSON.stringify({
            session_id: ref.sessionId,
            message: '事件流中断，请重新连接 / the event stream broke: reconnect with Last-Event-ID',
            detail: 'stream',
          }),
        })
        .catch(() => undefined);
    } finally {
      clearInterval(heartbeat);
      clearInterval(signInChecks);
      clearInterval(rechecks);
    }
  });
}
