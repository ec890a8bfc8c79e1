import type { Command } from 'commander';
import { closeOnSignal, settingsFrom, withCommonOptions } from '../options.ts';

export function registerChartsCommand(program: Command): void {
  withCommonOptions(program.command('charts').description('run the chart renderer alone / 单独运行图表渲染服务'))
    .option('--port <port>', 'port / 端口 (8070)')
    .option('--token <token>', 'secret path segment drawing requires (CHARTS_TOKEN; default: a random one)')
    .option('--mcp', 'also run @antv/mcp-server-chart against it / 同时启动图表 MCP 服务')
    .action(async (opts) => {
      const [{ startChartsServer }, { startChartMcpServer }] = await Promise.all([
        import('../../charts/index.ts'),
        import('../../tools/index.ts'),
      ]);
      const settings = settingsFrom(opts, { chartsPort: opts.port });
      const charts = await startChartsServer({
        ...settings,
        port: settings.chartsPort,
        token: opts.token ?? (process.env.CHARTS_TOKEN || undefined),
      });
      // The drawing URL carries the token: it is what an AntV server's VIS_REQUEST_SERVER must be set to.
      console.log(`Charts  ${charts.renderUrl}/api/gpt-vis   (images ${charts.server.url}/charts/<id>.png|svg)`);
      const closers = [charts.close];
      if (opts.mcp) {
        const mcp = await startChartMcpServer({
          port: settings.chartMcpPort,
          rendererUrl: charts.renderUrl,
          token: settings.chartMcpToken,
        });
        // Loopback only; the agent needs the token (CHART_MCP_TOKEN) to call it.
        console.log(`Chart MCP  ${mcp.url}   (@antv/mcp-server-chart, pid ${mcp.pid}, token ${mcp.token})`);
        closers.push(mcp.close);
      }
      closeOnSignal(...closers);
    });
}
