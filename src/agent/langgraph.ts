/**
 * Entry for a LangGraph server (`langgraph.json`): the compiled Procura graph, built from the same settings as
 * `procura start` (ERP_URL, SUPPLIERS_URL, CHART_MCP_URL, DATABASE_URL, model keys). Runs must carry the run
 * context (`context: {userId, role, token, projectId, traceId, sessionId}`), as the chat API passes it.
 */
import { loadSettings } from '../shared/index.ts';
import { registerChartTools } from '../tools/charts/index.ts';
import { AgentRuntime } from './runtime.ts';

const settings = loadSettings();
const runtime = new AgentRuntime({
  dataDir: settings.dataDir,
  databaseUrl: settings.databaseUrl,
  erpUrl: process.env.ERP_URL ?? `http://${settings.host}:${settings.erpPort}/api`,
  suppliersUrl: process.env.SUPPLIERS_URL ?? `http://${settings.host}:${settings.suppliersPort}`,
  extraTools: [
    (registry) =>
      registerChartTools(registry, process.env.CHART_MCP_URL ?? `http://${settings.host}:${settings.chartMcpPort}/mcp`),
  ],
});

/** The full graph (write tools included); approvals still come from a human through interrupts. */
export const graph = () => runtime.graph({ role: 'buyer' });
