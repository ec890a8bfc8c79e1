export { type AgentStoreOptions, createAgentStore, DEFAULT_STORE_SCHEMA } from './agent-store.ts';
export { SqliteStore, type SqliteStoreOptions } from './sqlite-store.ts';
