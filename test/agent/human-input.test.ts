import { Annotation, Command, MemorySaver, StateGraph } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { AskUserInput, HumanInput, OrderInfoInput } from '../../src/agent/tools/human-input.ts';
import {
  answerProblems,
  decisionRecord,
  FREE_TEXT_CHOICE,
  type HumanDecision,
  type HumanRequest,
} from '../../src/protocol/index.ts';

/**
 * The question tools' contract: the model offers 1–8 candidates (per field for `request_order_info`), the card adds
 * "Other (type it)", and an answer is an offered value or a typed `{ free_text }` within bounds — which reaches the
 * model labelled as typed. The tools run in a real LangGraph graph: they pause, and a resume answers them.
 */

const options = (n: number, prefix = 'supplier') =>
  Array.from({ length: n }, (_, i) => ({ label: `候选 ${i + 1}`, value: `${prefix}:${i + 1}` }));

/** One graph whose only node calls a question tool; returns what the card showed and what the tool answers. */
async function askThrough(call: (tools: HumanInput) => Promise<unknown>, decision: HumanDecision) {
  const State = Annotation.Root({ out: Annotation<unknown> });
  const tools = new HumanInput();
  const graph = new StateGraph(State)
    .addNode('ask', async () => ({ out: await call(tools) }))
    .addEdge('__start__', 'ask')
    .compile({ checkpointer: new MemorySaver() });
  const config = { configurable: { thread_id: `t-${Math.random()}` } };
  const paused = (await graph.invoke({ out: undefined }, config)) as { __interrupt__?: Array<{ value: HumanRequest }> };
  const card = paused.__interrupt__?.[0]?.value;
  const done: { result?: unknown; error?: string } = await graph.invoke(new Command({ resume: decision }), config).then(
    (s) => ({ result: (s as { out: unknown }).out }),
    (error: Error) => ({ error: error.message }),
  );
  return { card, ...done };
}

describe('the question tools’ input schemas', () => {
  it('take 1–8 candidates, for ask_user and per field for request_order_info', () => {
    expect(AskUserInput.safeParse({ question: 'q', options: options(8) }).success).toBe(true);
    expect(AskUserInput.safeParse({ question: 'q', options: options(9) }).success).toBe(false);
    expect(AskUserInput.safeParse({ question: 'q', options: [] }).success).toBe(false);
    const perField = [
      ...options(8).map((o) => ({ ...o, field: 'supplier' })),
      ...options(8, 'part').map((o) => ({ ...o, field: 'part' })),
    ];
    expect(OrderInfoInput.safeParse({ missing_fields: ['supplier', 'part'], options: perField }).success).toBe(true);
    const nine = [...perField, { label: 'x', value: 'supplier:9', field: 'supplier' }];
    expect(OrderInfoInput.safeParse({ missing_fields: ['supplier'], options: nine }).success).toBe(false);
    const dated = [{ label: '明天', value: '2030-01-01', field: 'expectedDate' }];
    expect(OrderInfoInput.safeParse({ missing_fields: ['expectedDate'], options: dated }).success).toBe(false);
  });
});

describe('an answer fits its question: an offered value, or a typed answer within bounds', () => {
  const ask: HumanRequest = { kind: 'ask_user', question: 'q', options: options(3), multiple: false, free_text: true };
  const info: HumanRequest = {
    kind: 'order_info',
    fields: ['supplier', 'quantity', 'note'],
    known: {},
    options: { supplier: options(3), quantity: [{ label: '100 只', value: '100' }] },
  };
  it.each([
    ['an offered value', ask, 'supplier:2', 0],
    ['a value not offered', ask, 'supplier:9', 1],
    ['two values to a single choice', ask, ['supplier:1', 'supplier:2'], 1],
    ['a typed answer', ask, { free_text: '  博世 ' }, 0],
    ['an empty typed answer', ask, { free_text: '  ' }, 1],
    ['a typed answer too long', ask, { free_text: 'x'.repeat(FREE_TEXT_CHOICE.maxLength + 1) }, 1],
    ['a typed answer where only options are taken', { ...ask, free_text: false }, { free_text: '博世' }, 1],
    ['fields with an offered supplier and a typed quantity', info, { supplier: 'supplier:1', quantity: 350 }, 0],
    ['an offered quantity', info, { supplier: { free_text: '博世' }, quantity: '100' }, 0],
    ['a supplier not offered, not marked as typed', info, { supplier: '博世', quantity: 100 }, 1],
    ['a missing field', info, { supplier: 'supplier:1' }, 1],
    ['a field that was not asked', info, { supplier: 'supplier:1', quantity: 100, part: 'part:1' }, 1],
    ['a quantity that is not a positive number', info, { supplier: 'supplier:1', quantity: -5 }, 1],
    ['a text for the fields', info, '博世', 1],
  ] as const)('%s', (_, request, answer, problems) => {
    expect(answerProblems(request, answer as never)).toHaveLength(problems);
  });

  it('keeps the decided card as a record: the option’s label, or the typed text marked as typed', () => {
    const picked = decisionRecord('i1', info, { type: 'answer', answer: { supplier: 'supplier:2', quantity: 300 } });
    expect(picked).toMatchObject({ outcome: 'answered', answer: 'supplier: 候选 2, quantity: 300' });
    const typed = decisionRecord('i2', ask, { type: 'answer', answer: { free_text: '博世' } });
    expect(typed).toMatchObject({ subject: 'q', outcome: 'answered', answer: '博世（自己填写 / typed）' });
  });
});

describe('the tools pause, show the card, and hand the model the answer', () => {
  it('ask_user: the card takes a typed answer; an option reaches the model as its value, typed text as free_text', async () => {
    const input = AskUserInput.parse({ question: '哪一家？', options: options(2) });
    const picked = await askThrough((t) => t.askUser(input), { type: 'answer', answer: 'supplier:2' });
    expect(picked.card).toEqual({ kind: 'ask_user', ...input, free_text: true });
    expect(picked.result).toEqual({ answer: 'supplier:2' });
    const typed = await askThrough((t) => t.askUser(input), { type: 'answer', answer: { free_text: ' 博世 ' } });
    expect(typed.result).toEqual({ free_text: '博世' });
    const stray = await askThrough((t) => t.askUser(input), { type: 'answer', answer: 'supplier:7' });
    expect(stray.error).toMatch(/not an offered option/);
  });

  it('request_order_info: the asked fields’ options grouped by field, typed fields apart as free_text', async () => {
    const input = OrderInfoInput.parse({
      missing_fields: ['supplier', 'quantity'],
      question: '要订火花塞，请选择供应商并填写数量 / Spark plugs — which supplier and how many?',
      options: [
        ...options(2).map((o) => ({ ...o, field: 'supplier' })),
        { label: 'P', value: 'part:1', field: 'part' },
      ],
    });
    const picked = await askThrough((t) => t.requestOrderInfo(input), {
      type: 'answer',
      answer: { supplier: 'supplier:1', quantity: 200 },
    });
    expect(picked.card).toMatchObject({
      kind: 'order_info',
      question: input.question,
      fields: ['supplier', 'quantity'],
      options: { supplier: options(2) },
    });
    expect(Object.keys((picked.card as { options: object }).options)).toEqual(['supplier']);
    expect(picked.result).toEqual({ answer: { supplier: 'supplier:1', quantity: 200 } });
    const typed = await askThrough((t) => t.requestOrderInfo(input), {
      type: 'answer',
      answer: { supplier: { free_text: '博世' }, quantity: 300 },
    });
    expect(typed.result).toEqual({ answer: { quantity: 300 }, free_text: { supplier: '博世' } });
  });
});
