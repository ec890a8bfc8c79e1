import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StartedStack, startStack } from '../../bench/eval/stack.ts';
import { McpTokenStore } from '../../src/mcp/index.ts';
import { freePort } from '../../src/tools/index.ts';
import { signInAt } from '../mcp/oauth-browser.ts';

/**
 * A Procura user signs in at an MCP server of `PROCURA_MCP_SERVERS` that asks for OAuth, through the chat API: the
 * ERP's own MCP server configured once more as `ledger` (no ERP credentials forwarded, so it answers 401 and names
 * the ERP's authorization server). The user starts the sign-in, their browser signs in and consents there as the ERP
 * user and comes back to Procura's callback, which keeps the token for that user alone; the state works once.
 */
let stack: StartedStack;
let api: (path: string, user: string, init?: RequestInit) => Promise<Response>;

beforeAll(async () => {
  // The ERP MCP server's port is fixed first: the extra server's address is in the settings Procura starts with.
  const erpMcpPort = await freePort('127.0.0.1');
  stack = await startStack({
    settings: {
      erpMcpPort,
      mcpServers: JSON.stringify([{ name: 'ledger', url: `http://127.0.0.1:${erpMcpPort}/mcp`, prefix: 'ledger_' }]),
      // No agent's YAML names `ledger`: its tools are called through the runtime here, not by an agent.
      toolSetCheck: 'warn',
    },
  });
  api = (path, user, init = {}) =>
    fetch(`${stack.apiUrl}/api/v1${path}`, {
      ...init,
      headers: { authorization: `Bearer ${stack.tokens[user]}`, ...init.headers },
    });
}, 180_000);
afterAll(() => stack?.close());

const signIn = (server: string, user: string) => api(`/mcp/servers/${server}/sign-in`, user, { method: 'POST' });

/** A user's browser at Procura: the cookies Procura set on it (`name=value` each). */
type Jar = string[];
const cookiesOf = (res: Response): Jar => res.headers.getSetCookie().map((line) => line.split(';')[0]);

/** A user starts a sign-in from their browser: the authorization URL and the cookies that came with it. */
async function startSignIn(user: string): Promise<{ url: URL; jar: Jar; setCookie: string[] }> {
  const res = await signIn('ledger', user);
  const setCookie = res.headers.getSetCookie();
  const body = (await res.json()) as { signedIn: boolean; authorizationUrl?: string };
  expect(res.status, JSON.stringify(body)).toBe(200);
  expect(body.signedIn).toBe(false);
  return { url: new URL(body.authorizationUrl!), jar: cookiesOf(res), setCookie };
}

async function authorizationUrl(user: string): Promise<URL> {
  return (await startSignIn(user)).url;
}

/** The authorization server's redirect back, as that browser's navigation: its cookies, no bearer token. */
const returnTo = (back: URL, jar: Jar) => fetch(back, { headers: { cookie: jar.join('; ') } });

