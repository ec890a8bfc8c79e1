/**
 * ERP throughput and latency: part search (the same 12 queries over and over, and queries never made before),
 * paged part list and order create against a 100k-part catalogue,
 * on SQLite and (when DATABASE_URL is set) PostgreSQL, next to a floor measured in the same run: a bare
 * `node:http` server answering 20 part rows as JSON with no database. Servers run in child processes so the
 * load generator does not share their event loop.
 *
 * Latency: autocannon keeps its percentiles in a histogram of whole milliseconds, so a floor answering in
 * 0.6 ms reads as p99 "1 ms" and "p99 ≤ 3× the floor's" could not be checked. The bench records every
 * response time as autocannon measures it (process.hrtime, sub-millisecond) and takes the percentiles
 * itself. It also reports each server's CPU time per request, which a busy shared machine disturbs less
 * than req/s. Usage:
 *   npm run bench:erp [-- --parts 100000 --seconds 10 --warmup 3 --connections 16 --profile <dir>]
 * `--profile` writes a CPU profile of each ERP server child.
 */
import { type ChildProcess, fork } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { createErp, seedBulkParts } from '../src/erp/index.ts';
import { recordResults } from './results.ts';

recordResults('erp');

const { values: args } = parseArgs({
  options: {
    parts: { type: 'string', default: '100000' },
    seconds: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    connections: { type: 'string', default: '16' },
    server: { type: 'string' },
    floor: { type: 'boolean', default: false },
    profile: { type: 'string' },
  },
});

interface Row {
  backend: string;
  scenario: string;
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** Server CPU time (user + system) per request, µs. */
  cpuPerRequest: number;
}

const SEARCH = 'part search';
const LIST = 'paged list with total';
const UNREPEATED = 'part search, no query repeated';
const HISTORY = 'price history, 12 months';
const QUERIES = [
  '火花塞',
  'spark plug',
  'F7TC',
  '刹车片',
  '链条',
  'tyre',
  '机油滤清器',
  'BK00123',
  '加强型',
  'oil filter',
  '轮胎 90',
  'battery',
];

/** Starts this script in a child mode and waits for the URL it serves. */
async function child(mode: string[], message?: unknown): Promise<{ url: string; process: ChildProcess }> {
  const profile = args.profile && mode[0] === '--server' ? ['--cpu-prof', '--cpu-prof-dir', args.profile] : [];
  const proc = fork(new URL(import.meta.url).pathname, mode, {
    execArgv: ['--import', 'tsx', ...profile],
    env: { ...process.env, LOG_LEVEL: 'warn' },
  });
  if (message !== undefined) proc.send(message as object);
  const url = await new Promise<string>((resolve, reject) => {
    proc.once('message', (m: { url: string }) => resolve(m.url));
    proc.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
  });
  return { url, process: proc };
}

async function stop(proc: ChildProcess) {
  proc.send('stop');
  await new Promise((resolve) => proc.once('exit', resolve));
}

/** The server child's CPU time so far, µs. */
async function cpuOf(proc: ChildProcess): Promise<number> {
  const reply = new Promise<number>((resolve) =>
    proc.once('message', (m: { cpu: NodeJS.CpuUsage }) => resolve(m.cpu.user + m.cpu.system)),
  );
  proc.send('cpu');
  return reply;
}

/** Child side of `stop` and `cpuOf`. */
function answerParent(close: () => Promise<void>) {
  process.on('message', async (message) => {
    if (message === 'cpu') {
      process.send?.({ cpu: process.cpuUsage() });
      return;
    }
    await close();
    process.exit(0);
  });
}

