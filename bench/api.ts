/**
 * Chat API throughput and latency on the offline model with a fixed per-call latency. Each order run is the order
 * flow up to its approval interrupt. The floor is the same run on the bare graph (no API, nothing stored), measured
 * in the same run so load from elsewhere hits both:
 * - one at a time: time to first event, and CPU and wall time per run, API against the bare graph;
 * - many concurrent sessions on one process: first event p50/p99, runs/s against the bare graph at the same
 *   concurrency, peak RSS growth, errors;
 * - memory per active session: the server's heap after a full GC with every session active against before it
 *   (see `activeSessionMemory`); then 100 concurrent greetings from 10 users;
 * - with DATABASE_URL and REDIS_URL: the same concurrent sessions and memory on two `procura api` processes
 *   (started with the inspector, through which their heaps are collected and read).
 * Concurrent clients run on a thread of their own, off the event loop of the server they measure.
 * Usage: npm run bench:api [-- --sessions 200 --latency 50 --samples 20 --max-concurrent 8 --profile <dir>]
 * `--profile` writes a CPU profile (.cpuprofile, for Chrome DevTools) of the one-process concurrent sessions phase.
 */
import fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { WebSocket } from 'undici';
import { createAgentStorage } from '../src/agent/backends/index.ts';
import { AgentRuntime } from '../src/agent/index.ts';
import { createApi, DEFAULT_LIMITS } from '../src/api/index.ts';
import { listen } from '../src/shared/index.ts';
import { registerChartTools } from '../src/tools/charts/index.ts';
import { type ApiProcess, spawnApi, startLocalParts } from '../test/api/process.ts';
import { apiRun, type ClientRun, clientThread, type RunResult } from './api-client.ts';
import { recordResults } from './results.ts';

recordResults('api');

const { values: args } = parseArgs({
  options: {
    sessions: { type: 'string', default: '200' },
    latency: { type: 'string', default: process.env.PROCURA_OFFLINE_LATENCY_MS ?? '50' },
    samples: { type: 'string', default: '20' },
    'max-concurrent': { type: 'string' },
    profile: { type: 'string' },
  },
});
const sessions = Number(args.sessions);
const latencyMs = Number(args.latency);
const samples = Number(args.samples);
const maxConcurrent = args['max-concurrent'] ? Number(args['max-concurrent']) : undefined;

const parts = await startLocalParts('procura-bench-api-');
const { erp, urls, root: dataDir } = parts;
const erpUrl = urls.erp;
const offlineEnv = { DEEPSEEK_API_KEY: '', OPENAI_BASE_URL: '', PROCURA_OFFLINE_LATENCY_MS: String(latencyMs) };
const runtime = new AgentRuntime({
  dataDir,
  erpUrl,
  suppliersUrl: urls.suppliers,
  env: { ...process.env, ...offlineEnv },
  storage: createAgentStorage,
  extraTools: [(registry) => registerChartTools(registry, urls.chartMcp, urls.chartMcpToken)],
});
const api = await createApi({
  runtime,
  erpUrl,
  dataDir,
  limits: { startsPerMinute: 1_000_000, ...(maxConcurrent ? { maxConcurrent } : {}) },
});
const server = await listen(api.fetch, { host: '127.0.0.1', port: 0 });
// The same API with a fixed number of slots and no regard for the event loop's delay: the comparison.
const fixedApi = await createApi({
  runtime,
  erpUrl,
  dataDir: path.join(dataDir, 'fixed'),
  limits: {
    startsPerMinute: 1_000_000,
    loopDelayMs: Number.POSITIVE_INFINITY,
    ...(maxConcurrent ? { maxConcurrent } : {}),
  },
});
const fixedServer = await listen(fixedApi.fetch, { host: '127.0.0.1', port: 0 });
const token = erp.demoTokens.laoxiao;
const users = await erp.services.users.list();
const laoxiao = { user: users.find((u) => u.username === 'laoxiao')!, token };
type Buyer = typeof laoxiao;
const ORDER = '给博世下 200 个 F7TC 火花塞的采购单';
const concurrency = `${maxConcurrent ?? DEFAULT_LIMITS.maxConcurrent} executing at once`;

const percentile = (values: number[], p: number) => {
  const sorted = [...values].filter(Number.isFinite).sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
};
const ms = (v: number) => `${v.toFixed(1)} ms`;

