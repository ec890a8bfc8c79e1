import net from 'node:net';
import type { Context } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_SESSION_PREFIX, DemoSignIn, type DemoUser, demoSignInMode } from '../../src/api/index.ts';
import { DEMO_USERS } from '../../src/erp/index.ts';
import { type ApiHarness, startApiHarness } from './harness.ts';

type Call = ApiHarness['call'];

/** One raw HTTP/1.1 exchange, for headers `fetch` will not send (a forged Host). */
function rawHttp(baseUrl: string, request: string): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: hostname, port: Number(port) }, () => socket.end(request));
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk;
    });
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

/** A harness whose API offers the seeded demo users (known once its ERP has seeded them). */
async function harnessWithDemo(extra: Record<string, unknown> = {}): Promise<ApiHarness> {
  const demoUsers: DemoUser[] = [];
  const h = await startApiHarness({ demoUsers, ...extra });
  demoUsers.push(...DEMO_USERS.map((u) => ({ ...u, token: h.tokens[u.username] })));
  await h.restartApi();
  return h;
}

describe('demo sign-in (embedded mode, loopback only)', () => {
  let h: ApiHarness;
  let off: ApiHarness;
  beforeAll(async () => {
    h = await harnessWithDemo();
    off = await harnessWithDemo({ demoSignIn: 'off' });
  }, 120_000);
  afterAll(async () => {
    await h?.close();
    await off?.close();
  });

  const everyToken = () => Object.values(h.tokens);
  const raw = (path: string, init: RequestInit = {}) => fetch(`${h.url}${path}`, init);
  const signIn = (call: Call, username: unknown) =>
    call('POST', '/api/v1/demo-sign-in', { token: null, body: { username } });

  it('lists the non-admin demo users to a loopback browser, without any token', async () => {
    const res = await raw('/api/v1/demo-users');
    expect(res.status).toBe(200);
    const text = await res.text();
    const users = JSON.parse(text) as Array<Record<string, unknown>>;
    expect(users.map((u) => u.username).sort()).toEqual(
      DEMO_USERS.filter((u) => u.role !== 'admin')
        .map((u) => u.username)
        .sort(),
    );
    expect(users.every((u) => !('token' in u))).toBe(true);
    for (const token of everyToken()) expect(text).not.toContain(token);
  });

  it('issues a short-lived session for a non-admin demo user, which works as a bearer token', async () => {
    const res = await signIn(h.call, 'laoxiao');
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body.token.startsWith(DEMO_SESSION_PREFIX)).toBe(true);
    expect(everyToken()).not.toContain(res.body.token);
    const hours = (Date.parse(res.body.expires_at) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(7.9);
    expect(hours).toBeLessThanOrEqual(8);
    const sessions = await h.call('GET', '/api/v1/history/sessions', { token: res.body.token });
    expect(sessions.status).toBe(200);
    // A made-up session token of the same form is refused.
    const forged = await h.call('GET', '/api/v1/history/sessions', { token: `${DEMO_SESSION_PREFIX}forged` });
    expect(forged.status).toBe(401);
  });

  it('never signs anyone in as admin, and refuses unknown users and bad bodies', async () => {
    expect((await signIn(h.call, 'admin')).status).toBe(404);
    expect((await signIn(h.call, 'nobody')).status).toBe(404);
    expect((await signIn(h.call, 42)).status).toBe(422);
    const notJson = await raw('/api/v1/demo-sign-in', { method: 'POST', body: 'username=laoxiao' });
    expect(notJson.status).toBe(415);
  });

  it('treats proxied requests and foreign Host names (DNS rebinding) as not loopback', async () => {
    const proxied: Array<Record<string, string>> = [
      { 'x-forwarded-for': '203.0.113.9' },
      { forwarded: 'for=203.0.113.9' },
      // What other proxies, load balancers and CDNs add instead.
      { 'x-forwarded-host': 'procura.example.com' },
      { 'x-forwarded-proto': 'https' },
      { via: '1.1 proxy.example.com' },
      { 'x-client-ip': '203.0.113.9' },
      { 'true-client-ip': '203.0.113.9' },
      { 'cf-connecting-ip': '203.0.113.9' },
      { 'x-cluster-client-ip': '203.0.113.9' },
      { 'fastly-client-ip': '203.0.113.9' },
      { 'x-envoy-external-address': '203.0.113.9' },
    ];
    for (const headers of proxied) {
      expect(await (await raw('/api/v1/demo-users', { headers })).json()).toEqual([]);
      const res = await raw('/api/v1/demo-sign-in', {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'laoxiao' }),
      });
      expect(res.status).toBe(403);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
    }
    // A rebinding page reaches the loopback socket under its own name, so the Host header gives it away.
    const head = 'HTTP/1.1\r\nHost: evil.example:3000\r\nConnection: close';
    const listed = await rawHttp(h.url, `GET /api/v1/demo-users ${head}\r\n\r\n`);
    expect(listed).toMatch(/^HTTP\/1\.1 200/);
    expect(listed.trim().endsWith('[]')).toBe(true);
    const body = JSON.stringify({ username: 'laoxiao' });
    const signed = await rawHttp(
      h.url,
      `POST /api/v1/demo-sign-in ${head}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    expect(signed).toMatch(/^HTTP\/1\.1 403/);
  });

  it('offers nothing when demo sign-in is off, even to loopback', async () => {
    expect((await off.call('GET', '/api/v1/demo-users', { token: null })).body).toEqual([]);
    expect((await signIn(off.call, 'laoxiao')).status).toBe(403);
  });
});

describe('demo sessions', () => {
  const users = DEMO_USERS.map((u) => ({ ...u, token: `pk_${u.username}` }));
  const anyContext = {} as Context; // `network` mode does not look at the request

  it('expire after their lifetime', () => {
    let now = 1_000_000;
    const demo = new DemoSignIn(users, 'network', 60_000, () => now);
    const { token } = demo.signIn(anyContext, 'zhangwei');
    expect(demo.authorization(`Bearer ${token}`)).toBe('Bearer pk_zhangwei');
    now += 60_000;
    expect(() => demo.authorization(`Bearer ${token}`)).toThrow(/bearer token/);
    // Ordinary tokens pass through unchanged.
    expect(demo.authorization('Bearer pk_other')).toBe('Bearer pk_other');
    expect(demo.authorization(undefined)).toBeUndefined();
  });
});

describe('demo sign-in mode from the listening host', () => {
  it('is loopback-only on a loopback host and off on any other unless explicitly enabled, and says so', () => {
    for (const host of ['127.0.0.1', '::1', 'localhost']) expect(demoSignInMode(host, {}).mode).toBe('loopback');
    for (const host of ['0.0.0.0', '::', '192.168.1.20', 'procura.example.com']) {
      const { mode, notice } = demoSignInMode(host, {});
      expect(mode).toBe('off');
      expect(notice).toContain(`demo sign-in is off because Procura listens on ${host}`);
      expect(notice).toContain('PROCURA_DEMO_SIGNIN');
    }
    expect(demoSignInMode('0.0.0.0', { PROCURA_DEMO_SIGNIN: 'loopback' }).mode).toBe('loopback');
    expect(demoSignInMode('0.0.0.0', { PROCURA_DEMO_SIGNIN: 'network' }).notice).toContain('open to anyone');
    expect(demoSignInMode('127.0.0.1', { PROCURA_DEMO_SIGNIN: 'off' }).mode).toBe('off');
    expect(() => demoSignInMode('127.0.0.1', { PROCURA_DEMO_SIGNIN: 'yes' })).toThrow(/off, loopback or network/);
  });
});
