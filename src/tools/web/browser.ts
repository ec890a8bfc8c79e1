import { existsSync } from 'node:fs';
import { type Browser, type BrowserContext, chromium } from 'playwright-core';
import { ToolError } from '../registry.ts';
import type { UrlGuard } from './guard.ts';
import { BROWSER_HEADERS } from './http.ts';

export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];

export interface RenderedPage {
  status: number;
  finalUrl: string;
  html: string;
}

/**
 * Headless Chromium for pages that fill their content in with JavaScript. One browser per process, launched
 * on first use; every request the page makes (navigation, redirects, scripts, XHR) passes the SSRF guard.
 */
export class BrowserRenderer {
  private browser?: Promise<Browser>;

  constructor(
    private readonly executablePath: string,
    private readonly guard: UrlGuard,
    private readonly timeoutMs: number,
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
    const browser = await this.launch();
    const context: BrowserContext = await browser.newContext({
      userAgent: BROWSER_HEADERS['user-agent'],
      locale: 'zh-CN',
      javaScriptEnabled: true,
      serviceWorkers: 'block',
    });
    const abort = () => void context.close().catch(() => undefined);
    signal?.addEventListener('abort', abort, { once: true });
    try {
      await context.route('**/*', async (route) => {
        try {
          await this.guard.check(route.request().url());
          await route.continue();
        } catch {
          await route.abort('blockedbyclient');
        }
      });
      const page = await context.newPage();
      const response = await page.goto(url, { waitUntil: 'networkidle', timeout: this.timeoutMs });
      return { status: response?.status() ?? 0, finalUrl: page.url(), html: await page.content() };
    } catch (error) {
      if (error instanceof ToolError) throw error;
      throw new ToolError(
        `浏览器渲染失败 / browser rendering failed for ${url}: ${(error as Error).message.split('\n')[0]}`,
        '稍后重试或改用 mode=http / retry later or use mode=http',
      );
    } finally {
      signal?.removeEventListener('abort', abort);
      await context.close().catch(() => undefined);
    }
  }

  private launch(): Promise<Browser> {
    this.browser ??= chromium
      .launch({ executablePath: this.executablePath, args: CHROMIUM_ARGS, headless: true })
      .catch((error) => {
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
    if (browser) await (await browser.catch(() => undefined))?.close();
  }
}
