/**
 * Report exports and the API's responsiveness: the real chat API (ERP + API over HTTP) runs in this process, and
 * the largest exports the limits allow run at once — every export slot busy with a workbook of the maximum rows
 * and a PDF of the maximum report size — while `/api/v1/health` is asked over and over. Prints the health
 * latency (idle and during the exports) and the API's RSS growth, against the targets.
 *
 * Usage: npm run bench:exports [-- --rounds 2]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { resolveBackend } from 'deepagents';
import { DEFAULT_EXPORT_LIMITS } from '../src/api/reports/exports.ts';
import { idleHealthRow, MIB, percentile, printLoadAverage, round, startInProcessApi, verdict } from './api-stack.ts';

const { values: args } = parseArgs({ options: { rounds: { type: 'string', default: '2' } } });
const rounds = Number(args.rounds);
const limits = DEFAULT_EXPORT_LIMITS;

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-bench-exports-'));
const stack = await startInProcessApi(dataDir);
const { erp, server } = stack;

/** A session of `user` (one short run on the offline model), with the largest report and data an export takes. */
async function preparedSession(user: string): Promise<string> {
  const res = await fetch(`${server.url}/api/v1/agent/chat/stream`, {
    method: 'POST',
    headers: { authorization: `Bearer ${erp.demoTokens[user]}`, 'content-type': 'application/json' },
    body: JSON.stringify({ message: '你好' }),
  });
  await res.text();
  const sessionId = res.headers.get('x-session-id');
  if (res.status !== 200 || !sessionId) throw new Error(`chat for ${user}: ${res.status}`);
  // The largest report: one table as long as the size and row limits allow.
  const line = '| 博世 | F7TC | ¥12.30 | 备注 |\n';
  const tableRows = Math.min(limits.rows - 1, Math.floor((limits.reportBytes - 200) / Buffer.byteLength(line)));
  const report = `# 报告 / Report\n\n| 供应商 | 型号 | 单价 | 备注 |\n| --- | --- | --- | --- |\n${line.repeat(tableRows)}`;
  // The largest data: the rows left, as price records, under the data limit.
  const records = Array.from({ length: limits.rows - tableRows }, (_, i) => ({
    supplier: `供应商 ${i % 37}`,
    part: `P-${i}`,
    price: 10 + (i % 997) / 100,
  }));
  const data = JSON.stringify(records);
  if (Buffer.byteLength(data) > limits.dataBytes) throw new Error('bench data over the data limit');
  const backend = resolveBackend(
    (await stack.storage()).backend as never,
    {
      context: { userId: user, sessionId },
      state: { files: {} },
    } as never,
  );
  // The largest report a PDF takes: its rows, then prose up to the size limit.
  const table = `| 供应商 | 型号 | 单价 | 备注 |\n| --- | --- | --- | --- |\n${line.repeat(limits.pdfRows)}`;
  const paragraph = '供应商报价对比与分析说明。The quotes compared and what they mean for the next order.\n\n';
  const prose = paragraph.repeat(
    Math.floor((limits.reportBytes - Buffer.byteLength(table) - 200) / Buffer.byteLength(paragraph)),
  );
  const enc = new TextEncoder();
  await (await backend).uploadFiles!([
    ['/analysis/report.md', enc.encode(report)],
    ['/analysis/print.md', enc.encode(`# 报告 / Report\n\n${table}\n${prose}`)],
    ['/data/prices.json', enc.encode(data)],
  ]);
  return sessionId;
}

/** Health latencies with a short pause between requests, so the probe itself does not load the API. */
const healthLatencies = (until: () => boolean, minimum: number) => stack.healthLatencies(until, minimum, 10);

const users = Object.keys(erp.demoTokens)
  .filter((u) => u !== 'admin')
  .slice(0, limits.concurrent);
const sessions = await Promise.all(users.map(async (user) => ({ user, sessionId: await preparedSession(user) })));
const idleHealth = await healthLatencies(() => true, 300);

const rssBefore = process.memoryUsage().rss;
let rssPeak = rssBefore;
const sampler = setInterval(() => {
  rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
}, 10);
const exportRows: Array<Record<string, string | number>> = [];
let exportsDone = false;
const started = performance.now();
const exporting = (async () => {
  for (let r = 0; r < rounds; r++) {
    for (const format of ['xlsx', 'pdf'] as const) {
      await Promise.all(
        sessions.map(async ({ user, sessionId }) => {
          const t = performance.now();
          const file = format === 'pdf' ? 'print.md' : 'report.md';
          let status: number | string = 'failed';
          let bytes = 0;
          try {
            const res = await fetch(`${server.url}/api/v1/files/${sessionId}/analysis/${file}?format=${format}`, {
              headers: { authorization: `Bearer ${erp.demoTokens[user]}` },
            });
            status = res.status;
            for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.byteLength;
          } catch (error) {
            status = `${status}, cut: ${(error as Error).message}`;
          }
          exportRows.push({
            round: r + 1,
            user,
            format,
            status,
            'size MiB': round(bytes / MIB),
            seconds: round((performance.now() - t) / 1000),
          });
        }),
      );
    }
  }
})().finally(() => {
  exportsDone = true;
});
const busyHealth = await healthLatencies(() => exportsDone, 50);
await exporting;
const exportsMs = performance.now() - started;
clearInterval(sampler);
rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
const rssGrowthMib = (rssPeak - rssBefore) / MIB;

console.log(
  `\nExports (limits: report ${limits.reportBytes / MIB} MiB, data ${limits.dataBytes / MIB} MiB, ${limits.rows} rows (PDF ${limits.pdfRows}), ${limits.concurrent} at once)`,
);
console.table(exportRows);
console.log('\nThe API while the largest allowed exports run (API and ERP in this process; exports in their own)');
console.table([
  {
    figure: '/api/v1/health p99 during exports',
    value: `${round(percentile(busyHealth, 0.99))} ms`,
    target: '< 100 ms',
    result: verdict(percentile(busyHealth, 0.99) < 100),
    note: `${busyHealth.length} requests over ${round(exportsMs / 1000)} s; p50 ${round(percentile(busyHealth, 0.5))} ms, max ${round(Math.max(...busyHealth))} ms`,
  },
  {
    figure: 'API RSS growth during exports',
    value: `${round(rssGrowthMib)} MiB`,
    target: '< 100 MiB',
    result: verdict(rssGrowthMib < 100),
    note: `from ${round(rssBefore / MIB)} MiB`,
  },
  idleHealthRow(idleHealth),
]);
printLoadAverage();

await stack.close();
fs.rmSync(dataDir, { recursive: true, force: true });
