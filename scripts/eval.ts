/**
 * Scenario evaluation of the agent: each task runs end to end on a local Procura and is judged by its end state
 * (ERP rows, files, charts, refusals). Usage: npm run eval [-- --model offline|deepseek|openai] [--only <text>]
 */
import { parseArgs } from 'node:util';
import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import type { BaseMessage } from '@langchain/core/messages';
import type { LLMResult } from '@langchain/core/outputs';
import { getEncoding } from 'js-tiktoken';
import { startAgentHarness } from '../src/agent/eval/local-stack.ts';
import { SCENARIOS } from '../src/agent/eval/scenarios.ts';

const { values: args } = parseArgs({
  options: { model: { type: 'string', default: 'offline' }, only: { type: 'string' } },
});
const env: NodeJS.ProcessEnv = { ...process.env };
if (args.model === 'offline') Object.assign(env, { DEEPSEEK_API_KEY: '', OPENAI_BASE_URL: '' });
else if (args.model === 'deepseek' && !env.DEEPSEEK_API_KEY) throw new Error('--model deepseek needs DEEPSEEK_API_KEY');
else if (args.model === 'openai' && !env.OPENAI_BASE_URL)
  throw new Error('--model openai needs OPENAI_BASE_URL and OPENAI_MODEL');
else if (!['offline', 'deepseek', 'openai'].includes(String(args.model)))
  throw new Error(`unknown --model ${args.model}`);

const encoder = getEncoding('cl100k_base');
const text = (m: BaseMessage) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content));

/** Counts model calls and tokens (provider usage when reported, else cl100k estimates of prompt and reply). */
class Meter extends BaseCallbackHandler {
  name = 'procura-eval-meter';
  calls = 0;
  tokens = 0;
  async handleChatModelStart(_llm: unknown, messages: BaseMessage[][]) {
    this.calls++;
    this.tokens += messages.flat().reduce((sum, m) => sum + encoder.encode(text(m)).length, 0);
  }
  async handleLLMEnd(output: LLMResult) {
    for (const g of output.generations.flat()) this.tokens += encoder.encode(g.text ?? '').length;
  }
}

const scenarios = SCENARIOS.filter((s) => !args.only || s.name.includes(args.only));
console.log(`Procura evaluation — ${scenarios.length} scenarios, model: ${args.model}`);
const h = await startAgentHarness(undefined, { env });
const rows: Array<{ name: string; ok: boolean; why?: string; calls: number; tokens: number; seconds: number }> = [];
try {
  for (const [i, scenario] of scenarios.entries()) {
    const meter = new Meter();
    h.callbacks.splice(0, h.callbacks.length, meter);
    const started = Date.now();
    let why: string | undefined;
    try {
      why = await scenario.run(h, `eval-${i}`);
    } catch (error) {
      why = `threw: ${error instanceof Error ? error.message : String(error)}`;
    }
    rows.push({
      name: scenario.name,
      ok: !why,
      why,
      calls: meter.calls,
      tokens: meter.tokens,
      seconds: (Date.now() - started) / 1000,
    });
    console.log(`${why ? '✗' : '✓'} ${scenario.name}${why ? ` — ${why}` : ''}`);
  }
} finally {
  await h.close();
}

const header = ['scenario', 'result', 'model calls', 'tokens', 'seconds'];
const table = rows.map((r) => [
  r.name,
  r.ok ? 'pass' : 'FAIL',
  String(r.calls),
  String(r.tokens),
  r.seconds.toFixed(1),
]);
const width = (s: string) => [...s].reduce((w, ch) => w + (/[\u3000-\u9fff\uff00-\uffef]/.test(ch) ? 2 : 1), 0);
const widths = header.map((h, i) => Math.max(width(h), ...table.map((t) => width(t[i]))));
const line = (cells: string[]) => `| ${cells.map((c, i) => c + ' '.repeat(widths[i] - width(c))).join(' | ')} |`;
console.log(`\n${line(header)}\n|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
for (const t of table) console.log(line(t));
const passed = rows.filter((r) => r.ok).length;
console.log(`\n${passed} passed, ${rows.length - passed} failed`);
process.exitCode = passed === rows.length ? 0 : 1;