/** The same order run on the bare graph (no API, no events stored): the floor. */
async function graphRun(i: number, { user: buyer, token } = laoxiao): Promise<{ totalMs: number; chunks: number }> {
  const sessionId = `bench-direct-${i}-${crypto.randomUUID()}`;
  const ctx = {
    userId: buyer.username,
    username: buyer.displayName,
    role: buyer.role,
    token,
    projectId: buyer.projectIds[0],
    traceId: sessionId,
    sessionId,
  };
  const graph = await runtime.graph(ctx);
  const started = performance.now();
  let chunks = 0;
  const stream = await graph.stream(
    { messages: [{ role: 'user', content: ORDER }] } as never,
    {
      configurable: { thread_id: sessionId },
      context: ctx,
      recursionLimit: 200,
      streamMode: ['updates', 'messages', 'custom'],
      subgraphs: true,
    } as never,
  );
  for await (const _ of stream as AsyncIterable<unknown>) chunks += 1;
  runtime.releaseRun(sessionId);
  return { totalMs: performance.now() - started, chunks };
}

/** Runs `count` tasks with at most `width` at once. */
async function pool<T>(count: number, width: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, count) }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await task(i);
      }
    }),
  );
  return results;
}

/**
 * `runs` all at once from the client thread: the clients' fetches and SSE parsing stay off the server's event loop,
 * as a browser's would, so a first event is timed when it reaches the client, not when a loop busy with runs gets
 * round to the client's callback.
 */
async function fromClientThread(runs: ClientRun[]): Promise<RunResult[]> {
  const clients = await clientThread(runs);
  clients.start();
  return clients.done;
}

/** `count` sessions sending `message`, spread in turn over the servers at `bases` and over `buyers`. */
function clientRuns(count: number, bases: string[], buyers: Buyer[], message: string, expect: string): ClientRun[] {
  return Array.from({ length: count }, (_, i) => ({
    base: bases[i % bases.length],
    token: buyers[i % buyers.length].token,
    message,
    expect,
  }));
}

/** Peak resident memory over `work`, sampled every 50 ms from the given process ids (this one by default). */
async function withPeakRss<T>(pids: number[], work: () => Promise<T>) {
  const rssOf = (pid: number) =>
    pid === process.pid
      ? process.memoryUsage().rss
      : Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  const total = () => pids.reduce((sum, pid) => sum + rssOf(pid), 0);
  const before = total();
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, total());
  }, 50);
  const started = performance.now();
  const result = await work();
  const wallMs = performance.now() - started;
  clearInterval(sampler);
  return { result, wallMs, before, peak };
}

/** `work` under the CPU profiler when `--profile` is given: `<dir>/<name>.cpuprofile`. */
async function profiled<T>(name: string, work: () => Promise<T>): Promise<T> {
  if (!args.profile) return work();
  const inspector = new Session();
  inspector.connect();
  await inspector.post('Profiler.enable');
  await inspector.post('Profiler.start');
  try {
    return await work();
  } finally {
    const { profile } = await inspector.post('Profiler.stop');
    fs.mkdirSync(args.profile, { recursive: true });
    fs.writeFileSync(path.join(args.profile, `${name}.cpuprofile`), JSON.stringify(profile));
    inspector.disconnect();
  }
}

type Row = Record<string, string | number>;
/** Every row, for the summary at the end. */
const rows: Row[] = [];
const failures: string[] = [];
/** Rows of the phase under way: printed as soon as it ends, so a later phase that fails loses nothing. */
let phaseRows: Row[] = [];
let phaseFailures = 0;

function addRow(row: Row): void {
  rows.push(row);
  phaseRows.push(row);
}

/** Prints the table of the phase that just ended (and its errors), then starts the next phase. */
function endPhase(title: string): void {
  console.log(`\n${title} (load average ${os.loadavg()[0].toFixed(1)})`);
  console.table(phaseRows);
  for (const failure of failures.slice(phaseFailures)) console.log(`error: ${failure}`);
  phaseRows = [];
  phaseFailures = failures.length;
}

/** Rows for one batch of concurrent runs. */
function report(
  label: string,
  runs: RunResult[],
  wallMs: number,
  memory?: { before: number; peak: number; scope: string },
) {
  const failed = runs.filter((r) => !r.ok);
  failures.push(...failed.slice(0, 3).map((r) => `${label}: ${r.ending}`));
  addRow({
    scenario: label,
    p50: ms(
      percentile(
        runs.map((r) => r.firstMs),
        50,
      ),
    ),
    p99: ms(
      percentile(
        runs.map((r) => r.firstMs),
        99,
      ),
    ),
    detail: `first event; ${((runs.length / wallMs) * 1000).toFixed(1)} runs/s, ${(
      (runs.reduce((s, r) => s + r.events, 0) / wallMs) * 1000
    ).toFixed(0)} events/s, ${failed.length} errors`,
  });
  if (memory) {
    addRow({
      scenario: `  peak RSS growth / sessions (${memory.scope})`,
      p50: `${((memory.peak - memory.before) / runs.length / 1024).toFixed(0)} KiB`,
      p99: '',
      detail: `peak rss ${(memory.peak / 1024 / 1024).toFixed(0)} MiB, sampled every 50 ms; not the retained figure`,
    });
  }
}

