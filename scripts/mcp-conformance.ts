/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance) against Procura: its server scenarios
 * against the ERP MCP server and the agent MCP server (`procura mcp agent`), and its client scenarios against Procura's MCP client. The suite needs Node 22, so it
 * runs on a Node 22 taken from npm for this step only; Procura itself stays on the Node it runs on.
 * Scenarios that do not apply are listed, with the reason, in test/mcp/conformance/expected-failures.yml (the agent
 * MCP server's in agent-expected-failures.yml).
 * Usage: npm run conformance:mcp
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startStack } from '../bench/eval/stack.ts';
import { startErpServer } from '../src/erp/index.ts';
import { createAgentMcpApp, startErpMcpServer } from '../src/mcp/index.ts';
import { listen } from '../src/shared/index.ts';

const SUITE = '@modelcontextprotocol/conformance@0.1.16';
/**
 * The suite's client scenarios Procura's MCP client runs (`conformance list`): the basic ones and every `auth/…`
 * one; those that do not apply are listed with their reasons in expected-failures.yml.
 */
const CLIENT_SCENARIOS = [
  'initialize',
  'tools_call',
  'auth/metadata-default',
  'auth/metadata-var1',
  'auth/metadata-var2',
  'auth/metadata-var3',
  'auth/basic-cimd',
  'auth/scope-from-www-authenticate',
  'auth/scope-from-scopes-supported',
  'auth/scope-omitted-when-undefined',
  'auth/scope-step-up',
  'auth/scope-retry-limit',
  'auth/token-endpoint-auth-basic',
  'auth/token-endpoint-auth-post',
  'auth/token-endpoint-auth-none',
  'auth/pre-registration',
  'auth/2025-03-26-oauth-metadata-backcompat',
  'auth/2025-03-26-oauth-endpoint-fallback',
  'auth/resource-mismatch',
  'auth/offline-access-scope',
  'auth/offline-access-not-supported',
  'auth/client-credentials-jwt',
  'auth/client-credentials-basic',
  'auth/cross-app-access-complete-flow',
];
const INSPECTOR = '@modelcontextprotocol/inspector@2.12.0';
const root = path.resolve(import.meta.dirname, '..');
const expectedFailures = path.join(root, 'test/mcp/conformance/expected-failures.yml');
const agentExpectedFailures = path.join(root, 'test/mcp/conformance/agent-expected-failures.yml');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-conformance-'));

/** Runs the suite with its arguments on Node 22; its output is echoed and returned. */
const conformance = (args: string[]) => onNode22(SUITE, 'conformance', args);

