/**
 * Chat API throughput and latency on the offline model with a fixed per-call latency: time to first event,
 * event overhead per step (API path vs. the bare graph stream), and many concurrent sessions on one process
 * (throughput, p99 time to first event, memory per session, errors). Each run is the order flow up to its approval
 * interrupt. Usage: npm run bench:api [-- --sessions 200 --latency 50 --samples 20]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createParser } from 'eventsource-parser';
import { createAgentStorage } from '../src/agent/backends/index.ts';
import { AgentRuntime } from '../src/agent/index.ts';
import { createApi } from '../src/api/index.ts';
import { startChartsServer } from '../src/charts/index.ts';
import { createErp } from '../src/erp/index.ts';
import { listen } from '../src/shared/index.ts';
import { startSupplierSites } from '../src/suppliers/index.ts';
import { registerChartTools, startChartMcpServer } from '../src/tools/charts/index.ts';

const { values: args } = parseArgs({
  options: {
    sessions: { type: 'string', default: '200' },
    latency: { type: 'string', default: process.env.PROCURA_OFFLINE_LATENCY_MS ?? '50' },
    samples: { type: 'string', default: '20' },
    'max-concurrent': { type: 'string', default: '32' },
  },
});
const sessions = Number(args.sessions);
const latencyMs = Number(args.latency);
const samples = Number(args.samples);

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-bench-api-'));
const erp = await createErp({ dataDir: path.join(dataDir, 'erp') });
const erpServer = await listen(erp.fetch, { host: '127.0.0.1', port: 0 });
const sites = await startSupplierSites({ host: '127.0.0.1', port: 0 });
const renderer = await startChartsServer({ host: '127.0.0.1', port: 0, dataDir: path.join(dataDir, 'charts') });
const chartMcp = await startChartMcpServer({ host: '127.0.0.1', port: 0, rendererUrl: renderer.renderUrl });
const erpUrl = `${erpServer.url}/api`;
const runtime = new AgentRuntime({
  dataDir,
  erpUrl,
  suppliersUrl: sites.server.url,
  env: { ...process.env, DEEPSEEK_API_KEY: '', OPENAI_BASE_URL: '', PROCURA_OFFLINE_LATENCY_MS: String(latencyMs) },
  storage: createAgentStorage,
  extraTools: [(registry) => registerChartTools(registry, chartMcp.url)],
});
const api = await createApi({
  runtime,
  erpUrl,
  dataDir,
  limits: { startsPerMinute: 1_000_000, maxConcurrent: Number(args['max-concurrent']) },
});
const server = await listen(api.fetch, { host: '127.0.0.1', port: 0 });
const token = erp.demoTokens.laoxiao;
const users = await erp.services.users.list();
const buyer = users.find((u) => u.username === 'laoxiao')!;
const MESSAGE = '给博世下 200 个 F7TC 火花塞的采购单';

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
};

/** One order run through the API to its interrupt: time to first event, total time, event count, outcome. */
async function apiRun(): Promise<{ firstMs: number; totalMs: number; events: number; ok: boolean }> {
  const started = performance.now();
  const response = await fetch(`${server.url}/api/v1/agent/chat/stream`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ message: MESSAGE }),
  });
  if (response.status !== 200 || !response.body) {
    await response.body?.cancel();
    return { firstMs: Number.NaN, totalMs: performance.now() - started, events: 0, ok: false };
  }
  let firstMs = Number.NaN;
  let events = 0;
  let last = '';
  const parser = createParser({
    onEvent: (e) => {
      if (events === 0) firstMs = performance.now() - started;
      events += 1;
      last = e.event ?? '';
    },
  });
  const decoder = new TextDecoder();
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>)
    parser.feed(decoder.decode(chunk, { stream: true }));
  return { firstMs, totalMs: performance.now() - started, events, ok: last === 'interrupt' };
}

