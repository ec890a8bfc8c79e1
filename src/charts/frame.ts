import type { EChartsOption, SeriesOption } from 'echarts/types/dist/echarts';
import { categoryLayout, formatValue, onTimeLine } from '../protocol/index.ts';
import { type ChartTheme, FONT_FAMILY, THEMES, type ThemeName } from './theme.ts';

export { FEW_BARS, formatValue, textWidth } from '../protocol/index.ts';

/** Options every AntV chart tool shares (all optional; maps have no theme/style). */
export interface CommonArgs {
  title?: string;
  width?: number;
  height?: number;
  theme?: ThemeName;
  axisXTitle?: string;
  axisYTitle?: string;
  style?: {
    backgroundColor?: string;
    palette?: string[] | Record<string, string>;
    lineWidth?: number;
    startAtZero?: boolean;
  };
}

/** Where and how one chart is drawn: size, resolved theme, colours. */
export interface Frame {
  width: number;
  height: number;
  theme: ChartTheme;
  palette: string[];
  background: string;
  /** Top of the plotting area (below the title, if any). */
  top: number;
  /** Facts the caller should hear about how the chart was drawn (e.g. axis labels that could not all be shown). */
  notes: string[];
  /** How far turned category labels reach left of the first category: the grid's left margin makes room. */
  labelOverhang: number;
}

export function frameOf(args: CommonArgs, defaults = { width: 600, height: 400 }): Frame {
  const theme = THEMES[args.theme ?? 'default'] ?? THEMES.default;
  const palette = Array.isArray(args.style?.palette) && args.style.palette.length ? args.style.palette : theme.palette;
  return {
    width: args.width ?? defaults.width,
    height: args.height ?? defaults.height,
    theme,
    palette,
    background: args.style?.backgroundColor ?? theme.background,
    top: args.title ? 48 : 16,
    notes: [],
    labelOverhang: 0,
  };
}

/** Title, background, palette and font shared by every chart. */
export function baseOption(args: CommonArgs, frame: Frame): EChartsOption {
  return {
    animation: false,
    backgroundColor: frame.background,
    color: frame.palette,
    textStyle: { fontFamily: FONT_FAMILY, color: frame.theme.text },
    title: args.title
      ? {
          text: args.title,
          left: 'center',
          top: 12,
          textStyle: { fontSize: 16, fontWeight: 'bold', color: frame.theme.text },
        }
      : undefined,
  };
}

/** A chart that is one series placing itself (no axes): the shared base and that series. */
export function singleSeries(args: CommonArgs, frame: Frame, series: SeriesOption): EChartsOption {
  return { ...baseOption(args, frame), series: [series] };
}

/** Where a self-placing series sits: margins in pixels, the top one counted from below the title. */
export function insetOf(
  frame: Frame,
  margins: { top: number; right: number; bottom: number; left: number },
): { top: number; right: number; bottom: number; left: number } {
  return { ...margins, top: frame.top + margins.top };
}

/**
 * Series on an x/y grid: a legend when there are groups to tell apart, the grid sized to it, the given axes.
 * Axes come built (`axisOf`), since a horizontal chart puts its category axis on y.
 */
export function cartesianOption(
  args: CommonArgs,
  frame: Frame,
  chart: { legend: string[]; xAxis: Record<string, unknown>; yAxis: Record<string, unknown>; series: SeriesOption[] },
): EChartsOption {
  const legend = legendOf(frame, chart.legend);
  return {
    ...baseOption(args, frame),
    legend,
    grid: gridOf(frame, Boolean(legend), args),
    xAxis: chart.xAxis,
    yAxis: chart.yAxis,
    series: chart.series,
  };
}

/** A legend along the bottom, shown only when there is more than one series to tell apart. */
export function legendOf(frame: Frame, names: string[]): EChartsOption['legend'] {
  if (names.length < 2) return undefined;
  return { data: names, bottom: 8, textStyle: { color: frame.theme.subtleText } };
}

