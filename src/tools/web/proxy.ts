import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { BlockedUrlError, type CheckedUrl, type UrlGuard } from './guard.ts';

/** Opens a TCP connection to an address the guard approved (injectable so tests can map fake public addresses). */
export type Connector = (address: string, port: number) => net.Socket;

export const directConnector: Connector = (address, port) => net.connect({ host: address, port });

/** Header on the proxy's own refusals, so the renderer can tell a refused navigation from a page's own 403. */
export const BLOCKED_HEADER = 'x-procura-blocked';

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  BLOCKED_HEADER,
]);
const IDLE_MS = 60_000;
const TLS_HANDSHAKE = 0x16;

/**
 * The forward proxy (HTTP and CONNECT) the headless browser must use. Every request the browser makes — each
 * redirect hop, every sub-request, scripts' fetch/XHR — arrives here as its own request, is checked by the same
 * `UrlGuard` as the HTTP path, and is connected to exactly the address the guard approved (no second DNS answer).
 * WebSocket upgrades are refused, and a CONNECT tunnel must start with a TLS handshake, which refuses plain
 * `ws://` tunnelled through it.
 */
export class GuardedProxy {
  private readonly server: http.Server;
  private readonly sockets = new Set<Duplex>();

  constructor(
    private readonly guard: UrlGuard,
    private readonly connect: Connector = directConnector,
  ) {
    this.server = http.createServer((req, res) => void this.forward(req, res));
    this.server.on(
      'connect',
      (req: http.IncomingMessage, socket: Duplex, head: Buffer) => void this.tunnel(req, socket, head),
    );
    this.server.on('upgrade', (_req: http.IncomingMessage, socket: Duplex) =>
      refuseSocket(socket, 'WebSocket 连接已被禁止 / WebSockets are not allowed'),
    );
    this.server.on('connection', (socket: net.Socket) => this.track(socket));
  }

  /** Listens on a free loopback port; resolves to the proxy's URL. */
  listen(): Promise<string> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => {
        const { port } = this.server.address() as net.AddressInfo;
        resolve(`http://127.0.0.1:${port}`);
      });
    });
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** A plain-HTTP request in absolute form (`GET http://host/path`). */
  private async forward(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    let checked: CheckedUrl;
    try {
      if (!/^http:\/\//i.test(req.url ?? ''))
        throw new BlockedUrlError(`不是代理请求 / not a proxy request: ${req.url}`);
      if (req.headers['service-worker'] === 'script')
        throw new BlockedUrlError('不允许安装 Service Worker / service workers are not allowed');
      checked = await this.guard.check(req.url as string);
    } catch (error) {
      refuse(res, error);
      return;
    }
    const { url } = checked;
    const headers = { ...withoutHopByHop(req.headers), host: url.host };
    const upstream = http.request({
      method: req.method,
      path: `${url.pathname}${url.search}`,
      headers,
      createConnection: (_options, created) => {
        this.open(checked.addresses, Number(url.port || 80)).then(
          (socket) => created(null, socket),
          (error: Error) => created(error, undefined as never),
        );
        return undefined;
      },
    });
    upstream.on('response', (answer) => {
      res.writeHead(answer.statusCode ?? 502, withoutHopByHop(answer.headers));
      answer.pipe(res);
    });
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8' });
      res.end();
    });
    req.pipe(upstream);
  }

  /** `CONNECT host:port`: checked like `https://host:port/`, then a byte tunnel that must carry TLS. */
  private async tunnel(req: http.IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
    this.track(client);
    let checked: CheckedUrl;
    try {
      checked = await this.guard.check(`https://${req.url}/`);
    } catch (error) {
      refuseSocket(client, (error as Error).message);
      return;
    }
    let upstream: net.Socket;
    try {
      upstream = await this.open(checked.addresses, Number(checked.url.port || 443));
    } catch {
      refuseSocket(client, 'upstream unreachable', 502);
      return;
    }
    if (client.destroyed) return void upstream.destroy();
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    const start = (first: Buffer) => {
      if (first.length === 0) return void client.once('data', start);
      if (first[0] !== TLS_HANDSHAKE) return void client.destroy();
      upstream.write(first);
      client.pipe(upstream);
      upstream.pipe(client);
    };
    if (head.length > 0) start(head);
    else client.once('data', start);
  }

  /** Connects to the first of the checked addresses that answers (a name may resolve to `::1` and `127.0.0.1`). */
  private async open(addresses: string[], port: number): Promise<net.Socket> {
    let lastError: Error = new Error('no address');
    for (const address of addresses) {
      const socket = this.track(this.connect(address, port));
      try {
        await new Promise<void>((resolve, reject) => {
          socket.once('connect', resolve);
          socket.once('error', reject);
        });
        return socket;
      } catch (error) {
        lastError = error as Error;
        socket.destroy();
      }
    }
    throw lastError;
  }

  private track<T extends Duplex>(socket: T): T {
    this.sockets.add(socket);
    if (socket instanceof net.Socket) socket.setTimeout(IDLE_MS, () => socket.destroy());
    socket.once('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    return socket;
  }
}

function withoutHopByHop(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  const connectionListed = String(headers.connection ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase());
  return Object.fromEntries(
    Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name) && !connectionListed.includes(name)),
  );
}

function refuse(res: http.ServerResponse, error: unknown): void {
  const reason = error instanceof Error ? error.message : String(error);
  res.writeHead(403, {
    'content-type': 'text/plain; charset=utf-8',
    [BLOCKED_HEADER]: encodeURIComponent(reason),
  });
  res.end(reason);
}

function refuseSocket(socket: Duplex, reason: string, status = 403): void {
  if (!socket.writable) return void socket.destroy();
  socket.end(
    `HTTP/1.1 ${status} ${status === 403 ? 'Forbidden' : 'Bad Gateway'}\r\ncontent-type: text/plain; charset=utf-8\r\n${BLOCKED_HEADER}: ${encodeURIComponent(reason)}\r\nconnection: close\r\n\r\n`,
  );
}
