/**
 * Entry for a LangGraph server (`langgraph.json`): the compiled Procura graph, built from the same settings as
 * `procura api` (ERP_MCP_URL, PROCURA_MCP_SERVERS, ERP_URL, SUPPLIERS_URL, CHART_MCP_URL, DATABASE_URL, model
 * keys). Runs must carry the run context (`context: {userId, role, token, projectId, traceId, sessionId}`), as the chat API passes it.
 */
import { loadSettings, partAddresses } from '../shared/index.ts';
import { agentRuntimeFor } from './runtime.ts';

const settings = loadSettings();
const runtime = agentRuntimeFor(settings, partAddresses(settings));

/** The full graph (write tools included); approvals still come from a human through interrupts. */
export const graph = () => runtime.graph({ role: 'buyer' });
