import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildCli, freshEntry } from '../../scripts/build-cli.js';
import type { StartedPart } from '../../src/cli/commands/start.ts';
import type { Erp } from '../../src/erp/index.ts';
import { ChatClient, type ChatEvent, type HumanDecision } from '../../src/protocol/index.ts';
import { loadSettings, type Settings } from '../../src/shared/index.ts';
import type { AgentHarness, TurnResult } from './local-stack.ts';

export { workspaceFile } from './local-stack.ts';

/**
 * `procura start`'s module from the compiled build in dist/ — the one `npm start` runs (built now when dist/ does
 * not match the sources; the tests' global setup builds it once per run) — loaded by Node itself, not by the test
 * runner, so its chunks find their files as they do under `npm start`.
 */
async function compiledStart(): Promise<typeof import('../../src/cli/commands/start.ts')> {
  const main = freshEntry() ?? (await buildCli({ quiet: true }));
  const nodeImport = createRequire(import.meta.url)('./node-import.cjs') as (url: string) => Promise<unknown>;
  return (await nodeImport(pathToFileURL(path.join(path.dirname(main), 'start.js')).href)) as never;
}

/** Procura as `procura start` runs it — every part, the ERP reached over MCP — on a temp data dir and free ports. */
export interface StartedStack {
  settings: Settings;
  parts: Map<string, StartedPart>;
  /** The chat API's origin, e.g. `http://127.0.0.1:41234`. */
  apiUrl: string;
  /** The ERP REST base (`…/api`). */
  erpUrl: string;
  /** The chart renderer's origin (its images are what reports embed). */
  chartsUrl: string;
  /** The ERP this stack started: its database and services, for checking end states. */
  erp: Erp;
  dataDir: string;
  /** The demo users' API tokens. */
  tokens: Record<string, string>;
  /** A chat API client signed in as a demo user. */
  client(username: string): ChatClient;
  /** Stops one part (e.g. `ERP MCP`) while the rest runs on: an outage. */
  stop(part: string): Promise<void>;
  close(): Promise<void>;
}

export interface StackOptions {
  /** Model settings and the like (the offline model by default, whatever the environment says). */
  env?: NodeJS.ProcessEnv;
  /** Settings on top of the stack's own (free ports, temp data dir, strict tool-set check). */
  settings?: Partial<Record<keyof Settings, unknown>>;
  /** Seeds the ERP's database in the data dir before the start (another catalogue); the demo seed otherwise. */
  seed?: (dataDir: string) => Promise<void>;
  /** Starts on this data dir (e.g. again, as a restart does) and leaves it in place on close; a fresh one otherwise. */
  dataDir?: string;
}

/**
 * Starts Procura with `procura start`'s own code, compiled as `npm start` runs it. Parts listen on loopback only;
 * nothing else leaves the machine.
 */
export async function startStack(options: StackOptions = {}): Promise<StartedStack> {
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'procura-stack-'));
  const removeDataDir = () => options.dataDir || fs.rmSync(dataDir, { recursive: true, force: true });
  // The settings come from these values alone, not the test environment (no DATABASE_URL: the embedded stack).
  const settings = loadSettings(
    {
      dataDir,
      host: '127.0.0.1',
      erpPort: 0,
      suppliersPort: 0,
      chartsPort: 0,
      chartMcpPort: 0,
      erpMcpPort: 0,
      oauthPort: 0,
      apiPort: 0,
      toolSetCheck: 'fail',
      runStartsPerMinute: 100_000,
      ...options.settings,
    },
    {},
  );
  const env = {
    ...process.env,
    DEEPSEEK_API_KEY: '',
    OPENAI_API_KEY: '',
    OPENAI_BASE_URL: '',
    ...options.env,
  };
  let parts: Map<string, StartedPart>;
  try {
    await options.seed?.(dataDir);
    const { startParts } = await compiledStart();
    parts = await startParts(settings, { env, buildWebUi: false });
  } catch (error) {
    removeDataDir();
    throw error;
  }
  const part = (name: string) => {
    const found = parts.get(name);
    if (!found) throw new Error(`no part named ${name}: ${[...parts.keys()].join(', ')}`);
    return found;
  };
  const erp = part('ERP').erp!;
  const apiUrl = part('Chat API + UI').url.replace(/\/$/, '');
  const stopped = new Set<string>();
  const stop = async (name: string) => {
    if (stopped.has(name)) return;
    stopped.add(name);
    await part(name).close();
  };
  return {
    settings,
    parts,
    apiUrl,
    erpUrl: part('ERP').url,
    chartsUrl: new URL(part('Chart renderer').url).origin,
    erp,
    dataDir,
    tokens: erp.demoTokens,
    client: (username) => {
      const token = erp.demoTokens[username];
      if (!token) throw new Error(`no demo user ${username}`);
      return new ChatClient(apiUrl, token);
    },
    stop,
    async close() {
      for (const name of [...parts.keys()].reverse()) await stop(name).catch(() => undefined);
      removeDataDir();
    },
  };
}

/** What one turn through the chat API streamed: the answer, the interrupts, each step and the usage on `done`. */
export interface StreamedTurn extends TurnResult {
  events: ChatEvent[];
}

/** Reads one stream of the chat API into a turn. */
function turnOf(events: ChatEvent[]): StreamedTurn {
  // Fields by name: every event's data is a record on the wire.
  const field = (e: ChatEvent, key: string) => String((e.data as Record<string, unknown>)[key] ?? '');
  const interrupts = events
    .filter((e) => e.event === 'interrupt')
    .map((e) => {
      const { interrupt_id, session_id: _session, agent: _agent, ...value } = e.data as Record<string, unknown>;
      return { id: String(interrupt_id), value };
    });
  const toolCalls = [
    ...new Map(
      events
        .filter((e) => e.event === 'progress' && e.data.phase === 'tool')
        .map((e) => [field(e, 'id'), field(e, 'title')]),
    ).values(),
  ];
  const answer = events
    .filter((e) => e.event === 'token')
    .map((e) => field(e, 'content'))
    .join('');
  const failed = events.find((e) => e.event === 'error');
  const done = events.find((e) => e.event === 'done');
  const usage = (done?.data as { usage?: TurnResult['usage'] } | undefined)?.usage;
  return {
    answer: failed && !answer ? `error: ${field(failed, 'message')}` : answer,
    interrupts: interrupts.length ? interrupts : [],
    toolCalls,
    usage,
    error: failed ? field(failed, 'message') : undefined,
    events,
  };
}

/**
 * The evaluation harness on a started stack: every turn goes through the chat API as the user (SSE in, decisions
 * through `resume`), the way the browser and `procura chat` send them.
 */
export function stackHarness(stack: StartedStack): AgentHarness {
  return {
    dataDir: stack.dataDir,
    chartsUrl: stack.chartsUrl,
    erp: stack.erp,
    tokens: stack.tokens,
    // The chat API resolves who the user is from the token; the rest of the context is the API's to fill in.
    contextFor: (username, sessionId) => ({
      userId: username,
      username,
      role: 'buyer',
      token: stack.tokens[username],
      traceId: sessionId,
      sessionId,
    }),
    async send(ctx, input) {
      const client = new ChatClient(stack.apiUrl, ctx.token ?? '');
      const events: ChatEvent[] = [];
      const collect = (event: ChatEvent) => events.push(event);
      if (typeof input === 'string') await client.start(input, ctx.sessionId, collect);
      else
        await client.resume(
          ctx.sessionId ?? '',
          input.resume.interruptId,
          input.resume.decision as HumanDecision,
          collect,
        );
      return turnOf(events);
    },
    close: () => stack.close(),
  };
}
