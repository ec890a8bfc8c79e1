/**
 * `npm run bench:cli`: wall time of `procura <command>` (the compiled CLI in dist/, as `bin/procura.js` runs it)
 * against a bare `node -e 0`, the floor, measured alternately in the same run so load on the machine hits both.
 * The same commands from the TypeScript sources (tsx) are shown for comparison.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { recordResults } from './results.ts';

recordResults('cli');

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const ROOT = path.resolve(import.meta.dirname, '..');
const BIN = path.join(ROOT, 'bin/procura.js');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-bench-cli-'));
const env = { ...process.env, DATABASE_URL: '', REDIS_URL: '', LOG_LEVEL: 'warn' };
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];

function wall(args: string[], extraEnv: NodeJS.ProcessEnv = {}): number {
  const started = performance.now();
  execFileSync(process.execPath, args, {
    cwd: ROOT,
    env: { ...env, ...extraEnv },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return performance.now() - started;
}

const commands = [['user', 'list', '--data-dir', dataDir], ['tools'], ['chat', '--help']];
// first runs: build dist/ if it is stale, seed the data dir
for (const command of commands) wall([BIN, ...command]);

const floor: number[] = [];
const compiled = new Map<string, number[]>();
const source = new Map<string, number[]>();
for (let round = 0; round < ROUNDS; round++)
  for (const command of commands) {
    const name = command.filter((part) => part !== dataDir && part !== '--data-dir').join(' ');
    floor.push(wall(['-e', '0']));
    compiled.set(name, [...(compiled.get(name) ?? []), wall([BIN, ...command])]);
    if (round < 3)
      source.set(name, [...(source.get(name) ?? []), wall([BIN, ...command], { PROCURA_FROM_SOURCE: '1' })]);
  }

const bare = median(floor);
console.log(
  `procura start-up, median of ${ROUNDS} runs (ms), ${os.cpus().length} cores, load average ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}, Node ${process.version}`,
);
console.log(
  `${'command'.padEnd(14)} ${'node -e 0'.padStart(9)} ${'compiled'.padStart(9)} ${'ratio'.padStart(6)} ${'sources (tsx)'.padStart(13)} ${'ratio'.padStart(6)}`,
);
for (const [name, times] of compiled) {
  const fromSource = median(source.get(name)!);
  console.log(
    `${name.padEnd(14)} ${bare.toFixed(0).padStart(9)} ${median(times).toFixed(0).padStart(9)} ${`${(median(times) / bare).toFixed(1)}×`.padStart(6)} ${fromSource.toFixed(0).padStart(13)} ${`${(fromSource / bare).toFixed(1)}×`.padStart(6)}`,
  );
}
console.log('target: compiled ≤ 4× node -e 0');
fs.rmSync(dataDir, { recursive: true, force: true });
