/**
 * Tool-call latency through each path a model's call can take: the registry over HTTP to the ERP, the ERP MCP
 * server (official SDK client, streamable HTTP), and the MCP client's registered tools; plus the token cost of
 * each agent's tool set. Usage: npm run bench:tools [-- --calls 200]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startErpServer } from '../src/erp/index.ts';
import { McpConnections, startErpMcpServer } from '../src/mcp/index.ts';
import {
  AGENT_TOOLSETS,
  listToolsForModel,
  type ToolContext,
  ToolRegistry,
  ToolScheduler,
} from '../src/tools/index.ts';
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
  rows.push({
    scenario,
    calls,
    'calls/s': Math.round(calls / seconds),
    'p50 ms': percentile(times, 0.5).toFixed(2),
    'p95 ms': percentile(times, 0.95).toFixed(2),
  });
}

const input = { name: '火花塞', limit: 20 };
await measure('registry → ERP HTTP (part_search)', () => toolbox.registry.execute('part_search', input, ctx));

const sdk = new Client({ name: 'bench', version: '1' });
await sdk.connect(
  new StreamableHTTPClientTransport(new URL(mcp.mcpUrl), {
    requestInit: { headers: { authorization: `Bearer ${ctx.token}` } },
  }),
);
await measure('MCP SDK client → ERP MCP (part_search)', () => sdk.callTool({ name: 'part_search', arguments: input }));

const connections = await McpConnections.connect([{ name: 'erp', url: mcp.mcpUrl, forwardCredentials: true }]);
const remote = connections.registerInto(new ToolRegistry());
await measure('MCP client registry → ERP MCP (part_search)', () => remote.execute('part_search', input, ctx));

const turn = Array.from({ length: 5 }, () => ({ name: 'part_search', input }));
await measure('one turn of 5 parallel part_search (scheduler)', () =>
  new ToolScheduler(toolbox.registry).runTurn(turn, ctx),
);
await measure('the same 5 one after another', async () => {
  for (const call of turn) await toolbox.registry.execute(call.name, call.input, ctx);
});

console.table(rows);

const tokens = [];
for (const agent of Object.keys(AGENT_TOOLSETS) as Array<keyof typeof AGENT_TOOLSETS>) {
  const listed = await listToolsForModel(toolbox.registry, ctx, AGENT_TOOLSETS[agent]);
  tokens.push({ agent, tools: listed.length, tokens: listed.reduce((sum, t) => sum + t.tokens, 0) });
}
const all = await listToolsForModel(toolbox.registry, ctx);
tokens.push({ agent: '(all tools)', tools: all.length, tokens: all.reduce((sum, t) => sum + t.tokens, 0) });
console.table(tokens);

await sdk.close();
await connections.close();
await toolbox.close();
await mcp.close();
await erp.close();
fs.rmSync(dataDir, { recursive: true, force: true });
