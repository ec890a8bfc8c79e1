import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChartsServer } from '../../src/charts/index.ts';
import { type ChartMcpServer, startChartMcpServer } from '../../src/tools/charts/index.ts';

/** A secret this process holds, which no child may see. */
const SECRET = `sk-${'lockdown'.repeat(4)}`;

/** The environment a running process was started with (Linux). */
const environOf = (pid: number) => fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);

/** An address of this machine that is not loopback, if it has one. */
const outsideAddress = Object.values(os.networkInterfaces())
  .flat()
  .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } },
};

describe('the chart MCP server is locked down', () => {
  let dataDir: string;
  let renderer: Awaited<ReturnType<typeof startChartsServer>>;
  let mcp: ChartMcpServer;
  const saved = process.env.OPENAI_API_KEY;

  beforeAll(async () => {
    process.env.OPENAI_API_KEY = SECRET;
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-lockdown-'));
    renderer = await startChartsServer({ host: '127.0.0.1', port: 0, dataDir });
    mcp = await startChartMcpServer({ port: 0, rendererUrl: renderer.renderUrl });
  });
  afterAll(async () => {
    if (saved === undefined) delete process.env.OPENAI_API_KEY;
    else process.env.OPENAI_API_KEY = saved;
    await mcp?.close();
    await renderer?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const post = (headers: Record<string, string>, url = mcp.url) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify(initialize),
    });

  it('answers only requests carrying its token, and sends no CORS headers', async () => {
    for (const authorization of [undefined, 'Bearer wrong-token-wrong-token', `Basic ${mcp.token}`, mcp.token]) {
      const res = await post({ origin: 'https://evil.example', ...(authorization ? { authorization } : {}) });
      expect(res.status, String(authorization)).toBe(401);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    }
    const preflight = await fetch(mcp.url, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    const ok = await post({ origin: 'https://evil.example', authorization: `Bearer ${mcp.token}` });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBeNull();
    expect(((await ok.json()) as { result: { serverInfo: { name: string } } }).result.serverInfo.name).toBe(
      'mcp-server-chart',
    );
  });

  it('listens on loopback only', async () => {
    expect(new URL(mcp.url).hostname).toBe('127.0.0.1');
    if (!outsideAddress) return;
    const url = new URL(mcp.url);
    url.hostname = outsideAddress;
    await expect(post({ authorization: `Bearer ${mcp.token}` }, url.href)).rejects.toThrow();
  });

  it('runs with a reduced environment: none of this process’s secrets', () => {
    const env = environOf(mcp.pid);
    expect(env.join('\n')).not.toContain(SECRET);
    const names = env.map((e) => e.split('=')[0]);
    expect(names).toContain('VIS_REQUEST_SERVER');
    expect(names).not.toContain('OPENAI_API_KEY');
    expect(
      names.filter(
        (n) => !/^(PATH|HOME|TMPDIR|LANG|LC_\w+|TZ|XDG_\w+|PROCURA_CHART_MCP_\w+|VIS_REQUEST_SERVER)$/.test(n),
      ),
    ).toEqual([]);
  });
});
