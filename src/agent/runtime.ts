import fs from 'node:fs';
import path from 'node:path';
import type { BaseStore } from '@langchain/langgraph';
import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import type { BackendFactory } from 'deepagents';
import {
  MCP_OAUTH_CALLBACK,
  MCP_RETRY_MS,
  McpConnections,
  type McpOAuthOptions,
  type McpServerConfig,
  McpSignInRefused,
  McpTokenStore,
  mcpServersFrom,
} from '../mcp/index.ts';
import { type AgentLabel, isReadOnly } from '../protocol/index.ts';
import { logger, type PartAddresses, type Settings, withPostgresSetupLock } from '../shared/index.ts';
import {
  createToolbox,
  registerChartTools,
  type Toolbox,
  type ToolContext,
  type ToolListing,
  type ToolRegistry,
  ToolScheduler,
} from '../tools/index.ts';
import { createAgentStorage } from './backends/index.ts';
import type { ProcuraRunContext } from './context.ts';
import { buildAgentGraph, type ProcuraGraph } from './graph.ts';
import { ApprovalLedger } from './middleware/approval.ts';
import { type AgentModels, createAgentModels } from './models/index.ts';
import { SkillsSync } from './skills/sync.ts';
import { agentLabels } from './subagents/loader.ts';
import { HumanInput } from './tools/human-input.ts';
import { type WorkspaceBackend, WorkspaceTools } from './tools/workspace.ts';
import { agentConfigs, listAgentTools, toolSetProblems } from './toolset.ts';

const log = logger.child({ part: 'agent' });

/** The supplier sites' address as the skill files document it; replaced by the configured one on sync. */
const DOCUMENTED_SUPPLIERS_URL = 'http://127.0.0.1:8090';

export const SKILLS_DIR = path.resolve(import.meta.dirname, '../../skills');

/** The global guidelines every run loads (seed 002: the sandbox's `/AGENTS.md`). */
export const AGENTS_GUIDELINES = path.join(import.meta.dirname, 'memory/AGENTS.md');

export interface AgentRuntimeOptions {
  dataDir: string;
  databaseUrl?: string;
  /** ERP REST base, e.g. `http://127.0.0.1:8080/api` (`dynamic_http_call`; the ERP tools too without `mcpServers`). */
  erpUrl: string;
  /**
   * MCP servers whose tools the agents use, the ERP MCP server first (see `mcpServersFrom`): business systems are
   * reached through them. Without it the ERP tools call `erpUrl` in-process (tests, benchmarks).
   */
  mcpServers?: McpServerConfig[];
  /** How users sign in at MCP servers that ask for OAuth (their tokens kept sealed); without it such servers fail. */
  mcpOAuth?: McpOAuthOptions;
  /** Supplier web shops (allowlisted for `fetch_url`, indexed for `web_search`). */
  suppliersUrl?: string;
  /** Chart MCP server (`generate_visualization`). */
  chartMcpUrl?: string;
  skillsDir?: string;
  env?: NodeJS.ProcessEnv;
  /** Storage for files and memories: the QuickJS sandbox workspaces + persistent store composite by default. */
  storage?: (options: { dataDir: string; databaseUrl?: string }) => Promise<AgentStorage>;
  /** The models to use instead of those the environment chooses. */
  models?: AgentModels;
  /** How often MCP servers that were down are tried again (ms). */
  mcpRetryMs?: number;
  /** A company's agent YAML directory over the packaged one (`PROCURA_AGENTS_DIR`); the packaged agents alone by default. */
  configDir?: string;
  /** Extra tool sets (charts, skills management, …) registered after the toolbox. */
  extraTools?: Array<(registry: ToolRegistry) => Promise<{ close?: () => Promise<void> } | undefined>>;
  /**
   * What a tool an agent relies on but is not given does to start-up (see `toolSetProblems`): `warn` logs it
   * (production: a company's ERP may offer fewer tools), `fail` stops the build (tests).
   */
  toolSetCheck?: 'warn' | 'fail';
}

export interface AgentStorage {
  store: BaseStore;
  backend: BackendFactory;
  close(): Promise<void>;
}

interface Built {
  toolbox: Toolbox;
  models: AgentModels;
  storage: AgentStorage;
  checkpointer: BaseCheckpointSaver;
  graphs: Map<boolean, Promise<ProcuraGraph>>;
  closers: Array<() => Promise<void>>;
  deps: Parameters<typeof buildAgentGraph>[0];
}

