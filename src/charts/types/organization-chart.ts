import { baseOption, type CommonArgs } from '../frame.ts';
import { defineChart } from '../module.ts';
import type { TreeData } from './mind-map.ts';

interface OrgArgs extends CommonArgs {
  data: TreeData;
  orient?: 'horizontal' | 'vertical';
}

/** Boxes with name and description, joined by elbow lines; vertical = top-down. */
export const organizationChart = defineChart<OrgArgs>({
  type: 'organization-chart',
  build(args, frame) {
    const vertical = args.orient !== 'horizontal';
    const node = (n: TreeData): object => ({
      name: n.name,
      value: n.description ?? '',
      children: n.children?.map(node),
    });
    return {
      ...baseOption(args, frame),
      series: [
        {
          type: 'tree',
          data: [node(args.data)],
          orient: vertical ? 'TB' : 'LR',
          top: frame.top + 24,
          bottom: 40,
          left: vertical ? 60 : 90,
          right: vertical ? 60 : 120,
          edgeShape: 'polyline',
          expandAndCollapse: false,
          initialTreeDepth: -1,
          symbol: 'rect',
          symbolSize: 1,
          lineStyle: { color: frame.theme.axisLine, width: 1.5 },
          label: {
            position: 'inside',
            formatter: (p: { name: string; value?: unknown }) =>
              p.value ? `{name|${p.name}}\n{desc|${String(p.value)}}` : `{name|${p.name}}`,
            backgroundColor: frame.theme.background === '#141414' ? '#1f2a38' : '#f0f6ff',
            borderColor: frame.palette[0],
            borderWidth: 1.5,
            borderRadius: 4,
            padding: [6, 10],
            rich: {
              name: {
                fontSize: 13,
                fontWeight: 'bold' as const,
                color: frame.theme.text,
                lineHeight: 18,
                align: 'center' as const,
              },
              desc: { fontSize: 11, color: frame.theme.subtleText, lineHeight: 16, align: 'center' as const },
            },
          },
        },
      ],
    };
  },
});
