import { z } from 'zod';
import { RoleSchema } from '../protocol/index.ts';
import type { ToolContext } from '../tools/index.ts';

/** Who a run acts for. Passed as the graph's runtime context on every invocation; never chosen by the model. */
export interface ProcuraRunContext extends ToolContext {
  /** Display name for the prompt; falls back to the user id. */
  username?: string;
  sessionId: string;
}

/** The run context, if a runtime carries one with a user. */
export function runContext(runtime: { context?: unknown } | undefined): ProcuraRunContext | undefined {
  const ctx = runtime?.context as Partial<ProcuraRunContext> | undefined;
  return ctx && typeof ctx.userId === 'string' && ctx.userId ? (ctx as ProcuraRunContext) : undefined;
}

/** Where a user's preferences live (store-backed, survives sessions). */
export const preferencesPath = (userId: string) => `/memories/${userId}/preferences.md`;

/**
 * The run context as middleware declares it: LangChain hands each middleware only the context fields its own
 * schema names. All optional, so a run without a user still runs (the middleware then skips itself).
 */
export const runContextSchema = z.looseObject({
  userId: z.string().optional(),
  role: RoleSchema.optional(),
  traceId: z.string().optional(),
  sessionId: z.string().optional(),
  token: z.string().optional(),
  projectId: z.string().optional(),
  username: z.string().optional(),
  readOnly: z.boolean().optional(),
});
