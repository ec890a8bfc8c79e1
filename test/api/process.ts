import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startChartsServer } from '../../src/charts/index.ts';
import { createErp } from '../../src/erp/index.ts';
import { startErpMcpServer } from '../../src/mcp/index.ts';
import { listen } from '../../src/shared/index.ts';
import { startSupplierSites } from '../../src/suppliers/index.ts';
import { startChartMcpServer } from '../../src/tools/charts/index.ts';

const BIN = path.resolve(import.meta.dirname, '../../bin/procura.js');

export interface ApiProcess {
  url: string;
  child: ChildProcess;
  /** The inspector's WebSocket address, when started with `inspect`. */
  inspectorUrl?: string;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
  /** SIGKILL: no shutdown code runs. */
  kill(): Promise<void>;
}

/** `procura api` as its own process on an ephemeral port, on the offline model, with the given environment. */
export async function spawnApi(
  dataDir: string,
  urls: { erp: string; erpMcp: string; suppliers: string; chartMcp: string; chartMcpToken: string },
  env: NodeJS.ProcessEnv = {},
  options: { inspect?: boolean } = {},
): Promise<ApiProcess> {
  const child = spawn(
    process.execPath,
    [
      ...(options.inspect ? ['--inspect=127.0.0.1:0'] : []),
      BIN,
      'api',
      '--port',
      '0',
      '--data-dir',
      dataDir,
      '--erp-url',
      urls.erp,
      '--suppliers-url',
      urls.suppliers,
      '--chart-mcp-url',
      urls.chartMcp,
      '--erp-mcp-url',
      urls.erpMcp,
    ],
    {
      env: {
        ...process.env,
        DEEPSEEK_API_KEY: '',
        OPENAI_BASE_URL: '',
        LOG_LEVEL: 'warn',
        CHART_MCP_TOKEN: urls.chartMcpToken,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  let inspectorUrl: string | undefined;
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
    inspectorUrl ??= /Debugger listening on (ws:\/\/\S+)/.exec(stderr)?.[1];
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`procura api did not start: ${stderr}`)), 60_000);
    let out = '';
    child.stdout?.on('data', (chunk) => {
      out += chunk;
      const match = /Chat API\s+(http:\/\/\S+)\/api\/v1/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`procura api exited (${code}): ${stderr}`)));
  });
  const end = (signal: NodeJS.Signals) =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill(signal);
    });
  return { url, child, inspectorUrl, stop: () => end('SIGTERM'), kill: () => end('SIGKILL') };
}

/** The parts `procura api` talks to, run in the test's own process: ERP, supplier sites, chart renderer and MCP. */
export interface LocalParts {
  root: string;
  erp: Awaited<ReturnType<typeof createErp>>;
  urls: { erp: string; erpMcp: string; suppliers: string; chartMcp: string; chartMcpToken: string };
  close(): Promise<void>;
}

/** Starts the parts in a new temp root. `erpDoor` answers ERP requests first (it may pass them to the ERP). */
export async function startLocalParts(
  prefix: string,
  erpDoor?: (request: Request, erp: LocalParts['erp']) => Promise<Response>,
): Promise<LocalParts> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const erp = await createErp({ dataDir: path.join(root, 'erp') });
  const erpServer = await listen(erpDoor ? (request: Request) => erpDoor(request, erp) : erp.fetch, {
    host: '127.0.0.1',
    port: 0,
  });
  // The agent reaches the ERP through its MCP server, as `procura start` runs it.
  const erpMcp = await startErpMcpServer({ erp: { baseUrl: `${erpServer.url}/api` }, host: '127.0.0.1', port: 0 });
  const sites = await startSupplierSites({ host: '127.0.0.1', port: 0 });
  const renderer = await startChartsServer({ host: '127.0.0.1', port: 0, dataDir: path.join(root, 'charts') });
  const chartMcp = await startChartMcpServer({ port: 0, rendererUrl: renderer.renderUrl });
  return {
    root,
    erp,
    urls: {
      erp: `${erpServer.url}/api`,
      erpMcp: erpMcp.mcpUrl,
      suppliers: sites.server.url,
      chartMcp: chartMcp.url,
      chartMcpToken: chartMcp.token,
    },
    close: async () => {
      await chartMcp.close();
      await erpMcp.close();
      await renderer.close();
      await sites.server.close();
      await erpServer.close();
      await erp.close();
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}
