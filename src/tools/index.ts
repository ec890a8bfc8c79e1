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
  type ToolSpec,
} from './registry.ts';
