import type { LineSeriesOption } from 'echarts/types/dist/echarts';
import { axisOf, type CommonArgs, cartesianOption, pivot } from '../frame.ts';
import { defineChart } from '../module.ts';

export interface TimeSeriesArgs extends CommonArgs {
  data: Array<{ time: string; value: number; group?: string }>;
  stack?: boolean;
}

/** Line and area charts: one series per group over the time categories. */
export function timeSeriesChart(type: 'line' | 'area') {
  return defineChart<TimeSeriesArgs>({
    type,
    build(args, frame) {
      const { categories, groups } = pivot(args.data, (d) => d.time);
      const dense = categories.length > 60;
      const series: LineSeriesOption[] = groups.map((g) => ({
        type: 'line',
        name: g.name,
        data: g.values,
        showSymbol: !dense,
        sampling: dense ? 'lttb' : undefined,
        lineStyle: { width: args.style?.lineWidth ?? 2 },
        areaStyle: type === 'area' ? { opacity: args.stack ? 0.85 : 0.35 } : undefined,
        stack: type === 'area' && args.stack ? 'total' : undefined,
        // a month without data breaks the line: joining its neighbours would read as a purchase in between
        connectNulls: false,
      }));
      return cartesianOption(args, frame, {
        legend: groups.map((g) => g.name),
        xAxis: axisOf(frame, { type: 'category', data: categories, boundaryGap: false }, args.axisXTitle),
        yAxis: axisOf(
          frame,
          { type: 'value', scale: args.style?.startAtZero !== true && type === 'line' },
          args.axisYTitle,
        ),
        series,
      });
    },
  });
}

export const line = timeSeriesChart('line');
