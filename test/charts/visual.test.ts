import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FEW_BARS, formatValue } from '../../src/charts/frame.ts';
import {
  CHART_EXAMPLES,
  CHART_MODULES,
  ChartService,
  ChartStore,
  chartTypeOfTool,
  PIXEL_RATIO,
  svgToPng,
} from '../../src/charts/index.ts';
import { seeded } from '../seeded.ts';

/**
 * Every chart type drawn for a person to look at (PNGs under the gitignored `test-output/charts/`), and what can be
 * checked without eyes: a 2× PNG that is not blank, every category label in the SVG text, values on few bars.
 */
const OUT = path.resolve(import.meta.dirname, '../../test-output/charts');
const store = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-visual-'));
const service = new ChartService(new ChartStore(store));
afterAll(() => fs.rmSync(store, { recursive: true, force: true }));

/** Width and height from a PNG's header. */
const pngSize = (png: Buffer) => ({ width: png.readUInt32BE(16), height: png.readUInt32BE(20) });
/** The SVG's text, without spaces: wrapped labels come out as consecutive text elements. */
const svgText = (svg: string) =>
  [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)]
    .map((m) => m[1].replaceAll('&amp;', '&'))
    .join('')
    .replace(/\s+/g, '');
const squash = (s: string) => s.replace(/\s+/g, '');

async function drawn(type: string, args: Record<string, unknown>, name: string) {
  const chart = await service.render(type, args);
  const png = (await service.image(chart.id, 'png'))!;
  const svg = (await service.image(chart.id, 'svg'))!.toString('utf8');
  fs.mkdirSync(OUT, { recursive: true });
  fs.writeFileSync(path.join(OUT, `${name}.png`), png);
  return { chart, png, svg };
}

describe('every chart type, drawn at 2×', () => {
  it.each(Object.entries(CHART_EXAMPLES))('%s: a 2× PNG of its size, not blank', async (tool, args) => {
    const type = chartTypeOfTool(tool)!;
    const { chart, png, svg } = await drawn(type, args, type);
    expect(chart.pixelRatio).toBe(PIXEL_RATIO);
    expect(pngSize(png)).toEqual({ width: chart.width * PIXEL_RATIO, height: chart.height * PIXEL_RATIO });
    // an empty canvas of the same size and background compresses to far less than a drawn chart
    const background = /<rect[^>]*fill="([^"]+)"/.exec(svg)?.[1] ?? '#fff';
    const blank = await svgToPng(
      `<svg xmlns="http://www.w3.org/2000/svg" width="${chart.width}" height="${chart.height}"><rect width="100%" height="100%" fill="${background}"/></svg>`,
    );
    expect(pngSize(blank)).toEqual(pngSize(png));
    expect(png.length).toBeGreaterThan(blank.length * 3);
  });

  it('covers every type the renderer draws', () => {
    expect(new Set(Object.keys(CHART_EXAMPLES).map((tool) => chartTypeOfTool(tool)))).toEqual(
      new Set(CHART_MODULES.keys()),
    );
  });
});

const HANZI = '博世电装火花塞重庆温州瑞安汽配宁波点火集团有限公司苏州天津上海广州';
const LATIN = ['NGK', 'Spark', 'Plug', 'Champion', 'Auto', 'Parts', 'Co.', 'Ltd', 'Bosch', 'Denso'];

/** `count` distinct category names between 2 and about 18 characters, Chinese, Latin or both. */
function labels(next: () => number, count: number): string[] {
  const out = new Set<string>();
  while (out.size < count) {
    const hanzi = Array.from({ length: 2 + Math.floor(next() * 9) }, () => HANZI[Math.floor(next() * HANZI.length)]);
    const latin = Array.from({ length: 1 + Math.floor(next() * 2) }, () => LATIN[Math.floor(next() * LATIN.length)]);
    const style = next();
    out.add(style < 0.5 ? hanzi.join('') : style < 0.75 ? latin.join(' ') : `${latin[0]}${hanzi.slice(0, 4).join('')}`);
  }
  return [...out];
}

