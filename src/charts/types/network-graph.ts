import { baseOption } from '../frame.ts';
import { ChartInputError, defineChart } from '../module.ts';
import { type GraphArgs, missingNodes } from './flow-diagram.ts';

/** Force-directed layout, started from a circle and run to rest in one go, so the same input gives the same picture. */
export const networkGraph = defineChart<GraphArgs>({
  type: 'network-graph',
  build(args, frame) {
    const missing = missingNodes(args);
    if (missing.length)
      throw new ChartInputError(`边引用了未声明的节点 / edges use undeclared nodes: ${missing.join(', ')}`);
    const degree = new Map<string, number>();
    for (const e of args.data.edges) for (const n of [e.source, e.target]) degree.set(n, (degree.get(n) ?? 0) + 1);
    return {
      ...baseOption(args, frame),
      series: [
        {
          type: 'graph',
          layout: 'force',
          top: frame.top + 24,
          bottom: 32,
          left: 48,
          right: 48,
          force: {
            initLayout: 'circular',
            repulsion: 900,
            edgeLength: [90, 200],
            gravity: 0.05,
            layoutAnimation: false,
          },
          data: args.data.nodes.map((n, i) => ({
            name: n.name,
            symbolSize: 14 + 5 * Math.sqrt(degree.get(n.name) ?? 0),
            itemStyle: { color: frame.palette[i % frame.palette.length] },
          })),
          links: args.data.edges.map((e) => ({
            source: e.source,
            target: e.target,
            label: { show: Boolean(e.name), formatter: e.name ?? '', fontSize: 10, color: frame.theme.subtleText },
          })),
          label: { show: true, position: 'right', color: frame.theme.text },
          lineStyle: { color: frame.theme.axisLine, width: 1.2 },
        },
      ],
    };
  },
});
