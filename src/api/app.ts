import fs from 'node:fs';
import path from 'node:path';
import { serveStatic } from '@hono/node-server/serve-static';
import { type Context, Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { z } from 'zod';
import type { AgentSuggestions } from '../agent/index.ts';
import { HumanDecisionSchema } from '../protocol/index.ts';
import {
  bodyLimitProblem,
  httpServerSpans,
  type Logger,
  markConversation,
  notFound,
  ProblemError,
  problemErrorHandler,
  problemResponse,
  redactKnown,
  traceIdMiddleware,
} from '../shared/index.ts';
import type { OrderApprovals } from './approvals.ts';
import type { ApiUser, ErpUsers } from './auth.ts';
import type { DemoSignIn } from './demo.ts';
import { MAX_SEQ, type RunEventLog } from './events.ts';
import { EXPORT_FORMATS, type ReportExports } from './exports.ts';
import type { History } from './history.ts';
import type { OrderNotices } from './order-notices.ts';
import type { RunManager, RunRef } from './runs.ts';
import type { Scheduler } from './scheduler.ts';
import type { Schedules } from './schedules.ts';
import type { UsageLedger } from './usage.ts';

type Env = { Variables: { user: ApiUser; traceId: string } };

export const MAX_BODY_BYTES = 64 * 1024;
export const MAX_MESSAGE_CHARS = 8_000;
const HEARTBEAT_MS = 15_000;
/** Routes answered without a bearer token. */
const PUBLIC_PATHS = new Set(['/api/v1/health', '/api/v1/ready', '/api/v1/demo-users', '/api/v1/demo-sign-in']);

// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
const NoControl = /^[^\u0000-\u0008\u000b\u000c\u000e-\u001f]*$/;
const SessionId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, '1–64 of A-Z a-z 0-9 _ -');

const StartBody = z.strictObject({
  message: z.string().trim().min(1).max(MAX_MESSAGE_CHARS).regex(NoControl, 'control characters are not allowed'),
  session_id: SessionId.optional(),
});
const ResumeBody = z.strictObject({
  session_id: SessionId,
  interrupt_id: z.string().min(1).max(200),
  decision: HumanDecisionSchema,
});
const CancelBody = z.strictObject({ session_id: SessionId });
const DemoSignInBody = z.strictObject({ username: z.string().min(1).max(64) });
const RetryBody = z.strictObject({ session_id: SessionId });
const UsageQuery = z.object({ days: z.coerce.number().int().min(1).max(366).default(30) });
const RenameBody = z.strictObject({
  title: z.string().trim().min(1).max(200).regex(NoControl, 'control characters are not allowed'),
});
const OrderIdParam = z.coerce.number().int().positive().max(2_147_483_647);
const ApprovalBody = z.strictObject({
  decision: z.enum(['approve', 'reject']),
  version: z.number().int().positive(),
  comment: z.string().trim().max(500).regex(NoControl, 'control characters are not allowed').optional(),
});
const ScheduleFields = {
  name: z.string().trim().min(1).max(100).regex(NoControl, 'control characters are not allowed'),
  cron: z.string().trim().min(1).max(100),
  timezone: z.string().trim().min(1).max(64).optional(),
};
/** Part codes and category names a price watch names. */
const WatchedName = z.string().trim().min(1).max(64).regex(NoControl, 'control characters are not allowed');
const ScheduleBody = z.discriminatedUnion('kind', [
  z.strictObject({ ...ScheduleFields, kind: z.literal('inventory_digest') }),
  z
    .strictObject({
      ...ScheduleFields,
      kind: z.literal('price_watch'),
      parts: z.array(WatchedName).max(50).default([]),
      categories: z.array(WatchedName).max(20).default([]),
      threshold_pct: z.number().positive().max(1000),
    })
    .refine((b) => b.parts.length + b.categories.length > 0, {
      message: 'name at least one part or category',
      path: ['parts'],
    }),
  z.strictObject({
    ...ScheduleFields,
    kind: z.literal('custom'),
    request: z.string().trim().min(1).max(MAX_MESSAGE_CHARS).regex(NoControl, 'control characters are not allowed'),
  }),
]);
const ScheduleId = z.uuid();
const FileQuery = z.object({ format: z.enum(EXPORT_FORMATS).optional() });
const PageQuery = z.object({
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  size: z.coerce.number().int().min(1).max(100).default(20),
});

