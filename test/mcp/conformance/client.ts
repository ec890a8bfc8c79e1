/**
 * Procura's MCP client (`McpConnections`, as the agents use it) as the client under test of the MCP conformance
 * suite: it connects to the scenario's server (the suite appends its URL), registers the server's tools as the
 * agents' registry does, and calls each of them once with arguments made from its input schema.
 *
 * In the auth scenarios the server asks for OAuth: Procura signs its user in per server, keeping the tokens sealed
 * in a store of a temporary data dir. This script plays the user's browser — it opens the authorization URL Procura
 * gives and brings the code back to Procura (the suite's authorization server approves at once) — and plays the
 * operator, configuring what a scenario's context says an operator would (pre-registered client credentials).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { McpConnections, type McpServerConfig, McpTokenStore } from '../../../src/mcp/index.ts';
import { ToolRegistry } from '../../../src/tools/index.ts';

/** A value for a schema property: enough for a server to accept the call. */
function example(schema: { type?: string; default?: unknown; enum?: unknown[] } = {}): unknown {
  if (schema.default !== undefined) return schema.default;
  if (schema.enum?.length) return schema.enum[0];
  switch (schema.type) {
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    case 'string':
      return 'conformance';
    case 'array':
      return [];
    default:
      return {};
  }
}

const url = process.argv.at(-1);
if (!url?.startsWith('http')) throw new Error('usage: client.ts <server url>');
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as {
  client_id?: string;
  client_secret?: string;
};
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-mcp-client-'));
const config: McpServerConfig = {
  name: 'conformance',
  url,
  oauth: {
    // What an operator configures for a server that does not let clients register.
    ...(context.client_id && { clientId: context.client_id, clientSecret: context.client_secret }),
    // A server that takes client metadata documents gets Procura's (a deployment serves it at its public address).
    clientMetadataUrl: 'https://conformance-test.local/client-metadata.json',
  },
};
const connections = await McpConnections.connect([config], {
  oauth: { store: McpTokenStore.open(dataDir), redirectUrl: 'http://localhost:3000/callback' },
});
const ctx = { userId: 'conformance', role: 'buyer' as const, traceId: 'conformance' };

/** The user signs in: their browser opens the authorization URL and comes back to Procura with the code. */
async function signIn(): Promise<void> {
  const authorization = await connections.signIn(config.name, ctx);
  if (!authorization) return;
  const response = await fetch(authorization, { redirect: 'manual' });
  const back = new URL(response.headers.get('location') ?? '', authorization);
  const code = back.searchParams.get('code');
  const state = back.searchParams.get('state');
  if (!code || !state) throw new Error(`no code in the redirect: ${back}`);
  await connections.finishSignIn(state, code);
}

const registry = new ToolRegistry();
let failed = 0;
try {
  connections.registerInto(registry);
  if (connections.unavailable.length) {
    console.log(`not connected: ${JSON.stringify(connections.unavailable)}`);
    await signIn();
    const back = await connections.retryUnavailable(registry);
    if (!back.length) throw new Error(`still unavailable: ${JSON.stringify(connections.unavailable)}`);
  }
  for (const tool of registry.list()) {
    const schema = tool.jsonSchema as { properties?: Record<string, never>; required?: string[] };
    const args = Object.fromEntries((schema.required ?? []).map((key) => [key, example(schema.properties?.[key])]));
    let result = await registry.execute(tool.name, args, ctx, { approved: true });
    // A server that wants more (step-up scope) sends the user to sign in again; Procura asks at most twice more.
    for (let again = 0; again < 2 && /sign-in required/.test(JSON.stringify(result)); again++) {
      await signIn();
      result = await registry.execute(tool.name, args, ctx, { approved: true });
    }
    console.log(`${tool.name}: ${JSON.stringify(result).slice(0, 300)}`);
    if ((result as { success?: unknown }).success === false) failed++;
  }
} finally {
  await connections.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
