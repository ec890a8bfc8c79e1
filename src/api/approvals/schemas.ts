import { z } from 'zod';
import { NoControl } from '../schemas.ts';

export const OrderIdParam = z.coerce.number().int().positive().max(2_147_483_647);
export const ApprovalBody = z.strictObject({
  decision: z.enum(['approve', 'reject']),
  version: z.number().int().positive(),
  comment: z.string().trim().max(500).regex(NoControl, 'control characters are not allowed').optional(),
});
