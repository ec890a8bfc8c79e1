import { getEventListeners } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idleTimeoutFetch } from '../../src/agent/models/resilience.ts';
import { erpRequest } from '../../src/erp/index.ts';
import { deadline, listen, type RunningServer, sleep } from '../../src/shared/index.ts';

// A run's signal lives as long as the run (and a combined signal with listeners is kept alive by Node): whatever
// stays subscribed to it after its work ended is held with everything it refers to.
const listeners = (signal: AbortSignal) => getEventListeners(signal, 'abort').length;

describe('sleep', () => {
  it('leaves the signal once the wait is over', async () => {
    const run = new AbortController();
    await sleep(5, run.signal);
    await sleep(5, run.signal);
    expect(listeners(run.signal)).toBe(0);
  });

  it('rejects with the reason as soon as the signal aborts', async () => {
    const run = new AbortController();
    const waiting = sleep(60_000, run.signal);
    run.abort('stopped');
    await expect(waiting).rejects.toBe('stopped');
  });
});

describe('deadline', () => {
  it('aborts with a TimeoutError when the time is up', async () => {
    const limit = deadline(5);
    await new Promise<void>((resolve) => limit.signal.addEventListener('abort', () => resolve()));
    expect(limit.timedOut).toBe(true);
    expect((limit.signal.reason as DOMException).name).toBe('TimeoutError');
  });

  it('follows the caller’s signal, and leaves it and stops its timer once cleared', async () => {
    const run = new AbortController();
    const first = deadline(60_000, run.signal);
    first.clear();
    expect(listeners(run.signal)).toBe(0);
    const cleared = deadline(5, run.signal);
    cleared.clear();
    await sleep(20);
    expect(cleared.signal.aborted).toBe(false);
    const followed = deadline(60_000, run.signal);
    run.abort('stopped');
    expect(followed.signal.reason).toBe('stopped');
    expect(followed.timedOut).toBe(false);
    followed.clear();
  });
});

describe('idleTimeoutFetch', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await listen(
      (request) => new Response(new URL(request.url).pathname === '/empty' ? null : 'answer', { status: 200 }),
      { host: '127.0.0.1', port: 0 },
    );
  });
  afterAll(() => server.close());

  it('leaves the caller’s signal however the call ends', async () => {
    const call = idleTimeoutFetch(5_000);
    const run = new AbortController();
    expect(await (await call(`${server.url}/answer`, { signal: run.signal })).text()).toBe('answer');
    await (await call(`${server.url}/empty`, { method: 'HEAD', signal: run.signal })).text();
    await expect(call('http://127.0.0.1:1/', { signal: run.signal })).rejects.toThrow();
    expect(listeners(run.signal)).toBe(0);
  });
});

describe('erpRequest', () => {
  it('leaves the run’s signal once the answer is read, and still times out', async () => {
    const run = new AbortController();
    const connection = { baseUrl: 'http://erp.test/api', token: 't', traceId: 'trace' };
    const answer = await erpRequest<{ ok: boolean }>(
      { ...connection, fetch: () => Response.json({ ok: true }) },
      'GET',
      '/parts',
      { signal: run.signal },
    );
    expect(answer.ok).toBe(true);
    expect(listeners(run.signal)).toBe(0);
    // An ERP that never answers: the request's signal is what ends it, as an outage of the ERP.
    const silent = (request: Request) =>
      new Promise<Response>((_, reject) =>
        request.signal.addEventListener('abort', () => reject(request.signal.reason)),
      );
    await expect(
      erpRequest({ ...connection, fetch: silent, timeoutMs: 10 }, 'GET', '/parts', { signal: run.signal }),
    ).rejects.toMatchObject({
      status: 503,
      unavailable: 'ERP',
      message: expect.stringContaining('no answer within 10 ms'),
    });
    expect(listeners(run.signal)).toBe(0);
  });
});
