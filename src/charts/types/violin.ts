import type { CustomSeriesRenderItemAPI, CustomSeriesRenderItemParams, SeriesOption } from 'echarts/types/dist/echarts';
import { axisOf, cartesianOption } from '../frame.ts';
import { defineChart } from '../module.ts';
import { boxStats, density, groupValues } from '../stats.ts';
import type { DistributionArgs } from './boxplot.ts';

const STEPS = 40;

/** Mirrored kernel-density outlines per category (and group), with the median marked. */
export const violin = defineChart<DistributionArgs>({
  type: 'violin',
  build(args, frame) {
    const { categories, groups, values } = groupValues(args.data);
    const all = args.data.map((d) => d.value);
    const lo = Math.min(...all);
    const hi = Math.max(...all);
    const pad = (hi - lo) * 0.1 || 1;
    const series: SeriesOption[] = groups.map((group, g) => {
      const shapes = categories.map((category, c) => {
        const v = values.get(group)?.get(category);
        if (!v?.length) return undefined;
        const from = Math.min(...v) - pad / 2;
        const to = Math.max(...v) + pad / 2;
        const ys = Array.from({ length: STEPS + 1 }, (_, i) => from + ((to - from) * i) / STEPS);
        return { c, ys, ds: density(v, ys), median: boxStats(v).box[2] };
      });
      const peak = Math.max(...shapes.flatMap((s) => s?.ds ?? [0]));
      const color = frame.palette[g % frame.palette.length];
      return {
        type: 'custom',
        name: group,
        itemStyle: { color },
        data: shapes.map((s, i) => [i, s?.median ?? null]),
        renderItem(params: CustomSeriesRenderItemParams, api: CustomSeriesRenderItemAPI) {
          const shape = shapes[params.dataIndex];
          if (!shape) return null;
          const slot = (api.size!([1, 0]) as number[])[0];
          const width = (slot * 0.8) / groups.length;
          const centre = (api.coord([shape.c, 0]) as number[])[0] - (slot * 0.8) / 2 + width * (g + 0.5);
          const half = (d: number) => (d / (peak || 1)) * width * 0.48;
          const y = (v: number) => (api.coord([0, v]) as number[])[1];
          const right = shape.ys.map((v, i) => [centre + half(shape.ds[i]), y(v)]);
          const left = shape.ys.map((v, i) => [centre - half(shape.ds[i]), y(v)]).reverse();
          return {
            type: 'group',
            children: [
              { type: 'polygon', shape: { points: [...right, ...left] }, style: { fill: `${color}66`, stroke: color } },
              {
                type: 'line',
                shape: { x1: centre - width * 0.2, x2: centre + width * 0.2, y1: y(shape.median), y2: y(shape.median) },
                style: { stroke: frame.theme.text, lineWidth: 2 },
              },
            ],
          };
        },
      };
    });
    return cartesianOption(args, frame, {
      legend: groups,
      xAxis: axisOf(frame, { type: 'category', data: categories }, args.axisXTitle),
      yAxis: axisOf(
        frame,
        { type: 'value', min: args.style?.startAtZero ? 0 : Math.floor(lo - pad), max: Math.ceil(hi + pad) },
        args.axisYTitle,
      ),
      series,
    });
  },
});
