import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { build as bundle } from 'esbuild';
import { type Browser, chromium, type Page } from 'playwright-core';
import { build } from 'vite';
import { ROOT } from './procura.ts';

export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = fs.existsSync(CHROMIUM);
/** The widths every screen is checked at: a phone, a tablet, a small laptop, a desktop. */
export const WIDTHS = [390, 768, 1024, 1440] as const;

const WEB_CONFIG = path.join(ROOT, 'web/vite.config.ts');
/** What the last build read: each of its own source files (and the config and the lockfile) with its hash; kept
 *  outside web/dist, which the chat API serves. */
const BUILD_INPUTS = path.join(ROOT, 'node_modules/.cache/procura/web-build-inputs.json');
const hashOf = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

function builtFromCurrentSources(): boolean {
  try {
    const inputs = JSON.parse(fs.readFileSync(BUILD_INPUTS, 'utf8')) as Record<string, string>;
    return (
      fs.existsSync(path.join(ROOT, 'web/dist/index.html')) &&
      Object.entries(inputs).every(([file, hash]) => fs.existsSync(file) && hashOf(file) === hash)
    );
  } catch {
    return false;
  }
}

/**
 * Builds the UI from the current sources (the tests drive what ships), unless web/dist was built from exactly these:
 * a source file that changed, or an import added to one, changes a hash the last build recorded.
 */
export async function buildUi(): Promise<void> {
  if (builtFromCurrentSources()) return;
  const read = new Set<string>([WEB_CONFIG, path.join(ROOT, 'package-lock.json')]);
  await build({
    configFile: WEB_CONFIG,
    logLevel: 'warn',
    plugins: [
      {
        name: 'procura:build-inputs',
        buildEnd() {
          for (const id of this.getModuleIds()) {
            const file = id.split('?')[0];
            if (!file.includes('/node_modules/') && path.isAbsolute(file) && fs.existsSync(file)) read.add(file);
          }
        },
      },
    ],
  });
  fs.mkdirSync(path.dirname(BUILD_INPUTS), { recursive: true });
  fs.writeFileSync(BUILD_INPUTS, JSON.stringify(Object.fromEntries([...read].map((f) => [f, hashOf(f)]))));
}

/** Debian's Chromium, headless, reaching nothing but loopback. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

/**
 * Once the page has come to rest: its fonts loaded and every finite animation or transition (a drawer sliding in)
 * finished, so what is measured is where things stay, not where they pass through. Endless ones (a spinner) are left.
 */
export async function settled(page: Page): Promise<void> {
  await page.evaluate('document.fonts.ready');
  // Polled with evaluate: the page's CSP refuses the eval that waitForFunction needs.
  const moving = `document.getAnimations().filter((a) => a.playState === 'running' && a.effect?.getComputedTiming().endTime !== Infinity).length`;
  for (const until = Date.now() + 10_000; Date.now() < until; ) {
    if ((await page.evaluate(moving)) === 0) return;
    await page.waitForTimeout(50);
  }
  throw new Error('the page is still animating after 10 s');
}

/** A screenshot under the gitignored `test-output/ui/<folder>`, once the page has come to rest. */
export async function screenshot(page: Page, folder: string, name: string): Promise<void> {
  const dir = path.join(ROOT, 'test-output/ui', folder);
  fs.mkdirSync(dir, { recursive: true });
  await settled(page);
  await page.screenshot({ path: path.join(dir, `${name}.png`) });
}

const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

/**
 * The critical and serious axe-core violations on the page as it is, one line each (rule, help, where).
 * axe is evaluated in the page (the DevTools protocol is not bound by the page's CSP, which refuses inline scripts).
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  const violations = (await page.evaluate(
    `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations)`,
  )) as AxeViolation[];
  return violations
    .filter((v) => v.impact === 'critical' || v.impact === 'serious')
    .map((v) => `${v.impact} ${v.id}: ${v.help} @ ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** How far the page scrolls sideways (0 when everything fits the viewport's width). */
export function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(
    'document.documentElement.scrollWidth - document.documentElement.clientWidth',
  ) as Promise<number>;
}

