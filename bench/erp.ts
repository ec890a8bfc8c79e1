/**
 * ERP throughput and latency: part search and order create against a 100k-part catalogue, on SQLite and
 * (when DATABASE_URL is set) PostgreSQL. The server runs in a child process so the load generator does not
 * share its event loop. Usage: npm run bench:erp [-- --parts 100000 --seconds 10 --connections 16]
 */
import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { createErp, seedBulkParts } from '../src/erp/index.ts';

const { values: args } = parseArgs({
  options: {
    parts: { type: 'string', default: '100000' },
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '16' },
    server: { type: 'string' },
  },
});

/** Child mode: serve an already seeded ERP and report the URL to the parent. */
if (args.server) {
  const { startErpServer } = await import('../src/erp/index.ts');
  const { dataDir, databaseUrl } = JSON.parse(args.server);
  const erp = await startErpServer({ dataDir, databaseUrl, host: '127.0.0.1', port: 0 });
  process.send?.({ url: erp.server.url });
  process.on('message', async () => {
    await erp.close();
    process.exit(0);
  });
} else {
  await main();
}

interface Row {
  backend: string;
  scenario: string;
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

async function main() {
  const partCount = Number(args.parts);
  const seconds = Number(args.seconds);
  const connections = Number(args.connections);
  const rows: Row[] = [];
  const backends: Array<{ name: string; databaseUrl?: string }> = [{ name: 'sqlite' }];
  if (process.env.DATABASE_URL)
    backends.push({ name: 'postgres', databaseUrl: await freshDatabase(process.env.DATABASE_URL) });
  else console.log('DATABASE_URL not set: PostgreSQL is skipped');

  for (const backend of backends) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-bench-erp-'));
    const erp = await createErp({ dataDir, databaseUrl: backend.databaseUrl });
    const started = Date.now();
    await seedBulkParts(erp.database, 'P001', partCount, (done, total) => {
      process.stdout.write(
        `\r[${backend.name}] seeding catalogue ${done.toLocaleString()}/${total.toLocaleString()} parts`,
      );
    });
    console.log(` — ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const token = erp.demoTokens.laoxiao;
    const supplier = (
      await erp.services.suppliers.list({ userId: 1, username: 'laoxiao', role: 'buyer', projectId: 'P001' })
    )[0];
    const part = (
      await erp.services.parts.bySupplier(
        { userId: 1, username: 'laoxiao', role: 'buyer', projectId: 'P001' },
        supplier.id,
      )
    )[0];
    await erp.close();

    const child = fork(
      new URL(import.meta.url).pathname,
      ['--server', JSON.stringify({ dataDir, databaseUrl: backend.databaseUrl })],
      {
        execArgv: ['--import', 'tsx'],
        env: { ...process.env, LOG_LEVEL: 'warn' },
      },
    );
    const url = await new Promise<string>((resolve, reject) => {
      child.once('message', (m: { url: string }) => resolve(m.url));
      child.once('exit', (code) => reject(new Error(`ERP server exited with ${code}`)));
    });
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const queries = [
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
    let q = 0;
    rows.push(
      await run(backend.name, 'part search (/parts/search, limit 20)', {
        url,
        connections,
        duration: seconds,
        headers,
        requests: [
          {
            method: 'GET',
            setupRequest: (req) => ({
              ...req,
              path: `/api/parts/search?limit=20&name=${encodeURIComponent(queries[q++ % queries.length])}`,
            }),
          },
        ],
      }),
    );
    rows.push(
      await run(backend.name, 'part list (/parts?name=&page=, paged)', {
        url,
        connections,
        duration: seconds,
        headers,
        requests: [
          {
            method: 'GET',
            setupRequest: (req) => ({
              ...req,
              path: `/api/parts?size=20&page=${1 + (q % 5)}&name=${encodeURIComponent(queries[q++ % queries.length])}`,
            }),
          },
        ],
      }),
    );
    const body = JSON.stringify({ supplierId: supplier.id, lines: [{ partId: part.id, quantity: part.moq * 2 }] });
    let key = 0;
    rows.push(
      await run(backend.name, 'order create (Idempotency-Key each)', {
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
    child.send('stop');
    await new Promise((resolve) => child.once('exit', resolve));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }

  console.log(
    `\nERP benchmark — ${partCount.toLocaleString()} parts, ${connections} connections, ${seconds} s each, ${os.cpus().length} cores\n`,
  );
  const header = ['backend', 'scenario', 'requests', 'req/s', 'p50 ms', 'p99 ms', 'errors'];
  const table = rows.map((r) => [
    r.backend,
    r.scenario,
    String(r.requests),
    r.rps.toFixed(0),
    r.p50.toFixed(2),
    r.p99.toFixed(2),
    String(r.errors),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((t) => t[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const t of table) console.log(line(t));
}

async function run(backend: string, scenario: string, options: autocannon.Options): Promise<Row> {
  process.stdout.write(`[${backend}] ${scenario} …`);
  const result = await autocannon(options);
  const statuses = Object.entries(result.statusCodeStats ?? {}).map(([code, stat]) => `${code}×${stat.count}`);
  process.stdout.write(` ${result.requests.average.toFixed(0)} req/s (${statuses.join(', ')})\n`);
  return {
    backend,
    scenario,
    requests: result.requests.total,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
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