/**
 * The agent of one process: built lazily on first use and shared — concurrent first requests wait for the same
 * build; each phase is timed in the log. Runs get the full graph or, for viewers and read-only runs, the graph
 * without write tools.
 */
export class AgentRuntime {
  private building?: Promise<Built>;
  private readonly schedulers = new Map<string, ToolScheduler>();
  private toolbox?: Toolbox;
  readonly ledger = new ApprovalLedger();
  private mcp?: McpConnections;

  constructor(readonly options: AgentRuntimeOptions) {}

  /**
   * Starts a user's OAuth sign-in at an MCP server: the address to open, or undefined when already signed in.
   * `browser` is the hash of a secret the user's browser holds: only that browser completes the sign-in.
   */
  async mcpSignIn(server: string, user: string, browser: string): Promise<URL | undefined> {
    await this.build();
    if (!this.mcp) throw new McpSignInRefused(server, 'unknown_server');
    return this.mcp.signIn(server, { userId: user }, browser);
  }

  /** Completes an MCP server's OAuth sign-in with what the user's browser brought back (and the hash of its secret). */
  async finishMcpSignIn(state: string, code: string, browser: string): Promise<{ server: string; user: string }> {
    await this.build();
    if (!this.mcp) throw new McpSignInRefused('oauth', 'unknown_state');
    const done = await this.mcp.finishSignIn(state, code, browser);
    // The server's tools join once someone is signed in there, and the graphs are compiled again with them.
    const built = await this.build();
    if ((await this.mcp.retryUnavailable(built.toolbox.registry)).length) built.graphs.clear();
    return done;
  }

  private build(): Promise<Built> {
    this.building ??= this.assemble().catch((error) => {
      this.building = undefined;
      throw error;
    });
    return this.building;
  }

  private async assemble(): Promise<Built> {
    const timings: Record<string, number> = {};
    const phase = async <T>(name: string, work: () => Promise<T> | T): Promise<T> => {
      const started = performance.now();
      const result = await work();
      timings[name] = Math.round(performance.now() - started);
      return result;
    };
    const o = this.options;
    const models = await phase('models', () => o.models ?? createAgentModels(o.env));
    // First, so a required server that is down fails the build before anything is opened.
    const servers = o.mcpServers;
    const mcp = servers ? await phase('mcp', () => McpConnections.connect(servers, { oauth: o.mcpOAuth })) : undefined;
    this.mcp = mcp;
    const toolbox = await phase('tools', () =>
      createToolbox({
        erp: { baseUrl: o.erpUrl },
        erpTools: !o.mcpServers,
        web: o.suppliersUrl ? { suppliersUrl: o.suppliersUrl, env: o.env } : undefined,
      }),
    );
    const closers: Array<() => Promise<void>> = [toolbox.close];
    if (mcp) {
      mcp.registerInto(toolbox.registry);
      closers.push(() => mcp.close());
      for (const { server, error } of mcp.unavailable)
        log.warn({ server, error }, 'MCP server unreachable: skipped for now, retried in the background');
      if (mcp.unavailable.length) closers.push(this.retryMcp(mcp, toolbox.registry));
    }
    toolbox.registry.register(HumanInput, () => humanInput);
    let storage: AgentStorage | undefined;
    toolbox.registry.register(WorkspaceTools, (ctx) => {
      const run = ctx as ProcuraRunContext;
      return new WorkspaceTools(
        async () => {
          if (!storage) throw new Error('agent storage is not ready');
          return (await storage.backend({ context: run, state: {} } as never)) as unknown as WorkspaceBackend;
        },
        run.sessionId ?? '',
        () => skillFolders(toolbox.registry, o.configDir),
      );
    });
    this.toolbox = toolbox;
    for (const extra of o.extraTools ?? []) {
      const added = await phase('extra tools', () => extra(toolbox.registry));
      if (added?.close) closers.push(added.close);
    }
    this.checkToolSets(toolbox.registry, servers?.map((c) => c.name) ?? []);
    storage = await phase('storage', () =>
      (o.storage ?? createAgentStorage)({ dataDir: o.dataDir, databaseUrl: o.databaseUrl }),
    );
    closers.push(storage.close);
    const checkpointer = await phase('checkpointer', () => createCheckpointer(o.dataDir, o.databaseUrl));
    const deps = {
      registry: toolbox.registry,
      models,
      backend: storage.backend,
      store: storage.store,
      checkpointer,
      ledger: this.ledger,
      skills: new SkillsSync(
        o.skillsDir ?? SKILLS_DIR,
        o.suppliersUrl ? { [DOCUMENTED_SUPPLIERS_URL]: o.suppliersUrl.replace(/\/$/, '') } : {},
        { '/AGENTS.md': AGENTS_GUIDELINES },
      ),
      schedulerFor: (ctx: ToolContext) => this.schedulerFor(ctx),
      configDir: o.configDir,
    };
    const graphs = new Map<boolean, Promise<ProcuraGraph>>();
    graphs.set(
      false,
      phase('graph', () => buildAgentGraph(deps, { readOnly: false })),
    );
    await graphs.get(false);
    log.info({ timings, model: models.mainName, provider: models.provider }, 'agent ready');
    return { toolbox, models, storage, checkpointer, graphs, closers, deps };
  }