/** Peak RSS of the one-process phases covers the whole bench process: the API, the ERP and the clients. */
const ONE_PROCESS_RSS = 'whole bench process: API, ERP and clients';

/**
 * A server's heap right after a full garbage collection, so only what is still referenced counts: V8's heap in use
 * plus `external` (memory outside it that JavaScript objects hold: Buffers, ArrayBuffers).
 */
interface HeapProbe {
  read(): Promise<number>;
  close(): void;
}

/** This thread's heap (the in-process API's), through the inspector. */
function ownHeap(): HeapProbe {
  const inspector = new Session();
  inspector.connect();
  return {
    async read() {
      await inspector.post('HeapProfiler.collectGarbage');
      const { heapUsed, external } = process.memoryUsage();
      return heapUsed + external;
    },
    close: () => inspector.disconnect(),
  };
}

/** A `procura api` process's heap, through its inspector (it was started with `inspect`). */
async function childHeap(url: string): Promise<HeapProbe> {
  const socket = new WebSocket(url);
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = reject;
  });
  const pending = new Map<number, (message: { result?: unknown; error?: { message: string } }) => void>();
  socket.onmessage = (event) => {
    const message = JSON.parse(String(event.data));
    pending.get(message.id)?.(message);
    pending.delete(message.id);
  };
  let id = 0;
  const call = (method: string, params: object = {}) =>
    new Promise<unknown>((resolve, reject) => {
      id += 1;
      pending.set(id, (m) => (m.error ? reject(new Error(`${method}: ${m.error.message}`)) : resolve(m.result)));
      socket.send(JSON.stringify({ id, method, params }));
    });
  return {
    async read() {
      await call('HeapProfiler.collectGarbage');
      const { result } = (await call('Runtime.evaluate', {
        expression: 'JSON.stringify(process.memoryUsage())',
        returnByValue: true,
      })) as { result: { value: string } };
      const { heapUsed, external } = JSON.parse(result.value) as NodeJS.MemoryUsage;
      return heapUsed + external;
    },
    close: () => socket.close(),
  };
}

/**
 * Memory per active session. A session is active while its stream is open and its run admitted: it has had its
 * first event (sent on admission, whether the run waits for a slot or executes) and not yet its last. `sessions`
 * order sessions start at once from a client thread (its own V8 heap: the clients are not in the figure); at the
 * moment every one has had its first event, each server's heap is collected and read. Retained per active session
 * = (heap used + external) at that moment − the same before the sessions, over the sessions active then. What runs
 * that already ended left behind counts in the growth but not among the active sessions. Once every session ended,
 * the heap is read again: what is left behind per session shows what finished runs keep (a leak grows it).
 */
async function activeSessionMemory(
  label: string,
  targets: { bases: string[]; buyers: Buyer[]; probes: HeapProbe[]; pids: number[]; rssScope: string },
  server?: () => { running: number; queued: number },
): Promise<void> {
  const clients = await clientThread(clientRuns(sessions, targets.bases, targets.buyers, ORDER, 'interrupt'));
  const heaps = async () => (await Promise.all(targets.probes.map((p) => p.read()))).reduce((a, b) => a + b, 0);
  const before = await heaps();
  const {
    result,
    before: rssBefore,
    peak,
  } = await withPeakRss(targets.pids, async () => {
    clients.start();
    await clients.allFirst;
    const activeBefore = clients.active();
    const admitted = server?.();
    const at = await heaps();
    // Sessions may end while the heaps are read: the fewer of the two counts, so none is counted that was gone.
    const active = Math.min(activeBefore, clients.active());
    const runs = await clients.done;
    return { at, active, admitted, runs, after: await heaps() };
  });
  const failed = result.runs.filter((r) => !r.ok);
  failures.push(...failed.slice(0, 3).map((r) => `${label}: ${r.ending}`));
  const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
  const split = result.admitted
    ? ` (server: ${result.admitted.running} admitted, ${result.admitted.queued} in line)`
    : '';
  addRow({
    scenario: `${label}: retained per active session`,
    p50: result.active ? `${((result.at - before) / result.active / 1024).toFixed(0)} KiB` : 'n/a',
    p99: '',
    detail: `heap + external after a full GC ${mib(before)} → ${mib(result.at)} with ${result.active} sessions active${split}; ${failed.length} errors`,
  });
  addRow({
    scenario: '  left behind per session once all ended',
    p50: `${((result.after - before) / sessions / 1024).toFixed(0)} KiB`,
    p99: '',
    detail: `heap + external after a full GC ${mib(result.after)}: what ended sessions still hold (and compiled code)`,
  });
  addRow({
    scenario: `  peak RSS growth / sessions (${targets.rssScope})`,
    p50: `${((peak - rssBefore) / sessions / 1024).toFixed(0)} KiB`,
    p99: '',
    detail: `peak rss ${(peak / 1024 / 1024).toFixed(0)} MiB, sampled every 50 ms over the whole phase`,
  });
}

