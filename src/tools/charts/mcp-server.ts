import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import { logger } from '../../shared/index.ts';

export interface ChartMcpServer {
  /** Streamable HTTP endpoint, e.g. `http://127.0.0.1:1122/mcp`. */
  url: string;
  pid: number;
  close(): Promise<void>;
}

/** A port nobody listens on right now (the AntV CLI cannot report a port it picked itself). */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function canConnect(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Runs the unmodified `@antv/mcp-server-chart` (streamable HTTP) as a child process whose only renderer is
 * ours: `VIS_REQUEST_SERVER` points at `rendererUrl`, and `SERVICE_ID` (a hosted-service identifier the
 * package forwards with map requests) is removed. Its only outbound call is that renderer request.
 */
export async function startChartMcpServer(options: {
  host: string;
  port: number;
  rendererUrl: string;
  startTimeoutMs?: number;
}): Promise<ChartMcpServer> {
  const log = logger.child({ part: 'chart-mcp' });
  const require = createRequire(import.meta.url);
  const entry = path.join(path.dirname(require.resolve('@antv/mcp-server-chart/sdk')), 'index.js');
  const port = options.port || (await freePort(options.host));
  const { SERVICE_ID: _hostedServiceId, ...env } = process.env;
  const child: ChildProcess = spawn(
    process.execPath,
    [entry, '--transport', 'streamable', '--host', options.host, '--port', String(port)],
    {
      env: { ...env, VIS_REQUEST_SERVER: `${options.rendererUrl}/api/gpt-vis` },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exited = false;
  // never leave the child behind, even when this process ends without closing it
  const killChild = () => child.kill('SIGKILL');
  process.once('exit', killChild);
  child.once('exit', (code, signal) => {
    process.off('exit', killChild);
    exited = true;
    log.info({ code, signal }, 'chart MCP server exited');
  });

  const close = () =>
    new Promise<void>((resolve) => {
      if (exited || child.exitCode !== null) return resolve();
      const force = setTimeout(() => child.kill('SIGKILL'), 3000);
      child.once('exit', () => {
        clearTimeout(force);
        resolve();
      });
      child.kill('SIGTERM');
    });

  const deadline = Date.now() + (options.startTimeoutMs ?? 20_000);
  while (!(await canConnect(options.host, port))) {
    if (exited || Date.now() > deadline) {
      await close();
      throw new Error(
        `图表 MCP 服务未能启动 / chart MCP server did not start on ${options.host}:${port}: ${output.trim().slice(-600)}`,
      );
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return { url: `http://${host}:${port}/mcp`, pid: child.pid!, close };
}
