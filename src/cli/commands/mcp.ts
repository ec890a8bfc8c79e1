import type { Command } from 'commander';
import { runAgentMcpStdio, runErpMcpStdio, startAgentMcpServer, startErpMcpServer } from '../../mcp/index.ts';
import { logger, oauthResources, partAddresses } from '../../shared/index.ts';
import { closeOnSignal, settingsFrom, withCommonOptions } from '../options.ts';

export function registerMcpCommands(program: Command): void {
  const mcp = program.command('mcp').description('MCP servers / MCP 服务');
  withCommonOptions(mcp.command('erp').description('the ERP tools over MCP / ERP 业务工具 MCP 服务'))
    .option('--port <port>', 'port / 端口 (8000)')
    .option('--stdio', 'serve on stdin/stdout for one user / 以 stdio 方式为单个用户服务')
    .option('--erp-url <url>', 'ERP API base / ERP 接口地址 (ERP_URL)')
    .option('--token <token>', 'stdio: the user token (PROCURA_ERP_TOKEN) / 用户令牌')
    .option('--project <id>', 'stdio: project id (PROCURA_PROJECT_ID) / 项目')
    .action(async (opts) => {
      const settings = settingsFrom(opts, { erpMcpPort: opts.port, erpUrl: opts.erpUrl });
      const erp = { baseUrl: partAddresses(settings).erpUrl };
      if (opts.stdio) {
        // stdout carries the protocol: diagnostics go to stderr only.
        await runErpMcpStdio({
          erp,
          credentials: {
            token: opts.token ?? process.env.PROCURA_ERP_TOKEN,
            projectId: opts.project ?? process.env.PROCURA_PROJECT_ID,
          },
          onUnexpected: (error, traceId) => console.error(`[procura-erp-mcp] trace ${traceId}:`, error),
        });
        return;
      }
      const log = logger.child({ part: 'erp-mcp' });
      const server = await startErpMcpServer({
        erp,
        host: settings.host,
        port: settings.erpMcpPort,
        allowedHosts: settings.mcpAllowedHosts,
        onUnexpected: (error, traceId) => log.error({ err: error, traceId }, 'unexpected tool error'),
      });
      console.log(`ERP MCP  ${server.mcpUrl}   (ERP ${erp.baseUrl})`);
      closeOnSignal(server.close);
    });
  withCommonOptions(
    mcp
      .command('agent')
      .description('Procura itself over MCP: supplier analysis, order drafts / Procura 智能体 MCP 服务'),
  )
    .option('--port <port>', 'port / 端口 (8010, AGENT_MCP_PORT)')
    .option('--stdio', 'serve on stdin/stdout for one user / 以 stdio 方式为单个用户服务')
    .option('--url <url>', 'chat API address (default PROCURA_API_URL or http://<host>:<API_PORT>)')
    .option('--token <token>', 'stdio: the user token (PROCURA_TOKEN) / 用户令牌')
    .action(async (opts) => {
      const settings = settingsFrom(opts, { agentMcpPort: opts.port });
      const apiUrl = opts.url ?? process.env.PROCURA_API_URL ?? `http://${settings.host}:${settings.apiPort}`;
      if (!/^https?:\/\/[^\s]+$/.test(apiUrl)) throw new Error(`--url 无效 / invalid --url: ${apiUrl}`);
      if (opts.stdio) {
        const token = opts.token ?? process.env.PROCURA_TOKEN;
        if (!token)
          throw new Error('需要 API 令牌：--token 或 PROCURA_TOKEN / an API token is needed: --token or PROCURA_TOKEN');
        // stdout carries the protocol: nothing else is printed there.
        await runAgentMcpStdio({ apiUrl, token });
        return;
      }
      // OAuth clients sign in at `procura start`'s authorization server for this server's resource.
      const server = await startAgentMcpServer({
        apiUrl,
        host: settings.host,
        port: settings.agentMcpPort,
        allowedHosts: settings.mcpAllowedHosts,
        resourceUrl: oauthResources(settings).agentMcp,
        authorizationServers: [partAddresses(settings).oauthIssuer],
      });
      console.log(`Agent MCP  ${server.mcpUrl}   (chat API ${apiUrl})`);
      closeOnSignal(server.close);
    });
}
