import { createHash, randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StartedStack, startStack } from '../../bench/eval/stack.ts';
import { startAgentMcpServer } from '../../src/mcp/index.ts';
import type { RunningServer } from '../../src/shared/index.ts';
import { freePort } from '../../src/tools/index.ts';
import { signInAt } from '../mcp/oauth-browser.ts';

/**
 * OAuth tokens across Procura's resource servers, on the started stack with the agent MCP server beside it (as
 * `procura mcp agent` runs on AGENT_MCP_PORT). Each server takes a token issued for itself (or for a part in front of
 * it, which acts as the user through it) and refuses one for another; revoking a user (what `procura user revoke`
 * calls) ends their refresh tokens and, within 10 s, every access token issued to them, everywhere.
 */
let stack: StartedStack;
let agent: RunningServer & { mcpUrl: string };
let issuer: string;
let erpMcpUrl: string;
let apiResource: string;

beforeAll(async () => {
  const agentMcpPort = await freePort('127.0.0.1');
  stack = await startStack({ settings: { agentMcpPort } });
  issuer = stack.parts.get('MCP sign-in')!.url;
  erpMcpUrl = stack.parts.get('ERP MCP')!.url;
  apiResource = `${stack.apiUrl}/api/v1`;
  agent = await startAgentMcpServer({
    apiUrl: stack.apiUrl,
    host: '127.0.0.1',
    port: agentMcpPort,
    resourceUrl: `http://127.0.0.1:${agentMcpPort}/mcp`,
    authorizationServers: [issuer],
  });
}, 180_000);
afterAll(async () => {
  await agent?.close();
  await stack?.close();
});

const REDIRECT = 'http://127.0.0.1:8976/callback';

interface Tokens {
  access_token: string;
  refresh_token?: string;
}

/** A desktop client registered for refresh tokens, signed in as the owner of `apiToken` for `resource`. */
async function signIn(apiToken: string, resource: string): Promise<Tokens & { clientId: string }> {
  const registered = (await (
    await fetch(`${issuer}/reg`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'desktop',
        redirect_uris: [REDIRECT],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      }),
    })
  ).json()) as { client_id: string };
  const verifier = randomBytes(32).toString('base64url');
  const url = new URL(`${issuer}/auth`);
  for (const [key, value] of Object.entries({
    client_id: registered.client_id,
    response_type: 'code',
    redirect_uri: REDIRECT,
    scope: 'mcp',
    resource,
    state: 'state',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  }))
    url.searchParams.set(key, value);
  const back = await signInAt(url, { token: apiToken });
  const code = back.searchParams.get('code');
  expect(code, back.toString()).toBeTruthy();
  const response = await tokenRequest({
    grant_type: 'authorization_code',
    code: code!,
    redirect_uri: REDIRECT,
    code_verifier: verifier,
    client_id: registered.client_id,
    resource,
  });
  const tokens = (await response.json()) as Tokens;
  expect(response.status, JSON.stringify(tokens)).toBe(200);
  expect(decodeJwt(tokens.access_token).aud).toBe(resource);
  return { ...tokens, clientId: registered.client_id };
}

