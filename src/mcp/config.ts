import fs from 'node:fs';
import type { Settings } from '../shared/index.ts';
import type { McpServerConfig } from './client.ts';

const hostOf = (settings: Settings) => (settings.host.includes(':') ? `[${settings.host}]` : settings.host);

/**
 * The MCP servers the agent connects to: the ERP MCP server (required; the user's credentials go with every call)
 * and the chart server, then any from `PROCURA_MCP_SERVERS` (a JSON array, or a path to a JSON file), which add
 * servers or replace a default of the same name.
 */
export function mcpServersFrom(settings: Settings, env: NodeJS.ProcessEnv = process.env): McpServerConfig[] {
  const host = hostOf(settings);
  const defaults: McpServerConfig[] = [
    {
      name: 'erp',
      url: env.ERP_MCP_URL ?? `http://${host}:${settings.erpMcpPort}/mcp`,
      forwardCredentials: true,
      required: true,
    },
    {
      name: 'chart',
      url: env.CHART_MCP_URL ?? `http://${host}:${settings.chartMcpPort}/mcp`,
      group: 'chart',
      defaultSafety: 'read-only',
    },
  ];
  const extra = env.PROCURA_MCP_SERVERS?.trim();
  if (!extra) return defaults;
  let added: unknown;
  try {
    added = JSON.parse(extra.startsWith('[') ? extra : fs.readFileSync(extra, 'utf8'));
  } catch (error) {
    throw new Error(`PROCURA_MCP_SERVERS 无法读取 / cannot be read: ${(error as Error).message}`);
  }
  if (!Array.isArray(added)) throw new Error('PROCURA_MCP_SERVERS 必须是数组 / must be a JSON array of servers');
  const byName = new Map(defaults.map((c) => [c.name, c]));
  for (const config of added as McpServerConfig[]) byName.set(config.name, config);
  return [...byName.values()];
}
