import type { Command } from 'commander';
import { agentRuntimeFor } from '../../agent/index.ts';
import { type DemoSignInMode, type DemoUser, startApiServer } from '../../api/index.ts';
import {
  audiencesTakenBy,
  oauthResources,
  type PartAddresses,
  partAddresses,
  type Settings,
} from '../../shared/index.ts';
import { closeOnSignal, settingsFrom, withCommonOptions } from '../options.ts';

export interface ApiAddresses extends PartAddresses {
  /** Embedded mode (`procura start`): the demo users offered by the one-click sign-in. */
  demoUsers?: DemoUser[];
  demoSignIn?: DemoSignInMode;
  /** The environment the agent reads its model settings from (the process's by default). */
  env?: NodeJS.ProcessEnv;
}

/** Starts the chat API with its agent runtime, built first: a required MCP server that is down fails start-up. */
export async function startApi(settings: Settings, addresses: ApiAddresses) {
  const runtime = agentRuntimeFor(settings, addresses, addresses.env);
  const agentStarted = performance.now();
  try {
    await runtime.registry();
  } catch (error) {
    await runtime.close();
    throw error;
  }
  const agentReadyAt = performance.now();
  const api = await startApiServer({
    runtime,
    erpUrl: addresses.erpUrl,
    // OAuth access tokens of Procura's authorization server for the chat API, or for the agent MCP server in front.
    accessTokens: { issuers: [addresses.oauthIssuer], audiences: audiencesTakenBy(oauthResources(settings), 'api') },
    dataDir: settings.dataDir,
    databaseUrl: settings.databaseUrl,
    redisUrl: settings.redisUrl,
    host: settings.host,
    port: settings.apiPort,
    demoUsers: addresses.demoUsers,
    demoSignIn: addresses.demoSignIn ?? 'off',
    limits: { startsPerMinute: settings.runStartsPerMinute, perUserConcurrent: settings.runsPerUser },
    // Reports exported as PDF embed the chart renderer's images, and only those.
    chartImageOrigins: [addresses.chartsUrl],
  });
  return {
    ...api,
    runtime,
    /** When the agent was built (ms since the process started) and how long that took: the API waited for it. */
    agentReady: { at: agentReadyAt, took: agentReadyAt - agentStarted },
    close: async () => {
      await api.close();
      await runtime.close();
    },
  };
}

export function registerApiCommand(program: Command): void {
  withCommonOptions(
    program.command('api').description('run the chat API (SSE) and the browser UI / 运行对话 API 与网页'),
  )
    .option('--port <port>', 'port / 端口 (3000)')
    .option('--erp-url <url>', 'ERP API base / ERP 接口地址 (ERP_URL)')
    .option('--suppliers-url <url>', 'supplier sites / 供应商网站 (SUPPLIERS_URL)')
    .option('--chart-mcp-url <url>', 'chart MCP server / 图表 MCP 服务 (CHART_MCP_URL)')
    .option('--erp-mcp-url <url>', 'ERP MCP server the agent uses / 智能体使用的 ERP MCP 服务 (ERP_MCP_URL)')
    .action(async (opts) => {
      const settings = settingsFrom(opts, {
        apiPort: opts.port,
        erpUrl: opts.erpUrl,
        suppliersUrl: opts.suppliersUrl,
        chartMcpUrl: opts.chartMcpUrl,
        erpMcpUrl: opts.erpMcpUrl,
      });
      const api = await startApi(settings, partAddresses(settings));
      // The first line names the address (scripts and tests read it).
      console.log(`Chat API  ${api.server.url}/api/v1   (UI ${api.server.url}/)`);
      closeOnSignal(api.close);
    });
}
