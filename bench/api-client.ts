/** The bench's chat client: one run through the API's SSE stream, as a browser would follow it. */
import { Worker } from 'node:worker_threads';
import { createParser } from 'eventsource-parser';

export interface RunResult {
  firstMs: number;
  totalMs: number;
  events: number;
  ok: boolean;
  /** The last event, for a run that did not end as expected. */
  ending?: string;
}

/** Told when the run's first event arrives and when its stream ends (after a first event or not). */
export interface RunHooks {
  first?(): void;
  end?(hadFirst: boolean): void;
}

/** One run through the API to its end: time to first event, total time, events, and whether it ended in `expect`. */
export async function apiRun(
  base: string,
  as: string,
  message: string,
  expect: string,
  hooks: RunHooks = {},
): Promise<RunResult> {
  const started = performance.now();
  let events = 0;
  try {
    const response = await fetch(`${base}/api/v1/agent/chat/stream`, {
      method: 'POST',
      headers: { authorization: `Bearer ${as}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message }),
    });
    if (response.status !== 200 || !response.body) {
      const ending = `HTTP ${response.status} ${await response.text()}`;
      return { firstMs: Number.NaN, totalMs: performance.now() - started, events: 0, ok: false, ending };
    }
    let firstMs = Number.NaN;
    let last = { event: '', data: '' };
    const parser = createParser({
      onEvent: (e) => {
        if (events === 0) {
          firstMs = performance.now() - started;
          hooks.first?.();
        }
        events += 1;
        last = { event: e.event ?? '', data: e.data };
      },
    });
    const decoder = new TextDecoder();
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>)
      parser.feed(decoder.decode(chunk, { stream: true }));
    const ok = last.event === expect;
    return {
      firstMs,
      totalMs: performance.now() - started,
      events,
      ok,
      ending: ok ? undefined : `${last.event} ${last.data.slice(0, 300)}`,
    };
  } catch (error) {
    return { firstMs: Number.NaN, totalMs: 0, events: 0, ok: false, ending: String(error) };
  } finally {
    hooks.end?.(events > 0);
  }
}

export interface ClientRun {
  base: string;
  token: string;
  message: string;
  expect: string;
}

/** Counters the client thread shares (indices into an Int32Array). */
export const FIRSTS = 0;
export const ACTIVE = 1;
export const SETTLED_WITHOUT_FIRST = 2;

/**
 * `runs` all at once from a worker thread, which has its own V8 heap: what the clients hold stays out of the
 * heap of the thread that serves them. Started (after `ready`) by `start()`; `active()` is the number of sessions
 * whose first event arrived and whose stream is still open, read without waiting on either thread's event loop.
 */
export async function clientThread(runs: ClientRun[]) {
  const counters = new SharedArrayBuffer(3 * Int32Array.BYTES_PER_ELEMENT);
  const state = new Int32Array(counters);
  // A worker does not inherit the main thread's TypeScript loader: it registers it before loading its module.
  const entry = new URL('./api-client-worker.ts', import.meta.url).href;
  const loader = import.meta.resolve('tsx/esm/api');
  const worker = new Worker(
    `import(${JSON.stringify(loader)}).then(({ register }) => { register(); return import(${JSON.stringify(entry)}); });`,
    { eval: true, workerData: { runs, counters } },
  );
  let allFirst!: () => void;
  let finish!: (results: RunResult[]) => void;
  let fail!: (error: Error) => void;
  const firsts = new Promise<void>((resolve) => {
    allFirst = resolve;
  });
  const done = new Promise<RunResult[]>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  const ready = new Promise<void>((resolve, reject) => {
    worker.on('message', (message: { type: string; results?: RunResult[] }) => {
      if (message.type === 'ready') resolve();
      else if (message.type === 'all-first') allFirst();
      else if (message.type === 'done') finish(message.results ?? []);
    });
    worker.once('error', (error) => {
      reject(error);
      fail(error);
    });
  });
  await ready;
  return {
    start: () => worker.postMessage('go'),
    /** Every run has had its first event (or failed before one). */
    allFirst: firsts,
    done: done.finally(() => worker.terminate()),
    active: () => Atomics.load(state, ACTIVE),
  };
}
