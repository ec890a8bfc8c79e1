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
export { AgentRuntime, type AgentRuntimeOptions, type AgentStorage, SKILLS_DIR } from './runtime.ts';
export { loadSubagentConfigs, SUBAGENT_CONFIG_DIR, type SubagentConfig } from './subagents/loader.ts';
export { HumanInput } from './tools/human-input.ts';
