import type { SeriesOption } from 'echarts/types/dist/echarts';
import { axisOf, type CommonArgs, cartesianOption } from '../frame.ts';
import { defineChart } from '../module.ts';
import { boxStats, groupValues } from '../stats.ts';

export interface DistributionArgs extends CommonArgs {
  data: Array<{ category: string; value: number; group?: string }>;
}

export const boxplot = defineChart<DistributionArgs>({
  type: 'boxplot',
  build(args, frame) {
    const { categories, groups, values } = groupValues(args.data);
    const series: SeriesOption[] = [];
    groups.forEach((group, g) => {
      const stats = categories.map((c) => {
        const v = values.get(group)?.get(c);
        return v?.length ? boxStats(v) : undefined;
      });
      const color = frame.palette[g % frame.palette.length];
      series.push({
        type: 'boxplot',
        name: group,
        data: stats.map((s) => s?.box ?? []),
        itemStyle: { color: `${color}33`, borderColor: color },
      });
      series.push({
        type: 'scatter',
        name: group,
        data: stats.flatMap((s, i) => (s?.outliers ?? []).map((v) => [i, v])),
        itemStyle: { color },
        symbolSize: 6,
      });
    });
    return cartesianOption(args, frame, {
      legend: groups,
      xAxis: axisOf(frame, { type: 'category', data: categories }, args.axisXTitle),
      yAxis: axisOf(frame, { type: 'value', scale: args.style?.startAtZero !== true }, args.axisYTitle),
      series,
    });
  },
});
