export { type ProcuraRunContext, preferencesPath, runContext } from './context.ts';
export {
  BUILTIN_AGENT_TOOLS,
  buildAgentGraph,
  ORCHESTRATOR_TOOLS,
  type ProcuraGraph,
  subagentConfigs,
} from './graph.ts';
export { ApprovalLedger } from './middleware/approval.ts';
export {
  type AgentModels,
  createAgentModels,
  OFFLINE_MODEL_NAME,
  OFFLINE_NOTICE,
  OfflineChatModel,
} from './models/index.ts';
export { type ModelCallPolicy, ModelServiceError, modelServiceFailure } from './models/resilience.ts';
export {
  addUsage,
  DEFAULT_PRICES,
  type MeteredCall,
  NO_USAGE,
  type PriceTable,
  priceTable,
  UsageMeter,
  type UsageTotals,
} from './models/usage.ts';
export { AgentRuntime, type AgentRuntimeOptions, type AgentStorage, SKILLS_DIR } from './runtime.ts';
export { loadSubagentConfigs, SUBAGENT_CONFIG_DIR, type SubagentConfig } from './subagents/loader.ts';
export { GenAiTracer } from './telemetry.ts';
export { type HumanDecision, HumanInput, type HumanRequest } from './tools/human-input.ts';
