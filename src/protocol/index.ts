export {
  type AgentSuggestions,
  ApiError,
  ChatClient,
  type SessionSummary,
  type StreamEnd,
  type StreamResult,
  sessionSummary,
  type UsageRow,
} from './client.ts';
export type {
  AgentName,
  ApiEvent,
  ChartSeries,
  ChatEvent,
  DecisionData,
  InterruptData,
  OrderDecisionData,
  ProgressData,
  RunUsage,
  ShowChartParams,
  StepStatus,
} from './events.ts';
export {
  type ApprovalAction,
  type ApprovalDetails,
  type ChoiceOption,
  type DecisionChange,
  type DecisionRecord,
  decisionRecord,
  type HumanDecision,
  HumanDecisionSchema,
  type HumanRequest,
} from './human.ts';
export { isReadOnly, ROLES, type Role, RoleSchema } from './roles.ts';
export {
  cite,
  citedIds,
  describeSource,
  type ErpSource,
  ErpSourceSchema,
  listedSources,
  SOURCE_REFS,
  SOURCES_HEADING,
  type Source,
  SourceSchema,
  sourcesList,
  sourcesSection,
  type WebSource,
  WebSourceSchema,
} from './sources.ts';
export { coversCall, describeScope, type StandingScope, standingScope } from './standing.ts';
