import { axisOf, baseOption, type CommonArgs, gridOf } from '../frame.ts';
import { defineChart } from '../module.ts';

interface WaterfallArgs extends Omit<CommonArgs, 'style'> {
  data: Array<{ category: string; value?: number; isIntermediateTotal?: boolean; isTotal?: boolean }>;
  style?: {
    backgroundColor?: string;
    palette?: { positiveColor?: string; negativeColor?: string; totalColor?: string };
  };
}

/** Changes float from the running total; (intermediate) totals stand on zero. */
export const waterfall = defineChart<WaterfallArgs>({
  type: 'waterfall',
  build(args, frame) {
    const colors = {
      positive: args.style?.palette?.positiveColor ?? '#F4664A',
      negative: args.style?.palette?.negativeColor ?? '#30BF78',
      total: args.style?.palette?.totalColor ?? '#1783FF',
    };
    let running = 0;
    const base: number[] = [];
    const bars: Array<{ value: number; itemStyle: { color: string }; label: { formatter: string } }> = [];
    for (const d of args.data) {
      if (d.isTotal || d.isIntermediateTotal) {
        base.push(Math.min(0, running));
        bars.push({
          value: Math.abs(running),
          itemStyle: { color: colors.total },
          label: { formatter: String(running) },
        });
        continue;
      }
      const change = d.value ?? 0;
      const next = running + change;
      base.push(Math.min(running, next));
      bars.push({
        value: Math.abs(change),
        itemStyle: { color: change >= 0 ? colors.positive : colors.negative },
        label: { formatter: `${change >= 0 ? '+' : ''}${change}` },
      });
      running = next;
    }
    const { palette: _palette, ...style } = args.style ?? {};
    // the axis first: turned labels tell the grid how much room they need
    const xAxis = axisOf(frame, { type: 'category', data: args.data.map((d) => d.category) }, args.axisXTitle);
    return {
      ...baseOption({ ...args, style }, frame),
      xAxis,
      grid: gridOf(frame, false, args),
      yAxis: axisOf(frame, { type: 'value' }, args.axisYTitle),
      series: [
        { type: 'bar', stack: 'w', data: base, itemStyle: { color: 'transparent' }, silent: true },
        { type: 'bar', stack: 'w', data: bars, label: { show: true, position: 'top' }, barMaxWidth: 48 },
      ],
    };
  },
});
