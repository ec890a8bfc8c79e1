import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AgentRuntime, agentConfigs, planAgentTools, toolSetProblems } from '../../src/agent/index.ts';
import { McpConnections, startErpMcpServer } from '../../src/mcp/index.ts';
import { ToolRegistry } from '../../src/tools/index.ts';
import { startTestErp } from '../tools/harness.ts';
import { agentConfigsWithServers, startKnowledgeMcp } from './stand-ins.ts';

let env: Awaited<ReturnType<typeof startTestErp>>;
let mcp: Awaited<ReturnType<typeof startErpMcpServer>>;
const dirs: string[] = [];

beforeAll(async () => {
  env = await startTestErp();
  mcp = await startErpMcpServer({ erp: { baseUrl: env.baseUrl }, host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await mcp?.close();
  await env?.close();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** The registry a running Procura binds: the ERP tools over its MCP server. */
async function overMcp(extra: Array<{ name: string; url: string }> = []) {
  const connections = await McpConnections.connect([
    { name: 'erp', url: mcp.mcpUrl, forwardCredentials: true, required: true },
    ...extra,
  ]);
  return { registry: connections.registerInto(new ToolRegistry()), close: () => connections.close() };
}

/** A remote tool of a company's server, as the MCP client registers one. */
const remote = (registry: ToolRegistry, name: string, group: string, server: string) =>
  registry.registerRemote(
    { name, label: name, description: name, schema: z.object({}), safety: 'read-only', group, server },
    { type: 'object' },
    async () => ({}),
  );

describe('agent tool sets, held against what the running process binds', () => {
  it('over MCP every tool the agents’ prompts and YAML rely on reaches them — price_check included', async () => {
    const { registry, close } = await overMcp();
    try {
      const configs = agentConfigs(registry);
      const analyst = planAgentTools(registry, configs, { role: 'buyer' }).find(
        (p) => p.config.name === 'procurement-analyst',
      )!;
      expect([...analyst.allowed]).toEqual(expect.arrayContaining(['price_check', 'supplier_scorecard']));
      // Of the ERP's tools, none that an agent relies on misses it (the rest of a process's tools are not here).
      const erpTools = new Set(registry.list().map((d) => d.name));
      expect(toolSetProblems(registry, configs).filter((p) => erpTools.has(p.tool ?? ''))).toEqual([]);
    } finally {
      await close();
    }
  });

  it('names a tool an agent’s prompt mentions but whose group its YAML does not select', () => {
    const registry = new ToolRegistry();
    remote(registry, 'price_check', 'erp', 'erp');
    const dir = agentConfigsWithServers({});
    dirs.push(dir);
    // The analyst's YAML no longer names the tool its prompt relies on.
    const analystYaml = path.join(dir, 'procurement_analyst.yaml');
    fs.writeFileSync(analystYaml, fs.readFileSync(analystYaml, 'utf8').replace(/\bprice_check, /, ''));
    const problems = toolSetProblems(registry, agentConfigs(registry, dir));
    // The analyst's prompt relies on it; the order agent's YAML names it, so it reaches that agent whatever its group.
    expect(problems.filter((p) => p.tool === 'price_check')).toEqual([
      { agent: 'procurement-analyst', tool: 'price_check', reason: expect.stringContaining('erp') },
    ]);
  });

  it('gives a server’s tools only to the agents whose YAML names it, and reports a server that reaches none', () => {
    const registry = new ToolRegistry();
    remote(registry, 'kb_lookup', 'kb', 'kb');
    const none = agentConfigsWithServers({});
    const analyst = agentConfigsWithServers({ 'procurement-analyst': ['kb'] });
    dirs.push(none, analyst);
    const unnamed = planAgentTools(registry, agentConfigs(registry, none), { role: 'buyer' });
    expect(unnamed.flatMap((p) => p.tools.map((t) => t.name))).not.toContain('kb_lookup');
    expect(toolSetProblems(registry, agentConfigs(registry, none), { servers: ['kb'] })).toEqual(
      expect.arrayContaining([{ server: 'kb', reason: expect.stringContaining('servers') }]),
    );
    const named = planAgentTools(registry, agentConfigs(registry, analyst), { role: 'buyer' });
    expect(named.filter((p) => p.tools.some((t) => t.name === 'kb_lookup')).map((p) => p.config.name)).toEqual([
      'procurement-analyst',
    ]);
    expect(
      toolSetProblems(registry, agentConfigs(registry, analyst), { servers: ['kb'] }).filter((p) => p.server),
    ).toEqual([]);
  });

  it('checks at start-up that a configured MCP server’s tools reach an agent whose YAML names it', async () => {
    const kb = await startKnowledgeMcp();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-toolset-'));
    const unnamed = agentConfigsWithServers({});
    const named = agentConfigsWithServers({ 'procurement-order': ['kb'] });
    dirs.push(dataDir, unnamed, named);
    const runtime = (configDir: string) =>
      new AgentRuntime({
        dataDir,
        configDir,
        erpUrl: env.baseUrl,
        mcpServers: [
          { name: 'erp', url: mcp.mcpUrl, forwardCredentials: true, required: true },
          { name: 'kb', url: kb.mcpUrl },
        ],
        env: { ...process.env, DEEPSEEK_API_KEY: '', OPENAI_BASE_URL: '' },
        toolSetCheck: 'fail',
      });
    try {
      const orphaned = runtime(unnamed);
      await expect(orphaned.registry()).rejects.toThrow(/MCP kb: .*reach no agent/);
      await orphaned.close();
      // Without supplier sites and charts other tools are missing too: only the server's line tells the two apart.
      const reached = runtime(named);
      const problems = await reached.registry().then(
        () => '',
        (error: Error) => error.message,
      );
      expect(problems).not.toContain('MCP kb');
      await reached.close();
    } finally {
      await kb.close();
    }
  });

  it('fails the agent’s start-up in strict mode, naming the agent and the tool; warns otherwise', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-toolset-'));
    const configs = agentConfigsWithServers({});
    dirs.push(dataDir, configs);
    // The analyst's YAML names a tool no source offers.
    const analystYaml = path.join(configs, 'procurement_analyst.yaml');
    fs.writeFileSync(analystYaml, fs.readFileSync(analystYaml, 'utf8').replace('names: [', 'names: [kb_lookup, '));
    const runtime = (toolSetCheck: 'warn' | 'fail') =>
      new AgentRuntime({
        dataDir,
        configDir: configs,
        erpUrl: env.baseUrl,
        mcpServers: [{ name: 'erp', url: mcp.mcpUrl, forwardCredentials: true, required: true }],
        env: { ...process.env, DEEPSEEK_API_KEY: '', OPENAI_BASE_URL: '' },
        toolSetCheck,
      });
    const strict = runtime('fail');
    await expect(strict.registry()).rejects.toThrow(/procurement-analyst · kb_lookup/);
    await strict.close();
    const lenient = runtime('warn');
    await expect(lenient.registry()).resolves.toBeDefined();
    await lenient.close();
  });
});