/**
 * A themed axis; `name` is the axis title. A category axis lays out every one of its labels
 * (`categoryLabels`); `placement` says which side it is drawn on (a horizontal bar chart puts it on y).
 */
export function axisOf(
  frame: Frame,
  axis: Record<string, unknown>,
  name?: string,
  placement: 'x' | 'y' = 'x',
): Record<string, unknown> {
  const labels = axis.type === 'category' && Array.isArray(axis.data) ? axis.data.map(String) : undefined;
  return {
    ...axis,
    name: name || undefined,
    nameLocation: 'middle',
    nameGap: axis.type === 'category' ? 28 : 44,
    nameTextStyle: { color: frame.theme.subtleText },
    axisLine: { lineStyle: { color: frame.theme.axisLine } },
    axisLabel: {
      color: frame.theme.subtleText,
      ...(labels ? categoryLabels(frame, labels, placement, axis.boundaryGap !== false) : { hideOverlap: true }),
    },
    splitLine: { lineStyle: { color: frame.theme.splitLine } },
  };
}

/**
 * How a category axis shows its labels (`categoryLayout`): every one of them, level, wrapped or turned. What could
 * not be shown in full goes into the chart's notes; turned labels' reach past the first category into its margin.
 */
export function categoryLabels(
  frame: Frame,
  labels: string[],
  placement: 'x' | 'y',
  centred = true,
): Record<string, unknown> {
  const layout = categoryLayout(labels, frame, placement, centred);
  frame.notes.push(...layout.notes);
  frame.labelOverhang = Math.max(frame.labelOverhang, layout.overhang);
  return layout.axisLabel;
}

/** Value labels on bars: outside the end of a bar, or inside a stacked segment. */
export function valueLabels(frame: Frame, position: 'top' | 'right' | 'inside'): Record<string, unknown> {
  return {
    show: true,
    position,
    fontSize: 11,
    color: position === 'inside' ? '#ffffff' : frame.theme.subtleText,
    formatter: (p: { value: unknown }) => formatValue(p.value),
  };
}

export function gridOf(frame: Frame, legend: boolean, args: CommonArgs): Record<string, unknown> {
  return {
    top: frame.top + 8,
    bottom: (legend ? 40 : 16) + (args.axisXTitle ? 24 : 0),
    left: Math.max(16 + (args.axisYTitle ? 24 : 0), frame.labelOverhang),
    right: 24,
    containLabel: true,
  };
}

/**
 * Categories in first-seen order and, per group, the summed value at each category (null when missing). Monthly
 * categories are laid on a time line (`onTimeLine`): in order, a month without data kept as a gap.
 */
export function pivot<T extends { value: number; group?: string }>(
  rows: T[],
  category: (row: T) => string,
): { categories: string[]; groups: Array<{ name: string; values: Array<number | null> }> } {
  const categories = [...new Set(rows.map(category))];
  const index = new Map(categories.map((c, i) => [c, i]));
  const groups = new Map<string, Array<number | null>>();
  for (const row of rows) {
    const name = row.group ?? '';
    if (!groups.has(name))
      groups.set(
        name,
        categories.map(() => null),
      );
    const values = groups.get(name)!;
    const at = index.get(category(row))!;
    values[at] = (values[at] ?? 0) + row.value;
  }
  const timed = onTimeLine(
    categories,
    [...groups].map(([name, data]) => ({ name, data })),
  );
  return { categories: timed.categories, groups: timed.series.map((s) => ({ name: s.name, values: s.data })) };
}

/** Font fields for graphic text elements, which do not inherit the chart's text style. */
export function fontOf(
  size: number,
  bold = false,
): { fontSize: number; fontWeight: 'bold' | 'normal'; fontFamily: string } {
  return { fontSize: Math.round(size), fontWeight: bold ? 'bold' : 'normal', fontFamily: FONT_FAMILY };
}
