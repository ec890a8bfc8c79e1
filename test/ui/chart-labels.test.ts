import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FONT_FILES } from '../../src/charts/theme.ts';
import type { ShowChartParams } from '../../src/protocol/index.ts';
import { FEW_BARS, formatValue } from '../../src/protocol/index.ts';
import { componentPage, componentScript, hasChromium, launchChromium, screenshot, WIDTHS } from './browser.ts';

/**
 * The browser UI's interactive charts, in Chromium at a phone's to a desktop's width: the shipped `InteractiveChart`,
 * bundled from the sources. Every category label is drawn, none over another; few bars and points carry their
 * values, many do not; a pie labels every slice. Read from what ECharts drew (its display list), not from the option.
 */
const ORIGIN = 'http://charts.procura.test';
const SUPPLIERS = ['博世（苏州）', '电装（天津）', 'NGK Spark Plug', '重庆火花塞厂', 'Champion', '温州瑞安汽配'];
const MANY = Array.from({ length: 20 }, (_, i) => `${SUPPLIERS[i % SUPPLIERS.length]}·${i + 1}`);

const CHARTS: ShowChartParams[] = [
  {
    title: '火花塞报价对比',
    chart_type: 'bar',
    x_data: SUPPLIERS,
    series: [{ name: '报价', data: [12500, 11800.5, 13260.257, 9900, null, 10450.75] }],
    unit: '元',
  },
  {
    title: '交付准时率与合格率',
    chart_type: 'line',
    x_data: SUPPLIERS,
    series: [
      { name: '准时率', data: [96.5, 92, 98.25, 88, 90.4, 94] },
      { name: '合格率', data: [99.1, 97.8, 99.6, 95.2, 96, 98.33] },
    ],
    unit: '%',
  },
  {
    title: '采购额占比',
    chart_type: 'pie',
    x_data: SUPPLIERS,
    series: [{ name: '采购额', data: [320000, 210000, 180000, 95000, 60000, 42000] }],
    unit: '元',
  },
  {
    title: '二十家供应商报价',
    chart_type: 'bar',
    x_data: MANY,
    series: [{ name: '报价', data: MANY.map((_, i) => 9000 + ((i * 137) % 40) * 100) }],
    unit: '元',
  },
];

/** What one chart drew: its size, its category and value labels as shown: their text, lines and corners on screen. */
interface Drawn {
  width: number;
  height: number;
  axisLabels: Label[];
  values: Label[];
}
interface Label {
  text: string;
  lines: string[];
  corners: Array<[number, number]>;
}

/**
 * In the page (the test's TypeScript has no DOM types): per chart, the texts ECharts displays. The display list holds
 * each text's lines (hidden texts are left out); their parent is the label. A label attached to a bar, point or slice
 * has a host; a category label is a free text whose content is a category.
 */
const DRAWN = `[...document.querySelectorAll('.chart-interactive')].map((el, i) => {
  const chart = echarts.getInstanceByDom(el);
  const categories = new Set(window.charts[i].x_data.map(String));
  const labels = new Map();
  for (const line of chart.getZr().storage.getDisplayList(true)) {
    const text = line.parent;
    if (line.type !== 'tspan' || !text || text.type !== 'text' || line.invisible || text.invisible) continue;
    if (!labels.has(text)) labels.set(text, []);
    labels.get(text).push(line.style.text);
  }
  const axisLabels = [];
  const values = [];
  for (const [text, lines] of labels) {
    const box = text.getBoundingRect();
    const m = text.getComputedTransform() ?? [1, 0, 0, 1, 0, 0];
    const corners = [[box.x, box.y], [box.x + box.width, box.y], [box.x + box.width, box.y + box.height], [box.x, box.y + box.height]]
      .map(([x, y]) => [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]]);
    const label = { text: text.style.text, lines, corners };
    if (text.__hostTarget) values.push(label);
    else if (categories.has(label.text)) axisLabels.push(label);
  }
  return { width: chart.getWidth(), height: chart.getHeight(), axisLabels, values };
})`;

/** Whether two convex shapes (corners in order) overlap by more than `slack` px: no separating axis between them. */
function overlap(a: Array<[number, number]>, b: Array<[number, number]>, slack = 0.5): boolean {
  for (const shape of [a, b])
    for (let i = 0; i < shape.length; i++) {
      const [x1, y1] = shape[i];
      const [x2, y2] = shape[(i + 1) % shape.length];
      const length = Math.hypot(x2 - x1, y2 - y1);
      const axis = [(y1 - y2) / length, (x2 - x1) / length];
      const project = (s: Array<[number, number]>) => s.map(([x, y]) => x * axis[0] + y * axis[1]);
      const [pa, pb] = [project(a), project(b)];
      if (Math.min(...pa) >= Math.max(...pb) - slack || Math.min(...pb) >= Math.max(...pa) - slack) return false;
    }
  return true;
}

