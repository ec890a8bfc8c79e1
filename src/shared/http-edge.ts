import type { Context, ErrorHandler, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import { z } from 'zod';
import { ProblemError } from './errors.ts';
import type { Logger } from './logger.ts';

/** Variables every Procura HTTP app sets. */
export type EdgeVariables = { traceId: string };

const TRACE_ID = /^[\w.:-]{1,128}$/;

/** Whether a value is a well-formed trace id (what `x-trace-id` may carry through Procura's parts). */
export const isTraceId = (value: string | null | undefined): value is string => !!value && TRACE_ID.test(value);

/** Takes a well-formed `x-trace-id` or makes one, echoes it, and keeps it for logs and problem bodies. */
export function traceIdMiddleware(): MiddlewareHandler<{ Variables: EdgeVariables }> {
  return async (c, next) => {
    const incoming = c.req.header('x-trace-id');
    const traceId = isTraceId(incoming) ? incoming : crypto.randomUUID();
    c.set('traceId', traceId);
    c.header('x-trace-id', traceId);
    await next();
  };
}

/** The body of every error answer of Procura's HTTP APIs (RFC 9457 problem details plus a code and trace id). */
export const ProblemSchema = z.looseObject({
  type: z.string(),
  title: z.string(),
  status: z.number(),
  detail: z.string(),
  code: z.string(),
  traceId: z.string().optional(),
  errors: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
});

/** Renders a ProblemError as `application/problem+json` (with `Retry-After` when it carries one). */
export function problemResponse(c: Context, error: ProblemError): Response {
  const body = {
    type: `https://procura.dev/problems/${error.code}`,
    title: error.code,
    status: error.status,
    detail: error.message,
    code: error.code,
    traceId: c.get('traceId'),
    ...error.extra,
  };
  const headers: Record<string, string> = { 'content-type': 'application/problem+json; charset=utf-8' };
  if (typeof error.extra.retry_after === 'number') headers['retry-after'] = String(error.extra.retry_after);
  return c.body(JSON.stringify(body), error.status as 400, headers);
}

/** Requests that carry no body in Procura's APIs: nothing to limit, and nothing is ever read from one. */
const BODILESS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Refuses bodies over `maxBytes` with a 413 problem. */
export function bodyLimitProblem(maxBytes: number): MiddlewareHandler {
  const limit = bodyLimit({
    maxSize: maxBytes,
    onError: (c) =>
      problemResponse(
        c,
        new ProblemError(413, 'payload_too_large', `请求体超过 ${maxBytes} 字节 / body over ${maxBytes} bytes`),
      ),
  });
  // Looking for a body makes the Node adapter build a full web Request (a third of a search's HTTP cost).
  return (c, next) => (BODILESS.has(c.req.method) ? next() : limit(c, next));
}

/** Known failures render as their problem; framework 4xx (malformed JSON…) as 400-range problems; anything else is logged and a 500. */
export function problemErrorHandler(log: Logger, part: string): ErrorHandler {
  return (error, c) => {
    if (error instanceof ProblemError) return problemResponse(c, error);
    if (error instanceof HTTPException && error.status < 500) {
      const status = Math.max(error.status, 400);
      return problemResponse(
        c,
        new ProblemError(status, 'bad_request', `请求格式错误 / ${error.message || 'malformed request'}`),
      );
    }
    log.error({ err: error, traceId: c.get('traceId'), path: c.req.path }, `unexpected ${part} error`);
    return problemResponse(c, new ProblemError(500, 'internal', '服务器内部错误 / internal error'));
  };
}
