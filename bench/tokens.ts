/**
 * What a real model is sent, and what it costs: one spark-plug analysis and one order (to its approval, then after
 * it) on the started stack, the model being an OpenAI-compatible stand-in that follows the prompts and skills.
 * Every request the stand-in receives is counted with o200k_base: the fixed prefix (tool schemas + system prompt),
 * tool results, the total, the share a provider's prompt cache can serve (the longest prefix an earlier request of
 * the same model already sent), and the cost at the configured prices.
 * Usage: npm run bench:tokens [-- --out bench/results/tokens.md]
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { createAgentModels } from '../src/agent/index.ts';
import type { ChatEvent } from '../src/protocol/index.ts';
import { type ChatRequest, ModelStandIn } from '../test/agent/model-stand-in.ts';
import { startStack } from './eval/stack.ts';
import { agentOf, contentText, followPrompts, tokens } from './token-stand-in.ts';

const { values } = parseArgs({ options: { out: { type: 'string' } } });
const MAIN = 'deepseek-v4-pro';
const LIGHT = 'deepseek-v4-flash';

interface Counted {
  run: string;
  /** Tokens of each tool result sent, by what produced it (tool and its main argument). */
  filledBy: Map<string, number>;
  agent: string;
  model: string;
  fixed: number;
  toolResults: number;
  total: number;
  cacheable: number;
  output: number;
}

const serialised = (req: ChatRequest) => {
  const parts = [
    JSON.stringify(req.tools ?? []),
    ...req.messages.map(
      (m) => `${m.role}\n${contentText(m.content)}${m.tool_calls ? `\n${JSON.stringify(m.tool_calls)}` : ''}`,
    ),
  ];
  return parts;
};

/** A tool call's main argument, to tell results apart (the file read, the page fetched). */
const resultLabel = (args: string) => {
  const parsed = JSON.parse(args || '{}') as Record<string, unknown>;
  const main = parsed.file_path ?? parsed.url ?? parsed.path;
  return typeof main === 'string' ? main : '';
};

const commonPrefix = (a: string, b: string) => {
  let i = 0;
  const n = Math.min(a.length, b.length);
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
};

const stand = await new ModelStandIn().start();
const seen: Array<{ model: string; text: string }> = [];
const counted: Counted[] = [];
let run = 'analysis';
stand.script([
  {
    times: Number.POSITIVE_INFINITY,
    reply: async (req) => {
      const parts = serialised(req);
      const text = parts.join('\n');
      const fixed =
        tokens(parts[0]) + (req.messages[0]?.role === 'system' ? tokens(contentText(req.messages[0].content)) : 0);
      const toolResults = req.messages
        .filter((m) => m.role === 'tool')
        .reduce((n, m) => n + tokens(contentText(m.content)), 0);
      const total = parts.reduce((n, p) => n + tokens(p), 0);
      const lcp = Math.max(0, ...seen.filter((s) => s.model === req.model).map((s) => commonPrefix(s.text, text)));
      seen.push({ model: req.model, text });
      const reply = await followPrompts(req, LIGHT);
      const output = 'text' in reply ? tokens(reply.text ?? '') + tokens(JSON.stringify(reply.toolCalls ?? [])) : 0;
      const names = new Map(
        req.messages.flatMap((m) =>
          (m.tool_calls ?? []).map((c) => [c.id, `${c.function.name} ${resultLabel(c.function.arguments)}`.trim()]),
        ),
      );
      const filledBy = new Map<string, number>();
      for (const m of req.messages.filter((x) => x.role === 'tool')) {
        const key = names.get(m.tool_call_id ?? '') ?? 'tool';
        filledBy.set(key, (filledBy.get(key) ?? 0) + tokens(contentText(m.content)));
      }
      counted.push({
        run,
        filledBy,
        agent: agentOf(req, LIGHT),
        model: req.model,
        fixed,
        toolResults,
        total,
        cacheable: Math.min(total, tokens(text.slice(0, lcp))),
        output,
      });
      return { ...reply, usage: { input: total, output } };
    },
  },
]);

