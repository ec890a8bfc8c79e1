import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUED } from '../../src/api/chat/run-execution.ts';
import { type ApiHarness, startApiHarness } from './harness.ts';
import { collect, openSse, type SseEvent } from './sse.ts';

/** A slow offline model (fixed latency per call) so runs are still going when clients leave or press Stop. */
describe('chat API: reconnect and cancel mid-run', () => {
  let h: ApiHarness;
  beforeAll(async () => {
    h = await startApiHarness({}, { PROCURA_OFFLINE_LATENCY_MS: '250' });
  }, 90_000);
  afterAll(() => h?.close());

  it('a client that disconnects mid-run and reconnects with Last-Event-ID gets every missed event exactly once', async () => {
    const leave = new AbortController();
    const first = await openSse(`${h.url}/api/v1/agent/chat/stream`, {
      token: h.tokens.laoxiao,
      body: { message: '给博世下 230 个 F7TC 火花塞的采购单' },
      signal: leave.signal,
    });
    const sessionId = first.headers.get('x-session-id') as string;
    const seen = await collect(first.events, (e) => e.id === 3);
    leave.abort();
    expect(seen.map((e) => e.id)).toEqual([1, 2, 3]);
    const rest = await openSse(`${h.url}/api/v1/agent/chat/stream/${sessionId}`, {
      token: h.tokens.laoxiao,
      lastEventId: 3,
    });
    const missed = await collect(rest.events);
    expect(missed.at(-1)?.event).toBe('interrupt');
    const ids = [...seen, ...missed].map((e) => e.id);
    expect(ids).toEqual(ids.map((_, i) => i + 1));
    // What the reconnecting client saw is exactly what the run stored.
    const full = await collect(
      (await openSse(`${h.url}/api/v1/agent/chat/stream/${sessionId}`, { token: h.tokens.laoxiao })).events,
    );
    expect([...seen, ...missed]).toEqual(full);
  });

  it('rejoining with a Last-Event-ID below the interrupt continues into the resumed run, during it and after it', async () => {
    const first = await h.chat(h.tokens.laoxiao, { message: '给博世下 235 个 F7TC 火花塞的采购单' });
    const interrupt = first.events.at(-1) as SseEvent;
    const sessionId = interrupt.data.session_id as string;
    const resumed = await openSse(`${h.url}/api/v1/agent/chat/resume`, {
      token: h.tokens.laoxiao,
      body: { session_id: sessionId, interrupt_id: interrupt.data.interrupt_id, decision: { type: 'approve' } },
    });
    const rejoin = (lastEventId: number) =>
      openSse(`${h.url}/api/v1/agent/chat/stream/${sessionId}`, { token: h.tokens.laoxiao, lastEventId }).then((r) =>
        collect(r.events),
      );
    // While the resumed run still works (the model takes 250 ms a call), and once it is done.
    const during = await rejoin(interrupt.id - 1);
    const direct = await collect(resumed.events);
    const after = await rejoin(interrupt.id - 1);
    expect(direct.at(-1)).toMatchObject({ event: 'done', data: { status: 'completed' } });
    expect(during).toEqual([interrupt, ...direct]);
    expect(after).toEqual(during);
  });

  it('cancel stops the run on the server: model and tool work end, running steps close, nothing is written', async () => {
    const message = '给电装下 270 个 D8TC 火花塞的采购单';
    const stream = await openSse(`${h.url}/api/v1/agent/chat/stream`, {
      token: h.tokens.laoxiao,
      body: { message },
    });
    const sessionId = stream.headers.get('x-session-id') as string;
    const events: SseEvent[] = [];
    for await (const e of stream.events) {
      events.push(e);
      if (e.event === 'progress' && e.data.phase === 'subagent' && e.data.status === 'running') {
        const cancel = await h.call('POST', '/api/v1/agent/chat/cancel', { body: { session_id: sessionId } });
        expect(cancel.status).toBe(202);
      }
    }
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'cancelled' } });
    expect(events.some((e) => e.event === 'interrupt')).toBe(false);
    const stepStates = new Map<string, string>();
    for (const e of events.filter((e) => e.event === 'progress')) stepStates.set(e.data.id, e.data.status);
    expect([...stepStates.values()]).not.toContain('running');
    // Nothing keeps working after the stop: no further events, no model calls, no order.
    const stored = (await h.call('GET', `/api/v1/history/sessions/${sessionId}`)).body;
    await new Promise((r) => setTimeout(r, 1_500));
    expect((await h.call('GET', `/api/v1/history/sessions/${sessionId}`)).body).toEqual(stored);
    expect(stored.messages.at(-1)).toMatchObject({ role: 'assistant', status: 'cancelled' });
    expect(await h.ordersNoted(message)).toHaveLength(0);
    expect((await h.call('GET', '/api/v1/health')).body.running_runs).toBe(0);
    // A second start while running gets 409 with the run id.
    const again = await openSse(`${h.url}/api/v1/agent/chat/stream`, {
      token: h.tokens.laoxiao,
      body: { message: '你好', session_id: sessionId },
    });
    const busy = await h.chat(h.tokens.laoxiao, { message: '你好', session_id: sessionId });
    expect(busy.status).toBe(409);
    expect(busy.problem.run_id).toBe(again.headers.get('x-run-id'));
    expect((await collect(again.events)).at(-1)?.event).toBe('done');
  });

  it('runs past the concurrency limit wait in line: their first event comes at once and says so, cancel leaves the line', async () => {
    const narrow = await startApiHarness({ limits: { maxConcurrent: 1 } }, { PROCURA_OFFLINE_LATENCY_MS: '250' });
    try {
      const start = (message: string) =>
        openSse(`${narrow.url}/api/v1/agent/chat/stream`, { token: narrow.tokens.laoxiao, body: { message } });
      const first = await start('给博世下 220 个 F7TC 火花塞的采购单');
      const queued = await start('给电装下 220 个 D8TC 火花塞的采购单');
      const queuedEvents = [];
      for await (const e of queued.events) {
        queuedEvents.push(e);
        if (e.id === 1) {
          await narrow.call('POST', '/api/v1/agent/chat/cancel', {
            body: { session_id: queued.headers.get('x-session-id') },
          });
        }
      }
      expect(queuedEvents.map((e) => [e.event, e.data.title ?? e.data.status])).toEqual([
        ['progress', QUEUED],
        ['progress', '已停止 / stopped'],
        ['done', 'cancelled'],
      ]);
      // A run that waits its turn: the queued step first, then the same step working once a slot is free.
      const waiting = await start('给博世下 221 个 F7TC 火花塞的采购单');
      const firstEvents = await collect(first.events);
      expect(firstEvents[0].data.title).toBe('处理中 / working');
      expect(firstEvents.at(-1)?.event).toBe('interrupt');
      const waited = await collect(waiting.events);
      const runStep = waited.filter((e) => e.data.phase === 'run').map((e) => [e.data.id, e.data.title]);
      expect(runStep.slice(0, 2)).toEqual([
        [waited[0].data.id, QUEUED],
        [waited[0].data.id, '处理中 / working'],
      ]);
      expect(waited.map((e) => e.id)).toEqual(waited.map((_, i) => i + 1));
      expect(waited.at(-1)?.event).toBe('interrupt');
      // Rejoining from the start replays exactly what the live client saw, queued step included.
      const again = await openSse(`${narrow.url}/api/v1/agent/chat/stream/${waiting.headers.get('x-session-id')}`, {
        token: narrow.tokens.laoxiao,
      });
      expect(await collect(again.events)).toEqual(waited);
      // The slot is free again: a new run gets through.
      expect((await narrow.chat(narrow.tokens.laoxiao, { message: '你好' })).events.at(-1)?.event).toBe('done');
    } finally {
      await narrow.close();
    }
  }, 90_000);

  it('cancels a run that stays silent past the inactivity limit', async () => {
    const quiet = await startApiHarness({ limits: { inactivityMs: 100 } }, { PROCURA_OFFLINE_LATENCY_MS: '600' });
    try {
      const run = await quiet.chat(quiet.tokens.laoxiao, { message: '给博世下 210 个 F7TC 火花塞的采购单' });
      expect(run.events.at(-1)).toMatchObject({ event: 'error', data: { detail: 'inactive' } });
    } finally {
      await quiet.close();
    }
  }, 90_000);
});
