import path from 'node:path';
import { Hono } from 'hono';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiEnv } from '../../src/api/http.ts';
import { serveWebUi } from '../../src/api/web-ui.ts';
import { listen, type RunningServer } from '../../src/shared/index.ts';
import { buildUi, hasChromium, launchChromium } from './browser.ts';
import { ROOT } from './procura.ts';

const FAMILY = 'Procura Sans SC';

describe.skipIf(!hasChromium)('browser UI: the bundled Chinese font under the UI’s own content security policy', () => {
  let server: RunningServer;
  let browser: Browser;

  beforeAll(async () => {
    await buildUi();
    // The built UI as the chat API serves it: its files and its content security policy, nothing else.
    const app = new Hono<ApiEnv>();
    serveWebUi(app, path.join(ROOT, 'web/dist'), []);
    server = await listen(app.fetch, { host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('loads Noto Sans SC from the UI’s own origin, and the policy refuses nothing', async () => {
    const page = await browser.newPage({ locale: 'zh-CN' });
    const refused: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) refused.push(m.text());
    });
    // Listened for before the UI's own code runs (injected by the browser's tooling, which the policy does not bind).
    await page.addInitScript(`document.addEventListener('securitypolicyviolation', (e) => {
      (window.__refused ??= []).push(e.violatedDirective + ' ' + e.blockedURI);
    })`);
    const fontRequests: Array<{ url: string; status: number }> = [];
    page.on('response', (r) => {
      if (/\.ttf$/.test(new URL(r.url()).pathname)) fontRequests.push({ url: r.url(), status: r.status() });
    });
    await page.goto(server.url);
    await page.locator('#root *').first().waitFor();
    // Asked for by name, as a PC without a Chinese font of its own falls back to it.
    const loaded = await page.evaluate(
      `document.fonts.load('16px "${FAMILY}"', '采购比价').then((faces) => faces.map((f) => f.family + ':' + f.status))`,
    );
    expect(loaded).toEqual([`${FAMILY}:loaded`]);
    const declared = await page.evaluate(
      `[...document.fonts].filter((f) => f.family.includes('${FAMILY}')).map((f) => f.status)`,
    );
    expect(declared).toEqual(['loaded']);
    expect(fontRequests).toHaveLength(1);
    expect(new URL(fontRequests[0].url).origin).toBe(server.url.replace(/\/$/, ''));
    expect(fontRequests[0].status).toBe(200);
    expect(await page.evaluate('window.__refused ?? []')).toEqual([]);
    expect(refused).toEqual([]);
  }, 120_000);
});