  /** Holds the agents' tool sets against what this process binds; logs or fails on what does not reach an agent. */
  private checkToolSets(registry: ToolRegistry, servers: string[]): void {
    const o = this.options;
    const skillsDir = o.skillsDir ?? SKILLS_DIR;
    const problems = toolSetProblems(registry, agentConfigs(registry, o.configDir), {
      servers,
      skillTexts: (config) => config.skills.flatMap((source) => skillInstructions(skillsDir, source)),
    });
    if (problems.length === 0) return;
    const lines = problems.map((p) => `${p.agent ?? `MCP ${p.server}`}${p.tool ? ` · ${p.tool}` : ''}: ${p.reason}`);
    if (o.toolSetCheck === 'fail')
      throw new Error(`Agent 的工具集不完整 / the agents' tool sets are incomplete:\n  ${lines.join('\n  ')}`);
    for (const problem of problems)
      log.warn(
        problem,
        problem.server
          ? 'MCP server configured, but no agent YAML names it: its tools reach no agent'
          : 'agent tool set: a tool it relies on does not reach it',
      );
  }

  /** Retries the MCP servers that were down; when one answers, its tools join and the graphs are compiled again. */
  private retryMcp(mcp: McpConnections, registry: ToolRegistry): () => Promise<void> {
    const timer = setInterval(async () => {
      const back = await mcp.retryUnavailable(registry);
      if (back.length === 0) return;
      log.info({ servers: back }, 'MCP server reachable again: its tools join the agents');
      const built = await this.building?.catch(() => undefined);
      built?.graphs.clear();
      if (mcp.unavailable.length === 0) clearInterval(timer);
    }, this.options.mcpRetryMs ?? MCP_RETRY_MS);
    timer.unref();
    return async () => clearInterval(timer);
  }

  /** What one agent's model is sent for `ctx`'s user, built as the graph builds it (`procura tools --agent`). */
  async toolListing(agent: string, ctx: ToolContext): Promise<ToolListing[]> {
    const built = await this.build();
    return listAgentTools({ ...built.deps, configDir: this.options.configDir }, agent, ctx);
  }

  /** The compiled graph a run of this context uses (built once per process and visibility). */
  async graph(ctx: Pick<ToolContext, 'role' | 'readOnly'>): Promise<ProcuraGraph> {
    const built = await this.build();
    const readOnly = isReadOnly(ctx);
    let graph = built.graphs.get(readOnly);
    if (!graph) {
      graph = buildAgentGraph(built.deps, { readOnly });
      built.graphs.set(readOnly, graph);
    }
    return graph;
  }

  async models(): Promise<AgentModels> {
    return (await this.build()).models;
  }

  /** Every configured agent with the label clients show for it, read from the agents' YAML (orchestrator first). */
  async agents(): Promise<AgentLabel[]> {
    return agentLabels(agentConfigs(await this.registry(), this.options.configDir));
  }

  async registry(): Promise<ToolRegistry> {
    return (await this.build()).toolbox.registry;
  }

  async storage(): Promise<AgentStorage> {
    return (await this.build()).storage;
  }

  async checkpointer(): Promise<BaseCheckpointSaver> {
    return (await this.build()).checkpointer;
  }

