import { getConfig } from '@langchain/langgraph';
import type { BaseStore } from '@langchain/langgraph-checkpoint';
import { type BackendRuntime, CompositeBackend, StoreBackend } from 'deepagents';
import { loadSettings, redactSecrets, type Settings } from '../../shared/index.ts';
import { createAgentStore } from './agent-store.ts';
import { safeLabel } from './labels.ts';
import type { SandboxLimits } from './quickjs-runner.ts';
import { Workspaces, type WorkspacesOptions } from './quickjs-sandbox.ts';

/** Who the files belong to: the user (memories, persisted skills) and the session (sandbox workspace). */
export interface AgentIdentity {
  userId: string;
  sessionId: string;
}

/** Path prefixes kept in the persistent store, per user; every other path is the session's sandbox workspace. */
export const STORE_ROUTES = { memories: '/memories/', persistedSkills: '/persisted-skills/' } as const;

/** The built-in file tools that change files, and the argument naming the file. */
const FILE_WRITES = new Set(['write_file', 'edit_file', 'delete']);

/** Whether a built-in file tool call changes the user's store (memories or persisted skills), which every later
 *  session reads: such a call is a write and waits for a person. */
export function writesToStore(tool: string, args: Record<string, unknown> | undefined): boolean {
  if (!FILE_WRITES.has(tool)) return false;
  const target = args?.file_path ?? args?.path;
  if (typeof target !== 'string') return false;
  const segments: string[] = [];
  for (const segment of target.split('/'))
    if (segment === '..') segments.pop();
    else if (segment && segment !== '.') segments.push(segment);
  const normal = `/${segments.join('/')}/`;
  return Object.values(STORE_ROUTES).some((route) => normal.startsWith(route));
}

/**
 * Store namespace of one user's area: memories and persisted skills (the agent's files), and `protocol` (the items
 * Agent Protocol clients keep). The user label is never last: `PostgresStore` matches namespace prefixes as raw
 * text, so `[…, 'u1']` would also see `[…, 'u10']`.
 */
export const userNamespace = (userId: string, area: 'memories' | 'skills' | 'protocol') => [
  'procura',
  safeLabel(userId),
  area,
];

export interface AgentBackendOptions {
  store: BaseStore;
  workspaces: Workspaces;
}

/**
 * The user's store, where text enters memories and persisted skills: every write is redacted of secrets first
 * (whoever writes: the memory update, a file tool, a skill assignment), since every later session reads it.
 */
class RedactingStoreBackend extends StoreBackend {
  override async write(filePath: string, content: string) {
    return super.write(filePath, await redactSecrets(content));
  }

  override async edit(filePath: string, oldString: string, newString: string, replaceAll?: boolean) {
    return super.edit(filePath, oldString, await redactSecrets(newString), replaceAll);
  }

  override async uploadFiles(files: Array<[string, Uint8Array]>) {
    const decoder = new TextDecoder('utf-8', { fatal: true });
    const redacted = await Promise.all(
      files.map(async ([path, content]): Promise<[string, Uint8Array]> => {
        let text: string;
        try {
          text = decoder.decode(content);
        } catch {
          return [path, content]; // not text
        }
        return [path, new TextEncoder().encode(await redactSecrets(text))];
      }),
    );
    return super.uploadFiles(redacted);
  }
}

/** One user's and session's view: `/memories/` and `/persisted-skills/` in the store, the rest in the sandbox. */
export function agentBackendFor(options: AgentBackendOptions, identity: AgentIdentity): CompositeBackend {
  return new CompositeBackend(options.workspaces.sandbox(identity.userId, identity.sessionId), {
    [STORE_ROUTES.memories]: new RedactingStoreBackend({
      store: options.store,
      namespace: userNamespace(identity.userId, 'memories'),
    }),
    [STORE_ROUTES.persistedSkills]: new RedactingStoreBackend({
      store: options.store,
      namespace: userNamespace(identity.userId, 'skills'),
    }),
  });
}

/** A deepagents `BackendFactory` that always answers with a user's composite. */
export type AgentBackendFactory = (runtime: BackendRuntime) => CompositeBackend;

/**
 * The deepagents backend of every run: resolves the run's user and session (the runtime context, or the LangGraph
 * run config where deepagents passes only the state) and answers with that user's composite. A run without an
 * identity gets no files at all.
 */
export function createAgentBackend(options: AgentBackendOptions): AgentBackendFactory {
  return (runtime: BackendRuntime) => agentBackendFor(options, runIdentity(runtime));
}

export function runIdentity(runtime: Partial<Pick<BackendRuntime, 'context'>> | undefined): AgentIdentity {
  const identity = identityIn(runtime?.context) ?? identityIn(currentRunContext());
  if (!identity) {
    throw new Error(
      '运行上下文缺少 userId/sessionId，无法访问文件 / the run context has no userId and sessionId: files are unavailable',
    );
  }
  return identity;
}

function identityIn(context: unknown): AgentIdentity | undefined {
  const c = context as Partial<AgentIdentity> | undefined;
  return typeof c?.userId === 'string' && c.userId && typeof c.sessionId === 'string' && c.sessionId
    ? { userId: c.userId, sessionId: c.sessionId }
    : undefined;
}

function currentRunContext(): unknown {
  try {
    return (getConfig() as { context?: unknown }).context;
  } catch {
    return undefined; // outside a LangGraph run
  }
}

export interface AgentStorageOptions {
  dataDir: string;
  databaseUrl?: string;
  /** PostgreSQL schema for the store tables. */
  schema?: string;
  /** Sandbox limits, quota and pool; by default from the settings (`SANDBOX_*`). */
  sandbox?: Omit<WorkspacesOptions, 'dataDir'>;
}

const MIB = 1024 * 1024;

/** The sandbox part of the settings; unset ones keep the built-in defaults. */
export function sandboxOptionsFrom(settings: Settings): Omit<WorkspacesOptions, 'dataDir'> {
  const limits: Partial<SandboxLimits> = {};
  if (settings.sandboxMemoryMb) limits.memoryBytes = settings.sandboxMemoryMb * MIB;
  if (settings.sandboxTimeoutMs) limits.timeoutMs = settings.sandboxTimeoutMs;
  if (settings.sandboxCpuMs) limits.cpuMs = settings.sandboxCpuMs;
  if (settings.sandboxOutputChars) limits.outputChars = settings.sandboxOutputChars;
  return {
    limits,
    diskQuotaBytes: settings.sandboxDiskQuotaMb ? settings.sandboxDiskQuotaMb * MIB : undefined,
    pool: {
      ...(settings.sandboxSpares !== undefined ? { spares: settings.sandboxSpares } : {}),
      ...(settings.sandboxMaxConcurrent ? { maxConcurrent: settings.sandboxMaxConcurrent } : {}),
    },
  };
}

export interface AgentStorage {
  store: BaseStore;
  backend: AgentBackendFactory;
  workspaces: Workspaces;
  close(): Promise<void>;
}

/**
 * Store, workspaces and the per-run backend over them, from the data directory (and `DATABASE_URL`); the sandbox
 * processes are booted now so the first execution does not wait for one.
 */
export async function createAgentStorage(options: AgentStorageOptions): Promise<AgentStorage> {
  const store = await createAgentStore(options);
  const workspaces = new Workspaces({
    dataDir: options.dataDir,
    ...(options.sandbox ?? sandboxOptionsFrom(loadSettings())),
  });
  void workspaces.pool.prepare();
  return {
    store,
    workspaces,
    backend: createAgentBackend({ store, workspaces }),
    close: async () => {
      await Promise.all([store.stop(), workspaces.close()]);
    },
  };
}
