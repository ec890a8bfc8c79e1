/**
 * Tool-call latency through each path a model's call can take: the registry over HTTP to the ERP (in-process
 * tools), the ERP MCP server (official SDK client, streamable HTTP), and the MCP client's registered tools (the
 * path runs take); the MCP hop is their difference, measured in the same run. Plus the token cost of each agent's
 * tool set as its model is sent it. Usage: npm run bench:tools [-- --calls 200]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { AgentRuntime } from '../src/agent/index.ts';
import { startErpServer } from '../src/erp/index.ts';
import { McpConnections, startErpMcpServer } from '../src/mcp/index.ts';
import { listToolsForModel, type ToolContext, ToolRegistry, ToolScheduler } from '../src/tools/index.ts';
import { createToolbox } from '../src/tools/toolbox.ts';

const { values: args } = parseArgs({ options: { calls: { type: 'string', default: '200' } } });
const calls = Number(args.calls);

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-bench-tools-'));
const erp = await startErpServer({ dataDir, host: '127.0.0.1', port: 0 });
const baseUrl = `${erp.server.url}/api`;
const mcp = await startErpMcpServer({ erp: { baseUrl }, host: '127.0.0.1', port: 0 });
const ctx: ToolContext = { userId: 'laoxiao', role: 'buyer', token: erp.demoTokens.laoxiao, traceId: 'bench' };
const toolbox = createToolbox({ erp: { baseUrl }, web: { suppliersUrl: 'http://127.0.0.1:8090' } });

const rows: Array<Record<string, string | number>> = [];
const p50: Record<string, number> = {};
const p99: Record<string, number> = {};
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];

async function measure(scenario: string, once: () => Promise<unknown>) {
  for (let i = 0; i < 10; i++) await once(); // warm-up
  const times: number[] = [];
  const started = performance.now();
  for (let i = 0; i < calls; i++) {
    const t = performance.now();
    await once();
    times.push(performance.now() - t);
  }
  const seconds = (performance.now() - started) / 1000;
  times.sort((a, b) => a - b);
  p50[scenario] = percentile(times, 0.5);
  p99[scenario] = percentile(times, 0.99);
  rows.push({
    scenario,
    calls,
    'calls/s': Math.round(calls / seconds),
    'p50 ms': p50[scenario].toFixed(2),
    'p95 ms': percentile(times, 0.95).toFixed(2),
    'p99 ms': p99[scenario].toFixed(2),
  });
}

const input = { name: '火花塞', limit: 20 };
const inProcess = 'in-process tool → ERP HTTP (part_search)';
await measure(inProcess, () => toolbox.registry.execute('part_search', input, ctx));

const sdk = new Client({ name: 'bench', version: '1' });
await sdk.connect(
  new StreamableHTTPClientTransport(new URL(mcp.mcpUrl), {
    requestInit: { headers: { authorization: `Bearer ${ctx.token}` } },
  }),
);
await measure('MCP SDK client → ERP MCP (part_search)', () => sdk.callTool({ name: 'part_search', arguments: input }));

const connections = await McpConnections.connect([{ name: 'erp', url: mcp.mcpUrl, forwardCredentials: true }]);
const remote = connections.registerInto(new ToolRegistry());
const overMcp = 'agent tool over MCP → ERP MCP → ERP HTTP (part_search)';
await measure(overMcp, () => remote.execute('part_search', input, ctx));

const turn = Array.from({ length: 5 }, () => ({ name: 'part_search', input }));
await measure('one turn of 5 parallel part_search (scheduler)', () =>
  new ToolScheduler(toolbox.registry).runTurn(turn, ctx),
);
await measure('the same 5 one after another', async () => {
  for (const call of turn) await toolbox.registry.execute(call.name, call.input, ctx);
});

console.table(rows);

const hop = (of: Record<string, number>) => ({
  'in-process ms': of[inProcess].toFixed(2),
  'over MCP ms': of[overMcp].toFixed(2),
  'MCP hop ms': (of[overMcp] - of[inProcess]).toFixed(2),
  ratio: (of[overMcp] / of[inProcess]).toFixed(2),
});
console.log('MCP hop per call (same run, same machine):');
console.table({ p50: hop(p50), p99: hop(p99) });

const runtime = new AgentRuntime({
  dataDir,
  erpUrl: baseUrl,
  mcpServers: [{ name: 'erp', url: mcp.mcpUrl, forwardCredentials: true, required: true }],
  env: { ...process.env, DEEPSEEK_API_KEY: '', OPENAI_BASE_URL: '' },
});
const tokens = [];
for (const agent of ['orchestrator', 'procurement-analyst', 'procurement-order']) {
  const listed = await runtime.toolListing(agent, ctx);
  tokens.push({ agent, tools: listed.length, tokens: listed.reduce((sum, t) => sum + t.tokens, 0) });
}
await runtime.close();
const all = await listToolsForModel(toolbox.registry, ctx);
tokens.push({ agent: '(all tools)', tools: all.length, tokens: all.reduce((sum, t) => sum + t.tokens, 0) });
console.table(tokens);

await sdk.close();
await connections.close();
await toolbox.close();
await mcp.close();
await erp.close();
fs.rmSync(dataDir, { recursive: true, force: true });
