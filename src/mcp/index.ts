export { AccessTokenCheck } from './access-tokens.ts';
export {
  type AgentMcpHttpOptions,
  approvalMessage,
  createAgentMcpApp,
  createAgentMcpServer,
  runAgentMcpStdio,
  startAgentMcpServer,
} from './agent-server.ts';
export {
  groupOf,
  MCP_RETRY_MS,
  McpConnections,
  type McpServerConfig,
  McpServerConfigSchema,
  McpServerError,
  McpSignInRefused,
  McpSignInRequired,
  PREFIX_GROUPS,
} from './client.ts';
export { mcpServersFrom } from './config.ts';
export { MCP_OAUTH_CALLBACK, type McpOAuthOptions, McpTokenStore } from './oauth-client.ts';
export {
  CALL_ID_META,
  type CallerCredentials,
  createErpMcpApp,
  createMcpApp,
  createMcpServer,
  credentialsFromHeaders,
  type ErpMcpHttpOptions,
  type ErpMcpOptions,
  erpToolRegistry,
  GROUP_META,
  hostsFor,
  LOOPBACK_HOSTS,
  type McpHttpOptions,
  type McpServerOptions,
  runErpMcpStdio,
  startErpMcpServer,
} from './server.ts';
