import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StartedStack, startStack } from '../../bench/eval/stack.ts';
import { sleep } from '../../src/shared/index.ts';
import { signInAt } from './oauth-browser.ts';

/**
 * The authorization server of `procura start` by the book, against attacks on it: no page of it can be framed, only
 * the code flow with PKCE (S256) is offered, and open registration is bounded — loopback-only http redirect URIs,
 * metadata size, registrations per address, and clients that run out unless a token is issued to them.
 */
let stack: StartedStack;
let issuer: string;
let mcpUrl: string;
/** How long a registered client lives unused in this stack (seconds). */
const UNUSED_S = 8;
const REDIRECT = 'http://127.0.0.1:8976/callback';

beforeAll(async () => {
  stack = await startStack({ settings: { oauthUnusedClientSeconds: UNUSED_S } });
  issuer = stack.parts.get('MCP sign-in')!.url;
  mcpUrl = stack.parts.get('ERP MCP')!.url;
}, 180_000);
afterAll(() => stack?.close());

const register = (metadata: Record<string, unknown>) =>
  fetch(`${issuer}/reg`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      ...metadata,
    }),
  });

async function registered(metadata: Record<string, unknown> = {}): Promise<string> {
  const res = await register({ client_name: 'Desktop', redirect_uris: [REDIRECT], ...metadata });
  const body = (await res.json()) as { client_id: string };
  expect(res.status, JSON.stringify(body)).toBe(201);
  return body.client_id;
}

const verifier = () => randomBytes(32).toString('base64url');
const challenge = (v: string) => createHash('sha256').update(v).digest('base64url');

function authorizeUrl(clientId: string, params: Record<string, string> = {}) {
  const url = new URL(`${issuer}/auth`);
  for (const [key, value] of Object.entries({
    client_id: clientId,
    response_type: 'code',
    redirect_uri: REDIRECT,
    scope: 'mcp offline_access',
    prompt: 'consent',
    resource: mcpUrl,
    state: 'xyz',
    code_challenge: challenge(verifier()),
    code_challenge_method: 'S256',
    ...params,
  }))
    url.searchParams.set(key, value);
  return url;
}

