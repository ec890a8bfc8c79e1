/**
 * Scenario evaluation of the agent: each task runs end to end on a started Procura (every part, the ERP over MCP,
 * each turn through the chat API) and is judged by its end state (ERP rows, files, charts, refusals), k times,
 * reporting pass^1 and pass^k (τ-bench), latency, tokens and cost.
 * Usage: npm run eval [-- --model offline|deepseek|openai] [--trials k] [--only <text>] [--out eval-results]
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { AgentHarness, TurnResult } from '../bench/eval/local-stack.ts';
import { summarize, type TrialResult, toMarkdown } from '../bench/eval/report.ts';
import { SCENARIOS } from '../bench/eval/scenarios.ts';
import { stackHarness, startStack } from '../bench/eval/stack.ts';

const { values: args } = parseArgs({
  options: {
    model: { type: 'string', default: 'offline' },
    trials: { type: 'string', default: '1' },
    only: { type: 'string' },
    out: { type: 'string', default: 'eval-results' },
  },
});
const trials = Number(args.trials);
if (!Number.isInteger(trials) || trials < 1 || trials > 100) throw new Error('--trials must be a whole number 1–100');
const env: NodeJS.ProcessEnv = { ...process.env };
if (args.model === 'offline') Object.assign(env, { DEEPSEEK_API_KEY: '', OPENAI_BASE_URL: '' });
else if (args.model === 'deepseek') {
  if (!env.DEEPSEEK_API_KEY) throw new Error('--model deepseek needs DEEPSEEK_API_KEY');
  env.OPENAI_BASE_URL = '';
} else if (args.model === 'openai') {
  if (!env.OPENAI_BASE_URL) throw new Error('--model openai needs OPENAI_BASE_URL and OPENAI_MODEL');
  env.DEEPSEEK_API_KEY = '';
} else throw new Error(`unknown --model ${args.model}`);

const scenarios = SCENARIOS.filter((s) => !args.only || s.name.includes(args.only));
console.log(`Procura evaluation — ${scenarios.length} scenarios × ${trials} trials, model: ${args.model}`);
const startedAt = new Date().toISOString();
const results: TrialResult[] = [];
let modelName = '';
// Each trial gets a fresh Procura, so no trial sees another's orders or files.
for (let trial = 1; trial <= trials; trial++) {
  const stack = await startStack({ env });
  const h = stackHarness(stack);
  try {
    modelName = (await stack.parts.get('Chat API + UI')!.runtime!.models()).mainName;
    for (const [i, scenario] of scenarios.entries()) {
      const spent = { input_tokens: 0, output_tokens: 0, cost: 0 };
      const metered: AgentHarness = { ...h, send: (ctx, input) => h.send(ctx, input).then((turn) => add(spent, turn)) };
      const started = Date.now();
      let why: string | undefined;
      try {
        why = await scenario.run(metered, `eval-${trial}-${i}`);
      } catch (error) {
        why = `threw: ${error instanceof Error ? error.message : String(error)}`;
      }
      results.push({
        scenario: scenario.name,
        trial,
        ok: !why,
        why,
        seconds: (Date.now() - started) / 1000,
        inputTokens: spent.input_tokens,
        outputTokens: spent.output_tokens,
        cost: spent.cost,
      });
      console.log(`${why ? '✗' : '✓'} [${trial}/${trials}] ${scenario.name}${why ? ` — ${why}` : ''}`);
    }
  } finally {
    await stack.close();
  }
}

/** Adds a turn's usage (as its `done` event reported it) to a scenario's total. */
function add(spent: { input_tokens: number; output_tokens: number; cost: number }, turn: TurnResult) {
  spent.input_tokens += turn.usage?.input_tokens ?? 0;
  spent.output_tokens += turn.usage?.output_tokens ?? 0;
  spent.cost += turn.usage?.cost ?? 0;
  return turn;
}

const report = summarize(results, { model: String(args.model), modelName, trials, startedAt });
const markdown = toMarkdown(report);
console.log(`\n${markdown}`);
const dir = path.resolve(String(args.out));
fs.mkdirSync(dir, { recursive: true });
const stem = path.join(dir, `${startedAt.replace(/[:.]/g, '-')}-${args.model}-k${trials}`);
fs.writeFileSync(`${stem}.json`, `${JSON.stringify(report, null, 2)}\n`);
fs.writeFileSync(`${stem}.md`, markdown);
console.log(`written: ${stem}.json, ${stem}.md`);
process.exitCode = report.total.passed === results.length ? 0 : 1;
