import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { z } from 'zod';
import { describeIssues } from '../../tools/index.ts';

/** One sub-agent as configured in YAML. */
export const subagentConfigSchema = z.strictObject({
  name: z.string().regex(/^[a-z][a-z0-9-]{1,40}$/, 'lower-case words joined by -'),
  description: z.string().min(10).max(1000),
  prompt: z.string().min(20),
  /** `inherit` uses the main model, `light` the light model. */
  model: z.enum(['inherit', 'light']).default('inherit'),
  tools: z.strictObject({
    groups: z.array(z.string().min(1)).default([]),
    names: z.array(z.string().min(1)).default([]),
  }),
  skills: z.array(z.string().startsWith('/')).default([]),
  limits: z.strictObject({
    model_calls: z.number().int().min(1).max(500),
    tool_calls: z.number().int().min(1).max(2000),
  }),
});

export type SubagentConfig = z.infer<typeof subagentConfigSchema>;

export const SUBAGENT_CONFIG_DIR = path.join(import.meta.dirname, 'configs');

/**
 * Loads and validates every `*.yaml` in the config directory, and checks each tool name and group against what
 * exists (registry tools + built-in agent tools). Fails with a message naming the file and the bad entry.
 */
export function loadSubagentConfigs(
  known: { toolNames: ReadonlySet<string>; groups: ReadonlySet<string> },
  dir = SUBAGENT_CONFIG_DIR,
): SubagentConfig[] {
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.yaml') || f.endsWith('.yml'))
    .sort();
  return files.map((file) => {
    const where = path.join(dir, file);
    let raw: unknown;
    try {
      raw = YAML.parse(fs.readFileSync(where, 'utf8'));
    } catch (error) {
      throw new Error(`子 Agent 配置 ${where} 不是合法 YAML / invalid YAML: ${(error as Error).message}`);
    }
    const parsed = subagentConfigSchema.safeParse(raw);
    if (!parsed.success)
      throw new Error(`子 Agent 配置 ${where} 无效 / invalid sub-agent config: ${describeIssues(parsed.error)}`);
    const unknownNames = parsed.data.tools.names.filter((n) => !known.toolNames.has(n));
    const unknownGroups = parsed.data.tools.groups.filter((g) => !known.groups.has(g));
    if (unknownNames.length || unknownGroups.length) {
      throw new Error(
        `子 Agent 配置 ${where} 引用了不存在的工具 / unknown tools: ${[...unknownNames, ...unknownGroups.map((g) => `group ${g}`)].join(', ')}` +
          `（可用 / available: ${[...known.toolNames].sort().join(', ')}）`,
      );
    }
    return parsed.data;
  });
}
