import { interrupt } from '@langchain/langgraph';
import { z } from 'zod';
import type { HumanDecision, HumanRequest } from '../../protocol/index.ts';
import { Tool, ToolError } from '../../tools/index.ts';

const Option = z.object({
  label: z.string().min(1).max(120),
  value: z.string().min(1).max(120),
});

const ORDER_FIELDS = ['supplier', 'part', 'quantity', 'expectedDate', 'unitPrice', 'note'] as const;

/** Tools that pause the run until the user answers (seed `hitl_tools.py`). */
export class HumanInput {
  @Tool({
    name: 'ask_user',
    label: '询问用户',
    description:
      '有歧义时请用户选择（1–8 个选项，label 为按钮文字），不要猜。/ Let the user choose (1–8 options) when ambiguous; never guess.',
    schema: z.object({
      question: z.string().min(1).max(500),
      options: z.array(Option).min(1).max(8),
      multiple: z.boolean().default(false),
    }),
    safety: 'read-only',
    execution: 'sequential',
    group: 'human',
  })
  async askUser(input: { question: string; options: Array<z.infer<typeof Option>>; multiple: boolean }) {
    const decision = interrupt<HumanRequest, HumanDecision>({ kind: 'ask_user', ...input });
    const answer = decision?.type === 'answer' ? decision.answer : undefined;
    const chosen = (Array.isArray(answer) ? answer : [answer]).map(String);
    const allowed = new Set(input.options.map((o) => o.value));
    if (chosen.length === 0 || chosen.some((v) => !allowed.has(v)) || (!input.multiple && chosen.length > 1)) {
      throw new ToolError(
        '用户没有给出有效选择 / no valid choice was made',
        '不要猜测，告诉用户未完成的原因 / do not guess: tell the user why nothing was done',
      );
    }
    return { answer: input.multiple ? chosen : chosen[0] };
  }

  @Tool({
    name: 'request_order_info',
    label: '补充订单信息',
    description: '向用户索取缺少的订单字段。/ Ask the user for missing order fields.',
    schema: z.object({
      missing_fields: z.array(z.enum(ORDER_FIELDS)).min(1).max(ORDER_FIELDS.length),
      known: z.record(z.string(), z.unknown()).default({}),
      reason: z.string().max(300).optional(),
    }),
    safety: 'read-only',
    execution: 'sequential',
    group: 'human',
  })
  async requestOrderInfo(input: { missing_fields: string[]; known: Record<string, unknown>; reason?: string }) {
    const decision = interrupt<HumanRequest, HumanDecision>({
      kind: 'order_info',
      fields: input.missing_fields,
      known: input.known,
      reason: input.reason,
    });
    const answer = decision?.type === 'answer' ? decision.answer : undefined;
    if (!answer || typeof answer !== 'object' || Array.isArray(answer)) {
      throw new ToolError(
        '用户没有补充订单信息 / the user gave no order details',
        '不要编造，告诉用户缺少哪些信息 / do not invent values: say what is missing',
      );
    }
    return { answer };
  }
}
