export {
  type BackgroundTask,
  BackgroundTaskBoard,
  BackgroundTasks,
  registerBackgroundTasks,
  taskOwner,
} from './background.ts';
export {
  type ChartMcpServer,
  type ChartTools,
  freePort,
  registerChartTools,
  renderParamsReference,
  startChartMcpServer,
  withLocalChartServer,
} from './charts/index.ts';
export { type ErpEndpoint, registerErpTools } from './erp/index.ts';
export {
  approvalRequiredTools,
  type ContextResolver,
  type LangChainToolOptions,
  toLangChainTools,
} from './langchain.ts';
export { listToolsForModel, type ToolListing } from './listing.ts';
export { modelSchema } from './model-schema.ts';
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
export { createToolbox, type Toolbox, type ToolboxOptions } from './toolbox.ts';
export { EVERY_TEXT_FIELD } from './untrusted.ts';
export { CHROMIUM_ARGS, loadWebSettings } from './web/index.ts';
