import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '../..');

export interface RunningProcura {
  apiUrl: string;
  erpUrl: string;
  dataDir: string;
  tokens: Record<string, string>;
  output(): string;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * `node bin/procura.js start` on a fresh data dir and free ports, offline model; resolves once the chat API answers.
 * `cwd` is the checkout to run (another copy of the tree, for a fresh-checkout test).
 */
export async function startProcura(
  timeoutMs = 120_000,
  extraEnv: NodeJS.ProcessEnv = {},
  cwd = ROOT,
): Promise<RunningProcura> {
  // A free port can be taken by another test between picking it and binding it: then start again on new ports.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnFreePorts(timeoutMs, extraEnv, cwd);
    } catch (error) {
      if (attempt >= 3 || !/already in use/.test((error as Error).message)) throw error;
    }
  }
}

async function startOnFreePorts(timeoutMs: number, extraEnv: NodeJS.ProcessEnv, cwd: string): Promise<RunningProcura> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-ui-'));
  const names = [
    'ERP_PORT',
    'SUPPLIERS_PORT',
    'CHARTS_PORT',
    'CHART_MCP_PORT',
    'ERP_MCP_PORT',
    'OAUTH_PORT',
    'API_PORT',
  ];
  const ports: Record<string, string> = {};
  for (const name of names) ports[name] = String(await freePort());
  const env = {
    ...process.env,
    ...ports,
    // Embedded mode on the temp data dir, whatever the suite's environment points at.
    DATABASE_URL: '',
    REDIS_URL: '',
    DEEPSEEK_API_KEY: '',
    OPENAI_API_KEY: '',
    OPENAI_BASE_URL: '',
    LOG_LEVEL: 'warn',
    ...extraEnv,
  };
  const child: ChildProcess = spawn(process.execPath, ['bin/procura.js', 'start', '--data-dir', dataDir], {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d) => {
    output += d;
  });
  child.stderr?.on('data', (d) => {
    output += d;
  });
  const apiUrl = `http://127.0.0.1:${ports.API_PORT}`;
  const close = async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((resolve) => {
        const timer = setTimeout(() => {
          child.kill('SIGKILL');
          resolve(undefined);
        }, 10_000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve(undefined);
        });
      });
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) {
      await close();
      throw new Error(`procura start exited (${child.exitCode}):\n${output.slice(-3000)}`);
    }
    const healthy = await fetch(`${apiUrl}/api/v1/health`)
      .then((r) => r.ok)
      .catch(() => false);
    if (healthy) break;
    if (Date.now() > deadline) {
      await close();
      throw new Error(`the chat API did not answer at ${apiUrl} within ${timeoutMs} ms:\n${output.slice(-3000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  let tokens: Record<string, string>;
  try {
    tokens = JSON.parse(fs.readFileSync(path.join(dataDir, 'demo-tokens.json'), 'utf8')) as Record<string, string>;
  } catch (error) {
    await close(); // never leave a running Procura behind a failed start
    throw error;
  }
  return { apiUrl, erpUrl: `http://127.0.0.1:${ports.ERP_PORT}/api`, dataDir, tokens, output: () => output, close };
}

/** Orders in the ERP whose number or text matches `keyword`, read through its REST API as `token`'s user. */
export async function erpOrders(
  erpUrl: string,
  token: string,
  keyword: string,
): Promise<
  Array<{
    orderNo: string;
    status: string;
    note: string;
    totalAmount: number;
    approval: { rule: string; reason: string } | null;
    lines: Array<{ quantity: number; priceCheck: { severity: string } }>;
  }>
> {
  const response = await fetch(`${erpUrl}/orders/search?keyword=${encodeURIComponent(keyword)}&size=50`, {
    headers: { authorization: `Bearer ${token}` },
  });
  if (!response.ok) throw new Error(`ERP order search ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { items: never[] }).items;
}
