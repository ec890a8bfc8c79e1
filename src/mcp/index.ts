export {
  groupOf,
  MCP_RETRY_MS,
  McpConnections,
  type McpServerConfig,
  McpServerConfigSchema,
  McpServerError,
  PREFIX_GROUPS,
} from './client.ts';
export { mcpServersFrom } from './config.ts';
export {
  CALL_ID_META,
  type CallerCredentials,
  createErpMcpApp,
  createMcpApp,
  createMcpServer,
  credentialsFromHeaders,
  type ErpMcpOptions,
  erpToolRegistry,
  GROUP_META,
  runErpMcpStdio,
  startErpMcpServer,
} from './server.ts';
