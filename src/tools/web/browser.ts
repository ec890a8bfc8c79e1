import { existsSync } from 'node:fs';
import type { Browser, BrowserContext } from 'playwright-core';
import { childEnv } from '../../shared/index.ts';
import { ToolError } from '../registry.ts';
import { BlockedUrlError, type UrlGuard } from './guard.ts';
import { BROWSER_HEADERS } from './http.ts';
import { BLOCKED_HEADER, type Connector, directConnector, GuardedProxy } from './proxy.ts';

export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];

/**
 * Everything the browser sends goes to the guarded proxy, loopback included (`<-loopback>` removes Chromium's
 * implicit bypass); WebRTC may not send UDP around it and QUIC is off, so no traffic leaves except through it.
 */
const proxyArgs = (proxyUrl: string) => [
  `--proxy-server=${proxyUrl}`,
  '--proxy-bypass-list=<-loopback>',
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--disable-quic',
];

export interface RenderedPage {
  status: number;
  finalUrl: string;
  html: string;
}

/**
 * Runs in every frame before the page's own scripts. Playwright's 'block' still lets a page register a service
 * worker; without the API none can outlive the page (the proxy also refuses service-worker script fetches). A
 * `wss://` tunnel looks like HTTPS to the proxy, so pages get no WebSocket API at all (`ws://` is refused by the
 * proxy too, which also covers workers).
 */
const PAGE_LOCKDOWN = [
  'delete Navigator.prototype.serviceWorker;',
  'delete globalThis.WebSocket;',
  'delete globalThis.WebSocketStream;',
].join('\n');

/**
 * Headless Chromium for pages that fill their content in with JavaScript. One browser per process, launched
 * on first use behind its own `GuardedProxy`: every request the page makes (navigation, each redirect hop,
 * scripts, XHR/fetch, workers) passes the same SSRF guard as the HTTP path; WebSockets and service workers are off.
 */
export class BrowserRenderer {
  private browser?: Promise<{ browser: Browser; proxy: GuardedProxy }>;

  constructor(
    private readonly executablePath: string,
    private readonly guard: UrlGuard,
    private readonly timeoutMs: number,
    private readonly connect: Connector = directConnector,
  ) {}

  get available(): boolean {
    return existsSync(this.executablePath);
  }

  /** Why rendering is impossible here, in words the model and the user can act on. */
  get unavailableReason(): string {
    return `本机没有无头浏览器（${this.executablePath} 不存在），无法渲染需要 JavaScript 的页面 / no headless browser at ${this.executablePath}: pages that need JavaScript cannot be rendered (install Debian's chromium or set PROCURA_CHROMIUM_PATH)`;
  }

  async render(url: string, signal?: AbortSignal): Promise<RenderedPage> {
    if (!this.available)
      throw new ToolError(
        this.unavailableReason,
        '改用 mode=http，或换一个不需要 JavaScript 的来源 / use mode=http or another source',
      );
    await this.guard.check(url);
    const { browser } = await this.launch();
    const context: BrowserContext = await browser.newContext({
      userAgent: BROWSER_HEADERS['user-agent'],
      locale: 'zh-CN',
      javaScriptEnabled: true,
      serviceWorkers: 'block',
    });
    const abort = () => void context.close().catch(() => undefined);
    signal?.addEventListener('abort', abort, { once: true });
    try {
      await context.addInitScript(PAGE_LOCKDOWN);
      const page = await context.newPage();
      const response = await page.goto(url, { waitUntil: 'networkidle', timeout: this.timeoutMs });
      const blocked = response?.headers()[BLOCKED_HEADER];
      if (blocked !== undefined) throw new BlockedUrlError(decodeURIComponent(blocked));
      return { status: response?.status() ?? 0, finalUrl: page.url(), html: await page.content() };
    } catch (error) {
      if (error instanceof ToolError) throw error;
      const message = (error as Error).message.split('\n')[0];
      if (/ERR_TUNNEL_CONNECTION_FAILED/.test(message))
        throw new BlockedUrlError(
          `浏览器请求被网络策略拒绝（${url} 或其重定向）/ the network policy refused ${url} or a redirect from it`,
        );
      throw new ToolError(
        `浏览器渲染失败 / browser rendering failed for ${url}: ${message}`,
        '稍后重试或改用 mode=http / retry later or use mode=http',
      );
    } finally {
      signal?.removeEventListener('abort', abort);
      await context.close().catch(() => undefined);
    }
  }

  private launch(): Promise<{ browser: Browser; proxy: GuardedProxy }> {
    this.browser ??= (async () => {
      const proxy = new GuardedProxy(this.guard, this.connect);
      const proxyUrl = await proxy.listen();
      try {
        // Playwright is loaded on the first page that needs it: it takes longer to load than the rest of the tools.
        const { chromium } = await import('playwright-core');
        const browser = await chromium.launch({
          executablePath: this.executablePath,
          args: [...CHROMIUM_ARGS, ...proxyArgs(proxyUrl)],
          headless: true,
          // Web pages run in it: none of this process's secrets are in its environment.
          env: childEnv(),
        });
        return { browser, proxy };
      } catch (error) {
        await proxy.close();
        throw error;
      }
    })().catch((error) => {
      this.browser = undefined;
      throw new ToolError(
        `无法启动浏览器 / cannot start Chromium: ${(error as Error).message.split('\n')[0]}`,
        '改用 mode=http / use mode=http',
      );
    });
    return this.browser;
  }

  async close(): Promise<void> {
    const browser = this.browser;
    this.browser = undefined;
    const running = await browser?.catch(() => undefined);
    await running?.browser.close();
    await running?.proxy.close();
  }
}