const token = (form: Record<string, string>) =>
  fetch(`${issuer}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });

/** Signs laoxiao in through `clientId`; the token endpoint's answer for the code. */
async function signedIn(clientId: string) {
  const v = verifier();
  const back = await signInAt(authorizeUrl(clientId, { code_challenge: challenge(v) }), {
    token: stack.tokens.laoxiao,
  });
  const code = back.searchParams.get('code');
  expect(code, back.toString()).toBeTruthy();
  const form = {
    grant_type: 'authorization_code',
    code: code!,
    redirect_uri: REDIRECT,
    client_id: clientId,
    code_verifier: v,
  };
  const res = await token(form);
  expect(res.status).toBe(200);
  return { form, tokens: (await res.json()) as { access_token: string; refresh_token: string } };
}

const expectNoFraming = (res: Response, what: string) => {
  expect(res.headers.get('content-security-policy'), what).toContain("frame-ancestors 'none'");
  expect(res.headers.get('x-frame-options'), what).toBe('DENY');
};

describe('the authorization server', () => {
  it('sends frame-ancestors none and X-Frame-Options DENY on the sign-in, consent and error pages', async () => {
    const clientId = await registered();
    const start = await fetch(authorizeUrl(clientId), { redirect: 'manual' });
    expect(start.status).toBe(303);
    const cookie = start.headers
      .getSetCookie()
      .map((line) => line.split(';')[0])
      .join('; ');
    const form = await fetch(new URL(start.headers.get('location')!, issuer), { headers: { cookie } });
    expect(form.status).toBe(200);
    expect(await form.text()).toMatch(/登录 Procura/);
    expectNoFraming(form, 'sign-in page');
    // A wrong token answers the page again, with the reason.
    const again = await fetch(new URL(start.headers.get('location')!, issuer), {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'token=pk_wrong&decision=allow',
    });
    expect(again.status).toBe(401);
    expectNoFraming(again, 'sign-in page with an error');
    const stale = await fetch(`${issuer}/interaction/nope`);
    expect(stale.status).toBe(400);
    expectNoFraming(stale, 'unknown interaction');
    // oidc-provider's own error page: an unknown client.
    const unknown = await fetch(authorizeUrl('no-such-client'));
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toMatch(/登录出错/);
    expectNoFraming(unknown, 'error page');
  });

  it('offers the code flow with PKCE S256 alone: no implicit or hybrid response types, no other grants', async () => {
    const metadata = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as Record<
      string,
      unknown
    >;
    expect(metadata.response_types_supported).toEqual(['code']);
    expect(metadata.grant_types_supported).toEqual(['authorization_code', 'refresh_token']);
    expect(metadata.code_challenge_methods_supported).toEqual(['S256']);

    for (const response_types of [['id_token'], ['code id_token'], ['code token'], ['token']]) {
      const res = await register({ redirect_uris: [REDIRECT], response_types });
      expect(res.status, response_types[0]).toBe(400);
      expect(((await res.json()) as { error: string }).error).toBe('invalid_client_metadata');
    }
    const implicit = await register({ redirect_uris: [REDIRECT], grant_types: ['implicit'] });
    expect(implicit.status).toBe(400);

    const clientId = await registered();
    for (const response_type of ['id_token', 'code id_token', 'token', 'code token']) {
      const res = await fetch(authorizeUrl(clientId, { response_type }), { redirect: 'manual' });
      const to = new URL(res.headers.get('location') ?? 'http://none/', issuer);
      const error = to.searchParams.get('error') ?? new URLSearchParams(to.hash.slice(1)).get('error');
      expect(error ?? `${res.status}`, response_type).toMatch(/unsupported_response_type|invalid_request|400/);
      expect(to.searchParams.get('code'), response_type).toBeNull();
    }
    // Held: PKCE is required, and S256 only.
    for (const params of [
      { code_challenge_method: 'plain' },
      { code_challenge: '', code_challenge_method: '' },
    ] as Array<Record<string, string>>) {
      const res = await fetch(authorizeUrl(clientId, params), { redirect: 'manual' });
      expect(new URL(res.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
    }
  });

  it('takes http redirect URIs on loopback only: https elsewhere, a private-use scheme for native apps', async () => {
    for (const uri of ['http://example.com/cb', 'http://192.168.1.10:8080/cb', 'http://127.0.0.1.nip.io/cb']) {
      const res = await register({ redirect_uris: [REDIRECT, uri] });
      const body = (await res.json()) as { error: string; error_description: string };
      expect(res.status, uri).toBe(400);
      expect(body.error, uri).toBe('invalid_redirect_uri');
      expect(body.error_description).toMatch(/loopback/);
    }
    for (const uri of ['https://client.example.com/cb', 'http://localhost:9000/cb', 'http://[::1]:9000/cb'])
      await registered({ redirect_uris: [uri] });
    await registered({ redirect_uris: ['com.example.desktop:/oauth/cb'], application_type: 'native' });
    expect((await register({ redirect_uris: ['javascript:alert(1)'], application_type: 'native' })).status).toBe(400);
  });

  it('refuses oversized metadata with a 400 and stores nothing of it', async () => {
    const clients = () =>
      stack.erp.database.db
        .selectFrom('oauth_records')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('model', '=', 'Client')
        .executeTakeFirstOrThrow();
    const before = Number((await clients()).n);
    const big = 'x'.repeat(40 * 1024);
    for (const metadata of [
      { client_name: big },
      {
        redirect_uris: Array.from({ length: 400 }, (_, i) => `http://127.0.0.1:${1024 + i}/callback/${'y'.repeat(80)}`),
      },
    ]) {
      const res = await register({ redirect_uris: [REDIRECT], ...metadata });
      const body = (await res.json()) as { error: string; error_description: string };
      expect(res.status).toBe(400);
      expect(body).toMatchObject({ error: 'invalid_client_metadata' });
      expect(body.error_description).toMatch(/too large/);
    }
    expect(Number((await clients()).n)).toBe(before);
  });

  it('lets a client nobody used run out, and keeps one a token was issued to', async () => {
    const used = await registered();
    const unused = await registered();
    const { form, tokens } = await signedIn(used);
    await sleep((UNUSED_S + 1) * 1000);

    const gone = await fetch(authorizeUrl(unused), { redirect: 'manual' });
    expect(gone.status).toBe(400);
    expect(await gone.text()).toMatch(/invalid_client|client is invalid/);
    const live = await fetch(authorizeUrl(used), { redirect: 'manual' });
    expect(live.status).toBe(303);
    const refresh = { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: used };
    const refreshed = await token(refresh);
    expect(refreshed.status, await refreshed.clone().text()).toBe(200);
    expect(((await refreshed.json()) as { refresh_token: string }).refresh_token).toBeTruthy();
    // Held: a refresh token and a code work once (the refresh token is rotated; a code used again is refused).
    expect((await token(refresh)).status).toBe(400);
    expect((await token(form)).status).toBe(400);
  }, 60_000);

  // Last: it spends this address's registrations.
  it('limits registrations per client address: past the limit 429 with Retry-After, and nothing stored', async () => {
    const answers = await Promise.all(
      Array.from({ length: 60 }, () => register({ client_name: 'flood', redirect_uris: [REDIRECT] })),
    );
    // 30 a window per address, the registrations of the tests above included.
    const limited = answers.filter((res) => res.status === 429);
    expect(answers.filter((res) => res.status === 201).length).toBeLessThanOrEqual(30);
    expect(limited.length).toBeGreaterThanOrEqual(30);
    expect(Number(limited[0].headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await limited[0].json()).toMatchObject({ error: 'rate_limited' });
    const stored = await stack.erp.database.db
      .selectFrom('oauth_records')
      .select('payload')
      .where('model', '=', 'Client')
      .execute();
    expect(stored.filter((row) => row.payload.includes('"flood"')).length).toBeLessThanOrEqual(30);
  });
});
