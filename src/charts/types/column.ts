import type { BarSeriesOption } from 'echarts/types/dist/echarts';
import { axisOf, type CommonArgs, cartesianOption, FEW_BARS, pivot, valueLabels } from '../frame.ts';
import { defineChart } from '../module.ts';

export interface CategoryArgs extends CommonArgs {
  data: Array<{ category: string; value: number; group?: string }>;
  group?: boolean;
  stack?: boolean;
}

/** Column (vertical) and bar (horizontal) charts; grouped series side by side unless stacked. */
export function categoryChart(type: 'column' | 'bar') {
  return defineChart<CategoryArgs>({
    type,
    build(args, frame) {
      const { categories, groups } = pivot(args.data, (d) => d.category);
      const stacked = (args.stack ?? type === 'bar') && groups.length > 1;
      // Few bars carry their values: at the end of each bar, or inside each segment of a stack.
      const bars = groups.reduce((sum, g) => sum + g.values.filter((v) => v !== null).length, 0);
      const label =
        bars <= FEW_BARS ? valueLabels(frame, stacked ? 'inside' : type === 'bar' ? 'right' : 'top') : { show: false };
      const series: BarSeriesOption[] = groups.map((g) => ({
        type: 'bar',
        name: g.name,
        data: g.values,
        stack: stacked ? 'total' : undefined,
        barMaxWidth: 48,
        label,
      }));
      const categoryAxis = axisOf(
        frame,
        { type: 'category', data: categories },
        args.axisXTitle,
        type === 'column' ? 'x' : 'y',
      );
      const valueAxis = axisOf(frame, { type: 'value' }, args.axisYTitle);
      return cartesianOption(args, frame, {
        legend: groups.map((g) => g.name),
        xAxis: type === 'column' ? categoryAxis : valueAxis,
        yAxis: type === 'column' ? valueAxis : { ...categoryAxis, inverse: true, nameLocation: 'start', nameGap: 12 },
        series,
      });
    },
  });
}

export const column = categoryChart('column');
