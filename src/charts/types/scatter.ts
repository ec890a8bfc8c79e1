import { axisOf, type CommonArgs, cartesianOption } from '../frame.ts';
import { defineChart } from '../module.ts';

interface ScatterArgs extends CommonArgs {
  data: Array<{ x: number; y: number; group?: string }>;
}

export const scatter = defineChart<ScatterArgs>({
  type: 'scatter',
  build(args, frame) {
    const groups = new Map<string, number[][]>();
    for (const d of args.data) {
      const name = d.group ?? '';
      if (!groups.has(name)) groups.set(name, []);
      groups.get(name)!.push([d.x, d.y]);
    }
    return cartesianOption(args, frame, {
      legend: [...groups.keys()],
      xAxis: axisOf(frame, { type: 'value', scale: true }, args.axisXTitle),
      yAxis: axisOf(frame, { type: 'value', scale: true }, args.axisYTitle),
      series: [...groups].map(([name, data]) => ({ type: 'scatter', name, data, symbolSize: 9 })),
    });
  },
});
