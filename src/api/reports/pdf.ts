import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Marked } from 'marked';
import { type Browser, chromium } from 'playwright-core';
import { childEnv, escapeHtml, ProblemError } from '../../shared/index.ts';
import { CHROMIUM_ARGS } from '../../tools/index.ts';

/** Loads one image the report refers to, or says no (undefined) when its address is not trusted. */
export type ImageLoader = (url: string) => Promise<{ bytes: Uint8Array; contentType: string } | undefined>;

/** Chart images a report may embed: `/charts/<id>.png|svg` on the chart renderer's own origins, nothing else. */
export function chartImageLoader(origins: string[], timeoutMs = 10_000): ImageLoader {
  const trusted = new Set(origins.map((o) => new URL(o).origin));
  return async (url) => {
    const parsed = URL.canParse(url) ? new URL(url) : undefined;
    if (!parsed || !trusted.has(parsed.origin) || !/^\/charts\/[\w-]+\.(png|svg)$/.test(parsed.pathname)) return;
    const response = await fetch(parsed, { redirect: 'error', signal: AbortSignal.timeout(timeoutMs) });
    if (!response.ok) return;
    return {
      bytes: new Uint8Array(await response.arrayBuffer()),
      contentType: parsed.pathname.endsWith('.svg') ? 'image/svg+xml' : 'image/png',
    };
  };
}

/** Assets the print page may load live under this reserved name, served from memory, never from a network. */
const ASSET_ORIGIN = 'https://procura-print.invalid';
const FONT_URL = `${ASSET_ORIGIN}/NotoSansSC-Regular.ttf`;
const FONT_FILE = fileURLToPath(
  import.meta.resolve('@expo-google-fonts/noto-sans-sc/400Regular/NotoSansSC_400Regular.ttf'),
);

/** Markdown → HTML with raw HTML shown as text, so a report cannot carry markup or script into the print page. */
const markdown = new Marked({
  gfm: true,
  renderer: {
    html: (token) => escapeHtml(token.text),
    // a chart with its title under it, kept on one page
    image: ({ href, text }) =>
      /^https?:\/\//i.test(href)
        ? `<span class="figure"><img src="${escapeHtml(href)}" alt="${escapeHtml(text)}">${text ? `<span class="caption">${escapeHtml(text)}</span>` : ''}</span>`
        : escapeHtml(text),
  },
});

const STYLE = `
@font-face { font-family: 'Procura Sans SC'; src: url('${FONT_URL}') format('truetype'); }
@page { size: A4; margin: 18mm 16mm; }
body { font-family: 'Procura Sans SC', sans-serif; font-size: 10.5pt; line-height: 1.55; color: #1f2329; }
h1 { font-size: 18pt; border-bottom: 2px solid #1677ff; padding-bottom: 4pt; }
h2 { font-size: 13.5pt; margin-top: 16pt; } h3 { font-size: 11.5pt; }
table { border-collapse: collapse; width: 100%; margin: 8pt 0; font-size: 9pt; page-break-inside: auto; }
tr { page-break-inside: avoid; } th, td { border: 1px solid #d0d7de; padding: 3pt 5pt; text-align: left; }
th { background: #f2f5fa; } img { max-width: 100%; display: block; margin: 0 auto; }
.figure { display: block; break-inside: avoid; page-break-inside: avoid; margin: 6pt 0; }
.caption { display: block; text-align: center; color: #595959; font-size: 9pt; margin-top: 2pt; }
/* A heading stays with what it introduces: never the last line of a page. */
h1, h2, h3, h4, h5, h6 { break-after: avoid; page-break-after: avoid; break-inside: avoid; }
code, pre { font-family: 'Procura Sans SC', monospace; background: #f6f8fa; }
footer { margin-top: 18pt; color: #8a919f; font-size: 8pt; }`;

/**
 * Turns a Markdown report into a PDF with the Chromium the project already drives: CJK font embedded, tables, and the
 * report's chart images. The page runs without JavaScript and without a network: the font and the images the loader
 * accepts are handed over from memory; every other request is refused.
 */
export class ReportPdf {
  private browser?: Promise<Browser>;
  private font?: Buffer;

  constructor(private readonly options: { executablePath: string; loadImage: ImageLoader; timeoutMs?: number }) {}

  async render(report: { title: string; markdown: string }): Promise<Uint8Array> {
    if (!existsSync(this.options.executablePath))
      throw new ProblemError(
        503,
        'pdf_unavailable',
        `本机没有无头浏览器，无法生成 PDF / no headless browser at ${this.options.executablePath}: PDF export is unavailable (install Debian's chromium or set PROCURA_CHROMIUM_PATH)`,
      );
    const html = `<!doctype html><html lang="zh-CN"><head><meta charset="utf-8"><title>${escapeHtml(report.title)}</title><style>${STYLE}</style></head><body>${await markdown.parse(report.markdown)}<footer>Procura · ${escapeHtml(report.title)}</footer></body></html>`;
    const browser = await this.launch();
    const context = await browser.newContext({ javaScriptEnabled: false, serviceWorkers: 'block', offline: false });
    try {
      await context.route('**/*', async (route) => {
        const url = route.request().url();
        if (url === FONT_URL) {
          this.font ??= readFileSync(FONT_FILE);
          return route.fulfill({ status: 200, contentType: 'font/ttf', body: this.font });
        }
        const image =
          route.request().resourceType() === 'image'
            ? await this.options.loadImage(url).catch(() => undefined)
            : undefined;
        if (image)
          return route.fulfill({ status: 200, contentType: image.contentType, body: Buffer.from(image.bytes) });
        return route.abort('blockedbyclient');
      });
      await context.routeWebSocket(/.*/, (ws) => ws.close());
      const page = await context.newPage();
      await page.setContent(html, { waitUntil: 'load', timeout: this.options.timeoutMs ?? 30_000 });
      await page.evaluate('document.fonts.ready').catch(() => undefined);
      return new Uint8Array(
        await page.pdf({ format: 'A4', printBackground: true, preferCSSPageSize: true, tagged: true }),
      );
    } finally {
      await context.close().catch(() => undefined);
    }
  }

  private launch(): Promise<Browser> {
    this.browser ??= chromium
      .launch({ executablePath: this.options.executablePath, args: CHROMIUM_ARGS, headless: true, env: childEnv() })
      .catch((error) => {
        this.browser = undefined;
        throw error;
      });
    return this.browser;
  }

  async close(): Promise<void> {
    const browser = await this.browser?.catch(() => undefined);
    this.browser = undefined;
    await browser?.close().catch(() => undefined);
  }
}
