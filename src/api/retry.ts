import type { Kysely } from 'kysely';
import { conflict } from '../shared/index.ts';
import type { ApiTables, RunStatus } from './db.ts';

/** Ended runs that can be taken up again from their last checkpoint. */
const RETRYABLE: RunStatus[] = ['error', 'cancelled'];

/**
 * Claims the session's latest run for a retry: it must have failed or been interrupted (cancelled, or left by a
 * restart). The error/cancelled → running flip is the lock, so two retries never both run. Returns the run's id.
 */
export async function claimRetry(db: Kysely<ApiTables>, sessionId: string): Promise<string> {
  const latest = await db
    .selectFrom('chat_runs')
    .select(['id', 'status'])
    .where('session_id', '=', sessionId)
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  if (!latest || !RETRYABLE.includes(latest.status)) {
    throw conflict('没有可重试的失败任务 / the latest run did not fail: nothing to retry', {
      session_id: sessionId,
      run_id: latest?.id,
      run_status: latest?.status,
    });
  }
  const claimed = await db
    .updateTable('chat_runs')
    .set({ status: 'running', pending: null, updated_at: new Date().toISOString() })
    .where('id', '=', latest.id)
    .where('status', 'in', RETRYABLE)
    .executeTakeFirst();
  if (Number(claimed.numUpdatedRows) !== 1) {
    throw conflict('该任务已在重试中 / this run is already being retried', { run_id: latest.id });
  }
  return latest.id;
}
