export { userNamespace } from './backends/index.ts';
export { type ProcuraRunContext, preferencesPath, runContext } from './context.ts';
export { buildAgentGraph, PROCURA_GRAPH, type ProcuraGraph } from './graph.ts';
export { clientInterruptId, graphInterruptId } from './interrupts.ts';
export { ApprovalLedger } from './middleware/approval.ts';
export {
  type AgentModels,
  createAgentModels,
  OFFLINE_MODEL_NAME,
  OFFLINE_NOTICE,
  OfflineChatModel,
} from './models/index.ts';
export { suggestionsFor } from './models/offline/suggestions.ts';
export { type ModelCallPolicy, ModelServiceError, modelServiceFailure } from './models/resilience.ts';
export {
  addUsage,
  DEFAULT_PRICES,
  loadPriceList,
  type MeteredCall,
  NO_USAGE,
  type PriceListInfo,
  type PriceTable,
  priceTable,
  UsageMeter,
  type UsageTotals,
} from './models/usage.ts';
export { ServiceUnavailableError, serviceUnavailable } from './outage.ts';
export {
  AgentRuntime,
  type AgentRuntimeOptions,
  type AgentStorage,
  agentRuntimeFor,
  SKILLS_DIR,
} from './runtime.ts';
export {
  AGENT_CONFIG_DIR,
  type AgentConfig,
  agentLabels,
  loadAgentConfigs,
  ORCHESTRATOR,
} from './subagents/loader.ts';
export { GenAiTracer } from './telemetry.ts';
export { HumanInput } from './tools/human-input.ts';
export {
  AGENT_ALIASES,
  type AgentToolPlan,
  agentConfigs,
  agentNamed,
  BUILTIN_AGENT_TOOLS,
  listAgentTools,
  planAgentTools,
  type ToolSetProblem,
  toolLabel,
  toolSetProblems,
} from './toolset.ts';