/**
 * New buyers with their tokens: each phase's sessions belong to 10-session users of its own, so many sessions stay
 * under each user's start limit in `procura api` and no phase works in the workspaces an earlier one left behind.
 */
const newBuyers = (count: number, label: string) =>
  Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const username = `bench-${label}-${i}-${Date.now().toString(36)}`; // ≤ 32 characters
      const user = await erp.services.users.create({ username, role: 'buyer', projectIds: ['P001'] });
      return { user, token: await erp.services.users.issueToken(username, 'bench') } satisfies Buyer;
    }),
  );

console.log(`${os.cpus().length} cores, offline model at ${latencyMs} ms a call, ${sessions} sessions`);
await apiRun(server.url, token, ORDER, 'interrupt'); // warm-up: builds the agent, opens the databases
await graphRun(-1);

// API and bare runs alternate, so load from elsewhere on the machine hits both alike.
const sequential: RunResult[] = [];
const direct: Array<{ totalMs: number }> = [];
let apiCpu = 0;
let directCpu = 0;
for (let i = 0; i < samples; i++) {
  let cpu = process.cpuUsage();
  sequential.push(await apiRun(server.url, token, ORDER, 'interrupt'));
  cpu = process.cpuUsage(cpu);
  apiCpu += (cpu.user + cpu.system) / 1000;
  cpu = process.cpuUsage();
  direct.push(await graphRun(i));
  cpu = process.cpuUsage(cpu);
  directCpu += (cpu.user + cpu.system) / 1000;
}
const mean = (values: number[]) => values.reduce((s, v) => s + v, 0) / values.length;
const eventsPerRun = mean(sequential.map((r) => r.events));
addRow({
  scenario: `one at a time (${samples} order runs): time to first event`,
  p50: ms(
    percentile(
      sequential.map((r) => r.firstMs),
      50,
    ),
  ),
  p99: ms(
    percentile(
      sequential.map((r) => r.firstMs),
      99,
    ),
  ),
  detail: `run to interrupt ${ms(mean(sequential.map((r) => r.totalMs)))} mean, ${eventsPerRun.toFixed(0)} events`,
});
addRow({
  scenario: '  CPU per run: API / bare graph (floor)',
  p50: ms(apiCpu / samples),
  p99: ms(directCpu / samples),
  detail: `API costs ${((apiCpu / directCpu - 1) * 100).toFixed(0)} % over the graph, ${ms(
    (apiCpu - directCpu) / samples / eventsPerRun,
  )} per event; wall ${ms(mean(sequential.map((r) => r.totalMs)))} / ${ms(mean(direct.map((r) => r.totalMs)))}`,
});
endPhase('One at a time');