export interface ApiAppDeps {
  users: ErpUsers;
  runs: RunManager;
  events: RunEventLog;
  history: History;
  exports: ReportExports;
  approvals: OrderApprovals;
  /** Tells the conversation that drafted an order what the admin decided. */
  notices: OrderNotices;
  schedules: Schedules;
  scheduler: Scheduler;
  usage: UsageLedger;
  /** Readiness checks by name; each resolves when its dependency answers. */
  readiness: Record<string, () => Promise<unknown>>;
  /** Built browser UI (`web/dist`), served at `/` when it exists. */
  webDir?: string;
  /** Origins the browser UI may load images from besides itself (the chart renderer's). */
  imageOrigins?: string[];
  /** Embedded mode's one-click demo sign-in (offers nothing outside embedded mode). */
  demo: DemoSignIn;
  /** Example requests built from the user's catalogue, and whether the offline model answers. */
  suggestions: (user: ApiUser, traceId: string) => Promise<AgentSuggestions>;
  log: Logger;
}

/** The chat API: SSE chat stream, resume, cancel, history and files under `/api/v1`, the browser UI at `/`. */
export function createApiApp(deps: ApiAppDeps): Hono<Env> {
  const app = new Hono<Env>();
  const { users, runs, events, history, log } = deps;

  app.use('*', httpServerSpans('procura.api'));
  app.use('*', traceIdMiddleware());
  app.use('/api/*', bodyLimitProblem(MAX_BODY_BYTES));
  app.use('/api/v1/*', async (c, next) => {
    if (PUBLIC_PATHS.has(c.req.path)) return next();
    const authorization = deps.demo.authorization(c.req.header('authorization'));
    c.set('user', await users.resolve(authorization, c.req.header('x-project-id') || undefined));
    await next();
  });

  app.onError(problemErrorHandler(log, 'API'));

  app.get('/api/v1/health', (c) => c.json({ status: 'ok', running_runs: runs.running }));
  app.get('/api/v1/demo-users', (c) => c.json(deps.demo.list(c)));
  app.post('/api/v1/demo-sign-in', async (c) => {
    const body = await parseJson(c, DemoSignInBody);
    c.header('cache-control', 'no-store');
    return c.json(deps.demo.signIn(c, body.username), 201);
  });
  app.get('/api/v1/ready', async (c) => {
    const checks = await Promise.all(
      Object.entries(deps.readiness).map(async ([name, check]) => {
        try {
          return [name, { ok: true, detail: await check() }] as const;
        } catch (error) {
          return [name, { ok: false, detail: redactKnown((error as Error).message) }] as const;
        }
      }),
    );
    const ready = checks.every(([, r]) => r.ok);
    return c.json({ status: ready ? 'ready' : 'not_ready', checks: Object.fromEntries(checks) }, ready ? 200 : 503);
  });

  app.get('/api/v1/me', (c) => {
    const { username, displayName, role, projectId } = c.var.user;
    return c.json({ username, display_name: displayName, role, project_id: projectId });
  });

  app.post('/api/v1/agent/chat/stream', async (c) => {
    const body = await parseJson(c, StartBody);
    const ref = await runs.start(c.var.user, { message: body.message, sessionId: body.session_id });
    return sse(c, events, ref, log);
  });

  app.get('/api/v1/agent/suggestions', async (c) => c.json(await deps.suggestions(c.var.user, c.var.traceId)));

  app.get('/api/v1/agent/chat/stream/:session_id', async (c) => {
    const sessionId = parse(SessionId, c.req.param('session_id'), 'session_id');
    const lastEventId = c.req.header('last-event-id') ?? c.req.query('last_event_id') ?? '0';
    const afterSeq = parse(z.coerce.number().int().min(0).max(MAX_SEQ), lastEventId, 'Last-Event-ID');
    const user = c.var.user;
    // Decisions on the session's orders made while nobody followed it come first; while one of its orders still
    // waits for an admin, the stream keeps asking.
    const waiting = await deps.notices.check(user, sessionId);
    const ref = await runs.join(user, sessionId, afterSeq);
    if (!ref) throw notFound(`会话还没有任务 / no run in session ${sessionId}`);
    const recheck = waiting ? () => deps.notices.check(user, sessionId) : undefined;
    return sse(c, events, ref, log, recheck, deps.notices.pollMs);
  });

  app.post('/api/v1/agent/chat/resume', async (c) => {
    const body = await parseJson(c, ResumeBody);
    const ref = await runs.resume(c.var.user, {
      sessionId: body.session_id,
      interruptId: body.interrupt_id,
      decision: body.decision,
    });
    return sse(c, events, ref, log);
  });

  app.post('/api/v1/agent/chat/retry', async (c) => {
    const body = await parseJson(c, RetryBody);
    return sse(c, events, await runs.retry(c.var.user, body.session_id), log);
  });

  app.get('/api/v1/admin/usage', async (c) => {
    const q = parse(UsageQuery, c.req.query(), 'query');
    return c.json(await deps.usage.perUserDay(c.var.user, q.days));
  });

  app.post('/api/v1/agent/chat/cancel', async (c) => {
    const body = await parseJson(c, CancelBody);
    return c.json(await runs.cancel(c.var.user, body.session_id), 202);
  });

  app.get('/api/v1/approvals', async (c) => c.json(await deps.approvals.pending(c.var.user)));
  app.post('/api/v1/approvals/:order_id', async (c) => {
    const body = await parseJson(c, ApprovalBody);
    const order = await deps.approvals.decide(
      c.var.user,
      parse(OrderIdParam, c.req.param('order_id'), 'order_id'),
      body,
    );
    await deps.notices.decided(order);
    return c.json(order);
  });

  app.get('/api/v1/schedules', async (c) => c.json(await deps.schedules.list(c.var.user)));
  app.post('/api/v1/schedules', async (c) => {
    const body = await parseJson(c, ScheduleBody);
    return c.json(await deps.schedules.create(c.var.user, body), 201);
  });
  app.delete('/api/v1/schedules/:id', async (c) => {
    await deps.schedules.delete(c.var.user, scheduleId(c.req.param('id')));
    return c.body(null, 204);
  });
  app.post('/api/v1/schedules/:id/run', async (c) =>
    c.json(await deps.scheduler.runNow(c.var.user, scheduleId(c.req.param('id'))), 202),
  );

  app.get('/api/v1/history/sessions', async (c) => {
    const q = parse(PageQuery, c.req.query(), 'query');
    return c.json(await history.list(c.var.user, q.page, q.size));
  });
  app.get('/api/v1/history/sessions/:id', async (c) => {
    const id = parse(SessionId, c.req.param('id'), 'id');
    await deps.notices.check(c.var.user, id);
    return c.json(await history.get(c.var.user, id));
  });
  app.patch('/api/v1/history/sessions/:id', async (c) => {
    const body = await parseJson(c, RenameBody);
    return c.json(await history.rename(c.var.user, parse(SessionId, c.req.param('id'), 'id'), body.title));
  });
  app.delete('/api/v1/history/sessions/:id', async (c) => {
    await history.delete(c.var.user, parse(SessionId, c.req.param('id'), 'id'));
    return c.body(null, 204);
  });

  app.get('/api/v1/files/:session_id/*', async (c) => {
    const sessionId = parse(SessionId, c.req.param('session_id'), 'session_id');
    const prefix = `/api/v1/files/${sessionId}/`;
    const filePath = decodePathPart(c.req.path.slice(prefix.length));
    const { format } = parse(FileQuery, c.req.query(), 'query');
    const file = format
      ? await deps.exports.export(c.var.user, sessionId, filePath, format)
      : { ...(await history.download(c.var.user, sessionId, filePath)), contentType: undefined };
    return c.body(file.bytes as Uint8Array<ArrayBuffer>, 200, {
      'content-type': file.contentType ?? contentType(file.name),
      'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(file.name)}`,
      'x-content-type-options': 'nosniff',
    });
  });

  app.all('/api/*', (c) =>
    problemResponse(c, new ProblemError(404, 'not_found', `没有这个接口 / no route ${c.req.method} ${c.req.path}`)),
  );

  const webDir = deps.webDir;
  if (webDir && fs.existsSync(path.join(webDir, 'index.html'))) {
    const root = path.relative(process.cwd(), webDir) || '.';
    const policy = uiContentSecurityPolicy(deps.imageOrigins ?? []);
    app.use('*', async (c, next) => {
      await next();
      c.header('content-security-policy', policy);
    });
    app.use('*', serveStatic({ root }));
    // Single-page app: every other GET is the UI's own route.
    app.get('*', serveStatic({ root, path: 'index.html' }));
  }
  app.notFound((c) =>
    problemResponse(c, new ProblemError(404, 'not_found', `没有这个页面 / nothing at ${c.req.path}`)),
  );
  return app;
}

