import { HttpAgent } from '@ag-ui/client';
import { type BaseEvent, EventType } from '@ag-ui/core';
import { AIMessage } from '@langchain/core/messages';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordingModels } from '../agent/stand-ins.ts';
import { type ApiHarness, type ScriptedApi, startApiHarness, startScriptedApi } from './harness.ts';

// biome-ignore lint/suspicious/noExplicitAny: AG-UI events and state are read field by field
type Any = any;

const ORDER = '给博世下 250 个 F7TC 火花塞的采购单';

/** The AG-UI endpoint driven by the reference AG-UI client (`@ag-ui/client`'s HttpAgent), which checks every event. */
describe('chat API: AG-UI', () => {
  let h: ApiHarness;
  beforeAll(async () => {
    h = await startApiHarness();
  }, 90_000);
  afterAll(() => h?.close());

  const agentFor = (token: string) =>
    new HttpAgent({
      url: `${h.url}/api/v1/agent/ag-ui`,
      headers: { authorization: `Bearer ${token}` },
      threadId: `t-${crypto.randomUUID()}`,
    });
  const run = async (agent: HttpAgent, parameters: Parameters<HttpAgent['runAgent']>[0] = {}) => {
    const events: BaseEvent[] = [];
    const result = await agent.runAgent(parameters, { onEvent: ({ event }) => void events.push(event) });
    return { events, types: events.map((e) => e.type), result };
  };

  it('an order streams steps and state, stops at an approval interrupt; the resume writes exactly one order', async () => {
    const agent = agentFor(h.tokens.laoxiao);
    agent.addMessage({ id: 'm1', role: 'user', content: ORDER });
    const first = await run(agent);
    expect(first.types[0]).toBe(EventType.RUN_STARTED);
    expect(first.types).toEqual(
      expect.arrayContaining([
        EventType.STATE_SNAPSHOT,
        EventType.STATE_DELTA,
        EventType.STEP_STARTED,
        EventType.STEP_FINISHED,
      ]),
    );
    const finished = first.events.at(-1) as Any;
    expect(finished).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: 'interrupt' } });
    expect(agent.pendingInterrupts).toHaveLength(1);
    const interrupt = agent.pendingInterrupts[0] as Any;
    expect(interrupt).toMatchObject({ reason: 'approval', metadata: { procura: { tool: 'order_create' } } });
    expect(interrupt.responseSchema).toBeTruthy();
    // The client's state holds every step by id, as the deltas left it.
    const steps = Object.values((agent.state as Any).steps) as Any[];
    expect(steps.map((s) => s.title)).toEqual(expect.arrayContaining(['创建采购订单']));
    expect(await h.ordersNoted(ORDER)).toHaveLength(0);

    const second = await run(agent, {
      resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { type: 'approve' } }],
    });
    expect(second.types[0]).toBe(EventType.RUN_STARTED);
    expect(second.events.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: 'success' } });
    expect(second.types).toEqual(expect.arrayContaining([EventType.TEXT_MESSAGE_START, EventType.TEXT_MESSAGE_END]));
    const answer = agent.messages.filter((m) => m.role === 'assistant').map((m) => String(m.content ?? ''));
    expect(answer.join('')).toMatch(/PO-\d{6}-\d{6}/);
    expect(agent.pendingInterrupts).toHaveLength(0);
    expect(Object.values((agent.state as Any).steps).every((s: Any) => s.status !== 'running')).toBe(true);
    expect(await h.ordersNoted(ORDER)).toHaveLength(1);
  }, 60_000);

  it('a cancelled answer to an approval rejects the order: nothing is written', async () => {
    const agent = agentFor(h.tokens.laoxiao);
    agent.addMessage({ id: 'm1', role: 'user', content: '给博世下 260 个 F7TC 火花塞的采购单' });
    const first = await run(agent);
    const interrupt = agent.pendingInterrupts[0];
    expect(first.types.at(-1)).toBe(EventType.RUN_FINISHED);
    const second = await run(agent, { resume: [{ interruptId: interrupt.id, status: 'cancelled' }] });
    expect(second.events.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED });
    expect(await h.ordersNoted('260 个 F7TC')).toHaveLength(0);
  }, 60_000);

  it('refuses what AG-UI does not allow: no user message, a bad thread id, no token', async () => {
    const post = (body: unknown, token: string | null = h.tokens.laoxiao) =>
      h.call('POST', '/api/v1/agent/ag-ui', { body, token });
    const base = { threadId: 't1', runId: 'r1', messages: [], tools: [], context: [] };
    expect((await post(base)).status).toBe(422);
    expect(
      (await post({ ...base, threadId: 'not a thread!', messages: [{ id: 'm', role: 'user', content: 'hi' }] })).status,
    ).toBe(422);
    expect((await post({ threadId: 't1' })).status).toBe(422);
    expect((await post(base, null)).status).toBe(401);
  });

  it('holds every limit of the chat stream, through its own schema: the same 422 problem+json, and nothing runs', async () => {
    const agUi = (threadId: string, overrides: Record<string, unknown>) =>
      h.call('POST', '/api/v1/agent/ag-ui', {
        body: { threadId, runId: `r-${threadId}`, messages: [], tools: [], context: [], ...overrides },
        token: h.tokens.laoxiao,
      });
    const said = (content: unknown) => ({ messages: [{ id: 'm1', role: 'user', content }] });
    // Messages the chat stream refuses (too long, control characters, blank), each refused the same way here.
    const refused = fc.oneof(
      fc
        .string({ minLength: 8_001, maxLength: 18_000, unit: fc.constantFrom('火', 'x', ' ', '7') })
        .filter((m) => m.trim().length > 8_000),
      fc
        .tuple(
          fc.string({ maxLength: 50 }),
          fc.constantFrom('\u0000', '\u0007', '\u001b', '\u000c'),
          fc.string({ maxLength: 50 }),
        )
        .map((p) => p.join('')),
      fc.constantFrom('', '   ', '\n\t'),
    );
    for (const message of fc.sample(refused, { numRuns: 12, seed: 37 })) {
      const threadId = `t-${crypto.randomUUID()}`;
      const stream = await h.call('POST', '/api/v1/agent/chat/stream', { body: { message, session_id: threadId } });
      const viaAgUi = await agUi(threadId, said(message));
      expect(stream.status).toBe(422);
      expect(viaAgUi.status, JSON.stringify(viaAgUi.body)).toBe(422);
      expect(viaAgUi.headers.get('content-type')).toContain('application/problem+json');
      expect(viaAgUi.body.errors.map((e: Any) => e.message)).toEqual(stream.body.errors.map((e: Any) => e.message));
      expect(viaAgUi.body.errors[0].field).toBe('messages');
      expect((await h.call('GET', `/api/v1/history/sessions/${threadId}`)).status).toBe(404);
    }
    // The 18,000-character message of the report, as text parts.
    const long = await agUi(`t-${crypto.randomUUID()}`, said([{ type: 'text', text: '火花塞'.repeat(6_000) }]));
    expect(long.status).toBe(422);
    // The chat stream takes no attachments, so AG-UI takes none either.
    const attached = await agUi(
      `t-${crypto.randomUUID()}`,
      said([
        { type: 'text', text: '看看这个报价' },
        { type: 'image', source: { type: 'data', value: 'iVBORw0KGgo=', mimeType: 'image/png' } },
      ]),
    );
    expect(attached.status).toBe(422);
    expect(attached.body.errors[0].field).toBe('messages');
    // A resume is the chat stream's resume: an interrupt id or decision it refuses is refused here too.
    const resume = (interruptId: string, payload: unknown) =>
      agUi('t-resume', { resume: [{ interruptId, status: 'resolved', payload }] });
    const badId = await resume('i'.repeat(201), { type: 'approve' });
    expect(badId.status).toBe(422);
    expect(badId.body.errors[0].field).toBe('resume.0.interruptId');
    const badDecision = await resume('i1', { type: 'reject', reason: 'r'.repeat(1001) });
    expect(badDecision.status).toBe(422);
    expect(badDecision.body.errors[0].field).toMatch(/^resume\.0\.payload/);
  }, 60_000);
});

