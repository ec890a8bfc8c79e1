import { z } from 'zod';
import { MAX_MESSAGE_CHARS, NoControl } from '../schemas.ts';

const ScheduleFields = {
  name: z.string().trim().min(1).max(100).regex(NoControl, 'control characters are not allowed'),
  cron: z.string().trim().min(1).max(100),
  timezone: z.string().trim().min(1).max(64).optional(),
};
/** Part codes and category names a price watch names. */
const WatchedName = z.string().trim().min(1).max(64).regex(NoControl, 'control characters are not allowed');
export const ScheduleBody = z.discriminatedUnion('kind', [
  z.strictObject({ ...ScheduleFields, kind: z.literal('inventory_digest') }),
  z.strictObject({ ...ScheduleFields, kind: z.literal('rfq_digest') }),
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
export const ScheduleId = z.uuid();
