export { childEnv, nodeScript, setIdle } from './child-process.ts';
export { type Conversation, conversationAttributes } from './conversation.ts';
export { type Deadline, deadline, linkedSignal } from './deadline.ts';
export * from './errors.ts';
export { escapeHtml } from './html.ts';
export { listen, type RunningServer } from './http.ts';
export {
  bodyLimitProblem,
  type EdgeVariables,
  isTraceId,
  ProblemSchema,
  problemErrorHandler,
  problemResponse,
  traceIdMiddleware,
} from './http-edge.ts';
export { type Logger, logger } from './logger.ts';
export { isLocalClient, isLoopbackAddress, isLoopbackHost } from './loopback.ts';
export { withPostgresSetupLock } from './postgres-setup.ts';
export { hashSeed, seededRandom } from './random.ts';
export { CredentialSealer } from './sealer.ts';
export { findSecrets, REDACTED, redactKnown, redactSecrets, redactSecretsIn, type SecretMatch } from './secrets.ts';
export {
  audiencesTakenBy,
  loadSettings,
  type OAuthResources,
  oauthResources,
  type PartAddresses,
  parseSettings,
  partAddresses,
  type Settings,
} from './settings.ts';
export { sleep } from './sleep.ts';
export {
  httpServerSpans,
  markConversation,
  startTelemetry,
  type Telemetry,
  telemetryEnabled,
  withConversation,
} from './telemetry.ts';
