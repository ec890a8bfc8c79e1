import type { EChartsOption, SeriesOption } from 'echarts/types/dist/echarts';
import { type ChartTheme, FONT_FAMILY, THEMES, type ThemeName } from './theme.ts';

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

const LABEL_FONT = 12;
/** The smallest label font used to fit every category before giving up on showing them all. */
const MIN_LABEL_FONT = 9;
const lineOf = (fontSize: number) => Math.ceil(fontSize * 1.3);

/**
 * How a category axis shows its labels: every one of them (`interval: 0`; ECharts would otherwise skip labels
 * that collide, without a word). Decided from their number, their longest width and the room each gets:
 * level when they fit; wrapped onto up to three lines when a slot holds a few characters; otherwise turned
 * (30°, 45°, 60° or 90°, the flattest that keeps neighbours apart; `centred` says whether a label sits mid-slot
 * or on its tick), then set smaller. Only when even upright
 * labels at the smallest size would overlap does the axis thin them out, and the chart's notes say so.
 */
export function categoryLabels(
  frame: Frame,
  labels: string[],
  placement: 'x' | 'y',
  centred = true,
): Record<string, unknown> {
  const count = Math.max(1, labels.length);
  const longest = Math.max(0, ...labels.map((l) => textWidth(l, LABEL_FONT)));
  const axisName = placement === 'x' ? 'x' : 'y';
  if (placement === 'y') {
    // Room per label along the axis: the height below the title, less the value axis and a legend.
    const slot = (frame.height - frame.top - 72) / count;
    const maxWidth = Math.round(frame.width * 0.3);
    const lines = Math.ceil(longest / maxWidth);
    const wrap =
      longest > maxWidth
        ? { width: maxWidth, overflow: lines * lineOf(LABEL_FONT) <= slot ? 'break' : 'truncate' }
        : {};
    if (wrap.overflow === 'truncate')
      frame.notes.push(`${axisName} 轴较长的标签已截短 / long ${axisName}-axis labels were shortened`);
    return fitted(frame, slot, { interval: 0, ...wrap }, axisName, count);
  }
  // Room per label across the axis: the width less the value axis labels and the grid margins.
  const slot = (frame.width - 110) / count;
  const room = slot - 6;
  if (longest <= room) return { interval: 0 };
  if (room >= 2 * LABEL_FONT + 4 && Math.ceil(longest / room) <= 3)
    return { interval: 0, width: Math.floor(room), overflow: 'break' };
  const angle = [30, 45, 60, 90].find((a) => slot * Math.sin((a * Math.PI) / 180) >= lineOf(LABEL_FONT)) ?? 90;
  // A turned label may take at most a third of the chart's height; longer ones end in an ellipsis.
  const maxLength = Math.round(frame.height / 3);
  const turned = {
    interval: 0,
    rotate: angle,
    ...(longest > maxLength ? { width: maxLength, overflow: 'truncate' } : {}),
  };
  if (longest > maxLength)
    frame.notes.push(`${axisName} 轴较长的标签已截短 / long ${axisName}-axis labels were shortened`);
  // A turned label ends at its tick and runs down-left: past the chart's edge unless the grid moves right (the
  // value axis' own labels, about 20 px, already give some room).
  const reach = Math.min(longest, maxLength) * Math.cos((angle * Math.PI) / 180) - (centred ? slot / 2 : 0) - 20;
  frame.labelOverhang = Math.max(frame.labelOverhang, Math.ceil(reach));
  return fitted(frame, slot * Math.sin((angle * Math.PI) / 180), turned, axisName, count);
}

/** Labels as given when a line of them fits `slot`; else smaller type; else thinned out, with a note. */
function fitted(
  frame: Frame,
  slot: number,
  layout: Record<string, unknown>,
  axisName: string,
  count: number,
): Record<string, unknown> {
  if (slot >= lineOf(LABEL_FONT)) return layout;
  const fontSize = Math.floor(slot / 1.3);
  if (fontSize >= MIN_LABEL_FONT) return { ...layout, fontSize };
  frame.notes.push(
    `${axisName} 轴有 ${count} 个类别，图宽只够显示部分标签（加大 width/height 可全部显示）/ the ${axisName} axis has ${count} categories, too many to label each at this size (a larger width/height shows them all)`,
  );
  return { ...layout, interval: 'auto', hideOverlap: true, fontSize: MIN_LABEL_FONT };
}

/** Bars with this many or fewer carry their values. */
export const FEW_BARS = 12;

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

/** A number as a label: thousands grouped, at most two decimals. */
export function formatValue(value: unknown): string {
  const n = Array.isArray(value) ? value.at(-1) : value;
  return typeof n === 'number' && Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: 2 }) : '';
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

/** Categories in first-seen order and, per group, the summed value at each category (null when missing). */
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
  return { categories, groups: [...groups].map(([name, values]) => ({ name, values })) };
}

/** Approximate text width for layout done outside ECharts (CJK glyphs are square, Latin about half). */
export function textWidth(text: string, fontSize: number): number {
  let width = 0;
  for (const char of text) width += char.charCodeAt(0) > 0x2e80 ? fontSize : fontSize * 0.58;
  return width;
}

/** Font fields for graphic text elements, which do not inherit the chart's text style. */
export function fontOf(
  size: number,
  bold = false,
): { fontSize: number; fontWeight: 'bold' | 'normal'; fontFamily: string } {
  return { fontSize: Math.round(size), fontWeight: bold ? 'bold' : 'normal', fontFamily: FONT_FAMILY };
}
