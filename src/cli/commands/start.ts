import type { Command } from 'commander';
import { startChartsServer } from '../../charts/index.ts';
import { DEMO_USERS, startErpServer } from '../../erp/index.ts';
import { startErpMcpServer } from '../../mcp/index.ts';
import type { Settings } from '../../shared/index.ts';
import { startSupplierSites } from '../../suppliers/index.ts';
import { startChartMcpServer } from '../../tools/charts/index.ts';
import { closeOnSignal, settingsFrom, withCommonOptions } from '../options.ts';
import { startApi } from './api.ts';

/** One running part of Procura, as `start` reports it. */
interface StartedPart {
  name: string;
  url: string;
  detail?: string;
  close(): Promise<void>;
}

/** The parts `procura start` runs, in dependency order. Each starts from the shared settings. */
const parts: Array<
  (
    settings: Settings,
    started: Map<string, StartedPart>,
  ) => Promise<StartedPart & { demoTokens?: Record<string, string> }>
> = [
  async (settings) => {
    const erp = await startErpServer({ ...settings, port: settings.erpPort });
    return {
      name: 'ERP',
      url: `${erp.server.url}/api`,
      detail: `docs ${erp.server.url}/api/docs · ${erp.database.dialect} ${erp.database.location}`,
      demoTokens: erp.demoTokens,
      close: erp.close,
    };
  },
  async (settings, started) => {
    const mcp = await startErpMcpServer({
      erp: { baseUrl: started.get('ERP')!.url },
      host: settings.host,
      port: settings.erpMcpPort,
    });
    return { name: 'ERP MCP', url: mcp.mcpUrl, detail: 'streamable HTTP, Bearer token', close: mcp.close };
  },
  async (settings) => {
    const sites = await startSupplierSites({ host: settings.host, port: settings.suppliersPort });
    return {
      name: 'Supplier sites',
      url: `${sites.server.url}/`,
      detail: `${sites.shops.length} shops, news ${sites.server.url}/news/`,
      close: sites.server.close,
    };
  },
  async (settings) => {
    const charts = await startChartsServer({ ...settings, port: settings.chartsPort });
    return {
      name: 'Chart renderer',
      url: `${charts.server.url}/api/gpt-vis`,
      detail: `images ${charts.server.url}/charts/`,
      close: charts.close,
    };
  },
  async (settings, started) => {
    if (settings.chartMcpUrl)
      return { name: 'Chart MCP', url: settings.chartMcpUrl, detail: 'external', close: async () => undefined };
    const rendererUrl = started.get('Chart renderer')!.url.replace(/\/api\/gpt-vis$/, '');
    const mcp = await startChartMcpServer({ host: settings.host, port: settings.chartMcpPort, rendererUrl });
    return { name: 'Chart MCP', url: mcp.url, detail: `@antv/mcp-server-chart, pid ${mcp.pid}`, close: mcp.close };
  },
  async (settings, started) => {
    const api = await startApi(settings, {
      erpUrl: started.get('ERP')!.url,
      suppliersUrl: started.get('Supplier sites')!.url.replace(/\/$/, ''),
      chartMcpUrl: started.get('Chart MCP')!.url,
      erpMcpUrl: settings.erpMcpUrl ?? started.get('ERP MCP')!.url,
      demoUsers: demoUsersOf(started.get('ERP')),
    });
    const models = await api.runtime.models();
    return {
      name: 'Chat API + UI',
      url: `${api.server.url}/`,
      detail: `SSE ${api.server.url}/api/v1/agent/chat/stream · model ${models.mainName}${models.provider === 'offline' ? ' (offline / 离线模型)' : ''}`,
      close: api.close,
    };
  },
];

/** The seeded demo users with their tokens, when the ERP part seeded them (embedded mode). */
function demoUsersOf(erp: (StartedPart & { demoTokens?: Record<string, string> }) | undefined) {
  return DEMO_USERS.filter((u) => erp?.demoTokens?.[u.username]).map((u) => ({
    username: u.username,
    displayName: u.displayName,
    role: u.role,
    token: erp!.demoTokens![u.username],
  }));
}

export function registerStartCommand(program: Command): void {
  withCommonOptions(
    program.command('start').description('run every part of Procura on this machine / 启动全部服务'),
  ).action(async (opts) => {
    const settings = settingsFrom(opts);
    const started = new Map<string, StartedPart>();
    let demoTokens: Record<string, string> = {};
    try {
      for (const startPart of parts) {
        const part = await startPart(settings, started);
        started.set(part.name, part);
        if (part.demoTokens) demoTokens = part.demoTokens;
      }
    } catch (error) {
      for (const part of [...started.values()].reverse()) await part.close().catch(() => undefined);
      throw error;
    }
    console.log('\nProcura 已启动 / Procura is running:');
    for (const part of started.values())
      console.log(`  ${part.name.padEnd(16)} ${part.url}${part.detail ? `   (${part.detail})` : ''}`);
    if (Object.keys(demoTokens).length) {
      console.log('\n演示用户令牌 / demo tokens:');
      for (const [user, token] of Object.entries(demoTokens)) console.log(`  ${user.padEnd(9)} ${token}`);
    }
    console.log(`\n数据目录 / data dir: ${settings.dataDir}   按 Ctrl-C 停止 / Ctrl-C to stop`);
    closeOnSignal(...[...started.values()].map((p) => p.close));
  });
}