const env = {
  OPENAI_BASE_URL: stand.url,
  OPENAI_API_KEY: 'stand-in',
  OPENAI_MODEL: MAIN,
  OPENAI_LIGHT_MODEL: LIGHT,
  // DeepSeek's context: the conversation is compared whole, never cut short by a summary.
  PROCURA_MODEL_CONTEXT: '128000',
  PROCURA_MODEL_TIMEOUT_MS: '120000',
  PROCURA_MODEL_CALL_BUDGET_MS: '300000',
};
const { prices } = createAgentModels(env);
const stack = await startStack({ env });
const reported: Record<string, { input_tokens: number; output_tokens: number; cost: number } | undefined> = {};
let answer = '';
try {
  const client = stack.client('laoxiao');
  const turn = async (label: string, send: (collect: (e: ChatEvent) => void) => Promise<unknown>) => {
    run = label;
    const events: ChatEvent[] = [];
    await send((e) => events.push(e));
    const failed = events.find((e) => e.event === 'error');
    if (failed) throw new Error(`${label}: ${JSON.stringify(failed.data)}`);
    reported[label] = (events.find((e) => e.event === 'done')?.data as { usage?: (typeof reported)[string] })?.usage;
    if (label === 'analysis')
      answer = events
        .filter((e) => e.event === 'token')
        .map((e) => String((e.data as { content?: string }).content ?? ''))
        .join('');
    return events;
  };
  await turn('analysis', (c) => client.start('帮我对摩托车火花塞做供应商比价分析', 'tokens-analysis', c));
  const order = await turn('order, to approval', (c) =>
    client.start('给博世下 200 个 F7TC 火花塞的采购单', 'tokens-order', c),
  );
  const interrupt = order.find((e) => e.event === 'interrupt');
  if (!interrupt) throw new Error('the order asked for no approval');
  await turn('order, after approval', (c) =>
    client.resume(
      'tokens-order',
      String((interrupt.data as Record<string, unknown>).interrupt_id),
      { type: 'approve' },
      c,
    ),
  );
} finally {
  await stack.close();
  await stand.close();
}

const usd = (c: Counted) => {
  const price = prices[c.model];
  if (!price) return 0;
  const cached = c.cacheable;
  return (
    ((c.total - cached) * price.input + cached * (price.cached_input ?? price.input) + c.output * price.output) / 1e6
  );
};
const n = (x: number) => x.toLocaleString('en-US');
const pct = (a: number, b: number) => (b ? `${((a / b) * 100).toFixed(0)} %` : '–');
const money = (x: number) => `$${x.toFixed(4)}`;
const sum = (xs: Counted[], key: keyof Counted) => xs.reduce((s, c) => s + (c[key] as number), 0);

const lines: string[] = [];
const out = (s = '') => lines.push(s);
out(
  `Token benchmark — ${new Date().toISOString().slice(0, 10)}, o200k_base, stand-in model priced as ${MAIN} (light: ${LIGHT})`,
);
out();
out('| run | calls | input tokens | cacheable | output | cost | Procura usage (input) |');
out('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const label of Object.keys(reported)) {
  const calls = counted.filter((c) => c.run === label);
  out(
    `| ${label} | ${calls.length} | ${n(sum(calls, 'total'))} | ${pct(sum(calls, 'cacheable'), sum(calls, 'total'))} | ${n(sum(calls, 'output'))} | ${money(calls.reduce((s, c) => s + usd(c), 0))} | ${n(reported[label]?.input_tokens ?? 0)} |`,
  );
}
out();
out('| agent | calls | fixed prefix per call | tool results (sum) | input tokens | cacheable | cost |');
out('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const agent of [...new Set(counted.map((c) => c.agent))]) {
  const calls = counted.filter((c) => c.agent === agent);
  out(
    `| ${agent} | ${calls.length} | ${n(Math.max(...calls.map((c) => c.fixed)))} | ${n(sum(calls, 'toolResults'))} | ${n(sum(calls, 'total'))} | ${pct(sum(calls, 'cacheable'), sum(calls, 'total'))} | ${money(calls.reduce((s, c) => s + usd(c), 0))} |`,
  );
}
out();
out('| # | run | agent | fixed prefix | tool results | total | cacheable | output | cost |');
out('| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const [i, c] of counted.entries()) {
  out(
    `| ${i + 1} | ${c.run} | ${c.agent} | ${n(c.fixed)} | ${n(c.toolResults)} | ${n(c.total)} | ${pct(c.cacheable, c.total)} | ${n(c.output)} | ${money(usd(c))} |`,
  );
}
out();
const analysis = counted.filter((c) => c.run === 'analysis');
const filled = new Map<string, number>();
for (const c of analysis) for (const [k, v] of c.filledBy) filled.set(k, (filled.get(k) ?? 0) + v);
const analysisInput = sum(analysis, 'total');
out('What fills the analysis: tool results, tokens × times sent (top 12)');
out();
out('| share | tokens | result |');
out('| ---: | ---: | --- |');
for (const [k, v] of [...filled].sort((a, b) => b[1] - a[1]).slice(0, 12))
  out(`| ${pct(v, analysisInput)} | ${n(v)} | \`${k}\` |`);
out();
const priced = [MAIN, LIGHT].map((m) => `${m}: ${JSON.stringify(prices[m] ?? null)}`).join('; ');
out(`Prices (USD per million tokens): ${priced}.`);
out(`Analysis answer: ${tokens(answer)} tokens, ${answer.length} characters.`);
console.log(`\n${lines.join('\n')}`);
if (values.out) fs.writeFileSync(values.out, `${lines.join('\n')}\n`);
process.exit(0);
