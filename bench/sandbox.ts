/**
 * The sandbox: what an execution costs, and how well the chat API is isolated from the code it runs.
 *
 * 1. Cost. Each scenario runs in the bench process exactly as before scripts moved out (a fresh QuickJS-ng
 *    instance in-process: the floor) and through the sandbox (a separate process): cold = the first script of a
 *    freshly booted process, warm = a process that has run scripts before. Runs alternate, so machine load hits
 *    floor and subject alike.
 * 2. Isolation. The real chat API (ERP + API over HTTP) runs in this process, and scripts are started here through
 *    the agent backend the runtime uses: the API's RSS growth during a memory bomb, and `/api/v1/health` latency
 *    while 4 endless loops run (against the same requests with nothing running).
 *
 * Usage: npm run bench:sandbox [-- --runs 20 --rows 10000 --loop-seconds 8]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { transform } from 'esbuild';
import { DEFAULT_SANDBOX_LIMITS, type QuickJsSandbox, runScript, Workspaces } from '../src/agent/backends/index.ts';
import { idleHealthRow, MIB, percentile, printLoadAverage, round, startInProcessApi, verdict } from './api-stack.ts';
import { recordResults } from './results.ts';

recordResults('sandbox');

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '20' },
    rows: { type: 'string', default: '10000' },
    'loop-seconds': { type: 'string', default: '8' },
  },
});
const runs = Number(args.runs);
const rows = Number(args.rows);
const loopSeconds = Number(args['loop-seconds']);

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-bench-sandbox-'));

// ── 1. Cost ──────────────────────────────────────────────────────────────────────────────────────────────────────
const workspaces = new Workspaces({ dataDir });
const sandbox = workspaces.sandbox('bench', 'bench');
const suppliers = ['博世', 'NGK', '电装', '冠军', '火炬'];
const csv = ['supplier,part,price,quantity'];
for (let i = 0; i < rows; i++) {
  csv.push(
    `${suppliers[i % suppliers.length]},P${i % 500},${(10 + ((i * 7919) % 1000) / 100).toFixed(2)},${1 + (i % 50)}`,
  );
}
await sandbox.write('/data/quotes.csv', csv.join('\n'));
const aggregation = `
const [, ...lines] = (await fs.readFile('/data/quotes.csv')).split('\\n');
const totals = {};
for (const line of lines) {
  const [supplier, , price, quantity] = line.split(',');
  const t = (totals[supplier] ??= { supplier, rows: 0, spend: 0, min: Infinity, max: 0 });
  const p = Number(price);
  t.rows++; t.spend += p * Number(quantity); t.min = Math.min(t.min, p); t.max = Math.max(t.max, p);
}
const result = Object.values(totals).sort((a, b) => a.spend - b.spend);
await fs.writeFile('/data/analysis_result.json', JSON.stringify(result));
console.log(result.length);`;
const typed = `interface Total { supplier: string; rows: number; spend: number; min: number; max: number }\n${aggregation.replace('const totals = {}', 'const totals: Record<string, Total> = {}')}`;
await sandbox.write('/analysis/aggregate.js', aggregation);
await sandbox.write('/analysis/aggregate.ts', typed);

/** The in-process floor: the runner called in this process, over the same workspace files. */
async function inProcess(source: string, typescript: boolean) {
  const code = typescript ? (await transform(source, { loader: 'ts', target: 'es2022' })).code : source;
  return runScript(
    { code, filename: '/bench.js' },
    {
      readFile: async (p) => new TextDecoder().decode((await sandbox.downloadFile(p)).content),
      writeFile: async (p, text) => {
        await sandbox.uploadFiles([[p, new TextEncoder().encode(text)]]);
      },
      listDir: async () => [],
    },
    DEFAULT_SANDBOX_LIMITS,
  );
}

/** A sandbox whose process is booted but has run nothing yet. */
async function freshProcessSandbox(): Promise<{ sandbox: QuickJsSandbox; close: () => Promise<void> }> {
  const fresh = new Workspaces({ dataDir, pool: { spares: 1 } });
  await fresh.pool.prepare();
  return { sandbox: fresh.sandbox('bench', 'bench'), close: () => fresh.close() };
}

const scenarios = [
  {
    name: 'js: console.log(1 + 1)',
    command: 'js: console.log(1 + 1)',
    source: 'console.log(1 + 1)',
    ts: false,
    expect: '2',
  },
  {
    name: `aggregate ${rows} rows (JS)`,
    command: 'node /analysis/aggregate.js',
    source: aggregation,
    ts: false,
    expect: '5',
  },
  { name: `aggregate ${rows} rows (TS)`, command: 'tsx /analysis/aggregate.ts', source: typed, ts: true, expect: '5' },
];
const check = (name: string, result: { exitCode: number | null; output: string }, expected: string) => {
  if (result.exitCode !== 0 || result.output !== expected) throw new Error(`${name}: ${JSON.stringify(result)}`);
};
const timed = async (
  work: () => Promise<{ exitCode: number | null; output: string }>,
  name: string,
  expected: string,
) => {
  const started = performance.now();
  const result = await work();
  const ms = performance.now() - started;
  check(name, result, expected);
  return ms;
};

