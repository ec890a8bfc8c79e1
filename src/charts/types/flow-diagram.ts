import dagre from '@dagrejs/dagre';
import { baseOption, type CommonArgs, type Frame, textWidth } from '../frame.ts';
import { ChartInputError, defineChart } from '../module.ts';

export interface GraphArgs extends CommonArgs {
  data: { nodes: Array<{ name: string }>; edges: Array<{ source: string; target: string; name?: string }> };
}

/** Refuses edges that use names not declared as nodes: drawing them would silently invent nodes. */
export function assertNodesDeclared(args: GraphArgs): void {
  const names = new Set(args.data.nodes.map((n) => n.name));
  const missing = [...new Set(args.data.edges.flatMap((e) => [e.source, e.target]).filter((n) => !names.has(n)))];
  if (missing.length)
    throw new ChartInputError(`边引用了未声明的节点 / edges use undeclared nodes: ${missing.join(', ')}`);
}

/** The edges as graph links, each labelled with its name when it has one. */
export function edgeLinks(args: GraphArgs, frame: Frame, fontSize: number) {
  return args.data.edges.map((e) => ({
    source: e.source,
    target: e.target,
    label: { show: Boolean(e.name), formatter: e.name ?? '', color: frame.theme.subtleText, fontSize },
  }));
}

/** Layered left-to-right layout by dagre, scaled into the frame; boxes, arrows and edge labels. */
export const flowDiagram = defineChart<GraphArgs>({
  type: 'flow-diagram',
  build(args, frame) {
    assertNodesDeclared(args);
    const graph = new dagre.graphlib.Graph().setGraph({ rankdir: 'LR', nodesep: 30, ranksep: 60, edgesep: 20 });
    graph.setDefaultEdgeLabel(() => ({}));
    for (const node of args.data.nodes) graph.setNode(node.name, { width: textWidth(node.name, 13) + 24, height: 36 });
    for (const edge of args.data.edges) graph.setEdge(edge.source, edge.target);
    dagre.layout(graph);
    const { width = 1, height = 1 } = graph.graph();
    const scale = Math.min(2, (frame.width - 48) / width, (frame.height - frame.top - 32) / height);
    const ox = (frame.width - width * scale) / 2;
    const oy = frame.top + (frame.height - frame.top - height * scale) / 2;
    return {
      ...baseOption(args, frame),
      series: [
        {
          type: 'graph',
          layout: 'none',
          coordinateSystem: 'cartesian2d',
          symbol: 'roundRect',
          edgeSymbol: ['none', 'arrow'],
          edgeSymbolSize: 8,
          data: args.data.nodes.map((n, i) => {
            const at = graph.node(n.name);
            return {
              name: n.name,
              value: [ox + at.x * scale, oy + at.y * scale],
              symbolSize: [at.width * Math.min(1, scale), 34 * Math.min(1, scale)],
              itemStyle: { color: frame.palette[i % frame.palette.length] },
            };
          }),
          links: edgeLinks(args, frame, 11),
          label: { show: true, color: '#fff', fontSize: 13 },
          lineStyle: { color: frame.theme.axisLine, width: 1.5, curveness: 0.1 },
        },
      ],
      // hidden pixel axes over the whole frame keep dagre's positions as laid out
      grid: { left: 0, right: 0, top: 0, bottom: 0 },
      xAxis: { show: false, type: 'value', min: 0, max: frame.width },
      yAxis: { show: false, type: 'value', min: 0, max: frame.height, inverse: true },
    };
  },
});
