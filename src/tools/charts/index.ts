import type { ToolRegistry } from '../registry.ts';
import { ChartCatalog } from './catalog.ts';
import { ChartMcpClient } from './client.ts';
import { VisualizationTools } from './visualization.ts';

export { type BrowserChartSpec, browserSpecOf } from './browser-spec.ts';
export { ChartCatalog, chartTypeOf } from './catalog.ts';
export { ChartMcpClient } from './client.ts';
export { withLocalChartServer } from './live-tools.ts';
export { type ChartMcpServer, freePort, startChartMcpServer } from './mcp-server.ts';
export { renderParamsReference } from './params-doc.ts';
export { VisualizationTools } from './visualization.ts';

export interface ChartTools {
  catalog: ChartCatalog;
  client: ChartMcpClient;
  close(): Promise<void>;
}

/**
 * Connects to the chart MCP server, reads its live tool list, and registers `generate_visualization`
 * (plus the pass-through `generate_spreadsheet`) into `registry`.
 */
export async function registerChartTools(
  registry: ToolRegistry,
  chartMcpUrl: string,
  token?: string,
): Promise<ChartTools> {
  const client = await ChartMcpClient.connect(chartMcpUrl, token);
  const catalog = new ChartCatalog(await client.listTools());
  const tools = new VisualizationTools(catalog, client);
  registry.register(VisualizationTools, () => tools);
  return { catalog, client, close: () => client.close() };
}
