export {
  type AgentLabel,
  AgentLabelSchema,
  type AgentList,
  AgentListSchema,
  type AgentName,
  agentRank,
  agentTitle,
} from './agents.ts';
export {
  ADMIN_DECISIONS,
  type AdminDecision,
  AdminDecisionSchema,
  NoControl,
  type PendingOrders,
  type PendingOrderView,
  PRICE_SEVERITIES,
  type PriceCheckView,
  type PriceSeverity,
} from './approvals.ts';
export {
  type AgentSuggestions,
  ApiError,
  ChatClient,
  EXPORT_FORMATS,
  type ExportFormat,
  type HistoryPage,
  type HistorySession,
  type SessionState,
  type SessionSummary,
  type StreamEnd,
  type StreamResult,
  type Suggestion,
  sessionSummary,
  type UsageRow,
} from './client.ts';
export type {
  ApiEvent,
  ChartSeries,
  ChatEvent,
  DecisionData,
  DoneData,
  InterruptData,
  OrderDecisionData,
  ProgressData,
  RunUsage,
  ShowChartParams,
  StepStatus,
} from './events.ts';
export { TERMINAL_EVENTS } from './events.ts';
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
  SCHEDULE_KINDS,
  type ScheduleInput,
  type ScheduleKind,
  type ScheduleParams,
  type ScheduleView,
  type StartedScheduleRun,
  StartedScheduleRunSchema,
} from './schedules.ts';
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
