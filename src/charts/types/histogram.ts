import { axisOf, baseOption, type CommonArgs, gridOf } from '../frame.ts';
import { defineChart } from '../module.ts';

interface HistogramArgs extends CommonArgs {
  data: number[];
  binNumber?: number;
}

const round = (n: number) => Number(n.toPrecision(4));

/** Equal-width bins; Sturges' rule when `binNumber` is not given. */
export const histogram = defineChart<HistogramArgs>({
  type: 'histogram',
  build(args, frame) {
    const min = Math.min(...args.data);
    const max = Math.max(...args.data);
    const bins = Math.max(1, Math.round(args.binNumber ?? Math.ceil(Math.log2(args.data.length) + 1)));
    const width = (max - min) / bins || 1;
    const counts = new Array<number>(bins).fill(0);
    for (const v of args.data) counts[Math.min(bins - 1, Math.floor((v - min) / width))]++;
    const labels = counts.map((_, i) => `${round(min + i * width)}–${round(min + (i + 1) * width)}`);
    // the axis first: turned labels tell the grid how much room they need
    const xAxis = axisOf(frame, { type: 'category', data: labels }, args.axisXTitle);
    return {
      ...baseOption(args, frame),
      xAxis,
      grid: gridOf(frame, false, args),
      yAxis: axisOf(frame, { type: 'value', minInterval: 1 }, args.axisYTitle),
      series: [{ type: 'bar', data: counts, barCategoryGap: '2%', label: { show: bins <= 16, position: 'top' } }],
    };
  },
});
