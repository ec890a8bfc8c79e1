/**
 * QuickJS sandbox timings: a trivial script (each execute starts a fresh QuickJS-ng instance, so this is the cold
 * start), and a 10k-row CSV aggregation that reads a workspace file and writes the result JSON, in JavaScript and
 * in TypeScript (esbuild strips the types first). Usage: npm run bench:sandbox [-- --runs 20 --rows 10000]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Workspaces } from '../src/agent/backends/index.ts';

const { values: args } = parseArgs({
  options: { runs: { type: 'string', default: '20' }, rows: { type: 'string', default: '10000' } },
});
const runs = Number(args.runs);
const rows = Number(args.rows);

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-bench-sandbox-'));
const sandbox = new Workspaces({ dataDir }).sandbox('bench', 'bench');

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
await sandbox.write('/analysis/aggregate.js', aggregation);
await sandbox.write(
  '/analysis/aggregate.ts',
  `interface Total { supplier: string; rows: number; spend: number; min: number; max: number }\n${aggregation.replace('const totals = {}', 'const totals: Record<string, Total> = {}')}`,
);

const scenarios: Array<{ name: string; command: string; expect: string }> = [
  { name: 'cold start (js: 1 + 1)', command: 'js: console.log(1 + 1)', expect: '2' },
  { name: `aggregate ${rows} rows (JS)`, command: 'node /analysis/aggregate.js', expect: String(suppliers.length) },
  { name: `aggregate ${rows} rows (TS)`, command: 'tsx /analysis/aggregate.ts', expect: String(suppliers.length) },
];

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

const table: Array<Record<string, string | number>> = [];
for (const scenario of scenarios) {
  await sandbox.execute(scenario.command); // warm the host (module graph, esbuild service)
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const result = await sandbox.execute(scenario.command);
    times.push(performance.now() - started);
    if (result.exitCode !== 0 || result.output !== scenario.expect) {
      throw new Error(`${scenario.name}: unexpected result ${JSON.stringify(result)}`);
    }
  }
  times.sort((a, b) => a - b);
  table.push({
    scenario: scenario.name,
    runs,
    'p50 ms': Number(percentile(times, 0.5).toFixed(1)),
    'p90 ms': Number(percentile(times, 0.9).toFixed(1)),
    'min ms': Number((times[0] ?? 0).toFixed(1)),
  });
}
console.table(table);
console.log(
  `load average: ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')} on ${os.cpus().length} cores`,
);
fs.rmSync(dataDir, { recursive: true, force: true });