const costRows: Array<Record<string, string | number>> = [];
let coldOverheadP50 = 0;
for (const scenario of scenarios) {
  await inProcess(scenario.source, scenario.ts); // warm the host: module graph, compiled engine, esbuild service
  await sandbox.execute(scenario.command);
  const floor: number[] = [];
  const warm: number[] = [];
  const cold: number[] = [];
  for (let i = 0; i < runs; i++) {
    floor.push(await timed(() => inProcess(scenario.source, scenario.ts), scenario.name, scenario.expect));
    warm.push(await timed(() => sandbox.execute(scenario.command), scenario.name, scenario.expect));
    const fresh = await freshProcessSandbox();
    cold.push(await timed(() => fresh.sandbox.execute(scenario.command), scenario.name, scenario.expect));
    await fresh.close();
  }
  const overhead = percentile(cold, 0.5) - percentile(floor, 0.5);
  if (scenario === scenarios[0]) coldOverheadP50 = overhead;
  costRows.push({
    scenario: scenario.name,
    'in-process p50 ms (before)': round(percentile(floor, 0.5)),
    'sandbox cold p50 ms': round(percentile(cold, 0.5)),
    'sandbox warm p50 ms': round(percentile(warm, 0.5)),
    'cold overhead p50 ms': round(overhead),
    'cold p90 ms': round(percentile(cold, 0.9)),
  });
}
await workspaces.close();
console.log(`\nExecution cost (${runs} runs each; cold = first script of a freshly booted sandbox process)`);
console.table(costRows);

// ── 2. Isolation, with the chat API in this process ──────────────────────────────────────────────────────────────
const sandboxSettings = { limits: { timeoutMs: loopSeconds * 1000, cpuMs: loopSeconds * 1000 } };
const stack = await startInProcessApi(dataDir, { sandbox: sandboxSettings });
const agentFiles = (await stack.storage()).backend;
await (await stack.storage()).workspaces.pool.prepare();
/** `execute` exactly as the agent's tool reaches it: the run's backend for that user and session. */
const execute = (userId: string, command: string) =>
  agentFiles({ context: { userId, sessionId: 'bench' }, state: {} } as never).execute(command);
const healthLatencies = stack.healthLatencies;

const idleHealth = await healthLatencies(() => true, 300);
const loopDelay = monitorEventLoopDelay({ resolution: 10 });
loopDelay.enable();
let loopsDone = false;
const loopsStarted = performance.now();
const loops = Promise.all([1, 2, 3, 4].map((i) => execute(`looper-${i}`, 'js: for(;;){}'))).finally(() => {
  loopsDone = true;
});
const busyHealth = await healthLatencies(() => loopsDone, 50);
const loopResults = await loops;
const loopsMs = performance.now() - loopsStarted;
loopDelay.disable();
if (!loopResults.every((r) => r.exitCode === 124)) throw new Error(`loops: ${JSON.stringify(loopResults)}`);

const rssBefore = process.memoryUsage().rss;
let rssPeak = rssBefore;
const sampler = setInterval(() => {
  rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
}, 5);
const bombStarted = performance.now();
const bomb = await execute('bomber', "js: const a=[]; for(;;) a.push('x'.repeat(1e6)+a.length)");
const bombMs = performance.now() - bombStarted;
clearInterval(sampler);
rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
if (bomb.exitCode !== 137) throw new Error(`memory bomb: ${JSON.stringify(bomb)}`);
const rssGrowthMib = (rssPeak - rssBefore) / MIB;

console.log('\nIsolation of the chat API (API, ERP and sandbox host in this process; scripts in sandbox processes)');
console.table([
  {
    figure: 'API RSS growth during a memory bomb',
    value: `${round(rssGrowthMib)} MiB`,
    target: '< 100 MiB',
    result: verdict(rssGrowthMib < 100),
    note: `stopped in ${round(bombMs)} ms, exit 137, ${Math.round(DEFAULT_SANDBOX_LIMITS.memoryBytes / MIB)} MiB limit`,
  },
  {
    figure: '/api/v1/health p99, 4 endless loops',
    value: `${round(percentile(busyHealth, 0.99))} ms`,
    target: '< 100 ms',
    result: verdict(percentile(busyHealth, 0.99) < 100),
    note: `${busyHealth.length} requests over ${round(loopsMs / 1000)} s; p50 ${round(percentile(busyHealth, 0.5))} ms, max ${round(Math.max(...busyHealth))} ms; ${round(percentile(busyHealth, 0.99) / percentile(idleHealth, 0.99))}× the idle p99`,
  },
  idleHealthRow(idleHealth),
  {
    figure: 'API event-loop delay p99, 4 endless loops',
    value: `${round(loopDelay.percentile(99) / 1e6)} ms`,
    target: '',
    result: '',
    note: `max ${round(loopDelay.max / 1e6)} ms`,
  },
  {
    figure: 'cold execution over in-process (p50)',
    value: `${round(coldOverheadP50)} ms`,
    target: '≤ 50 ms',
    result: verdict(coldOverheadP50 <= 50),
    note: 'js: console.log(1 + 1), table above',
  },
]);
printLoadAverage();

await stack.close();
fs.rmSync(dataDir, { recursive: true, force: true });
