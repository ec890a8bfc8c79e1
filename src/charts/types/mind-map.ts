import { baseOption, type CommonArgs, textWidth } from '../frame.ts';
import { defineChart } from '../module.ts';

export interface TreeData {
  name: string;
  description?: string;
  children?: TreeData[];
}

/** Root on the left, branches fanning out to the right, each first-level branch in its own colour. */
export const mindMap = defineChart<CommonArgs & { data: TreeData }>({
  type: 'mind-map',
  build(args, frame) {
    const colour = (node: TreeData, color: string): object => ({
      name: node.name,
      itemStyle: { color, borderColor: color },
      lineStyle: { color },
      children: node.children?.map((child) => colour(child, color)),
    });
    const data = {
      name: args.data.name,
      itemStyle: { color: frame.theme.text },
      label: { fontSize: 16, fontWeight: 'bold' as const },
      children: args.data.children?.map((child, i) => colour(child, frame.palette[i % frame.palette.length])),
    };
    return {
      ...baseOption(args, frame),
      series: [
        {
          type: 'tree',
          data: [data],
          orient: 'LR',
          top: frame.top + 8,
          bottom: 16,
          left: textWidth(args.data.name, 16) + 24,
          right: '22%',
          symbolSize: 8,
          edgeShape: 'curve',
          expandAndCollapse: false,
          initialTreeDepth: -1,
          label: { position: 'left', align: 'right', verticalAlign: 'middle', fontSize: 13, color: frame.theme.text },
          leaves: { label: { position: 'right', align: 'left' } },
          lineStyle: { width: 2, curveness: 0.5 },
        },
      ],
    };
  },
});
