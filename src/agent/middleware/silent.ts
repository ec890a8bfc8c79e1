import { logger } from '../../shared/index.ts';
import { runContext } from '../context.ts';

const log = logger.child({ part: 'agent' });

/**
 * Runs a middleware hook so that a failure is logged (with the run's trace id) and swallowed: a broken
 * middleware never takes the agent down (seed: 静默失败 > 崩溃).
 */
export async function silently<T>(
  middleware: string,
  runtime: { context?: unknown } | undefined,
  work: () => Promise<T>,
): Promise<T | undefined> {
  try {
    return await work();
  } catch (error) {
    if ((error as { is_bubble_up?: boolean } | undefined)?.is_bubble_up) throw error;
    log.warn(
      { err: error, middleware, traceId: runContext(runtime)?.traceId },
      'middleware failed; continuing without it',
    );
    return undefined;
  }
}
