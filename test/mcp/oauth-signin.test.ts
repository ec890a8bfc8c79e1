import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type StartedStack, startStack } from '../../bench/eval/stack.ts';
import { McpConnections, McpTokenStore, startErpMcpServer } from '../../src/mcp/index.ts';
import { ToolRegistry } from '../../src/tools/index.ts';
import { type Browser, signInAt } from './oauth-browser.ts';

/**
 * A standard MCP client signs in as a Procura user: the MCP SDK's own OAuth client (`authProvider` of its
 * streamable-HTTP transport) against `procura start`'s ERP MCP server and authorization server over loopback —
 * discovery, dynamic registration, authorization code with PKCE through the sign-in and consent form, token, a
 * tool call as that user. A token for another resource is refused; a viewer's token cannot write. A restart of
 * Procura keeps the registered client and the user's sign-in.
 */
let stack: StartedStack;
let mcpUrl: string;
let issuer: string;
/** Kept across a restart of the stack (the last test). */
const stackDir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-oauth-signin-'));

/** Starts Procura on the test's data dir; again on the same ports, so the resource and issuer stay the same. */
async function start(ports?: { erpMcpPort: number; oauthPort: number }) {
  stack = await startStack({ dataDir: stackDir, settings: ports });
  mcpUrl = stack.parts.get('ERP MCP')!.url;
  issuer = stack.parts.get('MCP sign-in')!.url;
}

beforeAll(() => start(), 180_000);
afterAll(async () => {
  await stack?.close();
  fs.rmSync(stackDir, { recursive: true, force: true });
});

const REDIRECT = 'http://127.0.0.1:8976/callback';

