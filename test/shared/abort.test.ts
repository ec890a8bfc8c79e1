import { getEventListeners } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idleTimeoutFetch } from '../../src/agent/models/resilience.ts';
import { listen, type RunningServer, sleep } from '../../src/shared/index.ts';

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
