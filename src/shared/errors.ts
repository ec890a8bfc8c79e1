/** A failure with an HTTP meaning. Thrown by services, rendered once (as problem+json) at the edge. */
export class ProblemError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'ProblemError';
  }
}

export interface FieldError {
  field: string;
  message: string;
}

export const badRequest = (message: string, extra?: Record<string, unknown>) =>
  new ProblemError(400, 'bad_request', message, extra);
export const unauthorized = (message = '缺少或无效的访问令牌 / missing or invalid bearer token') =>
  new ProblemError(401, 'unauthorized', message);
export const forbidden = (message: string) => new ProblemError(403, 'forbidden', message);
export const notFound = (message: string) => new ProblemError(404, 'not_found', message);
export const conflict = (message: string, extra?: Record<string, unknown>) =>
  new ProblemError(409, 'conflict', message, extra);
export const unprocessable = (message: string, errors: FieldError[]) =>
  new ProblemError(422, 'validation_failed', message, { errors });

/** What a schema validator says about one bad value (zod's issues have this shape). */
export interface ValidationIssue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

/**
 * A failed schema check as the one answer both HTTP APIs give it: 422 `validation_failed`, naming each bad field
 * (the first 20). An issue without a path is about the value as a whole, named by `where` (`(body)`, `query`, a
 * path parameter).
 */
export function validationFailed(issues: readonly ValidationIssue[], where: string): ProblemError {
  const errors: FieldError[] = issues.slice(0, 20).map((issue) => ({
    field: issue.path.join('.') || where,
    message: issue.message,
  }));
  return unprocessable('字段校验失败 / invalid fields', errors);
}

/**
 * The first error named `name` inside `error`: itself, its causes, or the errors of an aggregate (parallel steps of
 * a graph fail together as one AggregateError). Matched by name because the graph runtime hands on copies of what a
 * node threw.
 */
export function findNamedError(error: unknown, name: string): (Error & Record<string, unknown>) | undefined {
  const queue: unknown[] = [error];
  for (let seen = 0; queue.length > 0 && seen < 20; seen++) {
    const e = queue.shift() as { name?: string; message?: string; cause?: unknown; errors?: unknown } | undefined;
    if (!e || typeof e !== 'object') continue;
    if (e.name === name && e.message) return e as Error & Record<string, unknown>;
    if (e.cause) queue.push(e.cause);
    if (Array.isArray(e.errors)) queue.push(...e.errors);
  }
  return undefined;
}
