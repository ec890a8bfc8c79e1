import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StartedStack, startStack } from '../../bench/eval/stack.ts';
import { type ChatRequest, called, ModelStandIn, offers } from '../agent/model-stand-in.ts';
import { startKnowledgeMcp } from '../agent/stand-ins.ts';

const run = promisify(execFile);

/** A company's agent of its own: it answers from the company's knowledge base, its MCP server named under `servers`. */
const COMPANY_AGENT = `name: contracts-helper
description: 合同条款助手：从公司知识库查采购合同条款 / contract terms from the company's knowledge base
label: { zh: 合同助手, en: Contracts }
tools: { names: [ask_user] }
servers: [kb]
limits: { model_calls: 5, tool_calls: 5 }
prompt: |
  你是合同条款助手，只用 kb_lookup 查公司知识库里的采购合同条款，引用查到的原文。
`;

/** The shipped analyst's YAML with the company's knowledge base added: a company overrides an agent by its name. */
function analystWithKb(): string {
  const shipped = fs.readFileSync(path.resolve('src/agent/subagents/configs/procurement_analyst.yaml'), 'utf8');
  return shipped.replace(/^read_only: true$/m, 'servers: [kb]\nread_only: true');
}

const names = (tools: ReadonlyArray<{ function?: { name: string }; name?: string }>) =>
  tools.map((t) => t.function?.name ?? t.name ?? '').sort();

