export {
  type BackgroundTask,
  BackgroundTaskBoard,
  BackgroundTasks,
  registerBackgroundTasks,
  taskOwner,
} from './background.ts';
// The ERP client is reached through `createToolbox` (./toolbox.ts); re-exporting it here made the type checker
// load the ERP's HTTP schemas before zod's OpenAPI augmentation and reject them.
export {
  approvalRequiredTools,
  type ContextResolver,
  type LangChainToolOptions,
  toLangChainTools,
} from './langchain.ts';
export { listToolsForModel, type ToolListing } from './listing.ts';
export {
  describeIssues,
  failure,
  isToolFailure,
  Tool,
  type ToolContext,
  type ToolControl,
  type ToolDefinition,
  ToolError,
  type ToolFailure,
  ToolRegistry,
  type ToolRunner,
  type ToolSpec,
  type ToolStreamEvent,
  unavailableService,
} from './registry.ts';
export { MAX_PARALLEL_TOOLS, type ToolCall, ToolScheduler } from './scheduler.ts';
export { countTokens } from './tokens.ts';
// The composition root (`createToolbox`, in ./toolbox.ts) is not re-exported: re-exporting it made the type checker
// load the ERP's HTTP schemas before zod's OpenAPI augmentation and reject them.
