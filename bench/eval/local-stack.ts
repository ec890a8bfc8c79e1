import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command } from '@langchain/langgraph';
import {
  AgentRuntime,
  type AgentRuntimeOptions,
  clientInterruptId,
  graphInterruptId,
  type ProcuraRunContext,
} from '../../src/agent/index.ts';
import { startChartsServer } from '../../src/charts/index.ts';
import { createErp, type Erp } from '../../src/erp/index.ts';
import { startErpMcpServer } from '../../src/mcp/index.ts';
import { listen } from '../../src/shared/index.ts';
import { startSupplierSites } from '../../src/suppliers/index.ts';
import { registerChartTools, startChartMcpServer } from '../../src/tools/charts/index.ts';

/** A decision on an interrupt, as a turn's input. */
export interface Resume {
  resume: { interruptId: string; decision: unknown };
}

/** What a scenario talks to: a Procura on this machine, reached the way one harness or the other reaches it. */
export interface AgentHarness {
  dataDir: string;
  /** The chart renderer (its images are what reports embed). */
  chartsUrl: string;
  erp: Erp;
  tokens: Record<string, string>;
  contextFor(username: 'laoxiao' | 'viewer' | 'admin' | 'zhangwei', sessionId: string): ProcuraRunContext;
  /** Runs one turn to its end or its first interrupt. */
  send(ctx: ProcuraRunContext, input: string | Resume): Promise<TurnResult>;
  close(): Promise<void>;
}

export interface TurnResult {
  /** The answer the user was given (empty while an interrupt waits). */
  answer: string;
  interrupts: Array<{ id: string; value: Record<string, unknown> }>;
  /** The tool steps of the turn, every agent's, in order. */
  toolCalls: string[];
  /** What the turn's model calls cost, when the harness sees it (the chat API's `done` event). */
  usage?: { input_tokens: number; output_tokens: number; cost: number };
  /** Why the turn failed, when it did. */
  error?: string;
}

/** The compiled graph in this process, called directly; its ERP tools still go over the ERP MCP server. */
export interface InProcessHarness extends AgentHarness {
  runtime: AgentRuntime;
  /** LangChain callback handlers added to every run (the evaluation counts model calls and tokens with one). */
  callbacks: unknown[];
  /** Closes the agent runtime and starts a new one on the same data (a process restart). */
  restart(): Promise<void>;
}

/**
 * A whole Procura on one machine (ERP, its MCP server, supplier sites, chart renderer + chart MCP) in a temp dir,
 * with the agent runtime in this process: graph-level tests drive the compiled graph directly.
 */
export async function startAgentHarness(
  storage?: AgentRuntimeOptions['storage'],
  extra: Partial<AgentRuntimeOptions> = {},
): Promise<InProcessHarness> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-agent-'));
  const erp = await createErp({ dataDir });
  const erpServer = await listen(erp.fetch, { host: '127.0.0.1', port: 0 });
  const erpMcp = await startErpMcpServer({ erp: { baseUrl: `${erpServer.url}/api` }, host: '127.0.0.1', port: 0 });
  const sites = await startSupplierSites({ host: '127.0.0.1', port: 0 });
  const renderer = await startChartsServer({ host: '127.0.0.1', port: 0, dataDir: path.join(dataDir, 'charts') });
  const chartMcp = await startChartMcpServer({ port: 0, rendererUrl: renderer.renderUrl });
  const env = extra.env ?? { ...process.env, DEEPSEEK_API_KEY: '', OPENAI_BASE_URL: '' };
  const runtimeOptions: AgentRuntimeOptions = {
    dataDir,
    erpUrl: `${erpServer.url}/api`,
    mcpServers: [{ name: 'erp', url: erpMcp.mcpUrl, forwardCredentials: true, required: true }],
    suppliersUrl: sites.server.url,
    env,
    storage,
    toolSetCheck: 'fail',
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
      const before = (await (graph as unknown as StateReader).getState(config)).values?.messages?.length ?? 0;
      const payload =
        typeof input === 'string'
          ? { messages: [{ role: 'user', content: input }] }
          : new Command({ resume: { [graphInterruptId(input.resume.interruptId)]: input.resume.decision } });
      const result = (await graph.invoke(payload as never, config as never)) as {
        messages: Array<{ getType(): string; content: unknown; tool_calls?: Array<{ name: string }> }>;
      };
      const state = await (graph as unknown as StateReader).getState(config);
      const interrupts = state.tasks
        .flatMap((t) => t.interrupts ?? [])
        .map((i) => ({ id: clientInterruptId(i.id ?? '', i.value), value: i.value as Record<string, unknown> }));
      // The orchestrator's messages of this turn; the sub-agents' own calls stay inside their task.
      const turn = (result.messages ?? []).slice(before);
      const last = [...turn].reverse().find((m) => m.getType() === 'ai' && !m.tool_calls?.length);
      const content = last ? (typeof last.content === 'string' ? last.content : JSON.stringify(last.content)) : '';
      return {
        answer: interrupts.length ? '' : content,
        interrupts,
        toolCalls: turn.flatMap((m) => (m.tool_calls ?? []).map((c) => c.name)),
      };
    },
    async close() {
      await runtime.close();
      await chartMcp.close();
      await renderer.close();
      await sites.server.close();
      await erpMcp.close();
      await erpServer.close();
      await erp.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

interface StateReader {
  getState(config: unknown): Promise<{
    values?: { messages?: unknown[] };
    tasks: Array<{ interrupts?: Array<{ id?: string; value: unknown }> }>;
  }>;
}

/** A decision on the interrupt `interruptId`, as the next turn's input. */
export const resume = (interruptId: string, decision: unknown): Resume => ({ resume: { interruptId, decision } });

/** A file a session's agent wrote in its workspace under `dataDir`, by a pattern on its path; undefined if none. */
export function workspaceFile(dataDir: string, session: string, pattern: RegExp): string | undefined {
  const root = path.join(dataDir, 'workspaces');
  if (!fs.existsSync(root)) return undefined;
  const found = fs
    .readdirSync(root, { recursive: true })
    .map(String)
    .find((f) => f.includes(session) && pattern.test(f));
  return found ? fs.readFileSync(path.join(root, found), 'utf8') : undefined;
}
