import fs from 'node:fs';
import { partAddresses, type Settings } from '../shared/index.ts';
import type { McpServerConfig } from './client.ts';

/**
 * The MCP servers the agents connect to: the ERP MCP server (`ERP_MCP_URL`, default the embedded one; required, and
 * the user's credentials go with every call), then any from `PROCURA_MCP_SERVERS` (a JSON array, or the path of a
 * JSON file holding one), which add servers or replace the ERP server by naming theirs `erp`. `erpMcpUrl` is the
 * address of an ERP MCP server this process started itself (e.g. on an ephemeral port).
 */
export function mcpServersFrom(settings: Settings, erpMcpUrl = partAddresses(settings).erpMcpUrl): McpServerConfig[] {
  const erp: McpServerConfig = { name: 'erp', url: erpMcpUrl, forwardCredentials: true, required: true };
  if (!settings.mcpServers) return [erp];
  let added: unknown;
  try {
    const text = settings.mcpServers.startsWith('[')
      ? settings.mcpServers
      : fs.readFileSync(settings.mcpServers, 'utf8');
    added = JSON.parse(text);
  } catch (error) {
    throw new Error(`PROCURA_MCP_SERVERS 无法读取 / cannot be read: ${(error as Error).message}`);
  }
  if (!Array.isArray(added)) throw new Error('PROCURA_MCP_SERVERS 必须是数组 / must be a JSON array of servers');
  const byName = new Map<string, McpServerConfig>([['erp', erp]]);
  for (const config of added as McpServerConfig[]) byName.set(config.name, config);
  return [...byName.values()];
}