describe('a company’s own configuration, outside the package (started stack, a stand-in model service)', () => {
  let stack: StartedStack;
  let kb: Awaited<ReturnType<typeof startKnowledgeMcp>>;
  const model = new ModelStandIn();
  const companyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-company-'));

  beforeAll(async () => {
    kb = await startKnowledgeMcp();
    await model.start();
    const agents = path.join(companyDir, 'agents');
    fs.mkdirSync(agents);
    fs.writeFileSync(path.join(agents, 'analyst.yaml'), analystWithKb());
    fs.writeFileSync(path.join(agents, 'contracts.yaml'), COMPANY_AGENT);
    fs.writeFileSync(path.join(companyDir, 'mcp.json'), JSON.stringify([{ name: 'kb', url: kb.mcpUrl }]));
    stack = await startStack({
      settings: { agentsDir: agents, mcpServers: path.join(companyDir, 'mcp.json') },
      env: { OPENAI_BASE_URL: model.url, OPENAI_MODEL: 'stand-in-pro', OPENAI_API_KEY: 'sk-company-config' },
    });
  }, 240_000);

  afterAll(async () => {
    await stack?.close();
    await model.close();
    await kb?.close();
    fs.rmSync(companyDir, { recursive: true, force: true });
  });

  const procura = (...args: string[]) =>
    run(process.execPath, [path.resolve('bin/procura.js'), ...args], {
      env: { ...process.env, DATABASE_URL: '', REDIS_URL: '', LOG_LEVEL: 'silent', PROCURA_API_URL: '' },
      timeout: 60_000,
    });
  const listed = async (agent: string, user = 'laoxiao') =>
    JSON.parse(
      (await procura('tools', '--agent', agent, '--json', '--url', stack.apiUrl, '--token', stack.tokens[user] ?? ''))
        .stdout,
    ) as {
      agent: string | null;
      tools: Array<{ name: string; description: string; safety: string; approval: string; tokens: number }>;
      totalTokens: number;
    };

  it('gives the agents what the company’s YAML says, and `procura tools` lists exactly what each model is sent', async () => {
    // The orchestrator hands the work to each sub-agent in turn; each sub-agent answers at once.
    const toAgent = (agent: string) => (req: ChatRequest) =>
      offers('task')(req) &&
      !req.messages.some((m) => m.tool_calls?.some((c) => c.function.arguments.includes(`"${agent}"`)));
    model.script([
      {
        when: toAgent('procurement-analyst'),
        reply: {
          toolCalls: [{ name: 'task', args: { subagent_type: 'procurement-analyst', description: '查一下价格' } }],
        },
      },
      {
        when: toAgent('contracts-helper'),
        reply: {
          toolCalls: [{ name: 'task', args: { subagent_type: 'contracts-helper', description: '查付款条款' } }],
        },
      },
      { when: (req) => offers('task')(req) && called(req, 'task'), reply: { text: '两位都答完了。' } },
      { when: (req) => !offers('task')(req), reply: { text: '已查。' }, times: 2 },
    ]);
    const turn: string[] = [];
    await stack.client('laoxiao').start('查一下火花塞价格和付款条款', undefined, (e) => {
      if (e.event === 'token') turn.push(String(e.data.content));
    });
    expect(turn.join('')).toContain('两位都答完了');
    // Which request was whose: the orchestrator is offered `task`; each sub-agent is told its own prompt.
    const system = (req: ChatRequest) => JSON.stringify(req.messages.find((m) => m.role === 'system')?.content ?? '');
    const sent = {
      orchestrator: model.requests.find(offers('task')),
      'procurement-analyst': model.requests.find((r) => !offers('task')(r) && system(r).includes('采购分析师')),
      'contracts-helper': model.requests.find((r) => !offers('task')(r) && system(r).includes('合同条款助手')),
    };
    for (const [agent, request] of Object.entries(sent)) {
      expect(request, agent).toBeDefined();
      const listing = await listed(agent);
      expect(names(listing.tools), agent).toEqual(names(request?.tools ?? []));
    }
    // The company's server reaches the agents that name it, and only them; the chart server's tools (whose token
    // only the running Procura knows) are in the analyst's list.
    expect(names(sent['procurement-analyst']?.tools ?? [])).toEqual(
      expect.arrayContaining(['kb_lookup', 'generate_visualization', 'part_query']),
    );
    expect(names(sent['contracts-helper']?.tools ?? [])).toEqual(['ask_user', 'kb_lookup']);
    expect(names(sent.orchestrator?.tools ?? [])).not.toContain('kb_lookup');
    // The orchestrator is told of the company's agent as one it can delegate to.
    const task = ((sent.orchestrator?.tools ?? []) as Array<{ function: { name: string; description?: string } }>).find(
      (t) => t.function.name === 'task',
    );
    expect(task?.function.description).toContain('contracts-helper');
    expect((await stack.client('laoxiao').agents()).map((a) => a.name)).toContain('contracts-helper');
  }, 180_000);

  it('lists each agent’s tools for the user’s role, ERP tools over MCP with their live values and built-ins', async () => {
    const analyst = await listed('analyst');
    const analystNames = analyst.tools.map((t) => t.name);
    expect(analyst.agent).toBe('procurement-analyst');
    expect(analystNames).toEqual(
      expect.arrayContaining(['supplier_query', 'part_query', 'inventory_warning', 'ask_user', 'dynamic_http_call']),
    );
    expect(analystNames).toEqual(expect.arrayContaining(['execute', 'read_file', 'write_file']));
    // Only the tools its prompt uses are bound: compaction is the orchestrator's.
    for (const absent of ['compact_conversation', 'order_create', 'task']) expect(analystNames).not.toContain(absent);
    // Live values for this user, as the ERP MCP server describes the tool with the user's token.
    expect(analyst.tools.find((t) => t.name === 'part_query')?.description).toContain('spark_plug(火花塞)');
    expect(analyst.totalTokens).toBe(analyst.tools.reduce((sum, t) => sum + t.tokens, 0));
    expect(analyst.tools.every((t) => t.tokens > 10)).toBe(true);

    const order = await listed('procurement-order', 'viewer');
    expect(order.tools.some((t) => t.safety === 'write')).toBe(false);
    expect(order.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['order_search_details', 'open_order']));
    // The sourcing agent's RFQ writes reach a buyer (each waiting for approval), never a viewer.
    const writes = (await listed('sourcing')).tools.filter((t) => t.safety === 'write');
    expect(writes.map((t) => t.name)).toEqual(
      expect.arrayContaining(['rfq_create', 'rfq_send', 'rfq_close', 'rfq_award']),
    );
    expect(writes.every((t) => t.approval === 'required')).toBe(true);
    const viewing = (await listed('procurement-sourcing', 'viewer')).tools;
    expect(viewing.some((t) => t.safety === 'write')).toBe(false);
    expect(viewing.map((t) => t.name)).toEqual(expect.arrayContaining(['rfq_get', 'rfq_proposal', 'rfq_list']));
    const main = (await listed('main')).tools.map((t) => t.name);
    expect(main).toEqual(expect.arrayContaining(['task', 'assign_skill', 'web_search', 'compact_conversation']));
    expect(main).not.toContain('part_search');
  }, 180_000);

  it('fails loudly when no Procura runs at the address, or the agent is unknown; never a shorter list', async () => {
    const nowhere = await procura('tools', '--agent', 'analyst', '--url', 'http://127.0.0.1:9', '--token', 'x').then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(nowhere?.code).not.toBe(0);
    expect(nowhere?.stderr).toContain('no Procura is running at http://127.0.0.1:9');
    const unknown = await procura(
      'tools',
      '--agent',
      'nobody',
      '--url',
      stack.apiUrl,
      '--token',
      stack.tokens.laoxiao,
    ).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(unknown?.code).not.toBe(0);
    expect(unknown?.stderr).toContain('unknown agent nobody');
  }, 120_000);
});