/**
 * What the browser UI may load: its own code, style sheets (no inline styles) and API, and images from itself and
 * the chart renderer.
 * Answers are model output, which a hostile web page can steer: an image from anywhere else could carry data away
 * in its address, so the browser refuses it.
 */
export function uiContentSecurityPolicy(imageOrigins: string[]): string {
  const images = ["'self'", 'data:', 'blob:', ...imageOrigins.map((o) => new URL(o).origin)];
  return [
    "default-src 'self'",
    "script-src 'self'",
    // No inline styles: nothing in an answer can restyle the page (the approval card above all).
    "style-src 'self'",
    `img-src ${[...new Set(images)].join(' ')}`,
    "connect-src 'self'",
    "font-src 'self' data:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * The SSE response following one run from `afterSeq`: replay then live, `id:` = sequence in the run, heartbeat
 * comments every 15 s, no proxy buffering. A client going away stops only its own stream, never the run. With
 * `recheck`, it is called every `recheckMs` while the stream is open, until it answers false.
 */
function sse(
  c: Context<Env>,
  events: RunEventLog,
  ref: RunRef,
  log: Logger,
  recheck?: () => Promise<boolean>,
  recheckMs = 0,
): Response {
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
      for await (const event of events.follow(ref.runId, ref.afterSeq, stop.signal, ref.resumedAfter)) {
        await stream.writeSSE({ id: String(event.seq), event: event.event, data: event.data });
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
      clearInterval(rechecks);
    }
  });
}