const width = maxConcurrent ?? DEFAULT_LIMITS.maxConcurrent;
const perUser = (label: string) => newBuyers(Math.ceil(sessions / 10), label);
const bareBuyers = await perUser('bare');
const bare = await withPeakRss([process.pid], () =>
  pool(sessions, width, (i) => graphRun(1_000 + i, bareBuyers[i % bareBuyers.length])),
);
addRow({
  scenario: `floor: ${sessions} bare graph runs, ${width} at once`,
  p50: '',
  p99: '',
  detail: `${((sessions / bare.wallMs) * 1000).toFixed(1)} runs/s`,
});
const fixedBuyers = await perUser('fixed');
const fixed = await withPeakRss([process.pid], () =>
  fromClientThread(clientRuns(sessions, [fixedServer.url], fixedBuyers, ORDER, 'interrupt')),
);
report(
  `${sessions} concurrent order sessions, fixed ${width} slots (no loop-delay check)`,
  fixed.result,
  fixed.wallMs,
  { ...fixed, scope: ONE_PROCESS_RSS },
);
const loopBuyers = await perUser('loop');
const concurrent = await profiled('sessions', () =>
  withPeakRss([process.pid], () =>
    fromClientThread(clientRuns(sessions, [server.url], loopBuyers, ORDER, 'interrupt')),
  ),
);
report(`${sessions} concurrent order sessions, one process (${concurrency})`, concurrent.result, concurrent.wallMs, {
  ...concurrent,
  scope: ONE_PROCESS_RSS,
});
addRow({
  scenario: '  runs/s: API / bare graph',
  p50: `${((bare.wallMs / concurrent.wallMs) * 100).toFixed(0)} %`,
  p99: '',
  detail: 'same concurrency, same run of the bench',
});
endPhase(`${sessions} concurrent sessions, one process`);

const ownProbe = ownHeap();
await activeSessionMemory(
  `${sessions} order sessions at once, one process`,
  {
    bases: [server.url],
    buyers: await perUser('memory'),
    probes: [ownProbe],
    pids: [process.pid],
    rssScope: 'whole bench process, client thread included',
  },
  () => ({ running: api.runs.running, queued: api.runs.queued }),
);
ownProbe.close();
endPhase('Memory per active session, one process');

// 10 users × 10 sessions greeting at once, each user under the default per-user start limit.
const greeters = await newBuyers(10, 'greeter');
const greetings = await withPeakRss([process.pid], () =>
  fromClientThread(clientRuns(100, [server.url], greeters, '你好', 'done')),
);
report('100 concurrent greetings from 10 users, one process', greetings.result, greetings.wallMs);
endPhase('Greetings, one process');

const databaseUrl = process.env.DATABASE_URL;
const redisUrl = process.env.REDIS_URL;
if (databaseUrl && redisUrl) {
  const env = { ...offlineEnv, DATABASE_URL: databaseUrl, REDIS_URL: redisUrl };
  let pair: ApiProcess[] = [];
  try {
    pair = await Promise.all(
      ['a', 'b'].map((name) => spawnApi(path.join(dataDir, `api-${name}`), urls, env, { inspect: true })),
    );
    for (const p of pair) await apiRun(p.url, token, ORDER, 'interrupt');
    const pids = pair.map((p) => p.child.pid as number);
    const pairUrls = pair.map((p) => p.url);
    const buyers = await perUser('pair');
    const pairGreeters = await newBuyers(10, 'pair-greeter');
    const spread = await withPeakRss(pids, () =>
      fromClientThread(clientRuns(sessions, pairUrls, buyers, ORDER, 'interrupt')),
    );
    report(`${sessions} concurrent order sessions, 2 processes, PostgreSQL + Redis`, spread.result, spread.wallMs, {
      ...spread,
      scope: 'both server processes',
    });
    const spreadGreetings = await withPeakRss(pids, () =>
      fromClientThread(clientRuns(100, pairUrls, pairGreeters, '你好', 'done')),
    );
    report('100 concurrent greetings from 10 users, 2 processes', spreadGreetings.result, spreadGreetings.wallMs);
    const probes = await Promise.all(pair.map((p) => childHeap(p.inspectorUrl as string)));
    try {
      await activeSessionMemory(`${sessions} order sessions at once, 2 processes`, {
        bases: pairUrls,
        buyers: await perUser('pair-memory'),
        probes,
        pids,
        rssScope: 'both server processes',
      });
    } finally {
      for (const probe of probes) probe.close();
    }
  } catch (error) {
    failures.push(`2 processes: ${(error as Error).message}`);
  } finally {
    endPhase('2 processes, PostgreSQL + Redis');
    await Promise.all(pair.map((p) => p.stop()));
  }
} else {
  addRow({ scenario: '2 processes: set DATABASE_URL and REDIS_URL', p50: '', p99: '', detail: 'skipped' });
}

console.log(
  `\nSummary: ${os.cpus().length} cores, offline model at ${latencyMs} ms a call, load average ${os.loadavg()[0].toFixed(1)}`,
);
console.table(rows);
for (const failure of failures) console.log(`error: ${failure}`);
await server.close();
await api.close();
await fixedServer.close();
await fixedApi.close();
await runtime.close();
await parts.close();
if (failures.length) process.exitCode = 1;
