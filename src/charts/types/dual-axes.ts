import { onTimeLine } from '../../protocol/index.ts';
import { axisOf, baseOption, type CommonArgs, FEW_BARS, gridOf, legendOf, valueLabels } from '../frame.ts';
import { defineChart } from '../module.ts';

interface DualAxesArgs extends CommonArgs {
  categories: string[];
  series: Array<{ type: 'column' | 'line'; data: number[]; axisYTitle?: string }>;
}

/** Columns on the left axis, lines on the right (one axis when only one kind is present). */
export const dualAxes = defineChart<DualAxesArgs>({
  type: 'dual-axes',
  build(given, frame) {
    // Monthly categories on a time line, a month without data kept as a gap (as every chart with a month axis).
    const timed = onTimeLine(
      given.categories,
      given.series.map((s, i) => ({ ...s, name: String(i) })),
    );
    const args = { ...given, categories: timed.categories, series: timed.series };
    const kinds = [...new Set(args.series.map((s) => s.type))];
    const axisIndex = (type: string) => (kinds.length > 1 && type === 'line' ? 1 : 0);
    const titleOf = (index: number) =>
      args.series
        .filter((s) => axisIndex(s.type) === index)
        .map((s) => s.axisYTitle)
        .filter(Boolean)
        .join(' / ');
    const names = args.series.map((s, i) => s.axisYTitle || `${s.type === 'line' ? '折线' : '柱'} ${i + 1}`);
    const legend = legendOf(frame, names);
    // the axis first: turned labels tell the grid how much room they need
    const xAxis = axisOf(frame, { type: 'category', data: args.categories }, args.axisXTitle);
    const columns = args.series.filter((s) => s.type === 'column').length * args.categories.length;
    return {
      ...baseOption(args, frame),
      legend,
      xAxis,
      grid: { ...gridOf(frame, Boolean(legend), args), left: Math.max(40, frame.labelOverhang), right: 40 },
      yAxis: kinds.map((_, i) => ({
        ...axisOf(frame, { type: 'value', scale: args.style?.startAtZero !== true }, titleOf(i)),
        nameLocation: 'end',
        alignTicks: false,
        nameGap: 12,
        splitLine: { show: i === 0, lineStyle: { color: frame.theme.splitLine } },
      })),
      series: args.series.map((s, i) => ({
        type: s.type === 'column' ? 'bar' : 'line',
        name: names[i],
        data: s.data,
        yAxisIndex: axisIndex(s.type),
        barMaxWidth: 40,
        label: s.type === 'column' && columns <= FEW_BARS ? valueLabels(frame, 'top') : undefined,
      })),
    } as ReturnType<typeof baseOption>;
  },
});
