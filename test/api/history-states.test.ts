import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHarness, startApiHarness } from './harness.ts';
import type { SseEvent } from './sse.ts';

/** The history list says where each conversation stands, computed by the server from its runs and events. */
describe('history: each conversation’s state', () => {
  let h: ApiHarness;
  beforeAll(async () => {
    h = await startApiHarness();
  }, 90_000);
  afterAll(() => h?.close());

  const stateOf = async (sessionId: string) => {
    const list = await h.call('GET', '/api/v1/history/sessions?page=1&size=50');
    expect(list.status).toBe(200);
    return list.body.items.find((s: { id: string }) => s.id === sessionId)?.state;
  };

  it('waiting for approval → ordered → returned by the admin; a plain answer has none', async () => {
    const message = '给博世下 2000 个 F7TC 火花塞的采购单';
    const first = await h.chat(h.tokens.laoxiao, { message });
    const interrupt = first.events.at(-1) as SseEvent;
    expect(interrupt.event).toBe('interrupt');
    const sessionId = interrupt.data.session_id;
    expect(await stateOf(sessionId)).toBe('waiting');

    const second = await h.resume(h.tokens.laoxiao, {
      session_id: sessionId,
      interrupt_id: interrupt.data.interrupt_id,
      decision: { type: 'approve' },
    });
    expect(second.events.at(-1)).toMatchObject({ event: 'done', data: { status: 'completed' } });
    expect(await stateOf(sessionId)).toBe('ordered');

    const [noted] = await h.ordersNoted(message);
    const queue = await h.call('GET', '/api/v1/approvals', { token: h.tokens.admin });
    const waiting = queue.body.items.find((o: { id: number }) => o.id === noted.id);
    const rejected = await h.call('POST', `/api/v1/approvals/${noted.id}`, {
      token: h.tokens.admin,
      body: { decision: 'reject', version: waiting.version, comment: '价格偏高' },
    });
    expect(rejected.status).toBe(200);
    expect(await stateOf(sessionId)).toBe('returned');

    const plain = await h.chat(h.tokens.laoxiao, { message: '你好' });
    expect(await stateOf(plain.headers.get('x-session-id') as string)).toBeNull();
  }, 120_000);
});
