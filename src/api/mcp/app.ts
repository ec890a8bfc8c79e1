import { createHash, randomBytes } from 'node:crypto';
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { z } from 'zod';
import type { AgentRuntime } from '../../agent/index.ts';
import { MCP_OAUTH_CALLBACK, McpServerConfigSchema, McpServerError, McpSignInRefused } from '../../mcp/index.ts';
import { conflict, escapeHtml, type Logger, notFound, ProblemError } from '../../shared/index.ts';
import { htmlPage } from '../html-page.ts';
import { ApiRoutes } from '../openapi.ts';

export interface McpAppDeps {
  /** Signs users in at the MCP servers that ask for OAuth. */
  mcp: Pick<AgentRuntime, 'mcpSignIn' | 'finishMcpSignIn'>;
  log: Logger;
}

const SignInAnswer = z.union([
  z.object({ signedIn: z.literal(true) }),
  z.object({
    signedIn: z.literal(false),
    /** Where the user's browser signs in; the authorization server sends it back to the callback. */
    authorizationUrl: z.url(),
  }),
]);

const STYLE = `body{font:15px/1.5 system-ui,"Noto Sans SC",sans-serif;margin:0;background:#f6f7f9;color:#1c2430}
main{max-width:640px;margin:0 auto;padding:24px 16px}h1{font-size:1.3rem}.en{color:#4a5563}`;

/** A short page in both languages, Chinese first; every value in it is escaped by the caller. */
const page = (heading: [string, string], text: [string, string]) =>
  `<h1>${heading[0]} <span class="en">/ ${heading[1]}</span></h1><p>${text[0]}</p><p class="en">${text[1]}</p>`;

const START_AGAIN: [string, string] = [
  '请回到 Procura 重新开始登录（重试需要该服务的请求即可）。',
  'Go back to Procura and start the sign-in again (retry the request that needs the server).',
];

/**
 * The cookie that binds a sign-in to the browser that started it: one per sign-in (named by its `state`), holding a
 * random secret whose hash the sign-in keeps. It goes only to the callback (its path), survives the authorization
 * server's redirect back (SameSite=Lax: a top-level GET), and no script reads it.
 */
const bindingCookie = (state: string) =>
  `procura_mcp_${createHash('sha256').update(state).digest('base64url').slice(0, 16)}`;
const hashOf = (secret: string) => createHash('sha256').update(secret).digest('base64url');

function bindBrowser(c: Context, state: string, secret: string): void {
  setCookie(c, bindingCookie(state), secret, {
    path: MCP_OAUTH_CALLBACK,
    httpOnly: true,
    sameSite: 'Lax',
    secure: new URL(c.req.url).protocol === 'https:',
    maxAge: 10 * 60,
  });
}

/** Error codes of RFC 6749 §4.1.2.1 and the like: shown as they are; anything else is not repeated. */
const ERROR_CODE = /^[a-z_]{1,64}$/;

/**
 * Sign-in at the MCP servers that ask for OAuth, per Procura user: a user starts one (the authorization URL to open),
 * and the authorization server sends their browser back to the callback, which completes it. The callback takes no
 * bearer token: the single-use `state` names the user who started the sign-in, and the cookie set with the start
 * proves it is their browser — a sign-in address completed by anyone else is refused. It answers a page, never a 5xx.
 */
