/**
 * Chat clients on a thread of their own, for the memory phase of bench:api: a worker has its own V8 heap, so what
 * the clients hold is not counted in the server's. Shared counters tell the bench how many sessions are active
 * (first event received, stream still open) at any moment; it posts `all-first` once every run has had its first
 * event (or failed), and `done` with the results.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ACTIVE, apiRun, type ClientRun, FIRSTS, SETTLED_WITHOUT_FIRST } from './api-client.ts';

const { runs, counters } = workerData as { runs: ClientRun[]; counters: SharedArrayBuffer };
const state = new Int32Array(counters);
const port = parentPort!;
const checkAllFirst = () => {
  if (Atomics.load(state, FIRSTS) + Atomics.load(state, SETTLED_WITHOUT_FIRST) === runs.length)
    port.postMessage({ type: 'all-first' });
};

port.once('message', async () => {
  const results = await Promise.all(
    runs.map((run) =>
      apiRun(run.base, run.token, run.message, run.expect, {
        first: () => {
          Atomics.add(state, ACTIVE, 1);
          Atomics.add(state, FIRSTS, 1);
          checkAllFirst();
        },
        end: (hadFirst) => {
          if (hadFirst) Atomics.sub(state, ACTIVE, 1);
          else {
            Atomics.add(state, SETTLED_WITHOUT_FIRST, 1);
            checkAllFirst();
          }
        },
      }),
    ),
  );
  port.postMessage({ type: 'done', results });
});
port.postMessage({ type: 'ready' });
