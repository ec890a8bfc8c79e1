import type { StructuredToolInterface } from '@langchain/core/tools';
import {
  type BackendFactory,
  createFilesystemMiddleware,
  createSubAgentMiddleware,
  GENERAL_PURPOSE_SUBAGENT,
} from 'deepagents';
import { isReadOnly } from '../protocol/index.ts';
import { notFound } from '../shared/index.ts';
import {
  countTokens,
  listToolsForModel,
  type ToolContext,
  type ToolDefinition,
  type ToolListing,
  type ToolRegistry,
} from '../tools/index.ts';
import { builtinDefinition, builtinTexts } from './builtins.ts';
import { createCompactionMiddleware } from './middleware/compaction.ts';
import type { AgentModels } from './models/index.ts';
import { type AgentConfig, loadAgentConfigs, ORCHESTRATOR } from './subagents/loader.ts';

/** Tools the agent harness and our middleware add (file system, delegation, compaction), with the labels the step
 *  list shows for them; an agent gets those its YAML names. */
export const BUILTIN_TOOL_LABELS = {
  ls: '列出文件 / list files',
  read_file: '读取文件 / read a file',
  write_file: '写入文件 / write a file',
  edit_file: '修改文件 / edit a file',
  delete: '删除文件 / delete a file',
  glob: '查找文件 / find files',
  grep: '搜索文件内容 / search files',
  execute: '运行分析代码 / run analysis code',
  task: '委派子智能体 / delegate to a sub-agent',
  compact_conversation: '压缩对话 / compact the conversation',
} as const;

export const BUILTIN_AGENT_TOOLS = Object.keys(BUILTIN_TOOL_LABELS) as Array<keyof typeof BUILTIN_TOOL_LABELS>;

/** The label a step of `tool` shows: the registry's, or a built-in tool's; never the raw name when one is known. */
export function toolLabel(registry: ToolRegistry, tool: string): string | undefined {
  return registry.get(tool)?.label ?? (BUILTIN_TOOL_LABELS as Record<string, string>)[tool];
}

/** Short names kept for the command line. */
export const AGENT_ALIASES: Record<string, string> = {
  main: ORCHESTRATOR,
  analyst: 'procurement-analyst',
  order: 'procurement-order',
  sourcing: 'procurement-sourcing',
};

/** The agent configs (YAML); what they rely on but nothing offers is reported by `toolSetProblems` at start-up. */
export function agentConfigs(registry: ToolRegistry, dir?: string): AgentConfig[] {
  const all = registry.list();
  return loadAgentConfigs(
    {
      toolNames: new Set([...all.map((d) => d.name), ...BUILTIN_AGENT_TOOLS]),
      groups: new Set(all.map((d) => d.group)),
    },
    dir,
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

/** Whether an agent's YAML selects a tool: by its group, its name, or the MCP server it comes from. */
const selects = (config: AgentConfig, d: ToolDefinition) =>
  config.tools.groups.includes(d.group) ||
  config.tools.names.includes(d.name) ||
  (d.server !== undefined && config.servers.includes(d.server));

/**
 * The tools of each agent: those its YAML selects, and no others. The YAML is the only record of who gets which
 * tool, also for the tools of a company's own MCP server (named under `servers`).
 */
export function planAgentTools(
  registry: ToolRegistry,
  configs: readonly AgentConfig[],
  visibility: Pick<ToolContext, 'role' | 'readOnly'>,
): AgentToolPlan[] {
  return configs.map((config) => {
    const seen = config.read_only ? { role: 'viewer' as const, readOnly: true } : visibility;
    const tools = registry.list(seen).filter((d) => selects(config, d));
    const builtins = config.tools.names.filter((n) => (BUILTIN_AGENT_TOOLS as readonly string[]).includes(n));
    return { config, visibility: seen, tools, allowed: new Set([...tools.map((d) => d.name), ...builtins]) };
  });
}

/** A tool an agent relies on that does not reach it, or a configured server whose tools reach no agent. */
export interface ToolSetProblem {
  agent?: string;
  tool?: string;
  server?: string;
  reason: string;
}

/** Tool-like words (`price_check`, `order_search_details`) in a text. */
const TOOL_WORDS = /\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g;

/**
 * Checks the agents' tool sets against what this process binds: every tool an agent's YAML names, and every tool
 * of this process that its prompt or its skills' instructions mention, must reach that agent (as a buyer sees the
 * tools: write tools are absent for viewers by design); every configured MCP server must reach some agent.
 */
export function toolSetProblems(
  registry: ToolRegistry,
  configs: readonly AgentConfig[],
  options: { servers?: readonly string[]; skillTexts?: (config: AgentConfig) => string[] } = {},
): ToolSetProblem[] {
  const plans = planAgentTools(registry, configs, { role: 'buyer' });
  const known = new Set([...registry.list().map((d) => d.name), ...BUILTIN_AGENT_TOOLS]);
  const problems: ToolSetProblem[] = [];
  for (const plan of plans) {
    const { config } = plan;
    const mentioned = [config.prompt, ...(options.skillTexts?.(config) ?? [])].flatMap(
      (t) => t.match(TOOL_WORDS) ?? [],
    );
    for (const tool of new Set([...config.tools.names, ...mentioned.filter((w) => known.has(w))])) {
      if (plan.allowed.has(tool)) continue;
      const offered = registry.get(tool);
      const reason = !offered
        ? '没有任何工具来源提供 / no tool source offers it'
        : plan.config.read_only && offered.safety === 'write'
          ? ''
          : `它的分组 ${offered.group}${offered.server ? `（来自 MCP 服务 ${offered.server}）` : ''} 未被该 Agent 的 YAML 选中 / its group ${offered.group}${offered.server ? ` (from MCP server ${offered.server})` : ''} is not selected by the agent's YAML`;
      if (reason) problems.push({ agent: config.name, tool, reason });
    }
  }
  for (const server of options.servers ?? []) {
    const tools = registry.list().filter((d) => d.server === server);
    if (tools.length && !plans.some((p) => p.tools.some((d) => d.server === server)))
      problems.push({
        server,
        reason: `它的 ${tools.length} 个工具没有到达任何 Agent：在某个 Agent 的 YAML 中写 servers: [${server}] / its ${tools.length} tools reach no agent: name it under servers in an agent's YAML`,
      });
  }
  return problems;
}

/** The name an agent goes by, from its full name or a command-line alias. */
export function agentNamed(configs: readonly AgentConfig[], name: string): AgentConfig {
  const config = configs.find((c) => c.name === (AGENT_ALIASES[name] ?? name));
  if (!config) {
    const known = [...configs.map((c) => c.name), ...Object.keys(AGENT_ALIASES)].join(', ');
    throw notFound(`未知 agent / unknown agent ${name}: ${known}`);
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
  const texts = builtinTexts(configs);
  const builtins = builtinTools(configs, deps.models, deps.backend)
    .filter((t) => plan.allowed.has(t.name))
    .map((t): ToolListing => {
      const { description, parameters } = builtinDefinition(t, texts[t.name]);
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
