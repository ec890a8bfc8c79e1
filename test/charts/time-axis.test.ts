import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { frameOf } from '../../src/charts/frame.ts';
import { CHART_MODULES, ChartService, ChartStore } from '../../src/charts/index.ts';
import { categoryLayout, describeChart, onTimeLine } from '../../src/protocol/index.ts';
import { browserSpecOf } from '../../src/tools/charts/index.ts';
import { FrontendTools } from '../../src/tools/frontend.ts';

// Spark plug F7TC bought in January, February and May only: March and April had no purchases.
const BOUGHT = [
  { time: '2026-01', value: 14.8, group: '博世' },
  { time: '2026-02', value: 15.2, group: '博世' },
  { time: '2026-05', value: 14.9, group: '博世' },
  { time: '2026-01', value: 13.1, group: 'NGK' },
  { time: '2026-05', value: 13.4, group: 'NGK' },
];
const MONTHS = ['2026-01', '2026-02', '2026-03', '2026-04', '2026-05'];

type Built = { xAxis: { data: string[] }; series: Array<{ name: string; data: unknown[]; connectNulls?: boolean }> };
const build = (type: string, args: Record<string, unknown>) =>
  CHART_MODULES.get(type)!.build(args as never, frameOf(args), []) as unknown as Built;

describe('time axes: a month without purchases keeps its place', () => {
  it('fills the missing months with null in every series, in order; other categories stay as given', () => {
    const timed = onTimeLine(['2026-05', '2026-01', '2026-02'], [{ name: '博世', data: [14.9, 14.8, 15.2] }]);
    expect(timed.categories).toEqual(MONTHS);
    expect(timed.series[0].data).toEqual([14.8, 15.2, null, null, 14.9]);
    // across a year end
    expect(onTimeLine(['2025-11', '2026-02'], []).categories).toEqual(['2025-11', '2025-12', '2026-01', '2026-02']);
    const suppliers = ['博世', 'NGK'];
    expect(onTimeLine(suppliers, []).categories).toBe(suppliers);
  });

  it('the renderer puts line, area and column charts on the time line, and a line breaks at the gap', () => {
    for (const type of ['line', 'area']) {
      const option = build(type, { title: '火花塞 F7TC 月均价', data: BOUGHT });
      expect(option.xAxis.data).toEqual(MONTHS);
      expect(option.series.map((s) => [s.name, s.data, s.connectNulls])).toEqual([
        ['博世', [14.8, 15.2, null, null, 14.9], false],
        ['NGK', [13.1, null, null, null, 13.4], false],
      ]);
    }
    const columns = build('column', { data: BOUGHT.map(({ time, ...rest }) => ({ category: time, ...rest })) });
    expect(columns.xAxis.data).toEqual(MONTHS);
    const dual = build('dual-axes', {
      categories: ['2026-01', '2026-02', '2026-05'],
      series: [{ type: 'line', data: [14.8, 15.2, 14.9], axisYTitle: '均价' }],
    });
    expect(dual.xAxis.data).toEqual(MONTHS);
    expect(dual.series[0].data).toEqual([14.8, 15.2, null, null, 14.9]);
  });

  it('the browser gets the same time line, from generate_visualization and from show_chart', async () => {
    expect(browserSpecOf('line', { title: 'F7TC', data: BOUGHT })).toMatchObject({
      x_data: MONTHS,
      series: [{ name: '博世', data: [14.8, 15.2, null, null, 14.9] }, { name: 'NGK' }],
    });
    const sent: Array<{ tool: string; params: Record<string, unknown> }> = [];
    await new FrontendTools(async () => ({})).showChart(
      {
        title: 'F7TC',
        chart_type: 'line',
        x_data: ['2026-01', '2026-02', '2026-05'],
        series: [{ name: '博世', data: [14.8, 15.2, 14.9] }],
      },
      { emit: (event: { tool: string; params: Record<string, unknown> }) => sent.push(event) } as never,
    );
    expect(sent[0].params).toMatchObject({ x_data: MONTHS, series: [{ data: [14.8, 15.2, null, null, 14.9] }] });
  });

  it('the chart parameters of the month-axis types tell the model not to fill a missing month', () => {
    for (const type of ['line', 'area', 'column', 'bar', 'dual_axes'])
      expect(fs.readFileSync(path.join('skills/procurement/chart-params', `${type}.md`), 'utf8'), type).toContain(
        'a month without data needs no 0',
      );
  });
});

describe('month labels stay on one line', () => {
  const twelve = Array.from({ length: 12 }, (_, i) => `2026-${String(i + 1).padStart(2, '0')}`);

  it('a slot too narrow for "2026-01" turns the labels instead of breaking them', () => {
    // 600 px, 12 months: each slot holds about 35 px, room for two CJK characters but not a month
    const { axisLabel } = categoryLayout(twelve, { width: 600, height: 400, top: 16 }, 'x');
    expect(axisLabel.overflow).not.toBe('break');
    expect(axisLabel.rotate).toBeGreaterThan(0);
    // names with spaces or CJK characters still wrap between words
    const names = Array.from({ length: 12 }, (_, i) => `博世汽车${i}`);
    expect(categoryLayout(names, { width: 600, height: 400, top: 16 }, 'x').axisLabel.overflow).toBe('break');
  });

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-time-axis-'));
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('every month label is one whole text in the drawn SVG', () => {
    const service = new ChartService(new ChartStore(dataDir));
    const data = twelve.map((time, i) => ({ time, value: 14 + i / 10 }));
    for (const type of ['line', 'column'])
      for (const width of [480, 600, 760]) {
        const args =
          type === 'line' ? { data, width } : { data: data.map((d) => ({ category: d.time, value: d.value })), width };
        const texts = [...service.draw(type, args).svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);
        for (const month of twelve) expect(texts, `${type} ${width}px`).toContain(month);
      }
  });
});

describe('alt text and caption', () => {
  it('name the subject, the span and the main figure, Chinese first with English', () => {
    const spec = browserSpecOf('line', { title: '火花塞 F7TC 各供应商月均价', data: BOUGHT })!;
    expect(
      describeChart({
        title: spec.title,
        kind: spec.chart_type,
        categories: spec.x_data,
        series: spec.series,
        unit: ' 元',
      }),
    ).toBe(
      '火花塞 F7TC 各供应商月均价，2026-01 至 2026-05，最高 15.2 元（博世，2026-02）/ 2026-01 to 2026-05, highest 15.2 元 (博世, 2026-02)',
    );
    expect(
      describeChart({
        title: '采购额占比',
        kind: 'pie',
        categories: ['博世', 'NGK'],
        series: [{ name: '采购额', data: [300, 100] }],
      }),
    ).toBe('采购额占比，最大：博世 300 (75%) / largest: 博世 300 (75%)');
    expect(
      describeChart({
        title: '各供应商均价',
        kind: 'bar',
        categories: ['博世', 'NGK'],
        series: [{ name: '均价', data: [15, 13] }],
      }),
    ).toBe('各供应商均价，2 项，最高 15（博世）/ 2 categories, highest 15 (博世)');
  });
});
