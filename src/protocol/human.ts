import { z } from 'zod';

export interface ChoiceOption {
  label: string;
  value: string;
}

/** What the ids of an order write stand for (supplier and part names, list prices), for a readable approval card. */
export interface ApprovalDetails {
  supplier?: string;
  lines?: Array<{
    partId: number;
    code: string;
    name: string;
    unit: string;
    listPrice: number;
    /** The price the order would pay against the project's 12-month history (absent when the check failed). */
    priceCheck?: {
      unitPrice: number;
      severity: 'ok' | 'info' | 'warn' | 'critical' | 'unknown';
      deviationPct: number | null;
      median12m: number | null;
    };
  }>;
  order?: { orderNo: string; status: string; totalAmount: number };
  /**
   * A new order as the ERP would write it (its `order_preview`, the same code as the write, rolled back): the total,
   * and the approval policy's decision had it been submitted — or why the ERP would refuse it.
   */
  preview?:
    | {
        totalAmount: number;
        approval: { rule: 'auto-approved' | 'needs-admin' | 'admin-approved' | 'admin-rejected'; reason: string };
      }
    | { refused: string };
  /** A skill about to persist for every later session: where it goes and its SKILL.md as it will be loaded. */
  skill?: { agent: string; target: string; files: string[]; text: string; truncated: boolean };
}

export type ApprovalAction = 'approve' | 'edit' | 'reject';

/** What a paused run waits for; the chat API sends it as an `interrupt` event. */
export type HumanRequest =
  | { kind: 'ask_user'; question: string; options: ChoiceOption[]; multiple: boolean }
  | { kind: 'order_info'; fields: string[]; known: Record<string, unknown>; reason?: string }
  | {
      kind: 'approval';
      tool: string;
      label: string;
      args: Record<string, unknown>;
      allowed: ApprovalAction[];
      details?: ApprovalDetails;
    };

/** A human's reply to an interrupt, validated where it enters (the resume endpoint). */
export const HumanDecisionSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('approve') }),
  z.strictObject({ type: z.literal('edit'), args: z.record(z.string(), z.unknown()) }),
  z.strictObject({ type: z.literal('reject'), reason: z.string().max(1000).optional() }),
  z.strictObject({
    type: z.literal('answer'),
    answer: z.union([z.string().max(2000), z.array(z.string().max(200)).max(20), z.record(z.string(), z.unknown())]),
  }),
]);
export type HumanDecision = z.infer<typeof HumanDecisionSchema>;
