import { randomInt } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { InMemoryStore } from '@langchain/langgraph';
import { FilesystemBackend } from 'deepagents';
import { type AgentModels, AgentRuntime, type AgentRuntimeOptions } from '../../src/agent/index.ts';
import { type Api, type ApiOptions, createApi } from '../../src/api/index.ts';
import { listen, type RunningServer } from '../../src/shared/index.ts';
import type { ToolRunner, ToolSpec } from '../../src/tools/index.ts';
import { type AgentHarness, startAgentHarness } from '../agent/harness.ts';
import { jsonCall } from '../http-call.ts';
import { startTestErp } from '../tools/harness.ts';
import { collect, openSse } from './sse.ts';

/** Workspace files on the local file system (one temp root), memories in memory. */
export const tempStorage: AgentRuntimeOptions['storage'] = async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-fs-'));
  const backend = new FilesystemBackend({ rootDir: root, virtualMode: true });
  return {
    store: new InMemoryStore(),
    backend: () => backend as never,
    close: async () => fs.rmSync(root, { recursive: true, force: true }),
  };
};

export interface ApiHarness {
  agent: AgentHarness;
  /** The API behind `url` (replaced by `restartApi`). */
  readonly api: Api;
  /** The options it was opened with: a second API process over the same data opens with these. */
  apiOptions(): ApiOptions;
  url: string;
  erpUrl: string;
  tokens: Record<string, string>;
  /** JSON call to the API. */
  call(
    method: string,
    route: string,
    options?: { token?: string | null; body?: unknown },
    // biome-ignore lint/suspicious/noExplicitAny: bodies are asserted field by field
  ): Promise<{ status: number; headers: Headers; body: any }>;
  /** Sends a message and reads the stream to its end. */
  chat(token: string, body: { message: string; session_id?: string }): ReturnType<typeof streamAll>;
  resume(token: string, body: unknown): ReturnType<typeof streamAll>;
  ordersNoted(needle: string): Promise<Array<{ id: number; quantity: number }>>;
  restartApi(): Promise<void>;
  close(): Promise<void>;
}

async function streamAll(url: string, token: string, body: unknown) {
  const res = await openSse(url, { token, body });
  const events = await collect(res.events);
  return { status: res.status, headers: res.headers, problem: res.problem, events };
}

/** ERP, supplier sites, charts and the agent on the offline model (../agent harness), plus the chat API over HTTP. */
export async function startApiHarness(
  options: Partial<ApiOptions> = {},
  agentEnv: NodeJS.ProcessEnv = {},
  storage: AgentRuntimeOptions['storage'] = tempStorage,
): Promise<ApiHarness> {
  const env = { ...process.env, DEEPSEEK_API_KEY: '', OPENAI_BASE_URL: '', ...agentEnv };
  const agent = await startAgentHarness(storage, { env });
  const erpUrl = agent.runtime.options.erpUrl;
  // Read at every (re)start: a test may change `options`, and the agent may have been restarted. The harness's own
  // chart renderer is the one whose images exported reports may embed.
  const apiOptions = () => ({
    runtime: agent.runtime,
    erpUrl,
    dataDir: agent.dataDir,
    chartImageOrigins: [agent.chartsUrl],
    ...options,
  });
  let api = await createApi(apiOptions());
  let server: RunningServer = await listen(api.fetch, { host: '127.0.0.1', port: 0 });
  const base = () => server.url;
  const harness: ApiHarness = {
    agent,
    get api() {
      return api;
    },
    apiOptions,
    get url() {
      return base();
    },
    erpUrl,
    tokens: agent.tokens,
    call: jsonCall(base, agent.tokens.laoxiao),
    chat: (token, body) => streamAll(`${base()}/api/v1/agent/chat/stream`, token, body),
    resume: (token, body) => streamAll(`${base()}/api/v1/agent/chat/resume`, token, body),
    async ordersNoted(needle) {
      const rows = await agent.erp.database.db
        .selectFrom('orders')
        .innerJoin('order_lines', 'order_lines.order_id', 'orders.id')
        .select(['orders.id', 'orders.note', 'order_lines.quantity'])
        .execute();
      return rows.filter((r) => r.note.includes(needle)).map((r) => ({ id: r.id, quantity: r.quantity }));
    },
    async restartApi() {
      await server.close();
      await api.close();
      api = await createApi(apiOptions());
      server = await listen(api.fetch, { host: '127.0.0.1', port: 0 });
    },
    async close() {
      await server.close();
      await api.close();
      await agent.close();
    },
  };
  return harness;
}