const tokenRequest = (form: Record<string, string>) =>
  fetch(`${issuer}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** The chat API's answer to one request with `token`. */
const api = (token: string, path: string, init: RequestInit = {}) =>
  fetch(`${stack.apiUrl}/api/v1${path}`, { ...init, headers: { ...bearer(token), ...init.headers } });

/** The status of an MCP `initialize` at `url` with `token`. */
async function initialize(url: string, token: string): Promise<number> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { ...MCP_HEADERS, ...bearer(token) },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
    }),
  });
  await response.body?.cancel();
  return response.status;
}

/** The status of a `tools/call` at the ERP MCP server with `token`. */
async function erpMcpCall(token: string): Promise<number> {
  const response = await fetch(erpMcpUrl, {
    method: 'POST',
    headers: { ...MCP_HEADERS, ...bearer(token) },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'part_search', arguments: { name: 'F7TC' } },
    }),
  });
  await response.body?.cancel();
  return response.status;
}

/** The status of a run start at the chat API with `token`. */
async function runStart(token: string): Promise<number> {
  const response = await api(token, '/agent/chat/stream', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message: '你好' }),
  });
  await response.body?.cancel();
  return response.status;
}

describe('token audiences', () => {
  it('each resource server takes tokens for itself and refuses those for the ERP MCP server', async () => {
    const erpMcp = await signIn(stack.tokens.zhangwei, erpMcpUrl);
    const chat = await signIn(stack.tokens.zhangwei, apiResource);
    const agentToken = await signIn(stack.tokens.zhangwei, agent.mcpUrl);

    // The ERP MCP server's token works there, but opens neither the chat API nor the agent MCP server.
    expect(await erpMcpCall(erpMcp.access_token)).toBe(200);
    for (const path of ['/me', '/history/sessions', '/approvals'])
      expect((await api(erpMcp.access_token, path)).status, path).toBe(401);
    expect(await runStart(erpMcp.access_token)).toBe(401);
    expect(await initialize(agent.mcpUrl, erpMcp.access_token)).toBe(401);

    // A token for the chat API is taken there (and by the ERP MCP server its agent calls), not by the agent MCP server.
    const me = await api(chat.access_token, '/me');
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ username: 'zhangwei' });
    expect((await api(chat.access_token, '/history/sessions')).status).toBe(200);
    expect(await initialize(agent.mcpUrl, chat.access_token)).toBe(401);
    expect(await erpMcpCall(chat.access_token)).toBe(200);

    // A token for the agent MCP server is taken there, and by the chat API it runs as its user.
    expect(await initialize(agent.mcpUrl, agentToken.access_token)).toBe(200);
    expect((await api(agentToken.access_token, '/me')).status).toBe(200);

    // An ERP API token is taken everywhere.
    expect(await initialize(agent.mcpUrl, stack.tokens.zhangwei)).toBe(200);
    expect((await api(stack.tokens.zhangwei, '/me')).status).toBe(200);
    expect(await erpMcpCall(stack.tokens.zhangwei)).toBe(200);
  }, 120_000);
});

describe('revoking a user', () => {
  it('ends their refresh tokens and, within 10 s, every access token issued to them, in every part', async () => {
    const erpMcp = await signIn(stack.tokens.laoxiao, erpMcpUrl);
    const chat = await signIn(stack.tokens.laoxiao, apiResource);
    const agentToken = await signIn(stack.tokens.laoxiao, agent.mcpUrl);
    const other = await signIn(stack.tokens.zhangwei, apiResource);
    expect(erpMcp.refresh_token).toBeTruthy();
    // All taken before: and each server's short cache now holds them.
    expect(await erpMcpCall(erpMcp.access_token)).toBe(200);
    expect((await fetch(`${stack.erpUrl}/me`, { headers: bearer(erpMcp.access_token) })).status).toBe(200);
    expect((await api(chat.access_token, '/me')).status).toBe(200);
    expect((await api(chat.access_token, '/history/sessions')).status).toBe(200);
    expect(await initialize(agent.mcpUrl, agentToken.access_token)).toBe(200);

    const revoked = await stack.erp.services.users.revokeTokens('laoxiao');
    const at = Date.now();
    expect(revoked.oauthRecords).toBeGreaterThanOrEqual(3);

    // No new access token from the refresh token; nothing of laoxiao's sign-ins is left.
    const refreshed = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: erpMcp.refresh_token!,
      client_id: erpMcp.clientId,
    });
    expect(refreshed.status).toBe(400);
    expect(await refreshed.json()).toMatchObject({ error: 'invalid_grant' });
    const left = await stack.erp.database.db
      .selectFrom('oauth_records')
      .select('model')
      .where('account_id', '=', 'laoxiao')
      .execute();
    expect(left).toEqual([]);

    // The ERP refuses the old access token at once: no order is written with it.
    const order = await fetch(`${stack.erpUrl}/orders/create`, {
      method: 'POST',
      headers: { ...bearer(erpMcp.access_token), 'content-type': 'application/json' },
      body: JSON.stringify({ supplierId: 1, lines: [{ partId: 1, quantity: 1 }], submit: false }),
    });
    expect(order.status).toBe(401);

    // Every other part refuses it within 10 s (their caches: 4 s each).
    const refusedEverywhere = async () => {
      const statuses = {
        erpMcp: await erpMcpCall(erpMcp.access_token),
        me: (await api(chat.access_token, '/me')).status,
        history: (await api(chat.access_token, '/history/sessions')).status,
        run: await runStart(chat.access_token),
        agentMcp: await initialize(agent.mcpUrl, agentToken.access_token),
      };
      return Object.values(statuses).every((status) => status === 401) ? undefined : statuses;
    };
    let pending = await refusedEverywhere();
    while (pending && Date.now() - at < 10_000) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      pending = await refusedEverywhere();
    }
    expect(pending, 'still taken after 10 s').toBeUndefined();

    // Another user's tokens still work.
    expect((await api(other.access_token, '/me')).status).toBe(200);
    expect((await api(stack.tokens.zhangwei, '/me')).status).toBe(200);
  }, 120_000);
});