export function mcpApp(deps: McpAppDeps): ApiRoutes {
  const routes = new ApiRoutes();
  const tags = ['mcp'];

  routes.add(
    {
      method: 'post',
      path: '/mcp/servers/{name}/sign-in',
      operationId: 'startMcpSignIn',
      summary: '登录需要 OAuth 的 MCP 服务：已登录，或要打开的授权地址 / sign in to an MCP server that asks for OAuth',
      tags,
      params: { name: McpServerConfigSchema.shape.name },
      responses: {
        200: {
          description:
            'signed in already, or the authorization URL to open in the same browser (a cookie binds the sign-in to it)',
          json: SignInAnswer,
        },
        404: { description: '没有这个 MCP 服务 / no such MCP server' },
        409: { description: '该服务不用 OAuth 登录 / the server takes no OAuth sign-in' },
        503: { description: '该服务或其授权服务器无法访问 / the server or its authorization server is unreachable' },
      },
    },
    async (c, { params }) => {
      let url: URL | undefined;
      const secret = randomBytes(32).toString('base64url');
      try {
        url = await deps.mcp.mcpSignIn(params.name, c.var.user.username, hashOf(secret));
      } catch (error) {
        if (error instanceof McpSignInRefused)
          throw error.reason === 'unknown_server' ? notFound(error.message) : conflict(error.message);
        if (error instanceof McpServerError) throw new ProblemError(503, 'mcp_unavailable', error.message);
        throw error;
      }
      const state = url?.searchParams.get('state');
      if (state) bindBrowser(c, state, secret);
      const answer: z.output<typeof SignInAnswer> = url
        ? { signedIn: false, authorizationUrl: url.toString() }
        : { signedIn: true };
      return c.json(answer);
    },
  );

  routes.add(
    {
      method: 'get',
      path: '/mcp/oauth/callback',
      operationId: 'finishMcpSignIn',
      summary: 'MCP 服务 OAuth 登录的回调（浏览器由授权服务器带回）/ where an MCP server’s OAuth sign-in returns',
      tags,
      public: true,
      query: z.object({
        code: z.string().optional(),
        state: z.string().optional(),
        /** The authorization server's refusal (e.g. `access_denied`) instead of a code. */
        error: z.string().optional(),
      }),
      responses: {
        200: { description: '已登录：可关闭此页 / signed in: the tab may be closed', html: true },
        400: {
          description: '登录被拒绝，或 state 不存在、已用过、已过期 / refused, or an unknown, used or expired state',
          html: true,
        },
        403: {
          description: '登录不是在这个浏览器中开始的 / the sign-in was started in another browser',
          html: true,
        },
      },
    },
    async (c, { query }) => {
      const refused = (text: [string, string], status = 400) =>
        htmlPage(c, status, {
          title: '未登录 / Not signed in',
          style: STYLE,
          body: page(['未登录', 'Not signed in'], text),
        });
      if (query.error) {
        const code = ERROR_CODE.test(query.error) ? escapeHtml(query.error) : undefined;
        return refused([
          `授权服务器没有完成登录${code ? `（${code}）` : ''}。${START_AGAIN[0]}`,
          `The authorization server did not sign you in${code ? ` (${code})` : ''}. ${START_AGAIN[1]}`,
        ]);
      }
      const stale: [string, string] = [
        `登录链接不存在、已用过或已超过 10 分钟。${START_AGAIN[0]}`,
        `This sign-in is unknown, was used already, or is older than 10 minutes. ${START_AGAIN[1]}`,
      ];
      if (!query.code || !query.state) return refused(stale);
      const otherBrowser = () =>
        refused(
          [
            `这个登录不是在此浏览器中由您开始的，未保存任何登录。${START_AGAIN[0]}`,
            `This sign-in was not started by you in this browser; nothing was kept. ${START_AGAIN[1]}`,
          ],
          403,
        );
      const cookie = bindingCookie(query.state);
      // Without the cookie, the hash of nothing: no sign-in is bound to it, so another browser's attempt is refused.
      const browser = hashOf(getCookie(c, cookie) ?? '');
      let done: { server: string; user: string };
      try {
        done = await deps.mcp.finishMcpSignIn(query.state, query.code, browser);
      } catch (error) {
        if (error instanceof McpSignInRefused)
          return error.reason === 'other_browser' ? otherBrowser() : refused(stale);
        // The code was refused or the server could not be reached: the sign-in is spent, the user starts anew.
        deps.log.warn({ err: error, traceId: c.get('traceId') }, 'MCP sign-in not completed');
        return refused([`登录未能完成。${START_AGAIN[0]}`, `The sign-in could not be completed. ${START_AGAIN[1]}`]);
      }
      deleteCookie(c, cookie, { path: MCP_OAUTH_CALLBACK });
      const server = escapeHtml(done.server);
      return htmlPage(c, 200, {
        title: `已登录 ${done.server} / Signed in to ${done.server}`,
        style: STYLE,
        body: page(
          [`已登录 ${server}`, `Signed in to ${server}`],
          ['可以关闭此页，回到 Procura 重试刚才的请求。', 'You can close this tab and retry your request in Procura.'],
        ),
      });
    },
  );
  return routes;
}
