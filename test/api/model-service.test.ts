import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadPriceList } from '../../src/agent/index.ts';
import {
  type ChatRequest,
  called,
  ModelStandIn,
  offers,
  type Reply,
  type Turn,
  toolResult,
} from '../agent/model-stand-in.ts';
import { type ApiHarness, startApiHarness } from './harness.ts';
import { collect, openSse, type SseEvent } from './sse.ts';

const ORDER = '给博世下 200 个 F7TC 火花塞的采购单';
const KEY = 'sk-standin-secret-0123456789';
const PRICES = { 'stand-in-pro': { input: 1, output: 2 } };

const answerOf = (events: SseEvent[]) =>
  events
    .filter((e) => e.event === 'token')
    .map((e) => e.data.content)
    .join('');

interface Items<T> {
  items: T[];
}

/** The order agent as a real model would act: look up supplier and part in parallel, order, confirm. */
function orderAgent(req: ChatRequest): Reply {
  if (!called(req, 'supplier_query')) {
    return {
      reasoning: '先查供应商和零件。',
      toolCalls: [
        { name: 'supplier_query', args: { name: '博世' } },
        { name: 'part_search', args: { name: 'F7TC', limit: 50 } },
      ],
    };
  }
  if (!called(req, 'order_create')) {
    const supplier = toolResult<Items<{ id: number }>>(req, 'supplier_query')?.items[0];
    const part = toolResult<Items<{ id: number; supplier: { id: number } }>>(req, 'part_search')?.items.find(
      (p) => p.supplier.id === supplier?.id,
    );
    return {
      toolCalls: [
        {
          name: 'order_create',
          args: { supplierId: supplier?.id, lines: [{ partId: part?.id, quantity: 200 }], submit: true, note: ORDER },
        },
      ],
    };
  }
  const created = toolResult<{ success?: boolean; order?: { orderNo: string } }>(req, 'order_create');
  return { text: created?.order ? `已创建订单 ${created.order.orderNo}` : '订单未创建 / no order was created' };
}

/** The orchestrator: delegates order requests, then reports what the sub-agent said. */
function orchestrator(req: ChatRequest): Reply {
  const task = toolResult<{ text?: string }>(req, 'task');
  if (!task) {
    return {
      reasoning: '这是下单请求，交给订单子智能体。',
      toolCalls: [{ name: 'task', args: { subagent_type: 'procurement-order', description: ORDER } }],
    };
  }
  return { text: `完成：${task.text ?? JSON.stringify(task)}` };
}

const isOrchestrator = offers('task');
const isOrderAgent = offers('order_create');
const isMemory = (req: ChatRequest) => !req.tools?.length;

/** The whole order conversation, with `before` turns (failures) tried first. */
const orderScript = (...before: Turn[]): Turn[] => [
  ...before,
  { when: isOrchestrator, reply: orchestrator, times: Number.POSITIVE_INFINITY },
  { when: isOrderAgent, reply: orderAgent, times: Number.POSITIVE_INFINITY },
  { when: isMemory, reply: { text: '{"suppliers":["博世"],"query":"下单"}' }, times: Number.POSITIVE_INFINITY },
];

