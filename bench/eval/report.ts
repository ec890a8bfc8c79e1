/** One trial of one scenario. */
export interface TrialResult {
  scenario: string;
  trial: number;
  ok: boolean;
  why?: string;
  seconds: number;
  inputTokens: number;
  outputTokens: number;
  cost: number;
}

export interface ScenarioSummary {
  scenario: string;
  trials: number;
  passed: number;
  /** Chance one trial passes (τ-bench pass^1). */
  pass1: number;
  /** Chance all of k independent trials pass (τ-bench pass^k, k = trials). */
  passK: number;
  meanSeconds: number;
  inputTokens: number;
  outputTokens: number;
  cost: number;
  failures: string[];
}

export interface EvalReport {
  model: string;
  modelName: string;
  trials: number;
  startedAt: string;
  scenarios: ScenarioSummary[];
  total: Omit<ScenarioSummary, 'scenario' | 'failures'> & { scenarios: number; p50Seconds: number; p95Seconds: number };
  results: TrialResult[];
}

function binomial(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let out = 1;
  for (let i = 1; i <= k; i++) out = (out * (n - k + i)) / i;
  return out;
}

/**
 * τ-bench's pass^k estimate from n trials with c successes: C(c, k) / C(n, k), the chance that k trials drawn
 * from the n all passed (pass^1 is the plain success rate).
 */
export function passHatK(n: number, c: number, k: number): number {
  if (n === 0 || k > n) return 0;
  return binomial(c, k) / binomial(n, k);
}

const round = (x: number, digits = 4) => Math.round(x * 10 ** digits) / 10 ** digits;

function quantile(values: number[], q: number): number {
  if (!values.length) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/** Per scenario and in total: pass^1, pass^k, latency, tokens and cost. Totals average the scenarios' rates. */
export function summarize(
  results: TrialResult[],
  meta: { model: string; modelName: string; trials: number; startedAt: string },
): EvalReport {
  const names = [...new Set(results.map((r) => r.scenario))];
  const k = meta.trials;
  const scenarios = names.map((scenario): ScenarioSummary => {
    const runs = results.filter((r) => r.scenario === scenario);
    const passed = runs.filter((r) => r.ok).length;
    return {
      scenario,
      trials: runs.length,
      passed,
      pass1: round(passHatK(runs.length, passed, 1)),
      passK: round(passHatK(runs.length, passed, k)),
      meanSeconds: round(runs.reduce((s, r) => s + r.seconds, 0) / runs.length, 2),
      inputTokens: runs.reduce((s, r) => s + r.inputTokens, 0),
      outputTokens: runs.reduce((s, r) => s + r.outputTokens, 0),
      cost: round(
        runs.reduce((s, r) => s + r.cost, 0),
        6,
      ),
      failures: runs.filter((r) => !r.ok).map((r) => `trial ${r.trial}: ${r.why ?? 'failed'}`),
    };
  });
  const mean = (pick: (s: ScenarioSummary) => number) =>
    scenarios.length ? round(scenarios.reduce((s, x) => s + pick(x), 0) / scenarios.length) : 0;
  const seconds = results.map((r) => r.seconds);
  return {
    ...meta,
    scenarios,
    total: {
      scenarios: scenarios.length,
      trials: results.length,
      passed: results.filter((r) => r.ok).length,
      pass1: mean((s) => s.pass1),
      passK: mean((s) => s.passK),
      meanSeconds: round(seconds.reduce((s, x) => s + x, 0) / Math.max(1, seconds.length), 2),
      p50Seconds: round(quantile(seconds, 0.5), 2),
      p95Seconds: round(quantile(seconds, 0.95), 2),
      inputTokens: scenarios.reduce((s, x) => s + x.inputTokens, 0),
      outputTokens: scenarios.reduce((s, x) => s + x.outputTokens, 0),
      cost: round(
        scenarios.reduce((s, x) => s + x.cost, 0),
        6,
      ),
    },
    results,
  };
}

/** The report as a Markdown table (one row per scenario, then the total). */
export function toMarkdown(report: EvalReport): string {
  const k = report.trials;
  const header = ['scenario', 'passed', 'pass^1', `pass^${k}`, 'mean s', 'input tokens', 'output tokens', 'cost USD'];
  const row = (s: Omit<ScenarioSummary, 'failures'>) => [
    s.scenario,
    `${s.passed}/${s.trials}`,
    s.pass1.toFixed(3),
    s.passK.toFixed(3),
    s.meanSeconds.toFixed(1),
    String(s.inputTokens),
    String(s.outputTokens),
    s.cost.toFixed(4),
  ];
  const cells = [...report.scenarios.map(row), row({ ...report.total, scenario: '**total**' })];
  const cell = (c: string) => c.replace(/\|/g, '\\|');
  const failures = report.scenarios.flatMap((s) => s.failures.map((f) => `- ${cell(s.scenario)} — ${f}`));
  return [
    `# Procura evaluation — ${report.model} (${report.modelName}), ${k} trial${k === 1 ? '' : 's'} per scenario`,
    '',
    `Started ${report.startedAt}. pass^k as in τ-bench: the chance that all k trials of a scenario pass.`,
    `Latency over all trials: mean ${report.total.meanSeconds} s, p50 ${report.total.p50Seconds} s, p95 ${report.total.p95Seconds} s.`,
    '',
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...cells.map((c) => `| ${c.map(cell).join(' | ')} |`),
    ...(failures.length ? ['', '## Failures', '', ...failures] : []),
    '',
  ].join('\n');
}