async function main() {
  const partCount = Number(args.parts);
  const seconds = Number(args.seconds);
  const warmup = Number(args.warmup);
  const connections = Number(args.connections);
  const rows: Row[] = [];
  const backends: Array<{ name: string; databaseUrl?: string }> = [{ name: 'sqlite' }];
  if (process.env.DATABASE_URL)
    backends.push({ name: 'postgres', databaseUrl: await freshDatabase(process.env.DATABASE_URL) });
  else console.log('DATABASE_URL not set: PostgreSQL is skipped');

  let floor: Row | undefined;
  for (const backend of backends) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-bench-erp-'));
    const erp = await createErp({ dataDir, databaseUrl: backend.databaseUrl });
    const started = Date.now();
    await seedBulkParts(erp.database, 'P001', partCount, (done, total) => {
      if (done % Math.max(500, Math.round(total / 50 / 500) * 500) && done !== total) return;
      process.stdout.write(
        `\r[${backend.name}] seeding catalogue ${done.toLocaleString()}/${total.toLocaleString()} parts`,
      );
    });
    console.log(` — ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const token = erp.demoTokens.laoxiao;
    const ctx = { userId: 1, username: 'laoxiao', role: 'buyer' as const, projectId: 'P001' };
    const supplier = (await erp.services.suppliers.list(ctx))[0];
    const part = (await erp.services.parts.bySupplier(ctx, supplier.id))[0];
    const sample = await erp.services.parts.search(ctx, QUERIES[0], 20);
    // Searches no one has made before: the names of random parts, in both languages.
    const fresh = (
      await erp.database.read<[string, string]>(
        "select name_en, name_zh from parts where project_id = 'P001' order by random() limit 50000",
        [],
        { arrays: true },
      )
    ).flat();
    // Parts with paid history (the demo seed's products), whose price history each request reads.
    const historyParts = (
      await erp.database.read<[number]>(
        "select distinct l.part_id from order_lines l join parts p on p.id = l.part_id where p.project_id = 'P001' order by 1",
        [],
        { arrays: true },
      )
    ).map(([id]) => Number(id));
    await erp.close();

    if (!floor) {
      const bare = await child(['--floor'], sample);
      await warm({ url: bare.url, connections, duration: warmup });
      floor = await run('none', 'floor: bare node:http, 20 part rows', bare.process, {
        url: bare.url,
        connections,
        duration: seconds,
      });
      rows.push(floor);
      await stop(bare.process);
    }

    const server = await child(['--server', JSON.stringify({ dataDir, databaseUrl: backend.databaseUrl })]);
    const url = server.url;
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    let q = 0;
    const reads = (duration: number, path: () => string): autocannon.Options => ({
      url,
      connections,
      duration,
      headers,
      requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: path() }) }],
    });
    const search = () => `/api/parts/search?limit=20&name=${encodeURIComponent(QUERIES[q++ % QUERIES.length])}`;
    const list = () =>
      `/api/parts?size=20&page=${1 + (q % 5)}&name=${encodeURIComponent(QUERIES[q++ % QUERIES.length])}`;
    // A fresh server has cold code and an empty page cache: warm both reads up before measuring either.
    await warm(reads(warmup, search));
    await warm(reads(warmup, list));
    rows.push(await run(backend.name, SEARCH, server.process, reads(seconds, search)));
    let f = 0;
    const unrepeated = () => `/api/parts/search?limit=20&name=${encodeURIComponent(fresh[f++ % fresh.length])}`;
    rows.push(await run(backend.name, UNREPEATED, server.process, reads(seconds, unrepeated)));
    rows.push(await run(backend.name, LIST, server.process, reads(seconds, list)));
    let hq = 0;
    const history = () =>
      `/api/parts/${historyParts[hq % historyParts.length]}/price-history?months=12&by=${hq++ % 2 ? 'product' : 'supplier'}`;
    await warm(reads(warmup, history));
    rows.push(await run(backend.name, HISTORY, server.process, reads(seconds, history)));
    const body = JSON.stringify({ supplierId: supplier.id, lines: [{ partId: part.id, quantity: part.moq * 2 }] });
    let key = 0;
    rows.push(
      await run(backend.name, 'order create (Idempotency-Key each)', server.process, {
        url,
        connections: Math.min(connections, 8),
        duration: seconds,
        headers,
        requests: [
          {
            method: 'POST',
            path: '/api/orders/create',
            body,
            setupRequest: (req) => ({
              ...req,
              headers: { ...headers, 'idempotency-key': `bench-${Date.now()}-${key++}` },
            }),
          },
        ],
      }),
    );
    await stop(server.process);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  if (!floor) return;

  const load = os.loadavg().map((l) => l.toFixed(1));
  console.log(
    `\nERP benchmark — ${partCount.toLocaleString()} parts, ${connections} connections, ${seconds} s each, ${os.cpus().length} cores, load average ${load.join(' ')}\n`,
  );
  const base = floor;
  const header = [
    'backend',
    'scenario',
    'requests',
    'req/s',
    'p50 ms',
    'p99 ms',
    'errors',
    'server CPU µs/req',
    'req/s ÷ floor',
    'p99 ÷ floor',
  ];
  const table = rows.map((r) => [
    r.backend,
    r.scenario,
    String(r.requests),
    r.rps.toFixed(0),
    r.p50.toFixed(2),
    r.p99.toFixed(2),
    String(r.errors),
    r.cpuPerRequest.toFixed(0),
    `${((100 * r.rps) / base.rps).toFixed(1)} %`,
    `${(r.p99 / base.p99).toFixed(1)}×`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((t) => t[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const t of table) console.log(line(t));

  // The targets of the search work, checked against the floor of this same run.
  const find = (backend: string, scenario: string) =>
    rows.find((r) => r.backend === backend && r.scenario === scenario);
  const checks: Array<[string, boolean | undefined]> = [];
  const sqliteSearch = find('sqlite', SEARCH);
  const sqliteList = find('sqlite', LIST);
  const pgSearch = find('postgres', SEARCH);
  if (sqliteSearch) {
    checks.push(['SQLite part search ≥ 30 % of floor req/s', sqliteSearch.rps >= 0.3 * base.rps]);
    checks.push(['SQLite part search p99 ≤ 3× floor p99', sqliteSearch.p99 <= 3 * base.p99]);
  }
  if (sqliteList) checks.push(['SQLite paged list ≥ 20 % of floor req/s', sqliteList.rps >= 0.2 * base.rps]);
  if (pgSearch && sqliteSearch)
    checks.push([
      `PostgreSQL part search ≥ 1/3 of SQLite's (${((100 * pgSearch.rps) / sqliteSearch.rps).toFixed(0)} %)`,
      pgSearch.rps >= sqliteSearch.rps / 3,
    ]);
  console.log('');
  for (const [label, ok] of checks) console.log(`${ok ? 'met    ' : 'NOT met'}  ${label}`);
}

