import { Hono } from 'hono';
import { type ApiEnv, parseInput, parseJson } from '../http.ts';
import type { DemoSignIn } from './demo.ts';
import { DemoSignInBody, UsageQuery } from './schemas.ts';
import type { UsageLedger } from './usage.ts';

export interface AdminAppDeps {
  usage: UsageLedger;
  /** Embedded mode's one-click demo sign-in (offers nothing outside embedded mode). */
  demo: DemoSignIn;
}

/** Model usage per user and day (admins only), and the embedded demo's one-click sign-in. */
export function adminApp(deps: AdminAppDeps): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get('/demo-users', (c) => c.json(deps.demo.list(c)));
  app.post('/demo-sign-in', async (c) => {
    const body = await parseJson(c, DemoSignInBody);
    c.header('cache-control', 'no-store');
    return c.json(deps.demo.signIn(c, body.username), 201);
  });

  app.get('/admin/usage', async (c) => {
    const q = parseInput(UsageQuery, c.req.query(), 'query');
    return c.json(await deps.usage.perUserDay(c.var.user, q.days));
  });

  return app;
}
