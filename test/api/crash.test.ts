import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiProcess, type LocalParts, spawnApi, startLocalParts } from './process.ts';
import { collect, openSse, type SseEvent } from './sse.ts';

/** Where in a resume the API process is killed (SIGKILL: no shutdown code runs). */
type Window = 'acknowledged' | 'erp-request' | 'erp-stored' | 'step-completed';

/**
 * The chat API as a child process on SQLite, killed at each step of a resumed approval and started again on the
 * same data directory. The ERP runs in this process behind a door that can kill the API on an order write.
 */
describe('chat API: a crash at any step of a resume still ends in exactly one order, and the user is told', {
  timeout: 180_000,
}, () => {
  let parts: LocalParts;
  let erp: LocalParts['erp'];
  let api: ApiProcess;
  let token: string;
  /** Set by a test: the next order write kills the API before the ERP stores it, or after. */
  let trap: { at: 'erp-request' | 'erp-stored'; sprung: () => void } | undefined;

  // One process on SQLite (whatever the environment says): a restart knows every running run is its own orphan.
  const start = () =>
    spawnApi(path.join(parts.root, 'api'), parts.urls, {
      PROCURA_OFFLINE_LATENCY_MS: '300',
      DATABASE_URL: '',
      REDIS_URL: '',
    });

  beforeAll(async () => {
    parts = await startLocalParts('procura-api-crash-', async (request, erp) => {
      const armed = trap;
      if (!armed || request.method !== 'POST' || !new URL(request.url).pathname.endsWith('/orders/create'))
        return erp.fetch(request);
      trap = undefined;
      if (armed.at === 'erp-request') {
        await api.kill();
        armed.sprung();
        return new Response(null, { status: 503 });
      }
      const response = await erp.fetch(request);
      await api.kill();
      armed.sprung();
      return response;
    });
    erp = parts.erp;
    token = erp.demoTokens.laoxiao;
    api = await start();
  }, 120_000);
  afterAll(async () => {
    await api?.stop();
    await parts?.close();
  });

  const windows: Array<{ at: Window; quantity: number; what: string }> = [
    { at: 'acknowledged', quantity: 311, what: 'right after the resume is acknowledged' },
    { at: 'erp-request', quantity: 312, what: 'while the order write is on its way (the ERP stores nothing)' },
    { at: 'erp-stored', quantity: 313, what: 'after the ERP stored the order, before its answer came back' },
    { at: 'step-completed', quantity: 314, what: 'after the order step completed, before the answer' },
  ];

  it.each(windows)('killed $what', async ({ at, quantity }) => {
    const message = `给博世下 ${quantity} 个 F7TC 火花塞的采购单`;
    const first = await collect(
      (await openSse(`${api.url}/api/v1/agent/chat/stream`, { token, body: { message } })).events,
    );
    const interrupt = first.at(-1) as SseEvent;
    expect(interrupt).toMatchObject({ event: 'interrupt', data: { kind: 'approval', tool: 'order_create' } });
    const sessionId = interrupt.data.session_id as string;

    const sprung = new Promise<void>((resolve) => {
      if (at === 'erp-request' || at === 'erp-stored') trap = { at, sprung: resolve };
    });
    const resume = await openSse(`${api.url}/api/v1/agent/chat/resume`, {
      token,
      body: { session_id: sessionId, interrupt_id: interrupt.data.interrupt_id, decision: { type: 'approve' } },
    });
    expect(resume.status).toBe(200);
    const seen: SseEvent[] = [];
    if (at === 'acknowledged') await api.kill();
    else if (at === 'step-completed') {
      for await (const e of resume.events) {
        seen.push(e);
        if (e.event === 'progress' && e.data.title === '创建采购订单' && e.data.status === 'completed') {
          await api.kill();
          break;
        }
      }
      expect(seen.at(-1)?.data.status).toBe('completed');
    } else {
      await sprung;
      seen.push(...(await collect(resume.events).catch(() => [])));
    }
    expect(seen.some((e) => e.event === 'done')).toBe(false);

    api = await start();
    // The client reconnects from the last event it saw; the restarted API carries out the decision.
    const lastSeen = seen.at(-1)?.id ?? interrupt.id;
    const rest = await collect(
      (await openSse(`${api.url}/api/v1/agent/chat/stream/${sessionId}`, { token, lastEventId: lastSeen })).events,
    );
    expect(rest.at(-1)).toMatchObject({ event: 'done', data: { status: 'completed' } });
    expect(rest.map((e) => e.id)).toEqual(rest.map((_, i) => lastSeen + 1 + i));

    const orders = (await erp.database.db.selectFrom('orders').select(['order_no', 'note']).execute()).filter((o) =>
      o.note.includes(message),
    );
    expect(orders).toHaveLength(1);
    const history = await fetch(`${api.url}/api/v1/history/sessions/${sessionId}`, {
      headers: { authorization: `Bearer ${token}` },
    }).then((r) => r.json() as Promise<{ messages: Array<{ content: string }>; pending_interrupts: unknown[] }>);
    const answer = history.messages.at(-1);
    expect(answer).toMatchObject({ role: 'assistant', status: 'done' });
    expect(answer?.content).toContain(orders[0].order_no);
    // The recovered run's `done` carries the whole answer, the same text the history shows.
    const done = rest.at(-1) as SseEvent;
    expect(done.data.answer).toContain(orders[0].order_no);
    expect(answer?.content).toBe(done.data.answer);
    expect(history.pending_interrupts).toEqual([]);
  });
});
