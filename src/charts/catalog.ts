import type { ChartModule } from './module.ts';
import { area } from './types/area.ts';
import { bar } from './types/bar.ts';
import { boxplot } from './types/boxplot.ts';
import { column } from './types/column.ts';
import { dualAxes } from './types/dual-axes.ts';
import { fishboneDiagram } from './types/fishbone-diagram.ts';
import { flowDiagram } from './types/flow-diagram.ts';
import { funnel } from './types/funnel.ts';
import { histogram } from './types/histogram.ts';
import { line } from './types/line.ts';
import { liquid } from './types/liquid.ts';
import { districtMap, pathMap, pinMap } from './types/maps.ts';
import { mindMap } from './types/mind-map.ts';
import { networkGraph } from './types/network-graph.ts';
import { organizationChart } from './types/organization-chart.ts';
import { pie } from './types/pie.ts';
import { radar } from './types/radar.ts';
import { sankey } from './types/sankey.ts';
import { scatter } from './types/scatter.ts';
import { spreadsheet } from './types/spreadsheet.ts';
import { treemap } from './types/treemap.ts';
import { venn } from './types/venn.ts';
import { violin } from './types/violin.ts';
import { waterfall } from './types/waterfall.ts';
import { wordCloud } from './types/word-cloud.ts';

/** Every chart type the renderer draws, by its GPT-Vis type name. */
export const CHART_MODULES: ReadonlyMap<string, ChartModule<never>> = new Map(
  [
    area,
    bar,
    boxplot,
    column,
    districtMap,
    dualAxes,
    fishboneDiagram,
    flowDiagram,
    funnel,
    histogram,
    line,
    liquid,
    mindMap,
    networkGraph,
    organizationChart,
    pathMap,
    pie,
    pinMap,
    radar,
    sankey,
    scatter,
    treemap,
    venn,
    violin,
    waterfall,
    wordCloud,
    spreadsheet,
  ].map((m) => [m.type, m as ChartModule<never>]),
);

/** AntV tool name → GPT-Vis type (`generate_dual_axes_chart` → `dual-axes`). */
export function chartTypeOfTool(tool: string): string | undefined {
  const type = tool
    .replace(/^generate_/, '')
    .replace(/_chart$/, '')
    .replaceAll('_', '-');
  return CHART_MODULES.has(type) ? type : CHART_MODULES.has(`${type}-chart`) ? `${type}-chart` : undefined;
}