/** Runs a package's command on a Node 22 from npm, returning its exit code and output. */
function onNode22(pkg: string, command: string, args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('npx', ['-y', '-p', 'node@22', '-p', pkg, command, ...args], {
      cwd: work, // the suite writes its results/ folder here
      env: { ...process.env, LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

/**
 * The scenarios a run reported and how many passed: a server run's summary has a line per scenario
 * (`✓ name: 2 passed, 0 failed`; one with no checks passed nothing), a client run one result per scenario
 * (`Passed: 3/3, 0 failed`).
 */
function counts(output: string): { scenarios: number; passed: number } {
  const lines = [...output.matchAll(/^([✓✗]) [\w/.-]+: (\d+) passed, (\d+) failed/gm)];
  if (lines.length)
    return {
      scenarios: lines.length,
      passed: lines.filter((m) => m[1] === '✓' && Number(m[2]) > 0 && m[3] === '0').length,
    };
  const results = [...output.matchAll(/^Passed: (\d+)\/(\d+), (\d+) failed/gm)];
  return { scenarios: results.length, passed: results.filter((m) => m[1] === m[2] && m[3] === '0').length };
}

const dataDir = path.join(work, 'data');
const erp = await startErpServer({ dataDir, host: '127.0.0.1', port: 0 });
const mcp = await startErpMcpServer({ erp: { baseUrl: `${erp.server.url}/api` }, host: '127.0.0.1', port: 0 });
// The agent MCP server acts as a signed-in user, and the suite sends no credentials: it reaches the server through a
// front that adds a demo user's bearer token, as a client configured with that token would.
const stack = await startStack();
const agentApp = createAgentMcpApp({ apiUrl: stack.apiUrl, name: 'procura-agent' });
const agent = await listen(
  (request) => {
    const headers = new Headers(request.headers);
    headers.set('authorization', `Bearer ${stack.tokens.laoxiao}`);
    return agentApp.fetch(new Request(request, { headers }));
  },
  { host: '127.0.0.1', port: 0 },
);
const client = `${process.execPath} --import ${import.meta.resolve('tsx')} ${path.join(root, 'test/mcp/conformance/client.ts')}`;
const runs: Array<{ title: string; args: string[]; expected?: string }> = [
  { title: 'server: ERP MCP server', args: ['server', '--url', mcp.mcpUrl] },
  {
    title: 'server: agent MCP server',
    args: ['server', '--url', `${agent.url}/mcp`],
    expected: agentExpectedFailures,
  },
  ...CLIENT_SCENARIOS.map((scenario) => ({
    title: `client: ${scenario}`,
    args: ['client', '--command', client, '--scenario', scenario],
  })),
];
const rows: string[][] = [];
let failedRuns = 0;
try {
  for (const run of runs) {
    const { code, output } = await conformance([...run.args, '--expected-failures', run.expected ?? expectedFailures]);
    const { scenarios, passed } = counts(output);
    rows.push([run.title, String(scenarios), String(passed), String(scenarios - passed), code === 0 ? 'ok' : 'FAILED']);
    if (code !== 0) {
      failedRuns++;
      console.log(output);
    }
  }
  // The MCP Inspector's CLI, as a user would connect it (docs/mcp.md, "Connect an MCP client to Procura").
  const inspector = (...args: string[]) =>
    onNode22(INSPECTOR, 'mcp-inspector', ['--cli', mcp.mcpUrl, '--transport', 'http', '--stored-auth-only', ...args]);
  const token = erp.demoTokens.laoxiao;
  const checks = [
    {
      name: 'lists the tools without a token',
      run: () => inspector('--method', 'tools/list'),
      ok: (out: string) => out.includes('"order_create"') && out.includes('"outputSchema"'),
    },
    {
      name: 'calls a tool with a token, structured result',
      run: () =>
        inspector(
          '--header',
          `Authorization: Bearer ${token}`,
          '--method',
          'tools/call',
          '--tool-name',
          'part_search',
          '--tool-arg',
          'name=F7TC',
        ),
      ok: (out: string) => out.includes('"structuredContent"') && out.includes('F7TC'),
    },
    {
      name: 'is told to sign in when calling without a token',
      run: () => inspector('--method', 'tools/call', '--tool-name', 'part_search', '--tool-arg', 'name=F7TC'),
      ok: (out: string) => out.includes('auth_required'),
    },
  ];
  let passed = 0;
  for (const check of checks) {
    const { output } = await check.run();
    if (check.ok(output)) passed++;
    else console.log(`MCP Inspector CLI: ${check.name}: unexpected answer\n${output}`);
  }
  rows.push([
    'client: MCP Inspector CLI',
    String(checks.length),
    String(passed),
    '0',
    passed === checks.length ? 'ok' : 'FAILED',
  ]);
  if (passed < checks.length) failedRuns++;
} finally {
  await mcp.close();
  await erp.close();
  await agent.close();
  await stack.close();
  fs.rmSync(work, { recursive: true, force: true });
}

console.log('\nMCP conformance suite and MCP Inspector CLI (on Node 22)\n');
console.log('| run | scenarios | passed | expected failures (not applicable) | result |');
console.log('| --- | --- | --- | --- | --- |');
for (const row of rows) console.log(`| ${row.join(' | ')} |`);
const sum = (column: number) => rows.reduce((total, row) => total + Number(row[column]), 0);
console.log(
  `\nMCP conformance scenarios: ${sum(2)} of ${sum(1)} pass, ${sum(3)} listed as not applicable, ${failedRuns} run(s) failing`,
);
process.exit(failedRuns ? 1 : 0);
