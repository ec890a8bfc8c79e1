import { z } from 'zod';
import type { PriceCheckView } from './approvals.ts';

export interface ChoiceOption {
  label: string;
  value: string;
}

/** What the ids of an order write stand for (supplier and part names, list prices), for a readable approval card. */
export interface ApprovalDetails {
  supplier?: string;
  /** The supplier's English name, when the ERP has one: the card names it so for a user reading English. */
  supplierEn?: string;
  lines?: Array<{
    partId: number;
    code: string;
    name: string;
    nameEn?: string;
    unit: string;
    listPrice: number;
    /** The price the order would pay against the project's 12-month history (absent when the check failed). */
    priceCheck?: PriceCheckView & { unitPrice: number };
    /** The quantity, for a write whose arguments name no lines (an award's order comes from the RFQ's quotes). */
    quantity?: number;
  }>;
  /** An RFQ award: the RFQ, whether the award closes it first (one decision for both), and where the proposal
   *  ranks the supplier and why. */
  award?: { rfqNo: string; closes: boolean; rank: number | null; ranked: number; why: string[] };
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

/**
 * The choice a question card ends with, after the offered options: the person types an answer of their own. Its
 * answer is `{ free_text }` (in place of an option's value), at most `maxLength` characters.
 */
export const FREE_TEXT_CHOICE = { label: '其他（自己填写）/ Other (type it)', maxLength: 200 } as const;

/** A typed answer in place of an option: the whole `ask_user` answer, or one field of an `order_info` answer. */
export type FreeText = { free_text: string };

/** Order fields a person answers with a number (a typed number is an answer of its own, options or not). */
export const NUMBER_FIELDS: readonly string[] = ['quantity', 'unitPrice'];

/** What a paused run waits for; the chat API sends it as an `interrupt` event. */
export type HumanRequest =
  | {
      kind: 'ask_user';
      question: string;
      options: ChoiceOption[];
      multiple: boolean;
      /** The card ends with "Other (type it)" and takes a `{ free_text }` answer (absent: options only). */
      free_text?: boolean;
    }
  | {
      kind: 'order_info';
      fields: string[];
      known: Record<string, unknown>;
      reason?: string;
      /** The request as understood, restated as the question (`要订火花塞，请选择供应商`). */
      question?: string;
      /** Choices for some of the fields (the ERP's candidates); such a field takes one of them or `{ free_text }`. */
      options?: Record<string, ChoiceOption[]>;
    }
  | {
      kind: 'approval';
      tool: string;
      label: string;
      args: Record<string, unknown>;
      allowed: ApprovalAction[];
      details?: ApprovalDetails;
      /**
       * The card of a call the person edited (the nth edit): its arguments and preview are the edit's, to approve as
       * shown. A card of its own, under an interrupt id of its own, so no answer meant for an earlier card answers it.
       */
      revision?: number;
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
type Answer = Extract<HumanDecision, { type: 'answer' }>['answer'];

/** Whether a value is a typed answer in place of an option. */
export const isFreeText = (value: unknown): value is FreeText =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  Object.keys(value).length === 1 &&
  typeof (value as FreeText).free_text === 'string';

/** Why a typed answer is not one: empty, or longer than the card allows. */
function typedProblem(value: FreeText): string | undefined {
  const length = value.free_text.trim().length;
  if (!length) return '自己填写的内容为空 / the typed answer is empty';
  if (length > FREE_TEXT_CHOICE.maxLength)
    return `自己填写的内容超过 ${FREE_TEXT_CHOICE.maxLength} 字 / the typed answer is longer than ${FREE_TEXT_CHOICE.maxLength} characters`;
  return undefined;
}

/**
 * Why an answer does not fit the question it answers (empty: it fits): an `ask_user` answer is an offered value (or
 * several, when several may be chosen) or a typed `{ free_text }`; an `order_info` answer gives each asked field
 * (the note may stay empty) an offered value, a typed `{ free_text }`, or — for a field without options or a number
 * field — the value itself. The tool and the resume endpoint both check with this.
 */
export function answerProblems(request: HumanRequest, answer: Answer): Array<{ field: string; message: string }> {
  if (request.kind === 'approval') return [{ field: 'answer', message: 'an approval takes a decision, not an answer' }];
  if (request.kind === 'ask_user') {
    const offered = new Set(request.options.map((o) => o.value));
    if (isFreeText(answer)) {
      const problem = request.free_text ? typedProblem(answer) : '这个问题只能从选项中选择 / choose one of the options';
      return problem ? [{ field: 'answer.free_text', message: problem }] : [];
    }
    const chosen = typeof answer === 'string' ? [answer] : Array.isArray(answer) ? answer : undefined;
    if (!chosen?.length || (!request.multiple && chosen.length > 1) || new Set(chosen).size < chosen.length)
      return [{ field: 'answer', message: request.multiple ? 'one or more option values' : 'one option value' }];
    const unknown = chosen.filter((v) => !offered.has(v));
    return unknown.length
      ? [{ field: 'answer', message: `不是提供的选项 / not an offered option: ${unknown.join(', ').slice(0, 200)}` }]
      : [];
  }
  if (typeof answer !== 'object' || Array.isArray(answer) || isFreeText(answer))
    return [{ field: 'answer', message: 'an object of the asked fields' }];
  const problems: Array<{ field: string; message: string }> = [];
  for (const field of request.fields) {
    const value = answer[field];
    const empty = value === undefined || value === null || (typeof value === 'string' && !value.trim());
    if (empty && field !== 'note') problems.push({ field: `answer.${field}`, message: '未填写 / not answered' });
  }
  for (const [field, value] of Object.entries(answer)) {
    const problem = fieldProblem(request, field, value);
    if (problem) problems.push({ field: `answer.${field}`, message: problem });
  }
  return problems;
}

/** Why one field of an `order_info` answer does not fit, or undefined. */
function fieldProblem(request: Extract<HumanRequest, { kind: 'order_info' }>, field: string, value: unknown) {
  if (!request.fields.includes(field)) return '没有询问这一项 / this field was not asked';
  if (value === undefined || value === null || value === '') return undefined;
  if (isFreeText(value)) return typedProblem(value);
  const options = request.options?.[field] ?? [];
  if (options.some((o) => o.value === value)) return undefined;
  if (NUMBER_FIELDS.includes(field))
    return typeof value === 'number' && value > 0 && Number.isFinite(value) ? undefined : 'a positive number';
  if (options.length)
    return '不是提供的选项；自己填写请用 free_text / not an offered option; a typed answer goes as { free_text }';
  return typeof value === 'string' && value.length <= 500 ? undefined : 'a text of at most 500 characters';
}

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
  /** The tool's label for an approval, the question for an `ask_user` (and an `order_info` that has one), else the
   *  missing fields. */
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
        : (request.question ?? request.fields.join(', '));
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

/**
 * The answer as a person reads it: option labels rather than their values, a typed answer marked as typed, fields
 * as `name: value`.
 */
function answerText(request: HumanRequest, answer: Answer): string {
  const options = (field?: string) =>
    request.kind === 'ask_user'
      ? request.options
      : request.kind === 'order_info' && field
        ? request.options?.[field]
        : [];
  const labelOf = (value: unknown, field?: string): string => {
    if (isFreeText(value)) return `${value.free_text.trim()}（自己填写 / typed）`;
    if (typeof value === 'object' && value !== null) return JSON.stringify(value);
    return options(field)?.find((o) => o.value === String(value))?.label ?? String(value);
  };
  if (typeof answer === 'string' || isFreeText(answer)) return labelOf(answer);
  if (Array.isArray(answer)) return answer.map((v) => labelOf(v)).join(', ');
  return Object.entries(answer)
    .map(([k, v]) => `${k}: ${labelOf(v, k)}`)
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
