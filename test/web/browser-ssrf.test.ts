import { existsSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ToolContext, ToolRegistry } from '../../src/tools/index.ts';
import { type Connector, type FetchUrlResult, registerWebTools, type WebTools } from '../../src/tools/web/index.ts';

const HAS_CHROMIUM = existsSync('/usr/bin/chromium');
const ctx: ToolContext = { userId: 'laoxiao', role: 'buyer', traceId: 't-browser-ssrf' };

/** A "public" address the fake resolver hands out; the test connector maps it to a loopback server. */
const FAKE_PUBLIC = '93.184.215.14';
const SECRET = 'INTERNAL-SECRET-7f3a';

interface TestServer {
  port: number;
  /** Every TCP connection and every request it saw (an SSRF that reached it at all shows up here). */
  connections: number;
  requests: string[];
  upgrades: string[];
  close(): Promise<void>;
}

async function serve(host: string, handler: http.RequestListener): Promise<TestServer> {
  const server = http.createServer(handler);
  const seen: TestServer = {
    port: 0,
    connections: 0,
    requests: [],
    upgrades: [],
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  server.on('connection', () => seen.connections++);
  server.on('request', (req) => seen.requests.push(req.url ?? ''));
  server.on('upgrade', (req, socket) => {
    seen.upgrades.push(req.url ?? '');
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  seen.port = (server.address() as net.AddressInfo).port;
  return seen;
}

const html = (res: http.ServerResponse, body: string) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(`<!doctype html><html><head><title>t</title></head><body>${body}</body></html>`);
};
const redirect = (res: http.ServerResponse, to: string) => {
  res.writeHead(302, { location: to });
  res.end();
};

describe.skipIf(!HAS_CHROMIUM)('fetch_url in browser mode: one network policy for every request', () => {
  let internal: TestServer;
  let internal6: TestServer;
  let site: TestServer;
  let publicSite: TestServer;
  let web: WebTools;
  let registry: ToolRegistry;
  const connectorAsked: string[] = [];
  let rebindCalls = 0;

  const internalUrl = (path = '/secret') => `http://127.0.0.1:${internal.port}${path}`;
  const siteUrl = (path: string) => `http://127.0.0.1:${site.port}${path}`;

  beforeAll(async () => {
    const secret: http.RequestListener = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html', 'access-control-allow-origin': '*' });
      res.end(`<html><body><p>${SECRET}</p></body></html>`);
    };
    internal = await serve('127.0.0.1', secret);
    internal6 = await serve('::1', secret);
    // The allowlisted site (as the local supplier sites are): it may be reached on loopback, nothing else may.
    site = await serve('127.0.0.1', (req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/to') return redirect(res, url.searchParams.get('u') ?? '/');
      if (url.pathname === '/ok') return html(res, '<p>allowed page</p>');
      if (url.pathname === '/sub')
        return html(
          res,
          `<p id="out">ok</p>
           <img src="${internalUrl('/img')}">
           <script src="${internalUrl('/script.js')}"></script>
           <link rel="stylesheet" href="http://[::1]:${internal6.port}/style.css">
           <iframe src="${internalUrl('/frame')}"></iframe>
           <img src="/to?u=${encodeURIComponent(internalUrl('/redirected-img'))}">
           <script>
             fetch('${internalUrl('/fetch')}').then((r) => r.text()).then((t) => document.body.append(t)).catch(() => {});
             fetch('/to?u=${encodeURIComponent(internalUrl('/fetch-redirect'))}').then((r) => r.text()).then((t) => document.body.append(t)).catch(() => {});
             const x = new XMLHttpRequest(); x.open('GET', 'http://localhost:${internal.port}/xhr'); x.send();
             navigator.sendBeacon('${internalUrl('/beacon')}', 'x');
             new Worker(URL.createObjectURL(new Blob(["fetch('${internalUrl('/worker')}')"], { type: 'text/javascript' })));
           </script>`,
        );
      if (url.pathname === '/ws')
        return html(
          res,
          `<p id="ws">pending</p><script>
             const targets = ['ws://127.0.0.1:${internal.port}/ws', 'ws://127.0.0.1:${site.port}/ws', 'ws://[::1]:${internal6.port}/ws', 'wss://public.example/ws'];
             for (const target of targets) {
               try {
                 const ws = new WebSocket(target);
                 ws.onopen = () => document.body.append('WS-OPEN ' + target);
                 ws.onerror = () => document.body.append('WS-ERROR ' + target);
               } catch (e) {
                 document.body.append('WS-REFUSED ' + target);
               }
             }
             // Workers get no init script: their WebSockets still meet the proxy.
             new Worker(URL.createObjectURL(new Blob([
               "const ws = new WebSocket('ws://127.0.0.1:${site.port}/from-worker'); ws.onopen = () => postMessage('open');",
             ], { type: 'text/javascript' }))).onmessage = (m) => document.body.append('WORKER-WS-' + m.data);
           </script>`,
        );
      if (url.pathname === '/sw')
        return html(
          res,
          `<p id="sw">pending</p><script>
             (navigator.serviceWorker ? navigator.serviceWorker.register('/sw.js') : Promise.reject(new Error('none')))
               .then(() => document.body.append('SW-REGISTERED'), (e) => document.body.append('SW-REFUSED ' + e.message));
           </script>`,
        );
      if (url.pathname === '/sw.js') {
        res.writeHead(200, { 'content-type': 'text/javascript' });
        return res.end(`self.addEventListener('fetch', () => fetch('${internalUrl('/from-sw')}'));`);
      }
      res.writeHead(404);
      res.end();
    });
    // A host on the "internet" (a public address as far as the guard can tell) that redirects into the machine.
    publicSite = await serve('127.0.0.1', (req, res) => {
      if (req.url === '/inward') return redirect(res, internalUrl());
      if (req.url === '/inward-v6') return redirect(res, `http://[::1]:${internal6.port}/secret`);
      if (req.url === '/inward-name') return redirect(res, `http://localhost:${internal.port}/secret`);
      if (req.url === '/page')
        return html(
          res,
          `<p>public page</p><img src="${internalUrl('/public-img')}"><script>fetch('${internalUrl('/public-fetch')}').catch(() => {});</script>`,
        );
      res.writeHead(404);
      res.end();
    });
    const resolver = async (host: string) => {
      if (host === 'public.example') return [FAKE_PUBLIC];
      // Both loopback families, v6 first, as a real resolver may answer; only 127.0.0.1 serves the site.
      if (host === 'localhost') return ['::1', '127.0.0.1'];
      // DNS rebinding: public for the renderer's first check and the proxy's check, loopback on any later lookup.
      if (host === 'rebind.example') return rebindCalls++ < 2 ? [FAKE_PUBLIC] : ['127.0.0.1'];
      throw new Error(`no such host ${host}`);
    };
    // Loopback goes where it says (so a missing check would really reach the internal servers); the fake public
    // address goes to `publicSite`; anything else is refused, so the test never leaves the machine.
    const connector: Connector = (address, port) => {
      connectorAsked.push(`${address}:${port}`);
      if (address === FAKE_PUBLIC) return net.connect({ host: '127.0.0.1', port: publicSite.port });
      if (ipaddr.isValid(address) && ipaddr.process(address).range() === 'loopback')
        return net.connect({ host: address, port });
      const socket = new net.Socket();
      process.nextTick(() => socket.destroy(new Error(`test connector refuses ${address}`)));
      return socket;
    };
    registry = new ToolRegistry();
    web = registerWebTools(registry, {
      suppliersUrl: siteUrl(''),
      env: {},
      settings: { cacheTtlSeconds: 0, timeoutMs: 15_000, allowlist: [`localhost:${site.port}`] },
      resolver,
      connector,
    });
  }, 30_000);

  afterAll(async () => {
    await web?.close();
    await Promise.all([internal, internal6, site, publicSite].map((s) => s?.close()));
  });

  beforeEach(() => {
    for (const s of [internal, internal6]) {
      s.connections = 0;
      s.requests.length = 0;
      s.upgrades.length = 0;
    }
    site.upgrades.length = 0;
    site.requests.length = 0;
  });

  const render = (url: string) =>
    registry.execute('fetch_url', { url, mode: 'browser' }, ctx) as Promise<
      FetchUrlResult | { success: false; error: string }
    >;
  const internalUntouched = () => {
    expect(internal.requests, 'requests that reached 127.0.0.1').toEqual([]);
    expect(internal6.requests, 'requests that reached [::1]').toEqual([]);
    expect(internal.connections + internal6.connections, 'connections to internal servers').toBe(0);
  };

  it('renders the allowlisted loopback site through the proxy', async () => {
    const result = await render(siteUrl('/ok'));
    expect(result).toMatchObject({ success: true, fetchedWith: 'chromium' });
    expect((result as FetchUrlResult).content).toContain('allowed page');
  });

  it('reaches an allowlisted name through whichever of its checked addresses answers', async () => {
    const result = await render(`http://localhost:${site.port}/ok`);
    expect(result).toMatchObject({ success: true });
    expect((result as FetchUrlResult).content).toContain('allowed page');
  });

  it.each([
    ['127.0.0.1 on another port', () => internalUrl()],
    ['[::1]', () => `http://[::1]:${internal6.port}/secret`],
    ['localhost by name', () => `http://localhost:${internal.port}/secret`],
    ['https on loopback', () => `https://127.0.0.1:${internal.port}/secret`],
  ])('refuses a 302 from the allowlisted site to %s', async (_name, target) => {
    const result = await render(siteUrl(`/to?u=${encodeURIComponent(target())}`));
    expect(result).toMatchObject({ success: false });
    expect((result as { error: string }).error).toMatch(/loopback|network policy/);
    internalUntouched();
  });

  it.each([
    ['/inward', /127\.0\.0\.1/],
    ['/inward-v6', /::1/],
    ['/inward-name', /localhost/],
  ])('refuses a public host that redirects inward (%s)', async (path, reason) => {
    const result = await render(`http://public.example${path}`);
    expect(result).toMatchObject({ success: false });
    expect((result as { error: string }).error).toMatch(reason);
    internalUntouched();
  });

  it('checks every sub-request: images, scripts, styles, frames, fetch, XHR, beacons, workers and their redirects', async () => {
    const result = await render(siteUrl('/sub'));
    expect(result).toMatchObject({ success: true });
    expect((result as FetchUrlResult).content).not.toContain(SECRET);
    // Give late requests (beacon, worker) a moment to arrive if they were going to.
    await new Promise((resolve) => setTimeout(resolve, 300));
    internalUntouched();
  });

  it("keeps a public page's sub-requests off internal addresses too", async () => {
    const result = await render('http://public.example/page');
    expect(result).toMatchObject({ success: true });
    expect((result as FetchUrlResult).content).toContain('public page');
    internalUntouched();
  });

  it('connects to the address it checked, not to a second DNS answer (rebinding)', async () => {
    rebindCalls = 0;
    connectorAsked.length = 0;
    const result = await render('http://rebind.example/page');
    expect(result).toMatchObject({ success: true });
    expect(connectorAsked.filter((a) => a.startsWith('127.0.0.1:') && !a.endsWith(`:${site.port}`))).toEqual([]);
    internalUntouched();
  });

  it('blocks WebSockets from pages and workers, to internal, allowlisted and public hosts alike', async () => {
    connectorAsked.length = 0;
    const result = (await render(siteUrl('/ws'))) as FetchUrlResult;
    expect(result.success).toBe(true);
    expect(result.content).not.toContain('WS-OPEN');
    expect(result.content).toContain('WS-REFUSED wss://public.example/ws');
    expect(result.content).not.toContain('WORKER-WS-open');
    // Not even a tunnel towards the public WebSocket host was asked for.
    expect(connectorAsked.filter((a) => a.endsWith(':443'))).toEqual([]);
    expect(site.upgrades).toEqual([]);
    expect(internal.upgrades).toEqual([]);
    internalUntouched();
  });

  it('keeps service workers off', async () => {
    const result = (await render(siteUrl('/sw'))) as FetchUrlResult;
    expect(result.success).toBe(true);
    expect(result.content).toContain('SW-REFUSED');
    expect(site.requests).not.toContain('/sw.js');
    internalUntouched();
  });
});
