import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type ListedTool, startChartsServer } from '../../charts/index.ts';
import { ChartMcpClient } from './client.ts';
import { startChartMcpServer } from './mcp-server.ts';

/**
 * Runs a throw-away local renderer + chart MCP server pair (random ports, temp data dir) for scripts that need
 * the live tool list or real calls; `close` stops both and removes the data.
 */
export async function withLocalChartServer<T>(
  use: (server: { client: ChartMcpClient; tools: ListedTool[]; rendererUrl: string }) => Promise<T>,
): Promise<T> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-charts-'));
  const renderer = await startChartsServer({ host: '127.0.0.1', port: 0, dataDir });
  const mcp = await startChartMcpServer({ port: 0, rendererUrl: renderer.renderUrl }).catch(async (error) => {
    await renderer.close();
    throw error;
  });
  try {
    const client = await ChartMcpClient.connect(mcp.url, mcp.token);
    try {
      return await use({ client, tools: await client.listTools(), rendererUrl: renderer.renderUrl });
    } finally {
      await client.close();
    }
  } finally {
    await mcp.close();
    await renderer.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
