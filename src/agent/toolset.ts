import type { StructuredToolInterface } from '@langchain/core/tools';
import { convertToOpenAITool } from '@langchain/core/utils/function_calling';
import {
  type BackendFactory,
  createFilesystemMiddleware,
  createSubAgentMiddleware,
  GENERAL_PURPOSE_SUBAGENT,
} from 'deepagents';
import { isReadOnly } from '../protocol/index.ts';
import { logger } from '../shared/index.ts';
import {
  countTokens,
  listToolsForModel,
  type ToolContext,
  type ToolDefinition,
  type ToolListing,
  type ToolRegistry,
} from '../tools/index.ts';
import { createCompactionMiddleware } from './middleware/compaction.ts';
import type { AgentModels } from './models/index.ts';
import { type AgentConfig, loadAgentConfigs, ORCHESTRATOR } from './subagents/loader.ts';

/** Tools the agent harness and our middleware add (file system, delegation, compaction); an agent gets those its YAML names. */
export const BUILTIN_AGENT_TOOLS = [
  'ls',
  'read_file',
  'write_file',
  'edit_file',
  'delete',
  'glob',
  'grep',
  'execute',
  'task',
  'compact_conversation',
] as const;

/** Short names kept for the command line. */
export const AGENT_ALIASES: Record<string, string> = {
  main: ORCHESTRATOR,
  analyst: 'procurement-analyst',
  order: 'procurement-order',
};

const log = logger.child({ part: 'agent' });
const reportedMissing = new Set<string>();

/** The agent configs (YAML); tools they name that no server offers in this process are logged once. */
export function agentConfigs(registry: ToolRegistry, dir?: string): AgentConfig[] {
  const all = registry.list();
  return loadAgentConfigs(
    {
      toolNames: new Set([...all.map((d) => d.name), ...BUILTIN_AGENT_TOOLS]),
      groups: new Set(all.map((d) => d.group)),
    },
    dir,
    (agent, missing) => {
      const key = `${agent}:${missing.join(',')}`;
      if (reportedMissing.has(key)) return;
      reportedMissing.add(key);
      log.warn({ agent, missing }, 'tools named in the agent config are not offered by any tool source');
    },
  );
}

/** What one agent is given in one visibility. */
export interface AgentToolPlan {
  config: AgentConfig;
  /** Who the agent's tools are listed and run for: a read-only agent is read-only whoever the user is. */
  visibility: Pick<ToolContext, 'role' | 'readOnly'>;
  /** Its registry tools. */
  tools: ToolDefinition[];
  /** Every tool name its model may see and call: its registry tools and the built-ins its YAML names. */
  allowed: ReadonlySet<string>;
}

const selects = (config: AgentConfig, d: ToolDefinition) =>
  config.tools.groups.includes(d.group) || config.tools.names.includes(d.name);

/**
 * The tools of each agent. A tool reaches an agent whose YAML selects it (by group or name); a tool of an MCP
 * server that no YAML selects (a company's own server, needing no YAML edit) reaches every agent. Either way an MCP
 * server's `agents` setting, when given, limits the agents its tools may reach.
 */
export function planAgentTools(
  registry: ToolRegistry,
  configs: readonly AgentConfig[],
  visibility: Pick<ToolContext, 'role' | 'readOnly'>,
): AgentToolPlan[] {
  const declared = new Set(configs.flatMap((c) => [...c.tools.groups, ...c.tools.names]));
  return configs.map((config) => {
    const seen = config.read_only ? { role: 'viewer' as const, readOnly: true } : visibility;
    const tools = registry.list(seen).filter((d) => {
      if (d.agents && !d.agents.includes(config.name)) return false;
      if (selects(config, d)) return true;
      return d.server !== undefined && !declared.has(d.group) && !declared.has(d.name);
    });
    const builtins = config.tools.names.filter((n) => (BUILTIN_AGENT_TOOLS as readonly string[]).includes(n));
    return { config, visibility: seen, tools, allowed: new Set([...tools.map((d) => d.name), ...builtins]) };
  });
}