async function parseJson<T extends z.ZodType>(c: Context<Env>, schema: T): Promise<z.infer<T>> {
  if (!/^application\/json\b/i.test(c.req.header('content-type') ?? '')) {
    throw new ProblemError(415, 'unsupported_media_type', '请求体须为 JSON / the body must be application/json');
  }
  let raw: unknown;
  try {
    raw = await c.req.json();
  } catch {
    throw new ProblemError(400, 'bad_request', '请求体不是有效的 JSON / the body is not valid JSON');
  }
  return parse(schema, raw, '(body)');
}

/** A schedule id that is not a UUID names no schedule: 404 like any other missing one. */
function scheduleId(raw: string): string {
  if (!ScheduleId.safeParse(raw).success) throw notFound(`没有这个定时任务 / no schedule ${raw.slice(0, 64)}`);
  return raw;
}

/** `decodeURIComponent` that answers a malformed escape (`%ZZ`, a cut `%E0%A4%A`) with 400 instead of a URIError. */
function decodePathPart(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new ProblemError(400, 'bad_request', '路径含有无效的百分号转义 / the path has a malformed percent-escape');
  }
}

function parse<T extends z.ZodType>(schema: T, value: unknown, where: string): z.infer<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const errors = result.error.issues.slice(0, 20).map((issue) => ({
    field: issue.path.join('.') || where,
    message: issue.message,
  }));
  throw new ProblemError(422, 'validation_failed', '字段校验失败 / invalid fields', { errors });
}

const CONTENT_TYPES: Record<string, string> = {
  '.md': 'text/markdown; charset=utf-8',
  '.csv': 'text/csv; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.html': 'text/html; charset=utf-8',
  '.pdf': 'application/pdf',
  '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

function contentType(name: string): string {
  return CONTENT_TYPES[path.extname(name).toLowerCase()] ?? 'application/octet-stream';
}