describe('chat API on an OpenAI-compatible model service (stand-in server)', () => {
  let h: ApiHarness;
  const model = new ModelStandIn();
  const apiOptions: Parameters<typeof startApiHarness>[0] = {};
  const env: NodeJS.ProcessEnv = {
    OPENAI_BASE_URL: '',
    OPENAI_MODEL: 'stand-in-pro',
    OPENAI_API_KEY: KEY,
    PROCURA_MODEL_PRICES: JSON.stringify(PRICES),
  };

  beforeAll(async () => {
    await model.start();
    env.OPENAI_BASE_URL = model.url;
    h = await startApiHarness(apiOptions, env);
  }, 120_000);
  afterAll(async () => {
    await h?.close();
    await model.close();
  });

  /** Applies changed settings the way a restart would. */
  async function restartWith(settings: NodeJS.ProcessEnv) {
    Object.assign(h.agent.runtime.options.env as NodeJS.ProcessEnv, settings);
    await h.agent.restart();
    await h.restartApi();
  }

  async function approveOrder(sessionId: string, interrupt: SseEvent) {
    return h.resume(h.tokens.laoxiao, {
      session_id: sessionId,
      interrupt_id: interrupt.data.interrupt_id,
      decision: { type: 'approve' },
    });
  }

  const retryRun = async (sessionId: string) => {
    const res = await openSse(`${h.url}/api/v1/agent/chat/retry`, {
      token: h.tokens.laoxiao,
      body: { session_id: sessionId },
    });
    return { status: res.status, problem: res.problem, events: await collect(res.events) };
  };

  it('an approved order: streamed tool-call deltas, parallel calls and reasoning; one order; usage on done and in history', async () => {
    model.script(orderScript());
    const first = await h.chat(h.tokens.laoxiao, { message: ORDER });
    expect(first.status).toBe(200);
    const sessionId = first.headers.get('x-session-id') as string;
    const interrupt = first.events.at(-1) as SseEvent;
    expect(interrupt).toMatchObject({
      event: 'interrupt',
      data: { kind: 'approval', tool: 'order_create', args: { lines: [{ quantity: 200 }] } },
    });
    // The parallel look-ups both ran as steps of the order agent.
    const titles = first.events
      .filter((e) => e.event === 'progress' && e.data.phase === 'tool')
      .map((e) => e.data.title);
    expect(new Set(titles).size).toBeGreaterThanOrEqual(3);
    // Reasoning is not answer text.
    expect(answerOf(first.events)).not.toContain('先查供应商');
    expect(model.requests.every((r) => r.authorization === `Bearer ${KEY}` && r.stream)).toBe(true);

    const second = await approveOrder(sessionId, interrupt);
    const done = second.events.at(-1) as SseEvent;
    expect(done).toMatchObject({ event: 'done', data: { status: 'completed' } });
    expect(answerOf(second.events)).toMatch(/PO-\d{6}-\d{6}/);
    expect(await h.ordersNoted(ORDER)).toHaveLength(1);

    // Usage: what the provider reported over the whole run (both halves), priced from PROCURA_MODEL_PRICES.
    const input = model.reported.reduce((s, r) => s + r.input, 0);
    const output = model.reported.reduce((s, r) => s + r.output, 0);
    expect(input).toBeGreaterThan(0);
    expect(done.data.usage).toEqual({
      input_tokens: input,
      output_tokens: output,
      cost: Math.round(((input * 1 + output * 2) / 1e6) * 1e6) / 1e6,
    });
    const history = await h.call('GET', `/api/v1/history/sessions/${sessionId}`);
    expect(history.status).toBe(200);
    expect(history.body.usage).toEqual(done.data.usage);
    // A decision splits the run's answer; the run's outcome and usage are on its last part.
    expect(history.body.messages.findLast((m: { role: string }) => m.role === 'assistant').usage).toEqual(
      done.data.usage,
    );
  });

  it('a rejected order writes nothing', async () => {
    const message = `${ORDER}（这次先不要）`;
    model.script(orderScript());
    const first = await h.chat(h.tokens.laoxiao, { message });
    const sessionId = first.headers.get('x-session-id') as string;
    const interrupt = first.events.at(-1) as SseEvent;
    expect(interrupt.event).toBe('interrupt');
    const before = (await h.ordersNoted(ORDER)).length;
    const second = await h.resume(h.tokens.laoxiao, {
      session_id: sessionId,
      interrupt_id: interrupt.data.interrupt_id,
      decision: { type: 'reject', reason: '价格太高' },
    });
    expect(second.events.at(-1)).toMatchObject({ event: 'done', data: { status: 'completed' } });
    expect(answerOf(second.events)).toContain('未创建');
    expect(await h.ordersNoted(ORDER)).toHaveLength(before);
  });

  it('429 with Retry-After, then 500: each retry is a progress step, then the run goes on', async () => {
    model.script(
      orderScript(
        { when: isOrchestrator, reply: { error: 429, retryAfter: '1' } },
        { when: isOrchestrator, reply: { error: 500 } },
      ),
    );
    const started = Date.now();
    const first = await h.chat(h.tokens.laoxiao, { message: '给博世下 5 个 F7TC 火花塞的采购单' });
    const retries = first.events.filter((e) => e.event === 'progress' && e.data.phase === 'model');
    expect(retries.map((e) => [e.data.status, e.data.title])).toEqual([
      ['running', '模型服务出错，正在重试 (1/2) / model service failed, retrying (1/2)'],
      ['running', '模型服务出错，正在重试 (2/2) / model service failed, retrying (2/2)'],
      ['completed', '模型服务已恢复 / model service recovered'],
    ]);
    expect(new Set(retries.map((e) => e.data.id)).size).toBe(1);
    // Retry-After: 1 s was honoured before the first retry (backoff alone would also be 1 s, then 2 s).
    expect(Date.now() - started).toBeGreaterThanOrEqual(3_000);
    expect(first.events.at(-1)?.event).toBe('interrupt');
    await h.call('POST', '/api/v1/agent/chat/cancel', { body: { session_id: first.headers.get('x-session-id') } });
  });

  it('a service failing every call ends the run with an error naming provider and failure, never the key', async () => {
    model.script([
      { reply: { error: 500, message: `internal failure for key ${KEY}` }, times: Number.POSITIVE_INFINITY },
    ]);
    const started = Date.now();
    const res = await h.chat(h.tokens.laoxiao, { message: ORDER });
    const elapsed = Date.now() - started;
    const error = res.events.at(-1) as SseEvent;
    expect(error.event).toBe('error');
    expect(error.data.message).toContain('openai-compatible');
    expect(error.data.message).toContain('HTTP 500');
    expect(error.data.message).toContain('3 attempts');
    expect(error.data.retryable).toBe(true);
    expect(JSON.stringify(res.events)).not.toContain(KEY);
    expect(elapsed).toBeLessThan(60_000);
    expect(model.requests).toHaveLength(3);
    // A refusal is not retried.
    model.script([{ reply: { error: 401 }, times: Number.POSITIVE_INFINITY }]);
    const refused = await h.chat(h.tokens.laoxiao, { message: ORDER });
    expect(refused.events.at(-1)?.data.message).toMatch(/HTTP 401.*1 attempt\b/);
    expect(model.requests).toHaveLength(1);
  });

  it('a service that never answers, or stops mid-stream, times out per call and ends the run within its budget', async () => {
    await restartWith({ PROCURA_MODEL_TIMEOUT_MS: '800', PROCURA_MODEL_RETRIES: '1' });
    try {
      for (const stall of ['headers', 'body'] as const) {
        model.script([{ reply: { stall }, times: Number.POSITIVE_INFINITY }]);
        const started = Date.now();
        const res = await h.chat(h.tokens.laoxiao, { message: ORDER });
        const error = res.events.at(-1) as SseEvent;
        expect(error.event).toBe('error');
        expect(error.data.message).toMatch(/timed out after 2 attempts/);
        expect(Date.now() - started).toBeLessThan(10_000);
      }
    } finally {
      await restartWith({ PROCURA_MODEL_TIMEOUT_MS: '', PROCURA_MODEL_RETRIES: '' });
    }
  });

  it('a run that failed after an approved order is retried from its checkpoint: it completes, with one order', async () => {
    const message = '给博世下 7 个 F7TC 火花塞的采购单';
    let failing = true;
    model.script(
      orderScript({
        // The service goes down right after the order was written.
        when: (req) => failing && isOrderAgent(req) && called(req, 'order_create'),
        reply: { error: 503 },
        times: Number.POSITIVE_INFINITY,
      }),
    );
    const before = (await h.ordersNoted(ORDER)).length;
    const first = await h.chat(h.tokens.laoxiao, { message });
    const sessionId = first.headers.get('x-session-id') as string;
    const interrupt = first.events.at(-1) as SseEvent;
    expect(interrupt.event).toBe('interrupt');
    const approved = await approveOrder(sessionId, interrupt);
    expect(approved.events.at(-1)).toMatchObject({ event: 'error', data: { retryable: true } });
    expect(await h.ordersNoted(ORDER)).toHaveLength(before + 1);

    failing = false;
    const retried = await retryRun(sessionId);
    expect(retried.status).toBe(200);
    expect(retried.events[0].id).toBe((approved.events.at(-1) as SseEvent).id + 1);
    expect(retried.events[0]).toMatchObject({ event: 'progress', data: { phase: 'run', status: 'running' } });
    expect(retried.events.at(-1)).toMatchObject({ event: 'done', data: { status: 'completed' } });
    expect(answerOf(retried.events)).toMatch(/PO-\d{6}-\d{6}/);
    expect(await h.ordersNoted(ORDER)).toHaveLength(before + 1);
    expect(retried.events.some((e) => e.event === 'interrupt')).toBe(false);

    // The history shows the completed answer, not the earlier error; a second retry has nothing to do.
    const history = await h.call('GET', `/api/v1/history/sessions/${sessionId}`);
    const answer = history.body.messages.findLast((m: { role: string }) => m.role === 'assistant');
    expect(answer.status).toBe('done');
    expect(answer.error).toBeUndefined();
    expect((await retryRun(sessionId)).status).toBe(409);
  });

  it('a stopped run can be retried too: it goes on from where it was stopped', async () => {
    let stalled = true;
    model.script([
      { when: () => stalled, reply: { stall: 'headers' }, times: Number.POSITIVE_INFINITY },
      { when: isOrchestrator, reply: { text: '您好，有什么采购任务？' }, times: Number.POSITIVE_INFINITY },
      { when: isMemory, reply: { text: '{}' }, times: Number.POSITIVE_INFINITY },
    ]);
    const res = await openSse(`${h.url}/api/v1/agent/chat/stream`, {
      token: h.tokens.laoxiao,
      body: { message: '你好' },
    });
    const sessionId = res.headers.get('x-session-id') as string;
    const events = collect(res.events);
    await vi.waitFor(() => expect(model.requests.length).toBeGreaterThan(0), { timeout: 10_000 });
    expect((await h.call('POST', '/api/v1/agent/chat/cancel', { body: { session_id: sessionId } })).status).toBe(202);
    expect((await events).at(-1)).toMatchObject({ event: 'done', data: { status: 'cancelled' } });

    stalled = false;
    const retried = await retryRun(sessionId);
    expect(retried.events.at(-1)).toMatchObject({ event: 'done', data: { status: 'completed' } });
    expect(answerOf(retried.events)).toBe('您好，有什么采购任务？');
  });

  it('the daily token budget refuses a new run with 429 saying when it resets; admins see usage per user and day', async () => {
    const usage = await h.call('GET', '/api/v1/admin/usage?days=1', { token: h.tokens.admin });
    expect(usage.status).toBe(200);
    const mine = usage.body.items.find((r: { user: string }) => r.user === 'laoxiao');
    expect(mine.input_tokens).toBeGreaterThan(0);
    expect(mine.day).toBe(new Date().toISOString().slice(0, 10));
    // The costs say which price list they were computed with.
    expect(usage.body.prices).toEqual({
      date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      source: expect.any(String),
    });
    const { date, source } = loadPriceList(env);
    expect(usage.body.prices).toEqual({ date, source });
    expect(source).toContain('PROCURA_MODEL_PRICES');
    expect((await h.call('GET', '/api/v1/admin/usage')).status).toBe(403);

    apiOptions.usage = { dailyTokens: mine.input_tokens + mine.output_tokens };
    await h.restartApi();
    try {
      const refused = await h.chat(h.tokens.laoxiao, { message: ORDER });
      expect(refused.status).toBe(429);
      expect(refused.problem).toMatchObject({ code: 'token_budget_exhausted' });
      const tomorrow = new Date();
      tomorrow.setUTCHours(24, 0, 0, 0);
      expect(refused.problem.resets_at).toBe(tomorrow.toISOString());
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      // Another user still has budget.
      model.script([{ reply: { text: '你好！' }, times: Number.POSITIVE_INFINITY }]);
      const other = await h.chat(h.tokens.admin, { message: '你好' });
      expect(other.status).toBe(200);
    } finally {
      apiOptions.usage = undefined;
      await h.restartApi();
    }
  });
});