/** What a desktop client keeps between runs, in memory; the user's browser is `browse`. */
class DesktopClient implements OAuthClientProvider {
  info?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  /** The authorization URL the SDK sent the user to. */
  opened?: URL;
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata() {
    return {
      client_name: 'Desktop <b>client</b>',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.opened = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** Signs in through the SDK: the first call gets 401, the user signs in in the browser, the call is made again. */
async function signedInClient(browse: Browser) {
  const provider = new DesktopClient();
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider });
  const client = new Client({ name: 'desktop', version: '1.0.0' });
  await client.connect(transport);
  await expect(client.callTool({ name: 'part_search', arguments: { name: 'F7TC' } })).rejects.toThrow(/Unauthorized/);
  expect(provider.opened).toBeDefined();
  const redirected = await browse(provider.opened!);
  const code = redirected.searchParams.get('code');
  expect(code, redirected.toString()).toBeTruthy();
  await transport.finishAuth(code!);
  return { client, provider, transport };
}

describe('OAuth sign-in of a standard MCP client', () => {
  it('discovers the authorization server from the protected-resource metadata', async () => {
    const metadata = await (await fetch(`${new URL(mcpUrl).origin}/.well-known/oauth-protected-resource/mcp`)).json();
    expect(metadata).toMatchObject({ resource: mcpUrl, authorization_servers: [issuer], scopes_supported: ['mcp'] });
    const as = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(as).toMatchObject({ issuer, code_challenge_methods_supported: ['S256'] });
    expect(as.registration_endpoint).toMatch(/^http:\/\/127\.0\.0\.1/);
  });

  it('signs in with an ERP token through the SDK client and calls a tool as that user', async () => {
    const { client, provider } = await signedInClient((url) =>
      signInAt(url, { token: stack.tokens.laoxiao, expectPage: /Desktop &lt;b&gt;client&lt;\/b&gt;/ }),
    );
    expect(provider.info?.client_id).toBeTruthy(); // registered dynamically
    expect(provider.opened!.searchParams.get('code_challenge_method')).toBe('S256');
    expect(provider.opened!.searchParams.get('resource')).toBe(mcpUrl);
    const claims = decodeJwt(provider.saved!.access_token);
    expect(claims).toMatchObject({ iss: issuer, aud: mcpUrl, sub: 'laoxiao', role: 'buyer', projects: ['P001'] });
    expect(provider.saved!.refresh_token).toBeTruthy();
    const result = (await client.callTool({ name: 'part_search', arguments: { name: 'F7TC' } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(JSON.stringify(result.structuredContent)).toContain('F7TC');
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toContain('order_create');
    await client.close();

    // The same token at another ERP MCP endpoint (another resource) is refused there.
    const other = await startErpMcpServer({
      erp: { baseUrl: stack.erpUrl },
      host: '127.0.0.1',
      port: 0,
      authorizationServers: [issuer],
    });
    try {
      const response = await fetch(other.mcpUrl, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${provider.saved!.access_token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
    } finally {
      await other.close();
    }
  });

  it('gives a viewer (demo sign-in) a token that cannot write', async () => {
    const { client, provider } = await signedInClient((url) => signInAt(url, { demo: 'viewer' }));
    expect(decodeJwt(provider.saved!.access_token)).toMatchObject({ sub: 'viewer', role: 'viewer' });
    const tools = (await client.listTools()).tools.map((t) => t.name);
    expect(tools).toContain('part_search');
    expect(tools).not.toContain('order_create');
    const write = (await client.callTool({
      name: 'order_create',
      arguments: { supplierId: 1, lines: [{ partId: 1, quantity: 1 }], submit: false },
    })) as CallToolResult;
    expect(write.isError).toBe(true);
    expect(JSON.stringify(write.content)).toMatch(/viewer|只读|read-only/i);
    await client.close();
  });

  it('refuses a resource it does not serve, a denial, and a wrong or missing token', async () => {
    const provider = new DesktopClient();
    const registered = (await (
      await fetch(`${issuer}/reg`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(provider.clientMetadata),
      })
    ).json()) as { client_id: string };
    const authorize = (resource: string) => {
      const url = new URL(`${issuer}/auth`);
      for (const [key, value] of Object.entries({
        client_id: registered.client_id,
        response_type: 'code',
        redirect_uri: REDIRECT,
        scope: 'mcp',
        resource,
        state: 'xyz',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
      }))
        url.searchParams.set(key, value);
      return url;
    };
    const foreign = await fetch(authorize('http://127.0.0.1:1/mcp'), { redirect: 'manual' });
    expect(new URL(foreign.headers.get('location')!).searchParams.get('error')).toBe('invalid_target');
    const denied = await signInAt(authorize(mcpUrl), { deny: true });
    expect(denied.searchParams.get('error')).toBe('access_denied');
    await expect(signInAt(authorize(mcpUrl), { token: 'pk_not_a_token' })).rejects.toThrow(/401.*令牌无效/s);
    await expect(signInAt(authorize(mcpUrl), { token: '' })).rejects.toThrow(/400.*请输入/s);
    await expect(signInAt(authorize(mcpUrl), { demo: 'admin' })).rejects.toThrow(/400.*admin/s);
    const stale = await fetch(`${issuer}/interaction/nope`);
    expect(stale.status).toBe(400);
  });

  it("Procura's own MCP client signs a user in, keeps the tokens sealed, and calls as that user", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-mcp-oauth-'));
    // The ERP MCP server as a further server of PROCURA_MCP_SERVERS: no ERP credentials forwarded, so OAuth.
    const connections = await McpConnections.connect([{ name: 'ledger', url: mcpUrl }], {
      oauth: { store: McpTokenStore.open(dataDir), redirectUrl: 'http://127.0.0.1:3000/api/v1/mcp/oauth/callback' },
    });
    try {
      const registry = connections.registerInto(new ToolRegistry());
      const ctx = { userId: 'laoxiao', role: 'buyer' as const, traceId: 'oauth-test' };
      const first = (await registry.execute('part_search', { name: 'F7TC' }, ctx, { approved: true })) as {
        success: false;
        error: string;
      };
      expect(first.success).toBe(false);
      // The failure names Procura's address that starts the sign-in, not an authorization address anyone could use.
      expect(first.error).toContain('POST http://127.0.0.1:3000/api/v1/mcp/servers/ledger/sign-in');
      expect(first.error).not.toContain(`${issuer}/auth`);
      const url = await connections.signIn('ledger', ctx, 'hash-of-the-starting-browser');
      expect(url?.href).toMatch(new RegExp(`^${issuer}/auth\\?`));
      const back = await signInAt(url!, { token: stack.tokens.laoxiao, expectPage: /Procura/ });
      expect(back.pathname).toBe('/api/v1/mcp/oauth/callback');
      const [state, code] = [back.searchParams.get('state')!, back.searchParams.get('code')!];
      // Another browser (another hash, or none) is refused and spends nothing; the starting browser completes it.
      await expect(connections.finishSignIn(state, code, 'hash-of-another-browser')).rejects.toThrow(/another browser/);
      await expect(connections.finishSignIn(state, code)).rejects.toThrow(/another browser/);
      expect(McpTokenStore.open(dataDir).tokens('ledger', 'laoxiao')).toBeUndefined();
      expect(await connections.finishSignIn(state, code, 'hash-of-the-starting-browser')).toEqual({
        server: 'ledger',
        user: 'laoxiao',
      });
      await expect(connections.finishSignIn(state, 'again', 'hash-of-the-starting-browser')).rejects.toThrow(/state/);
      const result = await registry.execute('part_search', { name: 'F7TC' }, ctx, { approved: true });
      expect(JSON.stringify(result)).toContain('F7TC');
      // Another user of Procura has no sign-in there.
      const other = await registry.execute('part_search', { name: 'F7TC' }, { ...ctx, userId: 'zhangwei' }, {});
      expect(JSON.stringify(other)).toMatch(/sign-in required/);
      const stored = fs.readFileSync(path.join(dataDir, 'mcp-oauth.json'), 'utf8');
      const token = McpTokenStore.open(dataDir).tokens('ledger', 'laoxiao')!.access_token;
      expect(token.split('.')).toHaveLength(3);
      expect(stored).not.toContain(token.split('.')[1]);
      expect(fs.statSync(path.join(dataDir, 'mcp-oauth.json')).mode & 0o777).toBe(0o600);
    } finally {
      await connections.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  // Last: it restarts the stack the tests above share.
  it('keeps the registered client and the sign-in when Procura restarts on the same data', async () => {
    const { client, provider } = await signedInClient((url) => signInAt(url, { token: stack.tokens.laoxiao }));
    await client.close();
    const clientId = provider.info!.client_id;
    const signedIn = provider.saved!;

    const warn = vi.spyOn(console, 'warn');
    try {
      const ports = { erpMcpPort: Number(new URL(mcpUrl).port), oauthPort: Number(new URL(issuer).port) };
      await stack.close();
      await start(ports);
      const warnings = warn.mock.calls.map((call) => String(call[0]));
      expect(warnings.filter((w) => w.includes('adapter'))).toEqual([]);
    } finally {
      warn.mockRestore();
    }

    // The access token has run out: the SDK refreshes it with the refresh token of before the restart, as the
    // client registered before it, and the call goes through without a new sign-in.
    provider.saved = { ...signedIn, access_token: 'expired' };
    provider.opened = undefined;
    const again = new Client({ name: 'desktop', version: '1.0.0' });
    await again.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider }));
    const result = (await again.callTool({ name: 'part_search', arguments: { name: 'F7TC' } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(provider.opened).toBeUndefined();
    expect(provider.info!.client_id).toBe(clientId);
    expect(provider.saved!.access_token).not.toBe('expired');
    expect(decodeJwt(provider.saved!.access_token)).toMatchObject({ sub: 'laoxiao', aud: mcpUrl, client_id: clientId });
    await again.close();
  }, 180_000);
});
