import { onTimeLine } from '../../protocol/index.ts';

/** What the browser's `show_chart` draws interactively: ECharts-style categories and series. */
export interface BrowserChartSpec {
  title: string;
  chart_type: 'bar' | 'line' | 'pie';
  x_data: string[];
  series: Array<{ name: string; data: Array<number | null> }>;
}

type Row = Record<string, unknown>;

function byGroup(rows: Row[], x: string): Pick<BrowserChartSpec, 'x_data' | 'series'> {
  const xData = [...new Set(rows.map((r) => String(r[x])))];
  const groups = new Map<string, Array<number | null>>();
  for (const row of rows) {
    const name = String(row.group ?? '数值');
    if (!groups.has(name))
      groups.set(
        name,
        xData.map(() => null),
      );
    groups.get(name)![xData.indexOf(String(row[x]))] = Number(row.value);
  }
  // Monthly categories on a time line, as the renderer draws them: a month without data stays a gap.
  const timed = onTimeLine(
    xData,
    [...groups].map(([name, data]) => ({ name, data })),
  );
  return { x_data: timed.categories, series: timed.series };
}

/** The interactive form of a chart when its type has one (category/time series, dual axes, pie, funnel). */
export function browserSpecOf(type: string, config: Row): BrowserChartSpec | undefined {
  const title = String(config.title ?? '');
  const rows = Array.isArray(config.data) ? (config.data as Row[]) : [];
  switch (type) {
    case 'line':
    case 'area':
      return { title, chart_type: 'line', ...byGroup(rows, 'time') };
    case 'column':
    case 'bar':
      return { title, chart_type: 'bar', ...byGroup(rows, 'category') };
    case 'pie':
    case 'funnel':
      return {
        title,
        chart_type: 'pie',
        x_data: rows.map((r) => String(r.category)),
        series: [{ name: title || '占比', data: rows.map((r) => Number(r.value)) }],
      };
    case 'dual_axes': {
      const series = (config.series ?? []) as Array<{ type: string; data: number[]; axisYTitle?: string }>;
      const timed = onTimeLine(
        ((config.categories ?? []) as unknown[]).map(String),
        series.map((s, i) => ({ name: s.axisYTitle || `系列${i + 1}`, data: s.data })),
      );
      return {
        title,
        chart_type: series.every((s) => s.type === 'line') ? 'line' : 'bar',
        x_data: timed.categories,
        series: timed.series,
      };
    }
    default:
      return undefined;
  }
}
