import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { childEnv, logger } from '../../shared/index.ts';

export interface ChartMcpServer {
  /** Streamable HTTP endpoint, e.g. `http://127.0.0.1:1122/mcp`. */
  url: string;
  /** The bearer token every request must carry. */
  token: string;
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

/** The only address the chart MCP server listens on: it serves this machine's agent, nobody else. */
const LOOPBACK = '127.0.0.1';

/**
 * Runs the unmodified `@antv/mcp-server-chart` tools in a child process (`mcp-child.mjs`) whose only renderer is ours
 * (`VIS_REQUEST_SERVER` points at `rendererUrl`). It listens on loopback only, answers only requests with its bearer
 * token (`token`, default a fresh random one), sends no CORS headers, and sees none of this process's environment
 * beyond the basics (no model keys, tokens or database URLs; no `SERVICE_ID`). Its only outbound call is the
 * renderer request.
 */
export async function startChartMcpServer(options: {
  port: number;
  rendererUrl: string;
  token?: string;
  startTimeoutMs?: number;
}): Promise<ChartMcpServer> {
  const log = logger.child({ part: 'chart-mcp' });
  const port = options.port || (await freePort(LOOPBACK));
  const token = options.token ?? randomBytes(24).toString('base64url');
  const child: ChildProcess = spawn(process.execPath, [fileURLToPath(new URL('mcp-child.mjs', import.meta.url))], {
    env: childEnv({
      VIS_REQUEST_SERVER: `${options.rendererUrl}/api/gpt-vis`,
      PROCURA_CHART_MCP_HOST: LOOPBACK,
      PROCURA_CHART_MCP_PORT: String(port),
      PROCURA_CHART_MCP_TOKEN: token,
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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
  while (!(await canConnect(LOOPBACK, port))) {
    if (exited || Date.now() > deadline) {
      await close();
      throw new Error(
        `图表 MCP 服务未能启动 / chart MCP server did not start on ${LOOPBACK}:${port}: ${output.trim().slice(-600)}`,
      );
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url: `http://${LOOPBACK}:${port}/mcp`, token, pid: child.pid!, close };
}
