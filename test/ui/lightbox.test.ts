import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChartService, ChartStore } from '../../src/charts/index.ts';
import { componentScript, hasChromium, launchChromium, screenshot } from './browser.ts';
import { ROOT } from './procura.ts';

/**
 * The chart lightbox of the browser UI, in Chromium: the shipped `ChartImage` component, bundled from the sources,
 * showing charts the renderer draws. Escape closes it wherever the focus is, and the focus goes back to the chart
 * that opened it.
 */
const ORIGIN = 'http://charts.procura.test';
const SUPPLIERS = ['博世（苏州）', '电装（天津）', 'NGK Spark Plug', '重庆火花塞厂', 'Champion', '温州瑞安汽配'];

describe.skipIf(!hasChromium)('chart lightbox: Escape closes it and the focus returns to its chart', () => {
  let browser: Browser;
  let page: Page;
  const store = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-lightbox-'));
  const charts: Array<{ url: string; png: Buffer; width: number; pixelRatio: number }> = [];

  beforeAll(async () => {
    const service = new ChartService(new ChartStore(store));
    for (const [type, width] of [
      ['column', 640],
      ['bar', 560],
      ['line', 720],
    ] as const) {
      const chart = await service.render(type, {
        title: `供应商对比 ${type}`,
        width,
        data: SUPPLIERS.map((name, i) =>
          type === 'line' ? { time: name, value: 10 + i } : { category: name, value: 10 + ((i * 7) % 5) },
        ),
      });
      charts.push({
        url: `${ORIGIN}/charts/${chart.id}.png`,
        png: (await service.image(chart.id, 'png'))!,
        width: chart.width,
        pixelRatio: chart.pixelRatio,
      });
    }
    const script = await componentScript(`import { createRoot } from 'react-dom/client';
import { ChartImage } from '../../web/src/components/Charts.tsx';
const urls = ${JSON.stringify(charts.map((c) => c.url))};
createRoot(document.getElementById('root')).render(
  <div className="chart-gallery">{urls.map((url, i) => <ChartImage key={url} url={url} title={'chart ' + i} />)}</div>,
);`);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.route(`${ORIGIN}/**`, (route) => {
      const url = route.request().url();
      if (url === `${ORIGIN}/`)
        return route.fulfill({
          contentType: 'text/html',
          body: `<!doctype html><html lang="zh-CN"><head><meta charset="utf-8"><style>${fs.readFileSync(path.join(ROOT, 'web/src/styles.css'), 'utf8')}</style></head><body><div id="root"></div></body></html>`,
        });
      const chart = charts.find((c) => c.url === url);
      return chart ? route.fulfill({ contentType: 'image/png', body: chart.png }) : route.abort();
    });
    await page.goto(`${ORIGIN}/`);
    await page.addScriptTag({ content: script, type: 'module' });
    await page
      .locator('.chart-thumb')
      .nth(charts.length - 1)
      .waitFor();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    fs.rmSync(store, { recursive: true, force: true });
  });

  // page code as strings: the tests compile without the DOM's types
  const focused = () => page.evaluate<string>(`document.activeElement?.className ?? ''`);
  const focusedIndex = () =>
    page.evaluate<number>(`[...document.querySelectorAll('.chart-thumb')].indexOf(document.activeElement)`);

  it('opens by click with the focus on its close button; Escape closes it and refocuses that chart', async () => {
    for (const index of [2, 0, 1]) {
      await page.locator('.chart-thumb').nth(index).click();
      await page.locator('.lightbox img').waitFor();
      expect(await focused()).toBe('lightbox-close');
      await page.keyboard.press('Escape');
      await expect.poll(() => page.locator('.lightbox').count()).toBe(0);
      expect(await focusedIndex()).toBe(index);
    }
  });

  it('opens from the keyboard and closes on Escape even when the focus has left the dialog', async () => {
    await page.locator('.chart-thumb').nth(1).focus();
    await page.keyboard.press('Enter');
    await page.locator('.lightbox').waitFor();
    await page.evaluate('document.activeElement?.blur()');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.locator('.lightbox').count()).toBe(0);
    expect(await focusedIndex()).toBe(1);
    // Another key leaves it open; the close button closes it and refocuses the chart too.
    await page.keyboard.press('Enter');
    await page.locator('.lightbox').waitFor();
    await page.keyboard.press('a');
    expect(await page.locator('.lightbox').count()).toBe(1);
    await page.locator('.lightbox-close').click();
    await expect.poll(() => page.locator('.lightbox').count()).toBe(0);
    expect(await focusedIndex()).toBe(1);
  });

  it('shows the 2× image enlarged: as many image pixels as screen pixels at its shown size, or more', async () => {
    for (const [index, chart] of charts.entries()) {
      expect(chart.pixelRatio).toBe(2);
      await page.locator('.chart-thumb').nth(index).click();
      const image = page.locator('.lightbox img');
      await image.waitFor();
      await expect
        .poll(() =>
          page.evaluate<number>(
            `(() => { const img = document.querySelector('.lightbox img'); return img.complete ? img.naturalWidth : 0; })()`,
          ),
        )
        .toBe(chart.width * 2);
      const shown = await image.boundingBox().then((box) => box?.width ?? 0);
      // Larger than the chart's own size on this screen, and never upscaled past the image's pixels.
      expect(shown).toBeGreaterThan(chart.width);
      expect(shown).toBeLessThanOrEqual(chart.width * 2);
      if (index === 0) await screenshot(page, 'lightbox', 'enlarged');
      await page.keyboard.press('Escape');
      await expect.poll(() => page.locator('.lightbox').count()).toBe(0);
    }
  });
});
