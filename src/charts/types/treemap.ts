import { type CommonArgs, insetOf, singleSeries } from '../frame.ts';
import { defineChart } from '../module.ts';

interface TreeNode {
  name: string;
  value: number;
  children?: TreeNode[];
}

export const treemap = defineChart<CommonArgs & { data: TreeNode[] }>({
  type: 'treemap',
  build(args, frame) {
    return singleSeries(args, frame, {
      type: 'treemap',
      ...insetOf(frame, { top: 4, right: 8, bottom: 8, left: 8 }),
      roam: false,
      nodeClick: false,
      breadcrumb: { show: false },
      data: args.data,
      label: { show: true, formatter: '{b}\n{c}' },
      upperLabel: {
        show: true,
        height: 22,
        color: '#fff',
        textBorderColor: 'rgba(0,0,0,0.35)',
        textBorderWidth: 2,
      },
      levels: [
        { itemStyle: { borderColor: frame.background, borderWidth: 2, gapWidth: 2 } },
        { itemStyle: { borderColorSaturation: 0.6, gapWidth: 1, borderWidth: 2 }, colorSaturation: [0.35, 0.6] },
        { itemStyle: { borderColorSaturation: 0.7, gapWidth: 1 }, colorSaturation: [0.35, 0.6] },
      ],
    });
  },
});
