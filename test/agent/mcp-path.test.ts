import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentRuntime, type ProcuraRunContext } from '../../src/agent/index.ts';
import { listen } from '../../src/shared/index.ts';
import {
  agentConfigsWithServers,
  type ModelCall,
  recordingModels,
  type SentTool,
  startKnowledgeMcp,
  startStandInErpMcp,
} from './stand-ins.ts';

const text = (m: BaseMessage) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content));
const toolResults = (call: ModelCall) => call.messages.filter((m) => m.getType() === 'tool').map(text);
const ask = (id: string, name: string, args: Record<string, unknown>) =>
  new AIMessage({ content: '', tool_calls: [{ id, name, args, type: 'tool_call' }] });

/** The orchestrator delegates to the analyst, then to the order agent; the analyst reads the ERP and the knowledge base. */
function script(call: ModelCall): AIMessage {
  const done = toolResults(call);
  if (call.agent === 'orchestrator') {
    if (done.length === 0)
      return ask('t-analyst', 'task', { subagent_type: 'procurement-analyst', description: '火花塞比价' });
    if (done.length === 1) return ask('t-order', 'task', { subagent_type: 'procurement-order', description: '查订单' });
    return new AIMessage(`完成 / done: ${done.join(' | ')}`);
  }
  if (call.agent === 'procurement-analyst') {
    if (done.length === 0)
      return new AIMessage({
        content: '',
        tool_calls: [
          { id: 'c-part', name: 'part_search', args: { name: '火花塞' }, type: 'tool_call' },
          { id: 'c-kb', name: 'kb_lookup', args: { topic: '火花塞' }, type: 'tool_call' },
        ],
      });
    return new AIMessage(`分析结果 / analysis: ${done.join(' | ')}`);
  }
  return new AIMessage('订单 Agent 无事可做 / nothing to order');
}

const byName = (tools: SentTool[]) =>
  [...tools].sort((a, b) => a.name.localeCompare(b.name)).map((t) => ({ ...t, parameters: t.parameters }));

let dataDir: string;
let configDir: string;
let erp: Awaited<ReturnType<typeof startStandInErpMcp>>;
let kb: Awaited<ReturnType<typeof startKnowledgeMcp>>;
let runtime: AgentRuntime;
const calls: ModelCall[] = [];

const contextFor = (sessionId: string): ProcuraRunContext => ({
  userId: 'acme-buyer',
  username: 'ACME 采购员',
  role: 'buyer',
  token: 'tok-acme',
  projectId: 'P9',
  traceId: `trace-${sessionId}`,
  sessionId,
});

async function run(sessionId: string) {
  const ctx = contextFor(sessionId);
  const graph = await runtime.graph(ctx);
  calls.length = 0;
  return graph.invoke(
    { messages: [{ role: 'user', content: '帮我对火花塞做比价分析' }] } as never,
    {
      configurable: { thread_id: sessionId },
      context: ctx,
      recursionLimit: 100,
    } as never,
  ) as Promise<{ messages: BaseMessage[] }>;
}

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-mcp-path-'));
  erp = await startStandInErpMcp();
  kb = await startKnowledgeMcp();
  // The company's knowledge base reaches the analyst because the analyst's YAML names it.
  configDir = agentConfigsWithServers({ 'procurement-analyst': ['kb'] });
  runtime = new AgentRuntime({
    configDir,
    dataDir,
    // Never reached by these runs: the ERP tools come over MCP from the stand-in.
    erpUrl: 'http://127.0.0.1:9/api',
    suppliersUrl: 'http://127.0.0.1:9',
    mcpServers: [
      { name: 'erp', url: erp.mcpUrl, forwardCredentials: true, required: true },
      { name: 'kb', url: kb.mcpUrl },
    ],
    models: recordingModels(calls, script),
    env: { ...process.env, DEEPSEEK_API_KEY: '', OPENAI_BASE_URL: '' },
  });
}, 60_000);

afterAll(async () => {
  await runtime?.close();
  await kb?.close();
  await erp?.close();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  if (configDir) fs.rmSync(configDir, { recursive: true, force: true });
});

