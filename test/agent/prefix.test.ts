import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import { getEncoding } from 'js-tiktoken';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentHarness, startAgentHarness } from './harness.ts';
import { type ModelCall, recordingModels } from './stand-ins.ts';

/**
 * What every call of an agent starts with — its tool schemas (in the OpenAI function format every chat model sends)
 * and its system prompt — counted with o200k_base. It is paid on every call, so each agent has a budget, and it must
 * not change from call to call or session to session, or providers' prompt caches miss.
 */
// Each agent is held to its budget: the analyst and the order agent were brought down to theirs (from 5,692 and
// 2,802) by shorter prompts, tool descriptions and schemas without length caps.
const BUDGET: Record<string, number> = {
  orchestrator: 3_000,
  // 4,000 until it gained inventory_query (the stock of one category, supplier or part): 61 tokens over.
  'procurement-analyst': 4_100,
  'procurement-order': 2_500,
  // Thirteen tools (the rfq tools and the look-ups they need) and a five-line prompt.
  'procurement-sourcing': 2_550,
};

const o200k = getEncoding('o200k_base');
const count = (text: string) => o200k.encode(text, [], []).length;
const text = (m: BaseMessage) =>
  typeof m.content === 'string'
    ? m.content
    : m.content.map((part) => ('text' in part && typeof part.text === 'string' ? part.text : '')).join('');
/** The system prompt: the first message (later system messages, such as a skills-sync notice, are conversation). */
const system = (call: ModelCall) => (call.messages[0]?.getType() === 'system' ? text(call.messages[0]) : '');
/** The fixed prefix of a call: tool schemas, then the system prompt. */
const fixedPrefix = (call: ModelCall) =>
  `${JSON.stringify(call.tools.map((t) => ({ type: 'function', function: t })))}\n${system(call)}`;
/** The prefix without its closing user paragraph (see the context injection middleware). */
const withoutUser = (p: string) => p.replace(/\s*当前用户 user_id:[^\n]*\n偏好文件:[^\n]*(\n该用户只读[^\n]*)?$/, '');
const results = (call: ModelCall) => call.messages.filter((m) => m.getType() === 'tool').length;
const ask = (name: string, args: Record<string, unknown>) =>
  new AIMessage({ content: '', tool_calls: [{ id: `c-${name}-${Math.random()}`, name, args, type: 'tool_call' }] });

let target = 'procurement-analyst';
const calls: ModelCall[] = [];
/** The orchestrator hands the message to `target`, which takes two steps (a listing, then its answer). */
function script(call: ModelCall): AIMessage {
  if (call.agent === 'orchestrator')
    return results(call) === 0
      ? ask('task', { subagent_type: target, description: '【任务目标】看看' })
      : new AIMessage('完成 / done');
  return results(call) === 0 ? ask('supplier_query', {}) : new AIMessage('好的 / done');
}

let h: AgentHarness;
beforeAll(async () => {
  h = await startAgentHarness(undefined, { models: recordingModels(calls, script) });
}, 120_000);
afterAll(async () => {
  await h?.close();
});

/** Runs one delegation; returns each agent's calls. */
async function sent(agent: string, user: Parameters<AgentHarness['contextFor']>[0], session: string) {
  target = agent;
  calls.length = 0;
  await h.send(h.contextFor(user, session), '请处理 / please handle');
  const byAgent = new Map<string, ModelCall[]>();
  for (const call of calls) byAgent.set(call.agent, [...(byAgent.get(call.agent) ?? []), call]);
  return byAgent;
}

describe('the fixed prefix of every agent', () => {
  it('stays within its budget of tool schemas plus system prompt', async () => {
    const analysis = await sent('procurement-analyst', 'laoxiao', 'prefix-a');
    const order = await sent('procurement-order', 'laoxiao', 'prefix-o');
    const sourcing = await sent('procurement-sourcing', 'laoxiao', 'prefix-s');
    const first = {
      orchestrator: analysis.get('orchestrator')![0],
      'procurement-analyst': analysis.get('procurement-analyst')![0],
      'procurement-order': order.get('procurement-order')![0],
      'procurement-sourcing': sourcing.get('procurement-sourcing')![0],
    };
    const measured = Object.fromEntries(
      Object.entries(first).map(([agent, call]) => [agent, count(fixedPrefix(call))]),
    );
    for (const [agent, tokens] of Object.entries(measured)) expect(tokens, agent).toBeLessThanOrEqual(BUDGET[agent]);
  }, 120_000);

  it("offers a read-only agent only what it may do: the analyst's dynamic_http_call only GETs", async () => {
    const analysis = await sent('procurement-analyst', 'laoxiao', 'prefix-get');
    const order = await sent('procurement-order', 'laoxiao', 'prefix-write');
    const http = (call: ModelCall) =>
      call.tools.find((t) => t.name === 'dynamic_http_call') as
        | { description: string; parameters: { properties: { method: { enum: string[] } } } }
        | undefined;
    const analyst = http(analysis.get('procurement-analyst')![0])!;
    expect(analyst.parameters.properties.method.enum).toEqual(['GET']);
    expect(analyst.description).not.toMatch(/POST|DELETE/);
    // An agent that may write is still offered every method, writes waiting for approval.
    expect(http(order.get('procurement-order')![0])!.parameters.properties.method.enum).toContain('POST');
  }, 120_000);

  it('describes the built-in tools as Procura has them: execute is the QuickJS sandbox, not a shell', async () => {
    const analysis = await sent('procurement-analyst', 'laoxiao', 'prefix-builtins');
    const tools = analysis.get('procurement-analyst')![0].tools as { name: string; description: string }[];
    const execute = tools.find((t) => t.name === 'execute')!;
    expect(execute.description).toMatch(/QuickJS sandbox, not a shell/);
    expect(execute.description).not.toMatch(/shell command|grep tool/i);
    for (const t of tools) expect(JSON.stringify(t), t.name).not.toContain('$schema');
    const task = analysis.get('orchestrator')![0].tools.find((t) => t.name === 'task') as { description: string };
    expect(task.description).toContain('- procurement-order:');
    expect(task.description).not.toContain('general-purpose');
  }, 120_000);

  it('is byte-stable across calls and sessions of a user, and differs between users of a project only in who the user is', async () => {
    const first = await sent('procurement-analyst', 'laoxiao', 'stable-1');
    const second = await sent('procurement-analyst', 'laoxiao', 'stable-2');
    const other = await sent('procurement-analyst', 'admin', 'stable-3');
    for (const agent of ['orchestrator', 'procurement-analyst']) {
      const all = [...first.get(agent)!, ...second.get(agent)!];
      expect(all.length, agent).toBeGreaterThanOrEqual(4);
      // Every call of the agent, in either session, starts with the very same bytes.
      expect(new Set(all.map(fixedPrefix)).size, agent).toBe(1);
      // Another user's calls differ only in the closing paragraph that says who the user is.
      const mine = fixedPrefix(all[0]);
      expect(withoutUser(mine), agent).not.toBe(mine);
      expect(withoutUser(fixedPrefix(other.get(agent)![0])), agent).toBe(withoutUser(mine));
    }
  }, 120_000);
});