  /** One scheduler per session's run, so a model turn's calls are scheduled together. */
  schedulerFor(ctx: ToolContext): ToolScheduler {
    const key = (ctx as Partial<ProcuraRunContext>).sessionId ?? ctx.traceId;
    let scheduler = this.schedulers.get(key);
    if (!scheduler) {
      if (!this.toolbox) throw new Error('the agent runtime is not built yet');
      scheduler = new ToolScheduler(this.toolbox.registry, {
        tasks: this.toolbox.tasks,
        onUnexpected: (error) => log.error({ err: error, traceId: ctx.traceId }, 'tool failed unexpectedly'),
      });
      this.schedulers.set(key, scheduler);
    }
    return scheduler;
  }

  /** Forgets a finished run's scheduler. */
  releaseRun(sessionId: string): void {
    this.schedulers.delete(sessionId);
  }

  async close(): Promise<void> {
    if (!this.building) return;
    const built = await this.building.catch(() => undefined);
    this.building = undefined;
    for (const close of (built?.closers ?? []).reverse()) await close().catch(() => undefined);
  }
}

const humanInput = new HumanInput();

/** Where each agent's skills live: the first `skills` source of its YAML. */
function skillFolders(registry: ToolRegistry, configDir?: string): Record<string, string> {
  return Object.fromEntries(
    agentConfigs(registry, configDir)
      .filter((c) => c.skills.length > 0)
      .map((c) => [c.name, c.skills[0]]),
  );
}

/**
 * The instructions of a skills source (`/skills/procurement/` → `<skillsDir>/procurement/**\/SKILL.md`), with the
 * other Markdown files beside each `SKILL.md`: a skill keeps the sections only some steps need in files of their own.
 */
function skillInstructions(skillsDir: string, source: string): string[] {
  const local = path.join(skillsDir, source.replace(/^\/skills\//, ''));
  if (!source.startsWith('/skills/') || !fs.existsSync(local)) return [];
  const files = fs.readdirSync(local, { recursive: true }).map(String);
  const skillDirs = new Set(files.filter((f) => path.basename(f) === 'SKILL.md').map((f) => path.dirname(f)));
  return files
    .filter((f) => f.endsWith('.md') && skillDirs.has(path.dirname(f)))
    .map((f) => fs.readFileSync(path.join(local, f), 'utf8'));
}

/** LangGraph checkpoints: SQLite in the data dir by default, PostgreSQL with DATABASE_URL. */
async function createCheckpointer(dataDir: string, databaseUrl?: string): Promise<BaseCheckpointSaver> {
  if (databaseUrl) {
    const saver = PostgresSaver.fromConnString(databaseUrl, { schema: 'procura_checkpoints' });
    await withPostgresSetupLock(databaseUrl, () => saver.setup());
    return saver;
  }
  fs.mkdirSync(dataDir, { recursive: true });
  return SqliteSaver.fromConnString(path.join(dataDir, 'agent-checkpoints.sqlite'));
}

/**
 * The agent runtime of a running Procura: business systems over MCP — the ERP MCP server of `addresses` and every
 * server of `PROCURA_MCP_SERVERS` — and charts when their server answers.
 */
export function agentRuntimeFor(
  settings: Settings,
  addresses: PartAddresses,
  env: NodeJS.ProcessEnv = process.env,
): AgentRuntime {
  return new AgentRuntime({
    env,
    toolSetCheck: settings.toolSetCheck,
    dataDir: settings.dataDir,
    configDir: settings.agentsDir,
    databaseUrl: settings.databaseUrl,
    erpUrl: addresses.erpUrl,
    suppliersUrl: addresses.suppliersUrl,
    chartMcpUrl: addresses.chartMcpUrl,
    mcpServers: mcpServersFrom(settings, addresses.erpMcpUrl),
    mcpOAuth: {
      store: McpTokenStore.open(settings.dataDir, settings.mcpTokenKey),
      redirectUrl: `http://${settings.host.includes(':') ? `[${settings.host}]` : settings.host}:${settings.apiPort}${MCP_OAUTH_CALLBACK}`,
    },
    storage: createAgentStorage,
    extraTools: [
      (registry) =>
        registerChartTools(registry, addresses.chartMcpUrl, addresses.chartMcpToken).catch((error) => {
          log.warn({ err: error, url: addresses.chartMcpUrl }, 'chart MCP server unreachable: runs go without charts');
          return undefined;
        }),
    ],
  });
}