describe('MCP on the agent’s path', () => {
  it('runs with the ERP tools of a stand-in MCP server, as the user, and sends each model what `procura tools --agent` lists', async () => {
    const result = await run('s-one');
    expect(text(result.messages.at(-1)!)).toContain('SP-ACME-1');

    // Every ERP call went to the stand-in with the user's own token, project and trace id.
    const search = erp.received.find((c) => c.tool === 'part_search');
    expect(search).toMatchObject({ authorization: 'Bearer tok-acme', project: 'P9', trace: 'trace-s-one' });
    // The stand-in does not say which fields of its results others wrote: every text value reaches the model fenced
    // as data, naming where it is, while keys and numbers stay as they are.
    const read = calls.filter((c) => c.agent === 'procurement-analyst').flatMap(toolResults);
    const found = JSON.parse(read.find((r) => r.includes('SP-ACME-1'))!);
    expect(found.items[0].code).toMatch(/^<<<UNTRUSTED_TEXT source="part_search items\[0\]\.code".*SP-ACME-1<<<END/);
    expect(found.items[0]).toMatchObject({ id: 7, unitPrice: 12.5 });
    expect(found.total).toBe(1);

    const sent = new Map(calls.map((c) => [c.agent, c.tools]));
    expect([...sent.keys()].sort()).toEqual(['orchestrator', 'procurement-analyst', 'procurement-order']);
    for (const [agent, tools] of sent) {
      const listed = await runtime.toolListing(agent, contextFor('s-one'));
      expect(byName(tools)).toEqual(
        byName(listed.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }))),
      );
    }
    const names = (agent: string) => sent.get(agent)!.map((t) => t.name);
    // The extra server reaches only the agent whose YAML names it.
    expect(names('procurement-analyst')).toContain('kb_lookup');
    expect(names('orchestrator')).not.toContain('kb_lookup');
    expect(names('procurement-order')).not.toContain('kb_lookup');
    // The orchestrator has no ERP tools; the analyst reads only; the order agent writes.
    expect(names('orchestrator')).toEqual(expect.arrayContaining(['task', 'web_search', 'assign_skill']));
    expect(names('orchestrator')).not.toContain('part_search');
    expect(names('procurement-analyst')).toEqual(
      expect.arrayContaining(['part_search', 'ask_user', 'dynamic_http_call', 'execute']),
    );
    expect(names('procurement-analyst')).not.toContain('order_create');
    expect(names('procurement-order')).toEqual(expect.arrayContaining(['order_create', 'dynamic_http_call']));
    expect(names('procurement-order')).not.toContain('execute');
    // Live values reach each user's model: the stand-in's categories for this user's token.
    const partQuery = sent.get('procurement-analyst')!.find((t) => t.name === 'part_query');
    expect(partQuery?.description).toContain('ignition-for-tok-acme');
  }, 120_000);

  it('turns an MCP server that dies mid-run into a tool failure the model reads; the run ends normally', async () => {
    await kb.close();
    const result = await run('s-two');
    const kbResult = result.messages.find((m) => m.getType() === 'tool') as BaseMessage | undefined;
    expect(kbResult).toBeDefined();
    const answer = text(result.messages.at(-1)!);
    expect(answer).toContain('"success":false');
    expect(answer).toContain('MCP server kb');
    expect(answer).toContain('SP-ACME-1');
  }, 120_000);
});

describe('MCP servers at start-up', () => {
  const freePort = async () => {
    const probe = await listen(() => new Response(''), { host: '127.0.0.1', port: 0 });
    await probe.close();
    return probe.port;
  };

  it('`procura api` fails naming a required server that is down', async () => {
    const port = await freePort();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-mcp-down-'));
    try {
      const failed = await promisify(execFile)(
        process.execPath,
        [path.resolve('bin/procura.js'), 'api', '--port', '0'],
        {
          env: {
            ...process.env,
            PROCURA_DATA_DIR: dir,
            ERP_MCP_URL: `http://127.0.0.1:${port}/mcp`,
            DATABASE_URL: '',
            REDIS_URL: '',
            DEEPSEEK_API_KEY: '',
            OPENAI_BASE_URL: '',
          },
          timeout: 60_000,
        },
      ).then(
        () => undefined,
        (error: { code?: number; stderr?: string }) => error,
      );
      expect(failed?.code).not.toBe(0);
      expect(failed?.stderr).toMatch(/MCP server erp/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);

  it('skips an optional server that is down and adds its tools once it answers', async () => {
    const port = await freePort();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-mcp-late-'));
    const configs = agentConfigsWithServers({ orchestrator: ['late'], 'procurement-order': ['late'] });
    const late = new AgentRuntime({
      configDir: configs,
      dataDir: dir,
      erpUrl: 'http://127.0.0.1:9/api',
      suppliersUrl: 'http://127.0.0.1:9',
      mcpServers: [
        { name: 'erp', url: erp.mcpUrl, forwardCredentials: true, required: true },
        { name: 'late', url: `http://127.0.0.1:${port}/mcp`, connectTimeoutMs: 2_000 },
      ],
      mcpRetryMs: 200,
      models: recordingModels([], script),
      env: { ...process.env, DEEPSEEK_API_KEY: '', OPENAI_BASE_URL: '' },
    });
    let server: Awaited<ReturnType<typeof startKnowledgeMcp>> | undefined;
    try {
      const ctx = contextFor('s-late');
      const before = await late.toolListing('orchestrator', ctx);
      expect(before.map((t) => t.name)).not.toContain('kb_lookup');
      server = await startKnowledgeMcp(port);
      let names: string[] = [];
      for (let i = 0; i < 100 && !names.includes('kb_lookup'); i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        names = (await late.toolListing('orchestrator', ctx)).map((t) => t.name);
      }
      // The agents whose YAML names the server get its tools once it answers; the analyst's does not.
      expect(names).toContain('kb_lookup');
      expect((await late.toolListing('order', ctx)).map((t) => t.name)).toContain('kb_lookup');
      expect((await late.toolListing('analyst', ctx)).map((t) => t.name)).not.toContain('kb_lookup');
    } finally {
      await late.close();
      await server?.close();
      fs.rmSync(dir, { recursive: true, force: true });
      fs.rmSync(configs, { recursive: true, force: true });
    }
  }, 90_000);
});