describe('MCP sign-in through the chat API', () => {
  it('signs a user in at the server through the authorization server and the callback, for that user only', async () => {
    const runtime = stack.parts.get('Chat API + UI')!.runtime!;
    const ctx = { userId: 'laoxiao', role: 'buyer' as const, traceId: 'mcp-signin' };

    const { url, jar, setCookie } = await startSignIn('laoxiao');
    expect(url.origin).toBe(stack.parts.get('MCP sign-in')!.url);
    expect(url.searchParams.get('redirect_uri')).toBe(`${stack.apiUrl}/api/v1/mcp/oauth/callback`);
    // The browser that started it holds a secret only the callback gets, out of any script's reach.
    expect(setCookie).toHaveLength(1);
    expect(setCookie[0]).toMatch(/; Path=\/api\/v1\/mcp\/oauth\/callback/);
    expect(setCookie[0]).toMatch(/; HttpOnly/);
    expect(setCookie[0]).toMatch(/; SameSite=Lax/);
    const back = await signInAt(url, { token: stack.tokens.laoxiao, expectPage: /Procura/ });
    expect(back.origin + back.pathname).toBe(`${stack.apiUrl}/api/v1/mcp/oauth/callback`);

    // The authorization server's redirect is a browser navigation: that browser's cookie, no bearer token.
    const done = await returnTo(back, jar);
    const page = await done.text();
    expect(done.status, page).toBe(200);
    expect(done.headers.get('content-type')).toMatch(/^text\/html/);
    expect(done.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page).toMatch(/已登录 ledger.*Signed in to ledger/s);

    const again = await returnTo(back, jar);
    expect(again.status).toBe(400);
    expect(await again.text()).toMatch(/已用过.*used already/s);

    // The token is laoxiao's alone: zhangwei is still asked to sign in, by the route and by a tool result.
    const store = McpTokenStore.open(stack.dataDir);
    expect(store.tokens('ledger', 'laoxiao')?.access_token).toBeTruthy();
    expect(store.tokens('ledger', 'zhangwei')).toBeUndefined();
    expect((await authorizationUrl('zhangwei')).origin).toBe(url.origin);
    expect(await (await signIn('ledger', 'laoxiao')).json()).toEqual({ signedIn: true });

    // The server's tools answer laoxiao now, and ask zhangwei to sign in.
    const registry = await runtime.registry();
    const found = await registry.execute('ledger_part_search', { name: 'F7TC' }, ctx, { approved: true });
    expect(JSON.stringify(found)).toContain('F7TC');
    const other = await registry.execute('ledger_part_search', { name: 'F7TC' }, { ...ctx, userId: 'zhangwei' }, {});
    expect(JSON.stringify(other)).toContain(`sign-in required: start it in Procura (POST ${stack.apiUrl}/api/v1/mcp/`);
  }, 60_000);

  it("refuses a sign-in address completed by another user's browser: the starter gets no sign-in as them", async () => {
    const store = () => McpTokenStore.open(stack.dataDir);
    // zhangwei starts a sign-in and passes its address to viewer, who signs in and consents there as themself.
    const started = await startSignIn('zhangwei');
    const theirs = await startSignIn('viewer');
    const back = await signInAt(started.url, { token: stack.tokens.viewer, expectPage: /Procura/ });
    expect(back.searchParams.get('code')).toBeTruthy();

    // Their browser brings the code back: with their own cookies, with none, and with a forged value of the right name.
    const forged = started.jar.map((cookie) => `${cookie.slice(0, cookie.indexOf('='))}=forged`);
    for (const jar of [theirs.jar, [], forged]) {
      const refused = await returnTo(back, jar);
      const text = await refused.text();
      expect(refused.status, text).toBe(403);
      expect(refused.headers.get('content-type')).toMatch(/^text\/html/);
      expect(text).toMatch(/不是在此浏览器中由您开始.*not started by you in this browser/s);
    }
    expect(store().tokens('ledger', 'zhangwei')).toBeUndefined();
    expect(store().tokens('ledger', 'viewer')).toBeUndefined();
    expect(await (await signIn('ledger', 'zhangwei')).json()).toMatchObject({ signedIn: false });

    // zhangwei completes his own sign-in in his own browser, as himself.
    const own = await startSignIn('zhangwei');
    const ownBack = await signInAt(own.url, { token: stack.tokens.zhangwei, expectPage: /Procura/ });
    const done = await returnTo(ownBack, own.jar);
    expect(done.status, await done.text()).toBe(200);
    expect(store().tokens('ledger', 'zhangwei')?.access_token).toBeTruthy();
    expect(await (await signIn('ledger', 'zhangwei')).json()).toEqual({ signedIn: true });
  }, 60_000);

  it('answers a refused, unknown or incomplete callback with a 400 page that repeats nothing unescaped', async () => {
    const callback = `${stack.apiUrl}/api/v1/mcp/oauth/callback`;
    const denied = await fetch(`${callback}?error=access_denied&state=whatever`);
    expect(denied.status).toBe(400);
    expect(await denied.text()).toMatch(/未登录.*access_denied/s);

    const hostile = '<script>alert(1)</script>';
    for (const query of [
      `error=${encodeURIComponent(hostile)}`,
      `code=abc&state=${encodeURIComponent(hostile)}`,
      'code=abc',
      '',
    ]) {
      const res = await fetch(`${callback}?${query}`);
      const text = await res.text();
      expect(res.status, query).toBe(400);
      expect(res.headers.get('content-type'), query).toMatch(/^text\/html/);
      expect(text, query).toMatch(/Procura/);
      expect(text, query).not.toContain('<script');
    }
  });

  it('refuses an unknown server (404) and one that takes no OAuth sign-in (409), and a caller without a token', async () => {
    const unknown = await signIn('nowhere', 'laoxiao');
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toContain('application/problem+json');
    const erp = await signIn('erp', 'laoxiao');
    expect(erp.status).toBe(409);
    expect(((await erp.json()) as { detail: string }).detail).toMatch(/不需要登录.*takes no OAuth sign-in/);
    const anonymous = await fetch(`${stack.apiUrl}/api/v1/mcp/servers/ledger/sign-in`, { method: 'POST' });
    expect(anonymous.status).toBe(401);
  });

  it('declares both routes in the OpenAPI document, the callback public and answering HTML', async () => {
    const doc = (await (await fetch(`${stack.apiUrl}/api/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { security?: unknown[]; responses: Record<string, { content?: object }> }>>;
    };
    const callback = doc.paths['/mcp/oauth/callback'].get;
    expect(callback.security).toEqual([]);
    expect(Object.keys(callback.responses[400].content ?? {})).toEqual(['text/html']);
    expect(Object.keys(doc.paths['/mcp/servers/{name}/sign-in'].post.responses)).toEqual(
      expect.arrayContaining(['200', '401', '404', '409', '503']),
    );
  });
});
