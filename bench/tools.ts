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
import { recordResults } from './results.ts';

recordResults('tools');

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
const cpu: Record<string, number> = {};
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];

/**
 * Each scenario's calls in rounds taken in turn, so load on the shared machine falls on every scenario alike.
 * Every scenario runs after the MCP client exists: its per-call context (AsyncLocalStorage) makes every promise in
 * the process a little dearer, in-process calls too, as in a running Procura, where LangGraph uses it as well.
 */
async function measureAll(scenarios: Array<[string, () => Promise<unknown>]>, rounds = 5) {
  const times = new Map<string, number[]>(scenarios.map(([name]) => [name, []]));
  const seconds = new Map<string, number>();
  const cpuMs = new Map<string, number>();
  for (const [, once] of scenarios) for (let i = 0; i < 10; i++) await once(); // warm-up
  for (let round = 0; round < rounds; round++)
    for (const [scenario, once] of scenarios) {
      const started = performance.now();
      const cpuBefore = process.cpuUsage();
      for (let i = 0; i < Math.ceil(calls / rounds); i++) {
        const t = performance.now();
        await once();
        times.get(scenario)!.push(performance.now() - t);
      }
      seconds.set(scenario, (seconds.get(scenario) ?? 0) + (performance.now() - started) / 1000);
      const used = process.cpuUsage(cpuBefore);
      cpuMs.set(scenario, (cpuMs.get(scenario) ?? 0) + (used.user + used.system) / 1000);
    }
  for (const [scenario] of scenarios) {
    const sorted = times.get(scenario)!.sort((a, b) => a - b);
    p50[scenario] = percentile(sorted, 0.5);
    p99[scenario] = percentile(sorted, 0.99);
    cpu[scenario] = cpuMs.get(scenario)! / sorted.length;
    rows.push({
      scenario,
      calls: sorted.length,
      'calls/s': Math.round(sorted.length / seconds.get(scenario)!),
      'p50 ms': p50[scenario].toFixed(2),
      'p95 ms': percentile(sorted, 0.95).toFixed(2),
      'p99 ms': p99[scenario].toFixed(2),
      // client, MCP server and ERP all run in this process: the CPU one call costs, whatever the machine's load
      'CPU ms/call': cpu[scenario].toFixed(2),
    });
  }
}

const input = { name: '火花塞', limit: 20 };
const sdk = new Client({ name: 'bench', version: '1' });
await sdk.connect(
  new StreamableHTTPClientTransport(new URL(mcp.mcpUrl), {
    requestInit: { headers: { authorization: `Bearer ${ctx.token}` } },
  }),
);
const connections = await McpConnections.connect([{ name: 'erp', url: mcp.mcpUrl, forwardCredentials: true }]);
const remote = connections.registerInto(new ToolRegistry());
const inProcess = 'in-process tool → ERP HTTP (part_search)';
const overMcp = 'agent tool over MCP → ERP MCP → ERP HTTP (part_search)';
const turn = Array.from({ length: 5 }, () => ({ name: 'part_search', input }));
await measureAll([
  [inProcess, () => toolbox.registry.execute('part_search', input, ctx)],
  ['MCP SDK client → ERP MCP (part_search)', () => sdk.callTool({ name: 'part_search', arguments: input })],
  [overMcp, () => remote.execute('part_search', input, ctx)],
]);
await measureAll([
  ['one turn of 5 parallel part_search (scheduler)', () => new ToolScheduler(toolbox.registry).runTurn(turn, ctx)],
  [
    'the same 5 one after another',
    async () => {
      for (const call of turn) await toolbox.registry.execute(call.name, call.input, ctx);
    },
  ],
]);

console.table(rows);

const hop = (of: Record<string, number>) => ({
  'in-process ms': of[inProcess].toFixed(2),
  'over MCP ms': of[overMcp].toFixed(2),
  'MCP hop ms': (of[overMcp] - of[inProcess]).toFixed(2),
  ratio: (of[overMcp] / of[inProcess]).toFixed(2),
});
console.log(
  `MCP hop per call (same run, same machine: ${os.cpus().length} cores, load average ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}):`,
);
console.table({ p50: hop(p50), p99: hop(p99), 'CPU per call': hop(cpu) });

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
