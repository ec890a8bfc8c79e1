import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHarness, startApiHarness } from './harness.ts';
import { collect, openSse, type SseEvent } from './sse.ts';

interface Drafted {
  sessionId: string;
  runId: string;
  orderId: number;
  orderNo: string;
  version: number;
  lastSeq: number;
}

describe('chat API: the conversation that drafted an order hears the admin’s decision', () => {
  let h: ApiHarness;
  beforeAll(async () => {
    h = await startApiHarness({ decisionPollMs: 200 });
  }, 90_000);
  afterAll(() => h?.close());

  const erp = async (method: string, path: string, token: string, body?: unknown, headers = {}) => {
    const res = await fetch(`${h.erpUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    // biome-ignore lint/suspicious/noExplicitAny: ERP bodies are asserted field by field
    return { status: res.status, body: (await res.json()) as any };
  };

  /** The buyer asks for an order over the buyer limit and approves the card: it waits in the ERP for an admin. */
  async function draft(message: string): Promise<Drafted> {
    const first = await h.chat(h.tokens.laoxiao, { message });
    const interrupt = first.events.at(-1) as SseEvent;
    expect(interrupt.event).toBe('interrupt');
    const second = await h.resume(h.tokens.laoxiao, {
      session_id: interrupt.data.session_id,
      interrupt_id: interrupt.data.interrupt_id,
      decision: { type: 'approve' },
    });
    const done = second.events.at(-1) as SseEvent;
    expect(done).toMatchObject({ event: 'done', data: { status: 'completed' } });
    const [noted] = await h.ordersNoted(message);
    const order = (await erp('GET', `/orders/${noted.id}`, h.tokens.laoxiao)).body;
    expect(order).toMatchObject({ status: 'pending_approval', approval: { rule: 'needs-admin' } });
    // The ERP keeps the trace id of the request that created the order: the run that drafted it.
    expect(order.traceId).toBe(done.data.run_id);
    return {
      sessionId: interrupt.data.session_id,
      runId: done.data.run_id,
      orderId: order.id,
      orderNo: order.orderNo,
      version: order.version,
      lastSeq: done.id,
    };
  }

  /** Follows the session from its last event, as the browser does while the conversation is open. */
  const follow = (d: Drafted) =>
    openSse(`${h.url}/api/v1/agent/chat/stream/${d.sessionId}`, { token: h.tokens.laoxiao, lastEventId: d.lastSeq });

  const notices = async (sessionId: string) =>
    (await h.call('GET', `/api/v1/history/sessions/${sessionId}`)).body.messages.filter(
      (m: { role: string }) => m.role === 'notice',
    );

  it('a decision in Procura’s approval queue reaches the live client, history and a replay, once', async () => {
    const d = await draft('给博世下 2000 个 F7TC 火花塞的采购单');
    const live = await follow(d);
    expect(live.status).toBe(200);
    const heard = collect(live.events);
    const decided = await h.call('POST', `/api/v1/approvals/${d.orderId}`, {
      token: h.tokens.admin,
      body: { decision: 'approve', version: d.version, comment: '紧急补货，同意' },
    });
    expect(decided.status).toBe(200);
    const expected = {
      id: d.lastSeq + 1,
      event: 'order_decision',
      data: {
        session_id: d.sessionId,
        order_id: d.orderId,
        order_no: d.orderNo,
        decision: 'approved',
        decided_by: 'admin',
        decided_at: decided.body.approval.decidedAt,
        comment: '紧急补货，同意',
        total_amount: decided.body.totalAmount,
      },
    };
    expect(await heard).toEqual([expected]);

    const [notice] = await notices(d.sessionId);
    expect(notice).toMatchObject({ role: 'notice', ...expected.data, run_id: d.runId });
    // A client rejoining from the start replays the run, then the decision, and the stream ends there.
    const replay = await collect((await follow({ ...d, lastSeq: 0 })).events);
    expect(replay.at(-2)).toMatchObject({ event: 'done' });
    expect(replay.at(-1)).toEqual(expected);
    expect(await notices(d.sessionId)).toHaveLength(1);
  });

  it('a decision made directly in the ERP reaches the followed session; asking again tells it no twice', async () => {
    const d = await draft('给博世下 2400 个 F7TC 火花塞的采购单');
    const heard = collect((await follow(d)).events);
    const rejected = await erp('POST', `/orders/${d.orderId}/reject`, h.tokens.admin, {
      version: d.version,
      comment: '价格偏高，请重新询价',
    });
    expect(rejected.body).toMatchObject({
      status: 'draft',
      approval: { rule: 'admin-rejected', decidedBy: 'admin', comment: '价格偏高，请重新询价' },
    });
    const events = await heard;
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      id: d.lastSeq + 1,
      event: 'order_decision',
      data: { order_id: d.orderId, decision: 'rejected', decided_by: 'admin', comment: '价格偏高，请重新询价' },
    });
    await notices(d.sessionId);
    await collect((await follow({ ...d, lastSeq: 0 })).events);
    expect(await notices(d.sessionId)).toHaveLength(1);

    // Returned to the buyer, resubmitted and approved: another decision, told as well.
    const order = (await erp('GET', `/orders/${d.orderId}`, h.tokens.laoxiao)).body;
    const resubmitted = await erp('PUT', `/orders/update/${d.orderId}`, h.tokens.laoxiao, {
      version: order.version,
      status: 'pending_approval',
    });
    expect(resubmitted.body.approval).toMatchObject({ rule: 'needs-admin', decidedBy: null, comment: null });
    await erp('POST', `/orders/${d.orderId}/approve`, h.tokens.admin, { version: resubmitted.body.version });
    expect((await notices(d.sessionId)).map((n: { decision: string }) => n.decision)).toEqual(['rejected', 'approved']);
  });

  it('a decision made while nobody followed is told when the buyer opens the conversation', async () => {
    const d = await draft('给博世下 2600 个 F7TC 火花塞的采购单');
    await erp('POST', `/orders/${d.orderId}/approve`, h.tokens.admin, { version: d.version });
    expect(await notices(d.sessionId)).toMatchObject([{ order_id: d.orderId, decision: 'approved', comment: null }]);
  });

  it('an order claiming a conversation’s trace id but made by someone else is not told to it', async () => {
    const d = await draft('给博世下 2800 个 F7TC 火花塞的采购单');
    const part = (await erp('GET', `/orders/${d.orderId}`, h.tokens.laoxiao)).body.lines[0];
    const supplier = (await erp('GET', `/orders/${d.orderId}`, h.tokens.laoxiao)).body.supplier.id;
    const other = await erp(
      'POST',
      '/orders/create',
      h.tokens.admin,
      { supplierId: supplier, lines: [{ partId: part.partId, quantity: part.quantity }], status: 'pending_approval' },
      { 'x-trace-id': d.runId },
    );
    expect(other.body.traceId).toBe(d.runId);
    const decided = await h.call('POST', `/api/v1/approvals/${other.body.id}`, {
      token: h.tokens.admin,
      body: { decision: 'reject', version: other.body.version },
    });
    expect(decided.status).toBe(200);
    expect(await notices(d.sessionId)).toEqual([]);
  });
});
