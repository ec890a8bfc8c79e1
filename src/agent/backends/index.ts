export {
  type AgentBackendFactory,
  type AgentBackendOptions,
  type AgentIdentity,
  type AgentStorage,
  type AgentStorageOptions,
  agentBackendFor,
  createAgentBackend,
  createAgentStorage,
  runIdentity,
  STORE_ROUTES,
  userNamespace,
} from './agent-backend.ts';
export { type AgentStoreOptions, createAgentStore, DEFAULT_STORE_SCHEMA } from './agent-store.ts';
export { safeLabel } from './labels.ts';
export { DEFAULT_SANDBOX_LIMITS, EXIT_CODES, type SandboxLimits } from './quickjs-runner.ts';
export {
  QuickJsSandbox,
  type QuickJsSandboxOptions,
  SANDBOX_EXECUTE_GUIDE,
  Workspaces,
  type WorkspacesOptions,
} from './quickjs-sandbox.ts';
export { SqliteStore, type SqliteStoreOptions } from './sqlite-store.ts';
