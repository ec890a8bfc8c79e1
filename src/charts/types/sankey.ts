import { type CommonArgs, insetOf, singleSeries } from '../frame.ts';
import { defineChart } from '../module.ts';

interface SankeyArgs extends CommonArgs {
  data: Array<{ source: string; target: string; value: number }>;
  nodeAlign?: 'left' | 'right' | 'justify' | 'center';
}

export const sankey = defineChart<SankeyArgs>({
  type: 'sankey',
  build(args, frame) {
    const names = [...new Set(args.data.flatMap((d) => [d.source, d.target]))];
    return singleSeries(args, frame, {
      type: 'sankey',
      ...insetOf(frame, { top: 8, right: 96, bottom: 16, left: 16 }),
      // ECharts has no centred alignment; justify is its closest layout.
      nodeAlign: args.nodeAlign === 'center' || !args.nodeAlign ? 'justify' : args.nodeAlign,
      layoutIterations: 32,
      data: names.map((name) => ({ name })),
      links: args.data,
      lineStyle: { color: 'gradient', opacity: 0.35 },
      label: { color: frame.theme.text },
    });
  },
});
