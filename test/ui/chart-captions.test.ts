import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FONT_FILES } from '../../src/charts/theme.ts';
import type { ShowChartParams } from '../../src/protocol/index.ts';
import { componentPage, componentScript, hasChromium, launchChromium } from './browser.ts';

/**
 * The answer's chart gallery (`ChartGallery`), in Chromium: each chart tells a screen reader and
 * the reader what it shows and its main figure, and a month on the time axis is drawn on one line.
 */
const ORIGIN = 'http://captions.procura.test';
const MONTHS = Array.from({ length: 12 }, (_, i) => `2026-${String(i + 1).padStart(2, '0')}`);
const TREND: ShowChartParams = {
  title: '火花塞 F7TC 月均价',
  chart_type: 'line',
  x_data: MONTHS,
  // no purchase in June
  series: [{ name: '博世', data: [14.8, 15.2, 14.9, 15, 15.1, null, 14.7, 14.9, 15, 15.05, 14.95, 15] }],
  unit: '元',
};
// 640 px for 12 months: each slot is wide enough for two CJK characters, not for "2026-01", where wrapping split it
const WIDTH = '.chart-interactive { width: 640px; }';
const IMAGE_ALT = '各供应商均价，3 项，最高 15.2（博世）/ 3 categories, highest 15.2 (博世)';

describe.skipIf(!hasChromium)('chart gallery: alt text, caption and one-line month labels', () => {
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    const script = await componentScript(`import * as echarts from 'echarts/core';
import { createRoot } from 'react-dom/client';
import { ChartGallery } from '../../web/src/components/Charts.tsx';
window.echarts = echarts;
const charts = [
  { kind: 'interactive', key: 'trend', params: ${JSON.stringify(TREND)} },
  { kind: 'image', url: '${ORIGIN}/charts/a.png', title: ${JSON.stringify(IMAGE_ALT)} },
];
createRoot(document.getElementById('root')).render(<ChartGallery charts={charts} />);`);
    browser = await launchChromium();
    page = await componentPage(browser, {
      origin: ORIGIN,
      script,
      font: FONT_FILES[0],
      viewport: { width: 720, height: 900 },
      css: WIDTH,
    });
    await page.locator('figcaption').nth(1).waitFor();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('names each chart by its subject, span and main figure: aria-label, img alt and caption', async () => {
    const described =
      '火花塞 F7TC 月均价，2026-01 至 2026-12，最高 15.2元（2026-02）/ 2026-01 to 2026-12, highest 15.2元 (2026-02)';
    expect(await page.locator('[data-kind="interactive"]').getAttribute('aria-label')).toBe(described);
    expect(await page.locator('[data-kind="interactive"]').getAttribute('role')).toBe('img');
    expect(await page.locator('[data-kind="image"]').getAttribute('alt')).toBe(IMAGE_ALT);
    expect(await page.locator('figcaption').allTextContents()).toEqual([
      `图表 1：${described}`,
      `图表 2：${IMAGE_ALT}`,
    ]);
  });

  it('draws every month label whole, on one line, where a slot is narrower than a month', async () => {
    const drawnWidth = `echarts.getInstanceByDom(document.querySelector('.chart-interactive'))?.getWidth() ?? 0`;
    await expect.poll(() => page.evaluate<number>(drawnWidth)).toBeGreaterThan(600);
    // the texts ECharts displays, grouped by label: a split month would be one label of two lines
    const labels = await page.evaluate<string[][]>(`(() => {
      const chart = echarts.getInstanceByDom(document.querySelector('.chart-interactive'));
      const lines = new Map();
      for (const line of chart.getZr().storage.getDisplayList(true)) {
        const text = line.parent;
        if (line.type !== 'tspan' || !text || text.type !== 'text' || line.invisible || text.invisible) continue;
        if (!lines.has(text)) lines.set(text, []);
        lines.get(text).push(line.style.text);
      }
      return [...lines].filter(([text]) => /^2026-\\d\\d$/.test(text.style.text)).map(([, l]) => l);
    })()`);
    expect(labels.map((l) => l.join(''))).toEqual(MONTHS);
    expect(labels.every((l) => l.length === 1)).toBe(true);
  });
});