/** The name an agent goes by, from its full name or a command-line alias. */
export function agentNamed(configs: readonly AgentConfig[], name: string): AgentConfig {
  const config = configs.find((c) => c.name === (AGENT_ALIASES[name] ?? name));
  if (!config) {
    const known = [...configs.map((c) => c.name), ...Object.keys(AGENT_ALIASES)].join(', ');
    throw new Error(`未知 agent / unknown agent ${name}: ${known}`);
  }
  return config;
}

const LIVE_CACHE_MS = 60_000;
const LIVE_CACHE_ENTRIES = 2_000;

/**
 * Descriptions with live values as one user sees them (the part categories of their project, …), cached briefly
 * per tool, token and project; undefined for tools without live values.
 */
export function liveDescriber(registry: ToolRegistry) {
  const cache = new Map<string, { until: number; text: string }>();
  return async (name: string, ctx: ToolContext): Promise<string | undefined> => {
    if (!registry.get(name)?.liveValues) return undefined;
    const key = `${name}\n${ctx.token ?? ''}\n${ctx.projectId ?? ''}`;
    const hit = cache.get(key);
    if (hit && hit.until > Date.now()) return hit.text;
    const text = await registry.describe(name, ctx);
    if (cache.size >= LIVE_CACHE_ENTRIES) cache.delete(cache.keys().next().value as string);
    cache.set(key, { until: Date.now() + LIVE_CACHE_MS, text });
    return text;
  };
}

/** The built-in tools as the harness creates them, for the listing (the graph gets its own from the harness). */
function builtinTools(configs: readonly AgentConfig[], models: AgentModels, backend: BackendFactory) {
  const subagents = configs.filter((c) => c.name !== ORCHESTRATOR);
  return [
    ...(createFilesystemMiddleware({ backend }).tools ?? []),
    ...(createSubAgentMiddleware({
      defaultModel: models.light,
      subagents: [
        { ...GENERAL_PURPOSE_SUBAGENT, tools: [] },
        ...subagents.map((c) => ({ name: c.name, description: c.description, systemPrompt: c.prompt, tools: [] })),
      ],
      generalPurposeAgent: false,
    }).tools ?? []),
    ...(createCompactionMiddleware({ model: models.light, backend }).tools ?? []),
  ] as StructuredToolInterface[];
}

/**
 * What one agent's model is sent, as `ctx`'s user: its registry tools with their live values, and the built-in
 * tools its YAML names — the list the compiled graph binds.
 */
export async function listAgentTools(
  deps: { registry: ToolRegistry; models: AgentModels; backend: BackendFactory; configDir?: string },
  agent: string,
  ctx: ToolContext,
): Promise<ToolListing[]> {
  const configs = agentConfigs(deps.registry, deps.configDir);
  const config = agentNamed(configs, agent);
  const visibility = { role: ctx.role, readOnly: isReadOnly(ctx) };
  const plan = planAgentTools(deps.registry, configs, visibility).find((p) => p.config.name === config.name)!;
  const own = await listToolsForModel(
    deps.registry,
    { ...ctx, ...plan.visibility },
    { names: plan.tools.map((d) => d.name) },
  );
  const builtins = builtinTools(configs, deps.models, deps.backend)
    .filter((t) => plan.allowed.has(t.name))
    .map((t): ToolListing => {
      const { description = '', parameters = {} } = convertToOpenAITool(t).function;
      // Built-ins act on the run's own workspace, never on a business system.
      return {
        name: t.name,
        label: t.name,
        group: 'builtin',
        safety: 'read-only',
        approval: 'none',
        execution: 'parallel',
        background: false,
        description,
        parameters,
        tokens: countTokens(JSON.stringify({ name: t.name, description, parameters })),
      };
    });
  return [...own, ...builtins];
}
