import { Hono } from 'hono';
import {
  bodyLimitProblem,
  httpServerSpans,
  type Logger,
  ProblemError,
  problemErrorHandler,
  problemResponse,
  traceIdMiddleware,
} from '../shared/index.ts';
import { type AdminAppDeps, adminApp } from './admin/app.ts';
import { type ApprovalsAppDeps, approvalsApp } from './approvals/app.ts';
import type { ErpUsers } from './auth.ts';
import { type ChatAppDeps, chatApp } from './chat/app.ts';
import type { ApiEnv } from './http.ts';
import { redact } from './redact.ts';
import { type ReportsAppDeps, reportsApp } from './reports/app.ts';
import { type SchedulesAppDeps, schedulesApp } from './schedules/app.ts';
import { serveWebUi } from './web-ui.ts';

export const MAX_BODY_BYTES = 64 * 1024;
/** Routes answered without a bearer token. */
const PUBLIC_PATHS = new Set(['/api/v1/health', '/api/v1/ready', '/api/v1/demo-users', '/api/v1/demo-sign-in']);

/** What the edge needs, and what each feature app needs. */
export type ApiAppDeps = ChatAppDeps &
  AdminAppDeps &
  ApprovalsAppDeps &
  SchedulesAppDeps &
  ReportsAppDeps & {
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
 * `/api/v1` (chat and history, approvals, schedules, reports, admin), and the browser UI at `/`.
 */
export function createApiApp(deps: ApiAppDeps): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.use('*', httpServerSpans('procura.api'));
  app.use('*', traceIdMiddleware());
  app.use('/api/*', bodyLimitProblem(MAX_BODY_BYTES));
  app.use('/api/v1/*', async (c, next) => {
    if (PUBLIC_PATHS.has(c.req.path)) return next();
    const authorization = deps.demo.authorization(c.req.header('authorization'));
    c.set('user', await deps.users.resolve(authorization, c.req.header('x-project-id') || undefined));
    await next();
  });

  app.onError(problemErrorHandler(deps.log, 'API'));

  app.get('/api/v1/health', (c) => c.json({ status: 'ok', running_runs: deps.runs.running }));
  app.get('/api/v1/ready', async (c) => {
    const checks = await Promise.all(
      Object.entries(deps.readiness).map(async ([name, check]) => {
        try {
          return [name, { ok: true, detail: await check() }] as const;
        } catch (error) {
          return [name, { ok: false, detail: redact((error as Error).message) }] as const;
        }
      }),
    );
    const ready = checks.every(([, r]) => r.ok);
    return c.json({ status: ready ? 'ready' : 'not_ready', checks: Object.fromEntries(checks) }, ready ? 200 : 503);
  });
  app.get('/api/v1/me', (c) => {
    const { username, displayName, role, projectId } = c.var.user;
    return c.json({ username, display_name: displayName, role, project_id: projectId });
  });

  app.route('/api/v1', adminApp(deps));
  app.route('/api/v1', chatApp(deps));
  app.route('/api/v1', approvalsApp(deps));
  app.route('/api/v1', schedulesApp(deps));
  app.route('/api/v1', reportsApp(deps));

  app.all('/api/*', (c) =>
    problemResponse(c, new ProblemError(404, 'not_found', `没有这个接口 / no route ${c.req.method} ${c.req.path}`)),
  );
  serveWebUi(app, deps.webDir, deps.imageOrigins ?? []);
  app.notFound((c) =>
    problemResponse(c, new ProblemError(404, 'not_found', `没有这个页面 / nothing at ${c.req.path}`)),
  );
  return app;
}
