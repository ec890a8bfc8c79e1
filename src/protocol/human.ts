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

/** One field a person changed in an approval card: where in the arguments, what it was, what it became. */
export interface DecisionChange {
  /** `lines[1].quantity`, `expectedDate`: the path of the changed value in the tool's arguments. */
  field: string;
  from: unknown;
  to: unknown;
}

/**
 * A decided card as the conversation keeps it: what was asked (the tool's label or the question) and what the person
 * did — approved, edited (with what changed), rejected (with the comment) or answered (with the choice).
 */
export interface DecisionRecord {
  interrupt_id: string;
  kind: HumanRequest['kind'];
  /** The tool's label for an approval, the question for an `ask_user`, the missing fields for `order_info`. */
  subject: string;
  outcome: 'approved' | 'edited' | 'rejected' | 'answered';
  changes?: DecisionChange[];
  comment?: string;
  /** The chosen options' labels, or the text or fields typed. */
  answer?: string;
}

/** The record of `decision` on the request `interruptId` asked for. */
export function decisionRecord(interruptId: string, request: HumanRequest, decision: HumanDecision): DecisionRecord {
  const subject =
    request.kind === 'approval'
      ? request.label || request.tool
      : request.kind === 'ask_user'
        ? request.question
        : request.fields.join(', ');
  const base = { interrupt_id: interruptId, kind: request.kind, subject };
  switch (decision.type) {
    case 'approve':
      return { ...base, outcome: 'approved' };
    case 'edit':
      return {
        ...base,
        outcome: 'edited',
        changes: changesBetween(request.kind === 'approval' ? request.args : {}, decision.args),
      };
    case 'reject':
      return { ...base, outcome: 'rejected', ...(decision.reason ? { comment: decision.reason } : {}) };
    case 'answer':
      return { ...base, outcome: 'answered', answer: answerText(request, decision.answer) };
  }
}

/** The answer as a person reads it: option labels rather than their values, fields as `name: value`. */
function answerText(request: HumanRequest, answer: string | string[] | Record<string, unknown>): string {
  const labelOf = (value: string) =>
    (request.kind === 'ask_user' ? request.options.find((o) => o.value === value)?.label : undefined) ?? value;
  if (typeof answer === 'string') return labelOf(answer);
  if (Array.isArray(answer)) return answer.map(labelOf).join(', ');
  return Object.entries(answer)
    .map(([k, v]) => `${k}: ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`)
    .join(', ');
}

/** The leaf values that differ between two argument objects (lines by position, numbered from 1). */
function changesBetween(before: unknown, after: unknown, field = ''): DecisionChange[] {
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
  if (Array.isArray(before) && Array.isArray(after)) {
    const length = Math.max(before.length, after.length);
    return Array.from({ length }, (_, i) => changesBetween(before[i], after[i], `${field}[${i + 1}]`)).flat();
  }
  if (isObject(before) && isObject(after) && !Array.isArray(before) && !Array.isArray(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
    return keys.flatMap((k) => changesBetween(before[k], after[k], field ? `${field}.${k}` : k));
  }
  return JSON.stringify(before) === JSON.stringify(after) ? [] : [{ field, from: before ?? null, to: after ?? null }];
}