/** The same run on the bare graph (no API, no events stored): the baseline for the per-event overhead. */
async function graphRun(i: number): Promise<{ totalMs: number; chunks: number }> {
  const sessionId = `bench-direct-${i}-${Date.now()}`;
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
    { messages: [{ role: 'user', content: MESSAGE }] } as never,
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

const rows: Array<Record<string, string | number>> = [];
const ms = (v: number) => `${v.toFixed(1)} ms`;

await apiRun(); // warm-up: builds the agent, opens the databases
await graphRun(-1);

// API and bare runs alternate, so load from elsewhere on the machine hits both alike.
const sequential = [];
const direct = [];
for (let i = 0; i < samples; i++) {
  sequential.push(await apiRun());
  direct.push(await graphRun(i));
}
const apiMean = sequential.reduce((s, r) => s + r.totalMs, 0) / samples;
const directMean = direct.reduce((s, r) => s + r.totalMs, 0) / samples;
const eventsPerRun = sequential.reduce((s, r) => s + r.events, 0) / samples;
rows.push({
  scenario: `time to first event (${samples} runs, one at a time)`,
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
  detail: `run to interrupt ${ms(apiMean)} mean, ${eventsPerRun.toFixed(0)} events`,
});
rows.push({
  scenario: 'event overhead per step (API − bare graph) / events',
  p50: ms((apiMean - directMean) / eventsPerRun),
  p99: '',
  detail: `bare graph ${ms(directMean)} mean; model latency ${latencyMs} ms/call`,
});

const memoryBefore = process.memoryUsage();
let peakRss = memoryBefore.rss;
let peakHeap = memoryBefore.heapUsed;
const sampler = setInterval(() => {
  const m = process.memoryUsage();
  peakRss = Math.max(peakRss, m.rss);
  peakHeap = Math.max(peakHeap, m.heapUsed);
}, 50);
const startedAll = performance.now();
const concurrent = await Promise.all(
  Array.from({ length: sessions }, () =>
    apiRun().catch(() => ({ firstMs: Number.NaN, totalMs: 0, events: 0, ok: false })),
  ),
);
const wallMs = performance.now() - startedAll;
clearInterval(sampler);
const errors = concurrent.filter((r) => !r.ok).length;
const totalEvents = concurrent.reduce((s, r) => s + r.events, 0);
rows.push({
  scenario: `${sessions} concurrent sessions, one process (${args['max-concurrent']} executing at once)`,
  p50: ms(percentile(concurrent.map((r) => r.firstMs).filter(Number.isFinite), 50)),
  p99: ms(percentile(concurrent.map((r) => r.firstMs).filter(Number.isFinite), 99)),
  detail: `first event; all done in ${(wallMs / 1000).toFixed(1)} s`,
});
rows.push({
  scenario: 'throughput',
  p50: `${((sessions / wallMs) * 1000).toFixed(1)} runs/s`,
  p99: `${((totalEvents / wallMs) * 1000).toFixed(0)} events/s`,
  detail: `run to interrupt p50 ${ms(
    percentile(
      concurrent.map((r) => r.totalMs),
      50,
    ),
  )}, p99 ${ms(
    percentile(
      concurrent.map((r) => r.totalMs),
      99,
    ),
  )}`,
});
rows.push({
  scenario: 'memory per concurrent session (peak − before) / sessions',
  p50: `${((peakRss - memoryBefore.rss) / sessions / 1024).toFixed(0)} KiB rss`,
  p99: `${((peakHeap - memoryBefore.heapUsed) / sessions / 1024).toFixed(0)} KiB heap`,
  detail: `peak rss ${(peakRss / 1024 / 1024).toFixed(0)} MiB`,
});
rows.push({
  scenario: 'errors',
  p50: String(errors),
  p99: '',
  detail: errors ? 'runs that did not reach their interrupt' : 'every run reached its approval interrupt',
});

console.table(rows);
await server.close();
await api.close();
await runtime.close();
await chartMcp.close();
await renderer.close();
await sites.server.close();
await erpServer.close();
await erp.close();
fs.rmSync(dataDir, { recursive: true, force: true });
if (errors) process.exitCode = 1;
