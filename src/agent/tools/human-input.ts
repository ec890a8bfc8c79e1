import { interrupt } from '@langchain/langgraph';
import { z } from 'zod';
import {
  answerProblems,
  type ChoiceOption,
  type HumanDecision,
  type HumanRequest,
  isFreeText,
} from '../../protocol/index.ts';
import { Tool, ToolError } from '../../tools/index.ts';

const Option = z.object({
  label: z.string().min(1).max(120),
  value: z.string().min(1).max(120),
});
/** The candidates the model offers (from the ERP); the card adds "Other (type it)" after them. */
const Options = z.array(Option).min(1).max(8);

const ORDER_FIELDS = ['supplier', 'part', 'quantity', 'expectedDate', 'unitPrice', 'note'] as const;
/** The fields that take options: who supplies, which part, how many. */
const CHOICE_FIELDS = ['supplier', 'part', 'quantity'] as const;

export const AskUserInput = z.object({
  question: z.string().min(1).max(500),
  options: Options,
  multiple: z.boolean().default(false),
});

export const OrderInfoInput = z.object({
  missing_fields: z.array(z.enum(ORDER_FIELDS)).min(1).max(ORDER_FIELDS.length),
  known: z.record(z.string(), z.unknown()).default({}),
  question: z.string().min(1).max(300).optional(),
  /** Candidates of the fields that take them, each naming its field; at most 8 per field. */
  options: z
    .array(Option.extend({ field: z.enum(CHOICE_FIELDS) }))
    .max(CHOICE_FIELDS.length * 8)
    .refine((list) => CHOICE_FIELDS.every((f) => list.filter((o) => o.field === f).length <= 8), {
      message: 'at most 8 options per field',
    })
    .optional(),
  reason: z.string().max(300).optional(),
});

type Answer = Extract<HumanDecision, { type: 'answer' }>['answer'];
const NO_GUESS = '不要猜测，告诉用户未完成的原因 / do not guess: tell the user why nothing was done';

/** Puts the question to the user and returns an answer that fits it; otherwise the model is told, never handed a guess. */
function ask(request: HumanRequest): Answer {
  const decision = interrupt<HumanRequest, HumanDecision>(request);
  if (decision?.type !== 'answer') throw new ToolError('用户没有回答 / the user gave no answer', NO_GUESS);
  const problems = answerProblems(request, decision.answer);
  if (problems.length)
    throw new ToolError(
      `回答无效 / invalid answer: ${problems.map((p) => `${p.field}: ${p.message}`).join('; ')}`,
      NO_GUESS,
    );
  return decision.answer;
}

/**
 * Tools that pause the run until the user answers (seed `hitl_tools.py`). Each card offers the model's options (at
 * most 8, from the ERP) and ends with "Other (type it)"; a typed answer reaches the model as `free_text`, never as
 * if it were an option.
 */
export class HumanInput {
  @Tool({
    name: 'ask_user',
    label: '询问用户',
    description: '有歧义时让用户从 ERP 候选中选，不要猜 / Let the user choose among ERP candidates; never guess.',
    schema: AskUserInput,
    safety: 'read-only',
    execution: 'sequential',
    group: 'human',
  })
  async askUser(input: z.infer<typeof AskUserInput>) {
    const answer = ask({ kind: 'ask_user', ...input, free_text: true });
    if (isFreeText(answer)) return { free_text: answer.free_text.trim() };
    return { answer: input.multiple ? [answer].flat() : String(answer) };
  }

  @Tool({
    name: 'request_order_info',
    label: '补充订单信息',
    description: '索取缺少的订单字段，question 复述请求 / Ask for missing order fields, restating the request.',
    schema: OrderInfoInput,
    safety: 'read-only',
    execution: 'sequential',
    group: 'human',
  })
  async requestOrderInfo(input: z.infer<typeof OrderInfoInput>) {
    // The card lists each asked field's options; options of fields not asked are dropped.
    const options: Record<string, ChoiceOption[]> = {};
    for (const { field, label, value } of input.options ?? []) {
      if (input.missing_fields.includes(field)) options[field] = [...(options[field] ?? []), { label, value }];
    }
    const request: HumanRequest = {
      kind: 'order_info',
      fields: input.missing_fields,
      known: input.known,
      ...(input.question ? { question: input.question } : {}),
      ...(Object.keys(options).length ? { options } : {}),
      reason: input.reason,
    };
    const answered = ask(request) as Record<string, unknown>;
    // Chosen options and plain values as they are; typed answers apart, labelled as typed.
    const answer: Record<string, unknown> = {};
    const typed: Record<string, string> = {};
    for (const [field, value] of Object.entries(answered)) {
      if (isFreeText(value)) typed[field] = value.free_text.trim();
      else if (value !== undefined && value !== null && value !== '') answer[field] = value;
    }
    return { answer, ...(Object.keys(typed).length ? { free_text: typed } : {}) };
  }
}
