import { baseOption, type CommonArgs, legendOf, pivot } from '../frame.ts';
import { defineChart } from '../module.ts';

interface RadarArgs extends CommonArgs {
  data: Array<{ name: string; value: number; group?: string }>;
}

/** One polygon per group over the named dimensions, all on a common scale. */
export const radar = defineChart<RadarArgs>({
  type: 'radar',
  build(args, frame) {
    const { categories, groups } = pivot(args.data, (d) => d.name);
    const max = niceCeiling(Math.max(...args.data.map((d) => d.value)) * 1.05);
    const legend = legendOf(
      frame,
      groups.map((g) => g.name),
    );
    return {
      ...baseOption(args, frame),
      legend,
      radar: {
        center: ['50%', `${52 + (args.title ? 4 : 0)}%`],
        radius: '62%',
        indicator: categories.map((name) => ({ name, max })),
        axisName: { color: frame.theme.text },
        splitLine: { lineStyle: { color: frame.theme.splitLine } },
        axisLine: { lineStyle: { color: frame.theme.axisLine } },
        splitArea: { show: false },
      },
      series: [
        {
          type: 'radar',
          data: groups.map((g) => ({ name: g.name, value: g.values.map((v) => v ?? 0) })),
          areaStyle: { opacity: 0.15 },
          lineStyle: { width: args.style?.lineWidth ?? 2 },
        },
      ],
    };
  },
});

/** A round number, at or above `n` (a readable outer ring). */
function niceCeiling(n: number): number {
  if (!(n > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(n));
  return ([1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10].find((m) => m * power >= n) ?? 10) * power;
}
