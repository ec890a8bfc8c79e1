import { insetOf, singleSeries } from '../frame.ts';
import { defineChart } from '../module.ts';
import { assertNodesDeclared, edgeLinks, type GraphArgs } from './flow-diagram.ts';

/** Force-directed layout, started from a circle and run to rest in one go, so the same input gives the same picture. */
export const networkGraph = defineChart<GraphArgs>({
  type: 'network-graph',
  build(args, frame) {
    assertNodesDeclared(args);
    const degree = new Map<string, number>();
    for (const e of args.data.edges) for (const n of [e.source, e.target]) degree.set(n, (degree.get(n) ?? 0) + 1);
    return singleSeries(args, frame, {
      type: 'graph',
      layout: 'force',
      ...insetOf(frame, { top: 24, right: 48, bottom: 32, left: 48 }),
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
      links: edgeLinks(args, frame, 10),
      label: { show: true, position: 'right', color: frame.theme.text },
      lineStyle: { color: frame.theme.axisLine, width: 1.2 },
    });
  },
});
