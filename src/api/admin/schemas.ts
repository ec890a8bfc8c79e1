import { z } from 'zod';

export const DemoSignInBody = z.strictObject({ username: z.string().min(1).max(64) });
export const UsageQuery = z.object({ days: z.coerce.number().int().min(1).max(366).default(30) });