/** An orchestrator that shows one chart, then answers. */
const CHARTING = `name: orchestrator
description: 只会画一张图的主 Agent / an orchestrator that shows one chart
tools:
  names: [show_chart]
limits:
  model_calls: 5
  tool_calls: 5
prompt: |
  你是测试用的主 Agent（协调者）。用 show_chart 展示图表。
`;

describe('chat API: AG-UI front-end tools', () => {
  let api: ScriptedApi;
  const chart = {
    title: '火花塞单价',
    chart_type: 'bar',
    x_data: ['博世', '电装'],
    series: [{ name: '单价', data: [12.3, 11.8] }],
  };
  beforeAll(async () => {
    api = await startScriptedApi({
      orchestrator: CHARTING,
      models: recordingModels([], (call) =>
        call.messages.some((m) => m.getType() === 'tool')
          ? new AIMessage('图已展示 / chart shown')
          : new AIMessage({
              content: '',
              tool_calls: [{ id: 'chart-1', name: 'show_chart', args: chart, type: 'tool_call' }],
            }),
      ),
    });
  }, 60_000);
  afterAll(() => api?.close());

  it('a front-end tool call reaches the client as an AG-UI tool call with its arguments, then the answer', async () => {
    const agent = new HttpAgent({
      url: `${api.url}/api/v1/agent/ag-ui`,
      headers: { authorization: `Bearer ${api.tokens.laoxiao}` },
      threadId: `t-${crypto.randomUUID()}`,
    });
    agent.addMessage({ id: 'm1', role: 'user', content: '画一张火花塞单价图' });
    const types: string[] = [];
    await agent.runAgent({}, { onEvent: ({ event }) => void types.push(event.type) });
    expect(types).toEqual(
      expect.arrayContaining([EventType.TOOL_CALL_START, EventType.TOOL_CALL_ARGS, EventType.TOOL_CALL_END]),
    );
    const call = agent.messages.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []) : []))[0];
    expect(call.function.name).toBe('show_chart');
    expect(JSON.parse(call.function.arguments)).toMatchObject(chart);
    expect(agent.messages.at(-1)).toMatchObject({ role: 'assistant', content: '图已展示 / chart shown' });
    expect(types.at(-1)).toBe(EventType.RUN_FINISHED);
  }, 60_000);
});
