import { createHash } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import { unprocessable } from '../../shared/index.ts';
import type { ErpTables } from '../db/schema.ts';
import { type ErpContext, nowIso } from './context.ts';

/** The column of `idempotency_keys` that records what a key's write made: an order, an RFQ, a goods receipt or a
 *  supplier invoice. */
export type IdempotentTarget = 'order_id' | 'rfq_id' | 'receipt_id' | 'invoice_id';

/**
 * Runs one write in a transaction, at most once per idempotency key (keys are the user's own): the first request
 * under a key writes and records the id it wrote in `target`; a retry with the same key and request gets that id back
 * as `replayed`, and a different request under the key (or one whose key recorded another kind of write) is refused.
 * A write that fails keeps no key, as the claim rolls back with it.
 */
export async function writeOnce(
  db: Kysely<ErpTables>,
  ctx: ErpContext,
  target: IdempotentTarget,
  idempotencyKey: string | undefined,
  request: unknown,
  write: (trx: Transaction<ErpTables>) => Promise<number>,
): Promise<{ id: number; replayed: boolean }> {
  const requestHash = createHash('sha256').update(JSON.stringify(request)).digest('hex');
  return db.transaction().execute(async (trx) => {
    if (idempotencyKey) {
      const claimed = await trx
        .insertInto('idempotency_keys')
        .values({
          user_id: ctx.userId,
          key: idempotencyKey,
          request_hash: requestHash,
          order_id: null,
          created_at: nowIso(),
        })
        .onConflict((oc) => oc.columns(['user_id', 'key']).doNothing())
        .returning('key')
        .executeTakeFirst();
      if (!claimed) {
        const prior = await trx
          .selectFrom('idempotency_keys')
          .select(['request_hash', 'order_id', 'rfq_id', 'receipt_id', 'invoice_id'])
          .where('user_id', '=', ctx.userId)
          .where('key', '=', idempotencyKey)
          .executeTakeFirstOrThrow();
        const priorId = prior[target];
        if (prior.request_hash !== requestHash || priorId === null)
          throw unprocessable('该幂等键已用于不同的请求 / Idempotency-Key was used with a different request', [
            { field: 'Idempotency-Key', message: 'reused with a different body' },
          ]);
        return { id: Number(priorId), replayed: true };
      }
    }
    const id = await write(trx);
    if (idempotencyKey)
      await trx
        .updateTable('idempotency_keys')
        .set({ [target]: id })
        .where('user_id', '=', ctx.userId)
        .where('key', '=', idempotencyKey)
        .execute();
    return { id, replayed: false };
  });
}