/** In the page (the test's TypeScript has no DOM types): the controls a person could not reach, one line each. */
const UNREACHABLE = `(() => {
  const width = document.documentElement.clientWidth;
  const out = [];
  for (const el of document.querySelectorAll('button, a[href], input, textarea, select, [tabindex]')) {
    const style = getComputedStyle(el);
    if (style.visibility === 'hidden' || style.display === 'none') continue;
    const box = el.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) continue;
    // Behind an open drawer, on purpose: out of reach until it closes.
    if (el.closest('[aria-hidden=true], [inert]')) continue;
    // Inside a closed disclosure (<details>), likewise: reached once its summary opens it.
    if (el.closest('details:not([open])') && !el.closest('summary')) continue;
    const name = el.tagName.toLowerCase() + '[' + (el.dataset.testid ?? el.getAttribute('aria-label') ?? el.getAttribute('title') ?? el.textContent.trim().slice(0, 20)) + ']';
    if (box.left < -1 || box.right > width + 1) out.push(name + ' outside (' + Math.round(box.left) + '–' + Math.round(box.right) + ' of ' + width + ')');
    else if (box.width < 12 || box.height < 12) out.push(name + ' too small (' + Math.round(box.width) + '×' + Math.round(box.height) + ')');
    else {
      // Out of view is fine when it scrolls into reach; covered by another layer there is not.
      el.scrollIntoView({ block: 'center', inline: 'nearest' });
      const seen = el.getBoundingClientRect();
      const hit = document.elementFromPoint(seen.left + seen.width / 2, seen.top + seen.height / 2);
      if (hit && hit !== el && !el.contains(hit) && !hit.contains(el)) out.push(name + ' covered by ' + hit.tagName.toLowerCase() + '.' + hit.className);
    }
  }
  return out;
})()`;

/**
 * Visible controls (buttons, links, fields) that stick out of the viewport sideways, are too small to hit, or are
 * covered by something else at their centre: controls a person could not reach.
 */
export function unreachableControls(page: Page): Promise<string[]> {
  return page.evaluate(UNREACHABLE) as Promise<string[]>;
}

/**
 * A shipped component on its own page: `entry` is a TSX module (imports resolve from test/ui) that renders into
 * `#root`; returns the module as one script for `page.addScriptTag({ content, type: 'module' })`.
 */
export async function componentScript(entry: string): Promise<string> {
  const out = await bundle({
    stdin: { contents: entry, loader: 'tsx', resolveDir: path.join(ROOT, 'test/ui') },
    bundle: true,
    write: false,
    format: 'esm',
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
  });
  return out.outputFiles[0].text;
}

/**
 * A page at `origin` showing a bundled component (`componentScript`) with the UI's style sheet and a Chinese font
 * (`font`, the renderer's: this machine has none), loaded before the component draws, as the UI's entry point has it;
 * `css` adds the test's own layout. Nothing else is reachable. (The font is the caller's: this module is also loaded
 * where the renderer's modules cannot be.)
 */
export async function componentPage(
  browser: Browser,
  options: {
    origin: string;
    script: string;
    font: string;
    viewport: { width: number; height: number };
    css?: string;
  },
): Promise<Page> {
  const { origin, script, viewport, css = '' } = options;
  const page = await browser.newPage({ viewport });
  const font = `@font-face { font-family: 'Procura Sans SC'; src: url('${origin}/font.ttf') format('truetype'); }`;
  // The UI's style sheet without its own @font-face, whose file Vite serves: this page gives the same font here.
  const uiStyles = fs
    .readFileSync(path.join(ROOT, 'web/src/styles.css'), 'utf8')
    .replace(/@font-face\s*\{[^}]*\}/g, '');
  await page.route(`${origin}/**`, (route) => {
    const url = route.request().url();
    if (url === `${origin}/font.ttf`)
      return route.fulfill({ contentType: 'font/ttf', body: fs.readFileSync(options.font) });
    if (url !== `${origin}/`) return route.abort();
    return route.fulfill({
      contentType: 'text/html',
      body: `<!doctype html><html lang="zh-CN"><head><meta charset="utf-8"><style>${uiStyles}${css}${font}</style></head><body><div id="root"></div></body></html>`,
    });
  });
  await page.goto(`${origin}/`);
  // loaded as the UI's text would have it loaded before any chart arrives
  await page.evaluate(`document.fonts.load("12px 'Procura Sans SC'", '中')`);
  await page.addScriptTag({ content: script, type: 'module' });
  return page;
}
