import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { z } from 'zod';
import type { AgentLabel } from '../../protocol/index.ts';
import { describeIssues } from '../../tools/index.ts';

/** The main agent's name; every other config is a sub-agent it delegates to with `task`. */
export const ORCHESTRATOR = 'orchestrator';

/** One agent as configured in YAML: the orchestrator or a sub-agent. */
export const agentConfigSchema = z.strictObject({
  name: z.string().regex(/^[a-z][a-z0-9-]{1,40}$/, 'lower-case words joined by -'),
  description: z.string().min(10).max(1000),
  /** What people see for the agent (step lists, the terminal): Chinese and English; the name when absent. */
  label: z.strictObject({ zh: z.string().min(1).max(40), en: z.string().min(1).max(40) }).optional(),
  prompt: z.string().min(20),
  /** `inherit` uses the main model, `light` the light model. */
  model: z.enum(['inherit', 'light']).default('inherit'),
  tools: z.strictObject({
    groups: z.array(z.string().min(1)).default([]),
    names: z.array(z.string().min(1)).default([]),
  }),
  /** MCP servers (by their configured name) every tool of which the agent gets, e.g. a company's knowledge base. */
  servers: z.array(z.string().regex(/^[a-z][a-z0-9-]{0,31}$/, 'an MCP server name, e.g. kb')).default([]),
  skills: z.array(z.string().startsWith('/')).default([]),
  /** Files loaded into the system prompt at the start of every run (seed 002: the global `/AGENTS.md`). */
  memory: z.array(z.string().startsWith('/')).default([]),
  /** The agent acts read-only whoever the user is: its tools run in a read-only context (e.g. HTTP calls GET only). */
  read_only: z.boolean().default(false),
  limits: z.strictObject({
    model_calls: z.number().int().min(1).max(500),
    tool_calls: z.number().int().min(1).max(2000),
  }),
});

export type AgentConfig = z.infer<typeof agentConfigSchema>;

/** The label of each configured agent, in configuration order (the orchestrator first). */
export function agentLabels(configs: readonly AgentConfig[]): AgentLabel[] {
  return [...configs]
    .sort((a, b) => Number(b.name === ORCHESTRATOR) - Number(a.name === ORCHESTRATOR))
    .map((c) => ({ name: c.name, label: c.label ?? { zh: c.name, en: c.name } }));
}

export const AGENT_CONFIG_DIR = path.join(import.meta.dirname, 'configs');

/** The agents of one directory, each validated; a file that fails names itself and its bad entry. */
function readAgentDir(dir: string): AgentConfig[] {
  let files: string[];
  try {
    files = fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.yaml') || f.endsWith('.yml'))
      .sort();
  } catch (error) {
    throw new Error(
      `Agent 配置目录 ${dir} 无法读取 / the agent config directory cannot be read: ${(error as Error).message}`,
    );
  }
  const configs = files.map((file) => {
    const where = path.join(dir, file);
    let raw: unknown;
    try {
      raw = YAML.parse(fs.readFileSync(where, 'utf8'));
    } catch (error) {
      throw new Error(`Agent 配置 ${where} 不是合法 YAML / invalid YAML: ${(error as Error).message}`);
    }
    const parsed = agentConfigSchema.safeParse(raw);
    if (!parsed.success)
      throw new Error(`Agent 配置 ${where} 无效 / invalid agent config: ${describeIssues(parsed.error)}`);
    return parsed.data;
  });
  const names = configs.map((c) => c.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice) throw new Error(`Agent ${twice} 配置了两次 / is configured twice in ${dir}`);
  return configs;
}

/**
 * Loads and validates the shipped agents' YAML, then a company's directory of its own (`PROCURA_AGENTS_DIR`): a
 * file there replaces the shipped agent of the same `name` whole, or adds an agent — so a company changes its
 * agents without editing the package. This is the only declaration of which agent gets which tool. An invalid
 * config fails with a message naming the file and the bad entry; exactly one config must be the orchestrator.
 * Tool names and groups that nothing offers (registry tools + built-in agent tools) go to `onMissing`.
 */
export function loadAgentConfigs(
  known: { toolNames: ReadonlySet<string>; groups: ReadonlySet<string> },
  companyDir?: string,
  onMissing?: (agent: string, missing: string[]) => void,
): AgentConfig[] {
  const configs = readAgentDir(AGENT_CONFIG_DIR);
  if (companyDir && path.resolve(companyDir) !== AGENT_CONFIG_DIR)
    for (const own of readAgentDir(companyDir)) {
      const shipped = configs.findIndex((c) => c.name === own.name);
      if (shipped < 0) configs.push(own);
      else configs[shipped] = own;
    }
  for (const config of configs) {
    const unknownNames = config.tools.names.filter((n) => !known.toolNames.has(n));
    const unknownGroups = config.tools.groups.filter((g) => !known.groups.has(g));
    // The tools of business systems come from MCP servers, which may offer fewer (another company's ERP, a server
    // that is down): what is missing is reported, not fatal.
    if (unknownNames.length || unknownGroups.length)
      onMissing?.(config.name, [...unknownNames, ...unknownGroups.map((g) => `group ${g}`)]);
  }
  if (!configs.some((c) => c.name === ORCHESTRATOR))
    throw new Error(`${AGENT_CONFIG_DIR} 缺少 ${ORCHESTRATOR}.yaml / has no ${ORCHESTRATOR} config`);
  return configs;
}
