/**
 * Entry for a LangGraph server (`langgraph.json`): the compiled Procura graph, built from the same settings as
 * `procura start` (ERP_URL, SUPPLIERS_URL, CHART_MCP_URL, DATABASE_URL, model keys). Runs must carry the run
 * context (`context: {userId, role, token, projectId, traceId, sessionId}`), as the chat API passes it.
 */
import { loadSettings, partAddresses } from '../shared/index.ts';
import { registerChartTools } from '../tools/charts/index.ts';
import { AgentRuntime } from './runtime.ts';

const settings = loadSettings();
const addresses = partAddresses(settings);
const runtime = new AgentRuntime({
  dataDir: settings.dataDir,
  databaseUrl: settings.databaseUrl,
  erpUrl: addresses.erpUrl,
  suppliersUrl: addresses.suppliersUrl,
  extraTools: [(registry) => registerChartTools(registry, addresses.chartMcpUrl)],
});

/** The full graph (write tools included); approvals still come from a human through interrupts. */
export const graph = () => runtime.graph({ role: 'buyer' });
