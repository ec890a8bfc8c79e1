/**
 * Agent start-up and turn latency on the offline model: cold build of the shared graph (new runtime each round,
 * same local stack), and a greeting / an order turn end to end. Usage: npm run bench:agent [-- --rounds 5]
 */
import { parseArgs } from 'node:util';
import { startAgentHarness } from './eval/local-stack.ts';
import { recordResults } from './results.ts';

recordResults('agent');

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '5' } } });
const rounds = Number(values.rounds);
const h = await startAgentHarness();
const ms = (started: number) => performance.now() - started;
const builds: number[] = [];
const greetings: number[] = [];
const orders: number[] = [];
try {
  for (let i = 0; i < rounds; i++) {
    await h.restart();
    const ctx = h.contextFor('laoxiao', `bench-${i}`);
    let t = performance.now();
    await h.runtime.graph(ctx);
    builds.push(ms(t));
    t = performance.now();
    await h.send(ctx, '你好');
    greetings.push(ms(t));
    t = performance.now();
    await h.send(h.contextFor('laoxiao', `bench-order-${i}`), '给博世下 200 个 F7TC 火花塞的采购单');
    orders.push(ms(t));
  }
} finally {
  await h.close();
}
const p = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];
const row = (name: string, xs: number[]) =>
  `| ${name.padEnd(44)} | ${p(xs, 0.5).toFixed(0).padStart(7)} | ${Math.max(...xs)
    .toFixed(0)
    .padStart(7)} |`;
console.log(`\nAgent benchmark — offline model, ${rounds} rounds\n`);
console.log(`| ${'measure'.padEnd(44)} | p50 ms  | max ms  |\n|${'-'.repeat(46)}|---------|---------|`);
console.log(row('cold build (models, tools, storage, graph)', builds));
console.log(row('greeting turn (first graph run)', greetings));
console.log(row('order turn to its approval interrupt', orders));