/** A sub-agent declared by nothing but its YAML file; `label` absent leaves it unlabelled. */
export function subAgentYaml(name: string, label?: { zh: string; en: string }): string {
  return `name: ${name}
description: 测试用的子 Agent ${name} / a sub-agent of the test
${label ? `label:\n  zh: ${label.zh}\n  en: ${label.en}\n` : ''}tools:
  names: []
limits:
  model_calls: 3
  tool_calls: 3
prompt: |
  你是测试用的子 Agent ${name}，只回答一句话。
`;
}

/** The chat API over one orchestrator and a model whose every reply the test scripts. */
export interface ScriptedApi {
  url: string;
  tokens: Record<string, string>;
  /** Sends a message and reads the stream to its end. */
  chat(token: string, body: { message: string }): ReturnType<typeof streamAll>;
  close(): Promise<void>;
}

/** A tool of the test's own, registered as the remote tools of a company's MCP server are. */
export interface ScriptedTool {
  spec: ToolSpec;
  jsonSchema: Record<string, unknown>;
  run: ToolRunner;
}

/**
 * The chat API on the test ERP, with an orchestrator declared by `orchestrator` (its YAML) and any `agents`, the
 * given models (a scripted double) and the test's own tools.
 */
export async function startScriptedApi(options: {
  orchestrator: string;
  /** Further agents' YAML, by file name (sub-agents the orchestrator may delegate to). */
  agents?: Record<string, string>;
  models: AgentModels;
  tools?: ScriptedTool[];
  limits?: ApiOptions['limits'];
  /** MCP servers whose tools the orchestrator may get (named under `servers` in its YAML). */
  mcpServers?: AgentRuntimeOptions['mcpServers'];
}): Promise<ScriptedApi> {
  const erp = await startTestErp();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-scripted-'));
  const configDir = path.join(dir, 'agents');
  fs.mkdirSync(configDir);
  fs.writeFileSync(path.join(configDir, 'orchestrator.yaml'), options.orchestrator);
  for (const [file, yaml] of Object.entries(options.agents ?? {})) fs.writeFileSync(path.join(configDir, file), yaml);
  const runtime = new AgentRuntime({
    dataDir: dir,
    erpUrl: erp.baseUrl,
    models: options.models,
    storage: tempStorage,
    configDir,
    mcpServers: options.mcpServers,
    extraTools: [
      async (registry) => {
        for (const tool of options.tools ?? []) registry.registerRemote(tool.spec, tool.jsonSchema, tool.run);
        return undefined;
      },
    ],
  });
  const api = await createApi({ runtime, erpUrl: erp.baseUrl, dataDir: dir, limits: options.limits });
  // Built now, as a started Procura's first run would build it: the tests' timed runs measure the run alone.
  await runtime.graph({ role: 'buyer' });
  const server = await listen(api.fetch, { host: '127.0.0.1', port: 0 });
  return {
    url: server.url,
    tokens: erp.erp.demoTokens,
    chat: (token, body) => streamAll(`${server.url}/api/v1/agent/chat/stream`, token, body),
    async close() {
      await server.close();
      await api.close();
      await runtime.close();
      await erp.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Two sub-agents known only from YAML files, named anew on every run so nothing but the YAML can tell a client of
 * them: one with a label, one without; the file names put the unlabelled one first in configuration order.
 */
export function agentsOnlyInYaml() {
  const n = randomInt(100, 10_000);
  const labelled = { name: `inspector-${n}`, label: { zh: `质检${n}号`, en: `Inspector ${n}` } };
  const unlabelled = `auditor-${n + 1}`;
  const files = {
    [`a_${unlabelled}.yaml`]: subAgentYaml(unlabelled),
    [`b_${labelled.name}.yaml`]: subAgentYaml(labelled.name, labelled.label),
  };
  return { labelled, unlabelled, files };
}

/** An orchestrator that only delegates (its model is scripted), with a label or without. */
export function delegatingOrchestratorYaml(label?: { zh: string; en: string }): string {
  return `name: orchestrator
description: 只会委派的主 Agent / an orchestrator that only delegates
${label ? `label:\n  zh: ${label.zh}\n  en: ${label.en}\n` : ''}tools:
  names: [task]
limits:
  model_calls: 5
  tool_calls: 5
prompt: |
  你是测试用的主 Agent（协调者）。把每个请求委派给子 Agent。
`;
}
