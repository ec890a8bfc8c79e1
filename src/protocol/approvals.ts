import { z } from 'zod';

/** Text a person typed: no control characters besides tab and line breaks. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
export const NoControl = /^[^\u0000-\u0008\u000b\u000c\u000e-\u001f]*$/;

/** How a price compares with what the project paid for the same product over the last 12 months. */
export const PRICE_SEVERITIES = ['ok', 'info', 'warn', 'critical', 'unknown'] as const;
export type PriceSeverity = (typeof PRICE_SEVERITIES)[number];

/** A price check as people see it: the severity, the deviation from the 12-month median, and that median. */
export const PriceCheckViewSchema = z.object({
  severity: z.enum(PRICE_SEVERITIES),
  deviationPct: z.number().nullable(),
  median12m: z.number().nullable(),
});
export type PriceCheckView = z.infer<typeof PriceCheckViewSchema>;

/** What an admin does with an order waiting for approval. */
export const ADMIN_DECISIONS = ['approve', 'reject'] as const;

/** `POST /api/v1/approvals/{orderId}`: an admin's decision on the order at the version they read, with a comment. */
export const AdminDecisionSchema = z.strictObject({
  decision: z.enum(ADMIN_DECISIONS),
  version: z.number().int().positive(),
  comment: z.string().trim().max(500).regex(NoControl, 'control characters are not allowed').optional(),
});
export type AdminDecision = z.infer<typeof AdminDecisionSchema>;

/** An order waiting for approval as the queue shows it (the ERP's order answers carry at least this). */
export const PendingOrderViewSchema = z.object({
  id: z.number().int(),
  orderNo: z.string(),
  version: z.number().int(),
  supplier: z.object({ nameZh: z.string() }),
  totalAmount: z.number(),
  createdBy: z.object({ username: z.string() }),
  createdAt: z.string(),
  approval: z.object({ rule: z.string(), reason: z.string() }).nullable(),
  /** What the signed-in admin may do with it: under four eyes never approve an order they created or last changed. */
  permissions: z.object({ approve: z.boolean(), reason: z.string().nullable() }),
  lines: z.array(
    z.object({
      lineNo: z.number().int(),
      part: z.object({ code: z.string(), nameZh: z.string() }),
      quantity: z.number(),
      unitPrice: z.number(),
      priceCheck: PriceCheckViewSchema.nullable(),
    }),
  ),
});
export type PendingOrderView = z.infer<typeof PendingOrderViewSchema>;

/** `GET /api/v1/approvals`: the orders waiting for an admin. */
export const PendingOrdersSchema = z.object({
  items: z.array(PendingOrderViewSchema),
  total: z.number().int().nonnegative(),
});
export type PendingOrders = z.infer<typeof PendingOrdersSchema>;
