/**
 * Evaluation of the agent, in two parts.
 * - Scenarios: each task runs end to end on a started Procura (every part, the ERP over MCP, each turn through the
 *   chat API) and is judged by its end state (ERP rows, files, charts, refusals), k times, reporting pass^1 and
 *   pass^k (τ-bench), latency, tokens and cost.
 * - Sets: the full evaluation sets CI only samples (test/evaluation.ts): the whole phrasing corpus, the generated
 *   phrasings from a seed drawn here (or --seed), provenance over every category, judged against their pass-rate
 *   bars; printed as a table of sets and one of test files.
 * Usage: npm run eval [-- --part all|scenarios|sets] [--model offline|deepseek|openai] [--trials k] [--seed n]
 *   [--only <text>: the scenarios whose name, and the evaluation files whose path, contain it] [--out eval-results]
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { AgentHarness, TurnResult } from '../bench/eval/local-stack.ts';
import { summarize, type TrialResult, toMarkdown } from '../bench/eval/report.ts';
import { SCENARIOS } from '../bench/eval/scenarios.ts';
import { stackHarness, startStack } from '../bench/eval/stack.ts';
import { EVALUATION_FILES, type EvaluationTally, tallyTable } from '../test/evaluation.ts';

const { values: args } = parseArgs({
  options: {
    model: { type: 'string', default: 'offline' },
    trials: { type: 'string', default: '1' },
    only: { type: 'string' },
    out: { type: 'string', default: 'eval-results' },
    part: { type: 'string', default: 'all' },
    seed: { type: 'string' },
  },
});
if (!['all', 'scenarios', 'sets'].includes(String(args.part))) throw new Error('--part must be all, scenarios or sets');
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

const startedAt = new Date().toISOString();
const dir = path.resolve(String(args.out));
fs.mkdirSync(dir, { recursive: true });
let failed = false;
if (args.part !== 'sets') failed = !(await runScenarios()) || failed;
if (args.part !== 'scenarios') failed = !runSets() || failed;
process.exitCode = failed ? 1 : 0;

/** Runs every scenario k times and prints and writes its report; true when every trial passed. */
async function runScenarios(): Promise<boolean> {
  const scenarios = SCENARIOS.filter((s) => !args.only || s.name.includes(args.only));
  console.log(`Procura evaluation — ${scenarios.length} scenarios × ${trials} trials, model: ${args.model}`);
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
        const metered: AgentHarness = {
          ...h,
          send: (ctx, input) => h.send(ctx, input).then((turn) => add(spent, turn)),
        };
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

  const report = summarize(results, { model: String(args.model), modelName, trials, startedAt });
  const markdown = toMarkdown(report);
  console.log(`\n${markdown}`);
  const stem = path.join(dir, `${startedAt.replace(/[:.]/g, '-')}-${args.model}-k${trials}`);
  fs.writeFileSync(`${stem}.json`, `${JSON.stringify(report, null, 2)}\n`);
  fs.writeFileSync(`${stem}.md`, markdown);
  console.log(`written: ${stem}.json, ${stem}.md`);
  return report.total.passed === results.length;
}

/**
 * Runs the evaluation files with PROCURA_EVAL=full, so each runs its whole set against its bar, from one seed; prints
 * the sets' table and the files' (provenance has a test per category); true when every test passed.
 */
function runSets(): boolean {
  const files = EVALUATION_FILES.filter((file) => !args.only || file.includes(args.only));
  // vitest given no file runs every test file: an --only that names none is an error, not the whole suite.
  if (!files.length) throw new Error(`--only ${args.only} names none of ${EVALUATION_FILES.join(', ')}`);
  const seed = args.seed ?? String(Math.floor(Math.random() * 1_000_000));
  const stem = path.join(dir, `${startedAt.replace(/[:.]/g, '-')}-sets-seed${seed}`);
  const tallies = `${stem}.jsonl`;
  const outcomes = `${stem}.vitest.json`;
  console.log(`Procura evaluation sets — PROCURA_TEST_SEED=${seed}, model: ${args.model}`);
  const vitest = spawnSync(
    process.execPath,
    [
      'node_modules/vitest/vitest.mjs',
      'run',
      ...files,
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${outcomes}`,
    ],
    {
      stdio: 'inherit',
      env: { ...env, PROCURA_EVAL: 'full', PROCURA_TEST_SEED: seed, PROCURA_EVAL_REPORT: tallies },
    },
  );
  const sets = fs.existsSync(tallies)
    ? fs
        .readFileSync(tallies, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as EvaluationTally)
    : [];
  const fileRows = fs.existsSync(outcomes)
    ? (JSON.parse(fs.readFileSync(outcomes, 'utf8')) as VitestReport).testResults.map((file) => {
        const failing = file.assertionResults.filter((t) => t.status === 'failed');
        return `| ${path.relative(process.cwd(), file.name)} | ${file.assertionResults.length - failing.length}/${file.assertionResults.length} | ${((file.endTime - file.startTime) / 1000).toFixed(0)} s | ${failing.map((t) => t.title).join('; ')} |`;
      })
    : [];
  const markdown = [
    `# Procura evaluation sets (PROCURA_TEST_SEED=${seed})`,
    '',
    tallyTable(sets),
    '',
    '| file | tests passed | time | failed |',
    '|---|---|---|---|',
    ...fileRows,
  ].join('\n');
  console.log(`\n${markdown}`);
  fs.writeFileSync(`${stem}.md`, `${markdown}\n`);
  console.log(`written: ${stem}.md, ${tallies}, ${outcomes}`);
  return vitest.status === 0;
}

/** What vitest's JSON reporter writes, as far as the table reads it. */
interface VitestReport {
  testResults: Array<{
    name: string;
    startTime: number;
    endTime: number;
    assertionResults: Array<{ title: string; status: string }>;
  }>;
}

/** Adds a turn's usage (as its `done` event reported it) to a scenario's total. */
function add(spent: { input_tokens: number; output_tokens: number; cost: number }, turn: TurnResult) {
  spent.input_tokens += turn.usage?.input_tokens ?? 0;
  spent.output_tokens += turn.usage?.output_tokens ?? 0;
  spent.cost += turn.usage?.cost ?? 0;
  return turn;
}
