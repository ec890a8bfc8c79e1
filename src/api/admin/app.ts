import { z } from 'zod';
import { UsageReportSchema } from '../../protocol/index.ts';
import { ApiRoutes } from '../openapi.ts';
import type { DemoSignIn } from './demo.ts';
import { DemoSignInBody, UsageQuery } from './schemas.ts';
import type { UsageLedger } from './usage.ts';

export interface AdminAppDeps {
  usage: UsageLedger;
  /** Embedded mode's one-click demo sign-in (offers nothing outside embedded mode). */
  demo: DemoSignIn;
}

/** Model usage per user and day (admins only), and the embedded demo's one-click sign-in. */
export function adminApp(deps: AdminAppDeps): ApiRoutes {
  const routes = new ApiRoutes();
  const tags = ['admin'];

  routes.add(
    {
      method: 'get',
      path: '/demo-users',
      operationId: 'listDemoUsers',
      summary: '内置演示用户（仅本机、嵌入模式）/ the embedded demo’s users (loopback clients only)',
      tags,
      public: true,
      responses: {
        200: {
          description: 'demo users, never a token',
          json: z.array(z.object({ username: z.string(), displayName: z.string(), role: z.string() })),
        },
      },
    },
    (c) => c.json(deps.demo.list(c)),
  );
  routes.add(
    {
      method: 'post',
      path: '/demo-sign-in',
      operationId: 'demoSignIn',
      summary: '以演示用户登录 8 小时 / an 8-hour session as a demo user',
      tags,
      public: true,
      body: DemoSignInBody,
      responses: {
        201: {
          description: 'a session token',
          json: z.object({ token: z.string(), token_type: z.string(), username: z.string(), expires_at: z.string() }),
        },
        403: { description: 'demo sign-in is not offered to this client' },
        404: { description: 'admin or unknown user' },
      },
    },
    (c, { body }) => {
      c.header('cache-control', 'no-store');
      return c.json(deps.demo.signIn(c, body.username), 201);
    },
  );

  routes.add(
    {
      method: 'get',
      path: '/admin/usage',
      operationId: 'getUsage',
      summary: '每用户每日的模型用量（管理员）/ model usage per user and day (admins)',
      tags,
      query: UsageQuery,
      responses: {
        200: { description: 'usage rows', json: UsageReportSchema },
        403: { description: 'admins only' },
      },
    },
    async (c, { query }) => c.json(await deps.usage.perUserDay(c.var.user, query.days)),
  );

  return routes;
}
