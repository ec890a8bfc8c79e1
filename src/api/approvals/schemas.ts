import { z } from 'zod';

export { AdminDecisionSchema as ApprovalBody } from '../../protocol/index.ts';
export const OrderIdParam = z.coerce.number().int().positive().max(2_147_483_647);
