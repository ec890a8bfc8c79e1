import path from 'node:path';
import { AGENT_ALIASES, type AgentRuntime, GenAiTracer, PROCURA_GRAPH, suggestionsFor } from '../agent/index.ts';
import { AccessTokenCheck } from '../mcp/index.ts';
import { listen, logger, type RunningServer, startTelemetry } from '../shared/index.ts';
import { loadWebSettings } from '../tools/index.ts';
import { DemoSignIn, type DemoSignInMode, type DemoUser } from './admin/demo.ts';
import { UsageLedger, type UsageSettings, usageSettings } from './admin/usage.ts';
import { AgentProtocol } from './agent-protocol/service.ts';
import { ProtocolStore } from './agent-protocol/store.ts';
import { ThreadMetadata } from './agent-protocol/threads.ts';
import { createApiApp } from './app.ts';
import { DEFAULT_DECISION_POLL_MS, OrderNotices } from './approvals/order-notices.ts';
import { OrderApprovals } from './approvals/queue.ts';
import { ErpUsers } from './auth.ts';
import { RunEventLog } from './chat/events.ts';
import { History } from './chat/history.ts';
import { RunStore } from './chat/run-store.ts';
import { type RunLimits, RunManager } from './chat/runs.ts';
import { Sessions, type SessionTables } from './chat/sessions.ts';
import { openApiDatabase } from './db.ts';
import { API_MIGRATIONS } from './migrations.ts';
import { type ExportLimits, ReportExports } from './reports/exports.ts';
import { RfqDesk } from './rfqs/desk.ts';
import { defaultTimezone } from './schedules/cron.ts';
import { Scheduler } from './schedules/scheduler.ts';
import { Schedules, scheduleSealer } from './schedules/schedules.ts';

export const WEB_DIST = path.resolve(import.meta.dirname, '../../web/dist');

export interface ApiOptions {
  runtime: AgentRuntime;
  /** ERP REST base (`…/api`): users are resolved through its `GET /me`. */
  erpUrl: string;
  dataDir: string;
  databaseUrl?: string;
  /**
   * The OAuth access tokens the API takes besides API tokens: signed by these issuers for one of these audiences
   * (its own resource and the agent MCP server's, which runs it as its user). Without it, the ERP's answer alone.
   */
  accessTokens?: { issuers: readonly string[]; audiences: readonly string[] };
  /** PostgreSQL schema of the API tables (default `procura_api`). */
  databaseSchema?: string;
  /** Fan run events out to every API process. */
  redisUrl?: string;
  limits?: Partial<RunLimits>;
  webDir?: string;
  /** Embedded mode only: the demo users offered by the one-click sign-in (admins never are). */
  demoUsers?: DemoUser[];
  /** Who may use the demo sign-in (default `loopback`; the CLI turns it off on a non-loopback host). */
  demoSignIn?: DemoSignInMode;
  /** Daily token budget per user; default from `PROCURA_USER_DAILY_TOKENS` in the agent's settings. */
  usage?: UsageSettings;
  /** Extra readiness checks (e.g. the chart MCP server). */
  readiness?: Record<string, () => Promise<unknown>>;
  /** The chart renderer's origins: the only place besides the API itself that the browser UI and a report exported
   *  as PDF load images from. */
  chartImageOrigins?: string[];
  /** Limits of report exports (sizes, rows, how many at once); `DEFAULT_EXPORT_LIMITS` for the rest. */
  exportLimits?: Partial<ExportLimits>;
  /** How often a followed session with an order waiting for an admin asks the ERP for the decision; default from
   *  `PROCURA_DECISION_POLL_MS`, else 15 s. */
  decisionPollMs?: number;
  /** Scheduled digests: the clock they read, and whether and how often this process runs the timer (every 30 s). */
  scheduler?: { now?: () => Date; timer?: boolean; intervalMs?: number };
}

export interface Api {
  fetch: (request: Request) => Response | Promise<Response>;
  /** Every route the HTTP app declares (method and path pattern), as its router holds them. */
  routes: ReadonlyArray<{ method: string; path: string }>;
  runs: RunManager;
  /** Starts due schedules; `runDue(now)` is what the timer calls. */
  scheduler: Scheduler;
  close(): Promise<void>;
}

export const DEFAULT_LIMITS: RunLimits = {
  inactivityMs: 10 * 60_000,
  startsPerMinute: 30,
  // A run alone keeps the loop busy about a quarter of its wall time (the rest waits on the model and the ERP), so a
  // few runs fill the CPU; more only lengthen each loop turn and delay new requests before their first event
  // (measured by bench:api on 2 cores: same runs/s at 8 as at 32, first-event p99 about half).
  maxConcurrent: 8,
  // Fewer than the slots: one user's runs leave room for others'.
  perUserConcurrent: 3,
  loopDelayMs: 40,
};