/** The category charts, each with its own way of taking categories and values. */
const CATEGORY_CHARTS: Record<string, (names: string[], values: number[]) => Record<string, unknown>> = {
  column: (names, values) => ({ data: names.map((category, i) => ({ category, value: values[i] })) }),
  bar: (names, values) => ({ data: names.map((category, i) => ({ category, value: values[i] })) }),
  line: (names, values) => ({ data: names.map((time, i) => ({ time, value: values[i] })) }),
  area: (names, values) => ({ data: names.map((time, i) => ({ time, value: values[i] })) }),
  'dual-axes': (names, values) => ({
    categories: names,
    series: [
      { type: 'column', data: values, axisYTitle: '金额' },
      { type: 'line', data: values.map((v) => v / 10), axisYTitle: '占比' },
    ],
  }),
  waterfall: (names, values) => ({ data: names.map((category, i) => ({ category, value: values[i] - 50 })) }),
  boxplot: (names, values) => ({
    data: names.flatMap((category, i) => [0, 1, 2, 3].map((k) => ({ category, value: values[i] + k * 3 }))),
  }),
  violin: (names, values) => ({
    data: names.flatMap((category, i) => [0, 1, 2, 3, 4].map((k) => ({ category, value: values[i] + k * 2 }))),
  }),
};

describe('category axes show every label; few bars show their values', () => {
  it('a supplier comparison of 6 suppliers shows all 6 names and their values (default size, column and bar)', async () => {
    const suppliers = [
      '博世（苏州）汽车部件有限公司',
      '电装（天津）',
      'NGK Spark Plug (Shanghai) Co.',
      '重庆火花塞厂',
      'Champion Autoparts',
      '温州市瑞安汽配',
    ];
    for (const type of ['column', 'bar']) {
      const values = [12.5, 11.8, 13.26, 9.9, 14, 10.45];
      const { svg, chart } = await drawn(
        type,
        { title: '供应商报价对比（元）', data: suppliers.map((category, i) => ({ category, value: values[i] })) },
        `suppliers-${type}`,
      );
      expect(chart.notes).toEqual([]);
      const text = svgText(svg);
      for (const name of suppliers) expect(text).toContain(squash(name));
      for (const value of values) expect(text).toContain(formatValue(value));
    }
  });

  it.each(Object.keys(CATEGORY_CHARTS))('%s: generated categories of varied count, length and width', async (type) => {
    const { next } = seeded(type.length * 7919);
    for (let round = 0; round < 6; round++) {
      const count = 2 + Math.floor(next() * (round < 4 ? 14 : 40));
      const names = labels(next, count);
      const values = names.map(() => Math.round(20 + next() * 8000) / 10);
      const width = 360 + Math.floor(next() * 9) * 80;
      const args = {
        title: `${type} ${round}`,
        width,
        height: 300 + Math.floor(next() * 4) * 60,
        ...CATEGORY_CHARTS[type](names, values),
      };
      const { svg, chart } = await drawn(type, args, `${type}-${round}`);
      const text = svgText(svg);
      const thinned = chart.notes.some((n) => n.includes('只够显示部分标签'));
      const shortened = chart.notes.some((n) => n.includes('已截短'));
      // Labels are thinned only with a note, and only when a line of 9 px type for each would not fit the plot.
      if (thinned) expect(count * 11).toBeGreaterThan((type === 'bar' ? args.height : width) * 0.6);
      // a label longer than a third of the chart ends in an ellipsis, with a note; its start is still there
      else
        for (const name of names)
          expect(text, `${name} in ${type} round ${round}`).toContain(squash(shortened ? name.slice(0, 2) : name));
      const bars = ['column', 'bar', 'dual-axes'].includes(type) ? count : 0;
      if (bars && bars <= FEW_BARS)
        for (const value of values) expect(text, `value ${value} in ${type}`).toContain(formatValue(value));
      if (bars > FEW_BARS && type !== 'dual-axes')
        expect(values.filter((v) => text.includes(formatValue(v))).length).toBeLessThan(values.length);
    }
  });
});
