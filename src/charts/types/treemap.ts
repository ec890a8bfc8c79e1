import { baseOption, type CommonArgs } from '../frame.ts';
import { defineChart } from '../module.ts';

interface TreeNode {
  name: string;
  value: number;
  children?: TreeNode[];
}

export const treemap = defineChart<CommonArgs & { data: TreeNode[] }>({
  type: 'treemap',
  build(args, frame) {
    return {
      ...baseOption(args, frame),
      series: [
        {
          type: 'treemap',
          top: frame.top + 4,
          bottom: 8,
          left: 8,
          right: 8,
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
        },
      ],
    };
  },
});