/** Opens the chat API around an agent runtime: database, event log (with Redis when given), runs, history, HTTP app. */
export async function createApi(options: ApiOptions): Promise<Api> {
  const log = logger.child({ part: 'api' });
  const telemetry = await startTelemetry(options.runtime.options.env ?? process.env);
  const database = await openApiDatabase({
    dataDir: options.dataDir,
    databaseUrl: options.databaseUrl,
    schema: options.databaseSchema,
    migrations: API_MIGRATIONS,
  });
  const store = new RunStore(database.db);
  const events = new RunEventLog(store, options.redisUrl, log);
  await events.start();
  const sessions = new Sessions(database.db);
  const usage = new UsageLedger(
    database.db,
    options.usage ?? usageSettings(options.runtime.options.env ?? process.env),
  );
  const runs = new RunManager({
    store,
    usage,
    tracers: telemetry
      ? async (run) => {
          const [models, configured] = await Promise.all([options.runtime.models(), options.runtime.agents()]);
          const agents = new Set([PROCURA_GRAPH, ...configured.map((c) => c.name)]);
          return [
            new GenAiTracer(
              { sessionId: run.sessionId, userId: run.user.username, runId: run.runId },
              { provider: models.provider, agents },
            ),
          ];
        }
      : undefined,
    events,
    sessions,
    runtime: options.runtime,
    limits: { ...DEFAULT_LIMITS, ...options.limits },
    log,
    singleProcess: !options.databaseUrl,
  });
  const recovered = await runs.recoverOrphans();
  if (recovered.failed) log.warn({ runs: recovered.failed }, 'runs interrupted by a restart marked as failed');
  if (recovered.resumable) {
    log.warn(
      { runs: recovered.resumable },
      'decisions interrupted by a restart: carried out on their owner’s next request',
    );
  }
  const history = new History({ db: database.db, runs: store, sessions, runtime: options.runtime, usage });
  const erpBase = options.erpUrl.replace(/\/$/, '');
  const accessTokens = options.accessTokens && new AccessTokenCheck(options.accessTokens.issuers);
  const users = new ErpUsers(
    erpBase,
    fetch,
    accessTokens && ((token) => accessTokens.verify(token, options.accessTokens!.audiences)),
  );
  const env = options.runtime.options.env ?? process.env;
  const now = options.scheduler?.now ?? (() => new Date());
  const sealer = scheduleSealer(options.dataDir, env);
  const schedules = new Schedules({ db: database.db, sealer, timezone: defaultTimezone(env), now });
  const scheduler = new Scheduler({
    db: database.db,
    schedules,
    sealer,
    sessions,
    runs,
    resolveUser: (token, projectId) => users.resolve(`Bearer ${token}`, projectId),
    now,
    log,
  });
  const exports = new ReportExports(history, {
    chromiumPath: loadWebSettings().chromiumPath,
    imageOrigins: options.chartImageOrigins ?? [],
    limits: options.exportLimits,
  });
  const app = createApiApp({
    users,
    runs,
    events,
    history,
    protocol: new AgentProtocol({
      runs,
      runStore: store,
      sessions,
      history,
      events,
      runtime: options.runtime,
      threads: new ThreadMetadata(database.db),
    }),
    protocolStore: new ProtocolStore(async () => (await options.runtime.storage()).store),
    exports,
    erpUrl: erpBase,
    approvals: new OrderApprovals(erpBase),
    rfqs: new RfqDesk(erpBase),
    notices: new OrderNotices({
      database,
      events,
      erpUrl: erpBase,
      log,
      pollMs: options.decisionPollMs ?? decisionPollMs(options.runtime.options.env ?? process.env),
    }),
    schedules,
    scheduler,
    usage,
    webDir: options.webDir ?? WEB_DIST,
    imageOrigins: options.chartImageOrigins,
    demo: new DemoSignIn(options.demoUsers ?? [], options.demoSignIn ?? 'loopback'),
    suggestions: async (user, traceId) =>
      suggestionsFor(
        await options.runtime.registry(),
        { userId: user.username, role: user.role, token: user.token, projectId: user.projectId, traceId },
        await options.runtime.models(),
      ),
    agents: () => options.runtime.agents(),
    agentTools: async (user, agent, traceId) => {
      const ctx = { userId: user.username, role: user.role, token: user.token, projectId: user.projectId, traceId };
      const tools = await options.runtime.toolListing(agent, ctx);
      return { agent: AGENT_ALIASES[agent] ?? agent, tools, totalTokens: tools.reduce((sum, t) => sum + t.tokens, 0) };
    },
    mcp: options.runtime,
    log,
    readiness: {
      erp: async () => {
        const res = await fetch(`${erpBase}/health`, { signal: AbortSignal.timeout(5_000) });
        if (!res.ok) throw new Error(`ERP health ${res.status}`);
        return res.json();
      },
      model: async () => {
        const models = await options.runtime.models();
        return { provider: models.provider, name: models.mainName };
      },
      database: async () => {
        await database.db.withTables<SessionTables>().selectFrom('chat_sessions').select('id').limit(1).execute();
        return database.dialect;
      },
      ...options.readiness,
    },
  });
  const retried = await scheduler.retryInterrupted();
  if (retried.length) log.warn({ runs: retried.length }, 'scheduled runs cut by a restart taken up again');
  if (options.scheduler?.timer !== false) scheduler.start(options.scheduler?.intervalMs);
  return {
    fetch: app.fetch,
    routes: app.routes.map(({ method, path }) => ({ method, path })),
    runs,
    scheduler,
    close: async () => {
      await scheduler.stop();
      await runs.close();
      await exports.close();
      await events.close();
      await database.close();
      await telemetry?.flush();
    },
  };
}

/** Runs the chat API as an HTTP service. */
export async function startApiServer(
  options: ApiOptions & { host: string; port: number },
): Promise<Api & { server: RunningServer }> {
  const api = await createApi(options);
  const server = await listen(api.fetch, options);
  return {
    ...api,
    server,
    close: async () => {
      await server.close();
      await api.close();
    },
  };
}

function decisionPollMs(env: NodeJS.ProcessEnv): number {
  const ms = Number(env.PROCURA_DECISION_POLL_MS);
  return Number.isInteger(ms) && ms >= 100 ? ms : DEFAULT_DECISION_POLL_MS;
}
