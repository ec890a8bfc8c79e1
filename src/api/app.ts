import { Hono } from 'hono';
import { z } from 'zod';
import { HealthSchema, type Me, MeSchema, type Readiness, ReadinessSchema } from '../protocol/index.ts';
import {
  bodyLimitProblem,
  httpServerSpans,
  type Logger,
  ProblemError,
  problemErrorHandler,
  problemResponse,
  redactKnown,
  traceIdMiddleware,
} from '../shared/index.ts';
import { type AdminAppDeps, adminApp } from './admin/app.ts';
import { type AgentProtocolAppDeps, agentProtocolApp } from './agent-protocol/app.ts';
import { type ApprovalsAppDeps, approvalsApp } from './approvals/app.ts';
import type { ErpUsers } from './auth.ts';
import { type ChatAppDeps, chatApp } from './chat/app.ts';
import type { ApiEnv } from './http.ts';
import { type McpAppDeps, mcpApp } from './mcp/app.ts';
import { ApiRoutes, type Operation, openApiDocument } from './openapi.ts';
import { type ReportsAppDeps, reportsApp } from './reports/app.ts';
import { type RfqsAppDeps, rfqsApp } from './rfqs/app.ts';
import { serveQuoteForm } from './rfqs/quote-form.ts';
import { type SchedulesAppDeps, schedulesApp } from './schedules/app.ts';
import { serveWebUi } from './web-ui.ts';

export const MAX_BODY_BYTES = 64 * 1024;
/** The OpenAPI document's own entry in it. */
const OPENAPI_OPERATION = {
  method: 'get',
  path: '/openapi.json',
  operationId: 'getOpenApiDocument',
  summary: '本接口的 OpenAPI 3.1 文档 / this API’s OpenAPI 3.1 document',
  tags: ['service'],
  public: true,
  responses: { 200: { description: 'the document', json: z.looseObject({ openapi: z.string() }) } },
} satisfies Operation;

/** What the edge needs, and what each feature app needs. */
export type ApiAppDeps = ChatAppDeps &
  AgentProtocolAppDeps &
  AdminAppDeps &
  ApprovalsAppDeps &
  SchedulesAppDeps &
  ReportsAppDeps &
  RfqsAppDeps &
  McpAppDeps & {
    /** ERP REST base: the quote form hands suppliers' replies to its quote-form call. */
    erpUrl: string;
    users: ErpUsers;
    /** Readiness checks by name; each resolves when its dependency answers. */
    readiness: Record<string, () => Promise<unknown>>;
    /** Built browser UI (`web/dist`), served at `/` when it exists. */
    webDir?: string;
    /** Origins the browser UI may load images from besides itself (the chart renderer's). */
    imageOrigins?: string[];
    log: Logger;
  };

/**
 * The chat API's edge: tracing, body limit and sign-in for every route, problem+json errors, the feature apps under
 * `/api/v1` (chat and history, approvals, schedules, reports, RFQs, admin, MCP sign-in, the Agent Protocol), and the
 * browser UI at `/`.
 */
export function createApiApp(deps: ApiAppDeps): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.use('*', httpServerSpans('procura.api'));
  app.use('*', traceIdMiddleware());
  app.use('/api/*', bodyLimitProblem(MAX_BODY_BYTES));
  // The quote form posts a supplier's figures: bounded like every API body.
  app.use('/quote/*', bodyLimitProblem(MAX_BODY_BYTES));
  // Routes declared public answer without a bearer token; the set is known once every feature declared its routes.
  let publicPaths = new Set<string>();
  app.use('/api/v1/*', async (c, next) => {
    if (publicPaths.has(c.req.path)) return next();
    const authorization = deps.demo.authorization(c.req.header('authorization'));
    const user = await deps.users.resolve(authorization, c.req.header('x-project-id') || undefined);
    c.set('user', user);
    // A token revoked while its stream is open: the stream closes and the user's runs in this process stop.
    c.set('signedIn', async () => {
      if (await deps.users.stillSignedIn(user)) return true;
      // Not awaited: the stream says why it ends before the runs' own ends could reach it.
      void deps.runs.stopFor(user.token).catch((error) => deps.log.error({ err: error }, 'runs not stopped'));
      return false;
    });
    await next();
  });

  app.onError(problemErrorHandler(deps.log, 'API'));

  const edge = new ApiRoutes();
  const tags = ['service'];
  edge.add(
    {
      method: 'get',
      path: '/health',
      operationId: 'getHealth',
      summary: '存活 / liveness',
      tags,
      public: true,
      responses: { 200: { description: 'alive', json: HealthSchema } },
    },
    (c) => c.json({ status: 'ok', running_runs: deps.runs.running }),
  );
  edge.add(
    {
      method: 'get',
      path: '/ready',
      operationId: 'getReadiness',
      summary: '就绪：ERP、模型、数据库 / readiness of ERP, model, database',
      tags,
      public: true,
      responses: {
        200: { description: 'ready', json: ReadinessSchema },
        503: { description: 'a dependency fails', json: ReadinessSchema },
      },
    },
    async (c) => {
      const checks = await Promise.all(
        Object.entries(deps.readiness).map(async ([name, check]) => {
          try {
            return [name, { ok: true, detail: await check() }] as const;
          } catch (error) {
            return [name, { ok: false, detail: redactKnown((error as Error).message) }] as const;
          }
        }),
      );
      const ready = checks.every(([, r]) => r.ok);
      const answer: Readiness = { status: ready ? 'ready' : 'not_ready', checks: Object.fromEntries(checks) };
      return c.json(answer, ready ? 200 : 503);
    },
  );
  edge.add(
    {
      method: 'get',
      path: '/me',
      operationId: 'getMe',
      summary: '当前用户 / the signed-in user',
      tags,
      responses: {
        200: { description: 'the user', json: MeSchema },
      },
    },
    (c) => {
      const { username, displayName, role, projectId } = c.var.user;
      const me: Me = { username, display_name: displayName, role, project_id: projectId };
      return c.json(me);
    },
  );

  const features = [
    edge,
    adminApp(deps),
    chatApp(deps),
    approvalsApp(deps),
    schedulesApp(deps),
    reportsApp(deps),
    rfqsApp(deps),
    mcpApp(deps),
    agentProtocolApp(deps),
  ];
  const operations = features.flatMap((feature) => feature.operations);
  const document = openApiDocument([OPENAPI_OPERATION, ...operations]);
  app.get(`/api/v1${OPENAPI_OPERATION.path}`, (c) => c.json(document));
  for (const feature of features) app.route('/api/v1', feature.app);
  publicPaths = new Set([OPENAPI_OPERATION, ...operations].filter((op) => op.public).map((op) => `/api/v1${op.path}`));

  app.all('/api/*', (c) =>
    problemResponse(c, new ProblemError(404, 'not_found', `没有这个接口 / no route ${c.req.method} ${c.req.path}`)),
  );
  // Before the browser UI: the quote form is a page of its own, with its own policy.
  serveQuoteForm(app, deps.erpUrl);
  serveWebUi(app, deps.webDir, deps.imageOrigins ?? []);
  app.notFound((c) =>
    problemResponse(c, new ProblemError(404, 'not_found', `没有这个页面 / nothing at ${c.req.path}`)),
  );
  return app;
}