/** No two of these labels drawn over each other. */
function apart(labels: Label[], where: string): void {
  for (const [i, first] of labels.entries())
    for (const second of labels.slice(i + 1))
      expect(overlap(first.corners, second.corners), `${first.text} / ${second.text} in ${where}`).toBe(false);
}

describe.skipIf(!hasChromium)('interactive charts: every category label shown apart, values on few bars', () => {
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    const script = await componentScript(`import * as echarts from 'echarts/core';
import { createRoot } from 'react-dom/client';
import { InteractiveChart } from '../../web/src/components/Charts.tsx';
window.echarts = echarts;
window.charts = ${JSON.stringify(CHARTS)};
createRoot(document.getElementById('root')).render(
  <div className="chart-cases">{window.charts.map((c) => <InteractiveChart key={c.title} chart={c} />)}</div>,
);`);
    browser = await launchChromium();
    // Each chart as wide as the test says, one under another.
    page = await componentPage(browser, {
      origin: ORIGIN,
      script,
      font: FONT_FILES[0],
      viewport: { width: WIDTHS[0] + 32, height: 1320 },
      css: '.chart-cases { width: var(--chart-width); margin: 16px; } .chart-interactive + .chart-interactive { margin-top: 12px; }',
    });
    await page
      .locator('.chart-interactive')
      .nth(CHARTS.length - 1)
      .waitFor();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
  });

  /** The charts redrawn at `width` (the page resized, so the charts' own resize handling lays them out again). */
  async function drawnAt(width: number): Promise<Drawn[]> {
    await page.setViewportSize({ width: width + 32, height: 1320 });
    await page.evaluate(`document.documentElement.style.setProperty('--chart-width', '${width}px')`);
    // the chart's box as wide as asked, and the chart drawn at the width inside its border
    const resized = `[...document.querySelectorAll('.chart-interactive')].every((el) => el.getBoundingClientRect().width === ${width} && echarts.getInstanceByDom(el)?.getWidth() === el.clientWidth)`;
    await expect.poll(() => page.evaluate<boolean>(resized)).toBe(true);
    // the resize observer lays the charts out again on the next frame
    await page.evaluate('new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))');
    return page.evaluate<Drawn[]>(DRAWN);
  }

  // the UI's widths, and the narrowest phone's
  it.each([360, ...WIDTHS])('at %i px', async (width) => {
    const drawn = await drawnAt(width);
    for (const [i, chart] of CHARTS.entries()) {
      const { axisLabels, values } = drawn[i];
      const where = `${chart.title} at ${width} px`;
      const points = chart.series.flatMap((s) => s.data.filter((v) => v !== null));
      if (chart.chart_type === 'pie') {
        // a label per slice, its name (the legend's names are not labels of slices), none over another
        expect(values.map((l) => l.text).sort(), where).toEqual([...chart.x_data].sort());
        apart(values, where);
        continue;
      }
      // every category once, with something drawn of it, inside the chart, none over another (turned labels
      // compared as turned boxes, not their upright bounds)
      expect(axisLabels.map((l) => l.text).sort(), where).toEqual([...chart.x_data].sort());
      for (const label of axisLabels) {
        expect(label.lines.join('').trim(), `${label.text} in ${where}`).not.toBe('');
        for (const [x, y] of label.corners) {
          expect(x, `${label.text} in ${where}`).toBeGreaterThanOrEqual(-1);
          expect(x, `${label.text} in ${where}`).toBeLessThanOrEqual(drawn[i].width + 1);
          expect(y, `${label.text} in ${where}`).toBeLessThanOrEqual(drawn[i].height + 1);
        }
      }
      apart(axisLabels, where);
      // values on few bars and points, formatted, apart; none on many
      const shown = points.length <= FEW_BARS ? points.map(formatValue) : [];
      expect(values.map((l) => l.text).sort(), where).toEqual(shown.sort());
      apart(values, where);
    }
    // the bars' and points' entry animation over
    await page.waitForTimeout(1200);
    await screenshot(page, 'chart-labels', `${width}`);
  });

  it('lays the labels out again when the chart narrows back', async () => {
    const wide = await drawnAt(WIDTHS.at(-1)!);
    const narrow = await drawnAt(WIDTHS[0]);
    // Wrapped or turned at a phone's width, level on one line at a desktop's: the layout follows the width both ways.
    const level = (d: Drawn) =>
      d.axisLabels.every((l) => l.lines.length === 1 && Math.abs(l.corners[1][1] - l.corners[0][1]) < 1);
    for (const i of [0, 3]) {
      expect(level(wide[i]), CHARTS[i].title).toBe(i === 0);
      expect(level(narrow[i]), CHARTS[i].title).toBe(false);
    }
  });
});
