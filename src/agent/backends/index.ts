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
  sandboxOptionsFrom,
  userNamespace,
  writesToStore,
} from './agent-backend.ts';
export { type AgentStoreOptions, createAgentStore, DEFAULT_STORE_SCHEMA } from './agent-store.ts';
export { DiskQuota, DiskQuotaError } from './disk-quota.ts';
export { safeLabel } from './labels.ts';
export { DEFAULT_SANDBOX_LIMITS, EXIT_CODES, runScript, type SandboxLimits } from './quickjs-runner.ts';
export {
  DEFAULT_DISK_QUOTA_BYTES,
  QuickJsSandbox,
  type QuickJsSandboxOptions,
  SANDBOX_EXECUTE_GUIDE,
  Workspaces,
  type WorkspacesOptions,
} from './quickjs-sandbox.ts';
export { DEFAULT_POOL_OPTIONS, SandboxPool, type SandboxPoolOptions } from './sandbox-pool.ts';
export { SqliteStore, type SqliteStoreOptions } from './sqlite-store.ts';
