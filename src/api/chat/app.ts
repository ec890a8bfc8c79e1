import { Hono } from 'hono';
import type { AgentSuggestions } from '../../protocol/index.ts';
import { type Logger, notFound } from '../../shared/index.ts';
import type { ApiUser } from '../auth.ts';
import { type ApiEnv, parseInput, parseJson } from '../http.ts';
import { SessionId } from '../schemas.ts';
import type { RunEventLog } from './events.ts';
import type { History } from './history.ts';
import type { RunManager } from './runs.ts';
import { CancelBody, LastEventId, PageQuery, RenameBody, ResumeBody, RetryBody, StartBody } from './schemas.ts';
import { sse } from './sse.ts';

/**
 * Tells a session the decisions on its orders that were made while nobody followed it (the approvals feature's
 * order notices): checked when the session is opened or rejoined.
 */
export interface SessionNotices {
  /** True while one of the session's orders still waits for an admin: a followed stream asks again every `pollMs`. */
  check(user: ApiUser, sessionId: string): Promise<boolean>;
  readonly pollMs: number;
}

export interface ChatAppDeps {
  runs: RunManager;
  events: RunEventLog;
  history: History;
  notices: SessionNotices;
  /** Example requests built from the user's catalogue, and whether the offline model answers. */
  suggestions: (user: ApiUser, traceId: string) => Promise<AgentSuggestions>;
  log: Logger;
}

/** The chat: start, rejoin, resume, retry and cancel a run (each answered as an SSE stream), and session history. */
export function chatApp(deps: ChatAppDeps): Hono<ApiEnv> {
  const { runs, events, history, notices, log } = deps;
  const app = new Hono<ApiEnv>();

  app.post('/agent/chat/stream', async (c) => {
    const body = await parseJson(c, StartBody);
    const ref = await runs.start(c.var.user, { message: body.message, sessionId: body.session_id });
    return sse(c, events, ref, log);
  });

  app.get('/agent/suggestions', async (c) => c.json(await deps.suggestions(c.var.user, c.var.traceId)));

  app.get('/agent/chat/stream/:session_id', async (c) => {
    const sessionId = parseInput(SessionId, c.req.param('session_id'), 'session_id');
    const lastEventId = c.req.header('last-event-id') ?? c.req.query('last_event_id') ?? '0';
    const afterSeq = parseInput(LastEventId, lastEventId, 'Last-Event-ID');
    const user = c.var.user;
    // Decisions on the session's orders made while nobody followed it come first; while one of its orders still
    // waits for an admin, the stream keeps asking.
    const waiting = await notices.check(user, sessionId);
    const ref = await runs.join(user, sessionId, afterSeq);
    if (!ref) throw notFound(`会话还没有任务 / no run in session ${sessionId}`);
    const recheck = waiting ? () => notices.check(user, sessionId) : undefined;
    return sse(c, events, ref, log, recheck, notices.pollMs);
  });

  app.post('/agent/chat/resume', async (c) => {
    const body = await parseJson(c, ResumeBody);
    const ref = await runs.resume(c.var.user, {
      sessionId: body.session_id,
      interruptId: body.interrupt_id,
      decision: body.decision,
    });
    return sse(c, events, ref, log);
  });

  app.post('/agent/chat/retry', async (c) => {
    const body = await parseJson(c, RetryBody);
    return sse(c, events, await runs.retry(c.var.user, body.session_id), log);
  });

  app.post('/agent/chat/cancel', async (c) => {
    const body = await parseJson(c, CancelBody);
    return c.json(await runs.cancel(c.var.user, body.session_id), 202);
  });

  app.get('/history/sessions', async (c) => {
    const q = parseInput(PageQuery, c.req.query(), 'query');
    return c.json(await history.list(c.var.user, q.page, q.size));
  });
  app.get('/history/sessions/:id', async (c) => {
    const id = parseInput(SessionId, c.req.param('id'), 'id');
    await notices.check(c.var.user, id);
    return c.json(await history.get(c.var.user, id));
  });
  app.patch('/history/sessions/:id', async (c) => {
    const body = await parseJson(c, RenameBody);
    return c.json(await history.rename(c.var.user, parseInput(SessionId, c.req.param('id'), 'id'), body.title));
  });
  app.delete('/history/sessions/:id', async (c) => {
    await history.delete(c.var.user, parseInput(SessionId, c.req.param('id'), 'id'));
    return c.body(null, 204);
  });

  return app;
}
