import { type CommonArgs, singleSeries } from '../frame.ts';
import { defineChart } from '../module.ts';

interface FunnelArgs extends CommonArgs {
  data: Array<{ category: string; value: number }>;
}

export const funnel = defineChart<FunnelArgs>({
  type: 'funnel',
  build(args, frame) {
    return singleSeries(args, frame, {
      type: 'funnel',
      top: frame.top + 8,
      bottom: 16,
      left: '15%',
      width: '70%',
      sort: 'none',
      gap: 2,
      minSize: '24%',
      data: args.data.map((d) => ({ name: d.category, value: d.value })),
      label: { position: 'inside', formatter: '{b}  {c}', color: '#fff' },
    });
  },
});
