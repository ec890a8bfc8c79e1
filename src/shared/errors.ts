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
