import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentRuntime, type ProcuraRunContext } from '../../src/agent/index.ts';
import { startErpMcpServer } from '../../src/mcp/index.ts';
import { startTestErp } from '../tools/harness.ts';
import { type ModelCall, recordingModels } from './stand-ins.ts';

const text = (m: BaseMessage) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content));
const results = (call: ModelCall) => call.messages.filter((m) => m.getType() === 'tool').map(text);
const post = {
  path: '/orders/create',
  method: 'POST',
  arguments: { supplierId: 1, lines: [{ partId: 1, quantity: 100 }] },
};

/** The analyst tries a GET and a POST; the order agent a POST. */
function script(call: ModelCall): AIMessage {
  const done = results(call);
  const asked = call.messages
    .filter((m) => m.getType() === 'human')
    .map(text)
    .join('\n');
  if (call.agent === 'orchestrator') {
    if (done.length > 0) return new AIMessage(`完成 / done: ${done.join(' | ')}`);
    const agent = asked.includes('分析') ? 'procurement-analyst' : 'procurement-order';
    return new AIMessage({
      content: '',
      tool_calls: [{ id: 't1', name: 'task', args: { subagent_type: agent, description: asked }, type: 'tool_call' }],
    });
  }
  if (done.length > 0) return new AIMessage(done.join(' | '));
  const calls =
    call.agent === 'procurement-analyst'
      ? [
          { id: 'get', name: 'dynamic_http_call', args: { path: '/categories' }, type: 'tool_call' as const },
          { id: 'post', name: 'dynamic_http_call', args: post, type: 'tool_call' as const },
        ]
      : [{ id: 'post-order', name: 'dynamic_http_call', args: post, type: 'tool_call' as const }];
  return new AIMessage({ content: '', tool_calls: calls });
}

let env: Awaited<ReturnType<typeof startTestErp>>;
let mcp: Awaited<ReturnType<typeof startErpMcpServer>>;
let dataDir: string;
let runtime: AgentRuntime;

const contextFor = (sessionId: string): ProcuraRunContext => ({
  ...env.context('laoxiao'),
  sessionId,
  traceId: sessionId,
});

async function run(sessionId: string, message: string) {
  const ctx = contextFor(sessionId);
  const graph = await runtime.graph(ctx);
  const config = { configurable: { thread_id: sessionId }, context: ctx, recursionLimit: 100 };
  const result = (await graph.invoke({ messages: [{ role: 'user', content: message }] } as never, config as never)) as {
    messages: BaseMessage[];
  };
  const state = (await graph.getState(config as never)) as {
    tasks: Array<{ interrupts?: Array<{ value: Record<string, unknown> }> }>;
  };
  return { result, interrupts: state.tasks.flatMap((t) => t.interrupts ?? []).map((i) => i.value) };
}

beforeAll(async () => {
  env = await startTestErp();
  mcp = await startErpMcpServer({ erp: { baseUrl: env.baseUrl }, host: '127.0.0.1', port: 0 });
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-http-call-'));
  runtime = new AgentRuntime({
    dataDir,
    erpUrl: env.baseUrl,
    suppliersUrl: 'http://127.0.0.1:9',
    mcpServers: [{ name: 'erp', url: mcp.mcpUrl, forwardCredentials: true, required: true }],
    models: recordingModels([], script),
    env: { ...process.env, DEEPSEEK_API_KEY: '', OPENAI_BASE_URL: '' },
  });
}, 60_000);

afterAll(async () => {
  await runtime?.close();
  await mcp?.close();
  await env?.close();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('dynamic_http_call', () => {
  it('lets the analyst GET any ERP endpoint as the user, and nothing else', async () => {
    const { result, interrupts } = await run('http-analyst', '分析一下分类');
    const answer = text(result.messages.at(-1)!);
    expect(interrupts).toEqual([]);
    expect(answer).toContain('spark_plug');
    // Read-only agents are sent a GET-only schema: the POST is refused at the arguments, with a readable reason.
    expect(answer).toMatch(/method[^|]*GET/);
    expect(answer).not.toContain('node_modules');
    expect(answer).not.toContain('with kwargs');
  }, 120_000);

  it('lets the order agent write only after a human approves', async () => {
    const { interrupts } = await run('http-order', '下单');
    expect(interrupts).toEqual([expect.objectContaining({ kind: 'approval', tool: 'dynamic_http_call' })]);
  }, 120_000);
});
