import { type CommonArgs, singleSeries } from '../frame.ts';
import { defineChart } from '../module.ts';

interface PieArgs extends CommonArgs {
  data: Array<{ category: string; value: number }>;
  innerRadius?: number;
}

/** Pie, or donut when `innerRadius` (a fraction of the radius) is above zero. */
export const pie = defineChart<PieArgs>({
  type: 'pie',
  build(args, frame) {
    const outer = 62;
    return singleSeries(args, frame, {
      type: 'pie',
      center: ['50%', `${50 + (args.title ? 5 : 0)}%`],
      radius: [`${Math.round((args.innerRadius ?? 0) * outer)}%`, `${outer}%`],
      data: args.data.map((d) => ({ name: d.category, value: d.value })),
      label: { formatter: '{b}\n{d}%', color: frame.theme.text },
      itemStyle: { borderColor: frame.background, borderWidth: 1 },
    });
  },
});
