/**
 * What a chart's series say, shared by the renderer (`src/charts/`), the `generate_visualization` tool and the
 * browser: months placed on a real time line, and the sentence that tells a reader what a chart shows. Pure, with
 * no imports beyond the label rules.
 */
import { formatValue } from './chart-labels.ts';

export interface SeriesValues {
  name: string;
  data: Array<number | null>;
}

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;
/** More months than this (50 years) are not a procurement series: left as given rather than filled. */
const MAX_MONTHS = 600;

const monthIndex = (label: string) => {
  const m = MONTH.exec(label);
  return m ? Number(m[1]) * 12 + Number(m[2]) - 1 : undefined;
};
const monthLabel = (index: number) => `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}`;

/**
 * Monthly categories ("2026-01" … "2026-11") as a time line: every month from the first to the last, in order, a
 * month nobody bought in holding `null` in every series, so it takes its own place on the axis and a line breaks
 * there instead of joining its neighbours as if they were consecutive. Categories that are not all months, or
 * that repeat, come back unchanged.
 */
export function onTimeLine<S extends SeriesValues>(
  categories: string[],
  series: S[],
): { categories: string[]; series: S[] } {
  const indices = categories.map(monthIndex);
  if (categories.length < 2 || indices.some((i) => i === undefined) || new Set(indices).size !== indices.length)
    return { categories, series };
  const months = indices as number[];
  const first = Math.min(...months);
  const span = Math.max(...months) - first + 1;
  if (span > MAX_MONTHS) return { categories, series };
  return {
    categories: Array.from({ length: span }, (_, i) => monthLabel(first + i)),
    series: series.map((s) => {
      const data: Array<number | null> = Array.from({ length: span }, () => null);
      months.forEach((month, i) => {
        data[month - first] = s.data[i] ?? null;
      });
      return { ...s, data };
    }),
  };
}

/** A chart as a reader needs it told: its title, its categories, its series, the unit of its values. */
export interface ChartFacts {
  title: string;
  kind: 'line' | 'bar' | 'pie';
  categories: string[];
  series: SeriesValues[];
  unit?: string;
}

/**
 * What a chart shows and its main figure, Chinese first with English: the alt text and caption of the chart image
 * or interactive chart. A line or bar chart names its span (months "2026-01 至 2026-11", else its number of
 * categories) and its highest value with where it falls; a pie its largest slice and share.
 */
export function describeChart(chart: ChartFacts): string {
  const title = chart.title.trim() || '图表 / chart';
  const cells = chart.series.flatMap((s) =>
    s.data.flatMap((value, i) =>
      typeof value === 'number' && Number.isFinite(value)
        ? [{ series: s.name, category: chart.categories[i], value }]
        : [],
    ),
  );
  if (!cells.length) return `${title}（无数据 / no data）`;
  const top = cells.reduce((best, cell) => (cell.value > best.value ? cell : best));
  const figure = `${formatValue(top.value)}${chart.unit ?? ''}`;
  if (chart.kind === 'pie') {
    const total = cells.reduce((sum, cell) => sum + cell.value, 0);
    const share = total > 0 ? ` (${Math.round((top.value / total) * 100)}%)` : '';
    return `${title}，最大：${top.category} ${figure}${share} / largest: ${top.category} ${figure}${share}`;
  }
  const months = chart.categories.every((c) => MONTH.test(c));
  const first = chart.categories[0];
  const last = chart.categories.at(-1);
  const spanZh = months ? `${first} 至 ${last}` : `${chart.categories.length} 项`;
  const spanEn = months ? `${first} to ${last}` : `${chart.categories.length} categories`;
  // The series is named only when there are several to tell apart.
  const where = chart.series.length > 1 ? `${top.series}, ${top.category}` : top.category;
  const whereZh = chart.series.length > 1 ? `${top.series}，${top.category}` : top.category;
  return `${title}，${spanZh}，最高 ${figure}（${whereZh}）/ ${spanEn}, highest ${figure} (${where})`;
}