/** Load that is not measured. */
async function warm(options: autocannon.Options) {
  if (options.duration) await autocannon(options);
}

async function run(backend: string, scenario: string, server: ChildProcess, options: autocannon.Options): Promise<Row> {
  process.stdout.write(`[${backend}] ${scenario} …`);
  const times: number[] = [];
  const cpuBefore = await cpuOf(server);
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(options, (error, done) => (error ? reject(error) : resolve(done)));
    // Milliseconds as a float (process.hrtime), before autocannon rounds them into its histogram.
    instance.on('response', (_client, status: number, _bytes, ms: number) => {
      if (status < 400) times.push(ms);
    });
  });
  const cpu = (await cpuOf(server)) - cpuBefore;
  const statuses = Object.entries(result.statusCodeStats ?? {}).map(([code, stat]) => `${code}×${stat.count}`);
  process.stdout.write(` ${result.requests.average.toFixed(0)} req/s (${statuses.join(', ')})\n`);
  const sorted = Float64Array.from(times).sort();
  const percentile = (p: number) =>
    sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : NaN;
  return {
    backend,
    scenario,
    requests: result.requests.total,
    rps: result.requests.average,
    p50: percentile(0.5),
    p99: percentile(0.99),
    errors: result.errors + result.timeouts + result.non2xx,
    cpuPerRequest: cpu / Math.max(1, result.requests.total),
  };
}

/** A dedicated database for the run, so the benchmark never touches other data. */
async function freshDatabase(databaseUrl: string): Promise<string> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query('drop database if exists procura_bench with (force)');
  await client.query('create database procura_bench');
  await client.end();
  const url = new URL(databaseUrl);
  url.pathname = '/procura_bench';
  return url.toString();
}

/** Child mode: the floor, a bare server answering the 20 part rows the parent sends. */
if (args.floor) {
  process.once('message', (rows: unknown) => {
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ items: rows }));
    });
    server.listen(0, '127.0.0.1', () => {
      process.send?.({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
      answerParent(async () => {});
    });
  });
} else if (args.server) {
  const { startErpServer } = await import('../src/erp/index.ts');
  const { dataDir, databaseUrl } = JSON.parse(args.server);
  const erp = await startErpServer({ dataDir, databaseUrl, host: '127.0.0.1', port: 0 });
  process.send?.({ url: erp.server.url });
  answerParent(async () => {
    // The load generator stops at its deadline with requests still in flight: let them finish first.
    await new Promise((resolve) => setTimeout(resolve, 500));
    await erp.close();
  });
} else {
  await main();
}
