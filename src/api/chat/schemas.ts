import { z } from 'zod';
import { HumanDecisionSchema } from '../../protocol/index.ts';
import { MAX_MESSAGE_CHARS, NoControl, SessionId } from '../schemas.ts';
import { MAX_SEQ } from './run-store.ts';

export const StartBody = z.strictObject({
  message: z.string().trim().min(1).max(MAX_MESSAGE_CHARS).regex(NoControl, 'control characters are not allowed'),
  session_id: SessionId.optional(),
});
export const ResumeBody = z.strictObject({
  session_id: SessionId,
  interrupt_id: z.string().min(1).max(200),
  decision: HumanDecisionSchema,
});
export const CancelBody = z.strictObject({ session_id: SessionId });
export const RetryBody = z.strictObject({ session_id: SessionId });
/** The last event a reconnecting client saw (`Last-Event-ID` or `?last_event_id=`). */
export const LastEventId = z.coerce.number().int().min(0).max(MAX_SEQ);
export const RejoinQuery = z.object({ last_event_id: LastEventId.optional() });
/**
 * A key the client picks for one message (`Idempotency-Key`): a retry of the same POST with it joins the run the
 * first one started instead of starting another.
 */
export const IdempotencyKey = z
  .string()
  .regex(/^[\x21-\x7e]{1,255}$/, '1–255 visible ASCII characters')
  .describe('同一消息的重试携带同一个键 / the same key on every retry of one message');
export const RenameBody = z.strictObject({
  title: z.string().trim().min(1).max(200).regex(NoControl, 'control characters are not allowed'),
});
export const PageQuery = z.object({
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  size: z.coerce.number().int().min(1).max(100).default(20),
});
