import type { Command } from 'commander';
import { startChartsServer } from '../../charts/index.ts';
import { startChartMcpServer } from '../../tools/charts/index.ts';
import { closeOnSignal, settingsFrom, withCommonOptions } from '../options.ts';

export function registerChartsCommand(program: Command): void {
  withCommonOptions(program.command('charts').description('run the chart renderer alone / 单独运行图表渲染服务'))
    .option('--port <port>', 'port / 端口 (8070)')
    .option('--mcp', 'also run @antv/mcp-server-chart against it / 同时启动图表 MCP 服务')
    .action(async (opts) => {
      const settings = settingsFrom(opts, { chartsPort: opts.port });
      const charts = await startChartsServer({ ...settings, port: settings.chartsPort });
      console.log(`Charts  ${charts.server.url}/api/gpt-vis   (images ${charts.server.url}/charts/<id>.png|svg)`);
      const closers = [charts.close];
      if (opts.mcp) {
        const mcp = await startChartMcpServer({
          host: settings.host,
          port: settings.chartMcpPort,
          rendererUrl: charts.server.url,
        });
        console.log(`Chart MCP  ${mcp.url}   (@antv/mcp-server-chart, pid ${mcp.pid})`);
        closers.push(mcp.close);
      }
      closeOnSignal(...closers);
    });
}
