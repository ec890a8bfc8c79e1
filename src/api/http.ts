import type { Context } from 'hono';
import type { z } from 'zod';
import { ProblemError, validationFailed } from '../shared/index.ts';
import type { ApiUser } from './auth.ts';

/**
 * What every chat API route sees: the user the request acts for (set at the edge), whether their token still signs
 * them in (asked again while a stream stays open) and the trace id.
 */
export type ApiEnv = { Variables: { user: ApiUser; signedIn: () => Promise<boolean>; traceId: string } };

/** The JSON body checked against `schema`: 415 when it is not JSON, 400 when it does not parse, 422 naming the fields. */
export async function parseJson<T extends z.ZodType>(c: Context<ApiEnv>, schema: T): Promise<z.infer<T>> {
  if (!/^application\/json\b/i.test(c.req.header('content-type') ?? '')) {
    throw new ProblemError(415, 'unsupported_media_type', '请求体须为 JSON / the body must be application/json');
  }
  let raw: unknown;
  try {
    raw = await c.req.json();
  } catch {
    throw new ProblemError(400, 'bad_request', '请求体不是有效的 JSON / the body is not valid JSON');
  }
  return parseInput(schema, raw, '(body)');
}

/** A path parameter, query or header checked against `schema`; `where` names it in the 422 when the check fails. */
export function parseInput<T extends z.ZodType>(schema: T, value: unknown, where: string): z.infer<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw validationFailed(result.error.issues, where);
}
