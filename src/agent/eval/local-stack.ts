import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command } from '@langchain/langgraph';
import { startChartsServer } from '../../charts/index.ts';
import { createErp } from '../../erp/index.ts';
import { listen } from '../../shared/index.ts';
import { startSupplierSites } from '../../suppliers/index.ts';
import { registerChartTools, startChartMcpServer } from '../../tools/charts/index.ts';
import type { ProcuraRunContext } from '../context.ts';
import { AgentRuntime, type AgentRuntimeOptions } from '../runtime.ts';

/** A whole Procura on one machine (ERP, supplier sites, chart renderer + chart MCP, agent) in a temp dir. */
export interface AgentHarness {
  runtime: AgentRuntime;
  /** LangChain callback handlers added to every run (the evaluation counts model calls and tokens with one). */
  callbacks: unknown[];
  /** Closes the agent runtime and starts a new one on the same data (a process restart). */
  restart(): Promise<void>;
  dataDir: string;
  /** The chart renderer (its images are what reports embed). */
  chartsUrl: string;
  erp: Awaited<ReturnType<typeof createErp>>;
  tokens: Record<string, string>;
  contextFor(username: 'laoxiao' | 'viewer' | 'admin', sessionId: string): ProcuraRunContext;
  /** Runs one turn to its end or its first interrupt; returns the final messages and the pending interrupts. */
  send(ctx: ProcuraRunContext, input: string | Command): Promise<TurnResult>;
  close(): Promise<void>;
}

export interface TurnResult {
  messages: Array<{
    type: string;
    content: string;
    tool_calls?: Array<{ name: string; args: Record<string, unknown> }>;
    name?: string;
  }>;
  interrupts: Array<{ id: string; value: Record<string, unknown> }>;
  answer: string;
}

export async function startAgentHarness(
  storage?: AgentRuntimeOptions['storage'],
  extra: Partial<AgentRuntimeOptions> = {},
): Promise<AgentHarness> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-agent-'));
  const erp = await createErp({ dataDir });
  const erpServer = await listen(erp.fetch, { host: '127.0.0.1', port: 0 });
  const sites = await startSupplierSites({ host: '127.0.0.1', port: 0 });
  const renderer = await startChartsServer({ host: '127.0.0.1', port: 0, dataDir: path.join(dataDir, 'charts') });
  const chartMcp = await startChartMcpServer({ port: 0, rendererUrl: renderer.renderUrl });
  const env = extra.env ?? { ...process.env, DEEPSEEK_API_KEY: '', OPENAI_BASE_URL: '' };
  const runtimeOptions: AgentRuntimeOptions = {
    dataDir,
    erpUrl: `${erpServer.url}/api`,
    suppliersUrl: sites.server.url,
    env,
    storage,
    extraTools: [(registry) => registerChartTools(registry, chartMcp.url, chartMcp.token)],
    ...extra,
  };
  let runtime = new AgentRuntime(runtimeOptions);
  const callbacks: unknown[] = [];
  const users = await erp.services.users.list();
  const tokens = erp.demoTokens;
  return {
    callbacks,
    get runtime() {
      return runtime;
    },
    async restart() {
      await runtime.close();
      runtime = new AgentRuntime(runtimeOptions);
    },
    dataDir,
    chartsUrl: renderer.server.url,
    erp,
    tokens,
    contextFor(username, sessionId) {
      const user = users.find((u) => u.username === username)!;
      return {
        userId: username,
        username: user.displayName,
        role: user.role,
        token: tokens[username],
        projectId: user.projectIds[0],
        traceId: `test-${sessionId}`,
        sessionId,
      };
    },
    async send(ctx, input) {
      const graph = await runtime.graph(ctx);
      const config = { configurable: { thread_id: ctx.sessionId }, context: ctx, recursionLimit: 200, callbacks };
      const payload = typeof input === 'string' ? { messages: [{ role: 'user', content: input }] } : input;
      const result = (await graph.invoke(payload as never, config as never)) as {
        messages: Array<{ getType(): string; content: unknown; tool_calls?: unknown; name?: string }>;
      };
      const state = await (graph as unknown as StateReader).getState(config);
      const interrupts = state.tasks
        .flatMap((t) => t.interrupts ?? [])
        .map((i) => ({ id: i.id ?? '', value: i.value as Record<string, unknown> }));
      const messages = (result.messages ?? []).map((m) => ({
        type: m.getType(),
        content: typeof m.content === 'string' ? m.content : JSON.stringify(m.content),
        tool_calls: m.tool_calls as TurnResult['messages'][number]['tool_calls'],
        name: m.name,
      }));
      const last = [...messages].reverse().find((m) => m.type === 'ai' && !m.tool_calls?.length);
      return { messages, interrupts, answer: interrupts.length ? '' : (last?.content ?? '') };
    },
    async close() {
      await runtime.close();
      await chartMcp.close();
      await renderer.close();
      await sites.server.close();
      await erpServer.close();
      await erp.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

interface StateReader {
  getState(config: unknown): Promise<{ tasks: Array<{ interrupts?: Array<{ id?: string; value: unknown }> }> }>;
}

export const resume = (interruptId: string, decision: unknown) => new Command({ resume: { [interruptId]: decision } });
