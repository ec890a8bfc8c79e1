/**
 * How a chart labels its categories and values. Pure layout rules with no imports, part of what the server and the
 * browser share, so that the renderer (`src/charts/frame.ts`) and the browser UI's interactive charts lay out labels
 * the same way.
 */

export const LABEL_FONT = 12;
/** The smallest label font used to fit every category before giving up on showing them all. */
const MIN_LABEL_FONT = 9;
const lineOf = (fontSize: number) => Math.ceil(fontSize * 1.3);

/** Where a category axis is drawn. */
export interface LabelArea {
  /** The chart's size in pixels. */
  width: number;
  height: number;
  /** Top of the plotting area (below the title, if any). */
  top: number;
  /**
   * Width beside an x category axis: the grid's side margins and the value axis' labels (110 px for the renderer's
   * margins and about 70 px of labels).
   */
  sides?: number;
}

/** A category axis' `axisLabel`, how far turned labels reach left of the first category, and what to tell. */
export interface CategoryLayout {
  axisLabel: Record<string, unknown>;
  overhang: number;
  notes: string[];
}

/**
 * How a category axis shows its labels: every one of them (`interval: 0`; ECharts would otherwise skip labels
 * that collide, without a word). Decided from their number, their longest width and the room each gets:
 * level when they fit; wrapped onto up to three lines when a slot holds a few characters and every word (a run
 * without spaces: a month "2026-01", a model "F7TC"; a CJK character stands alone) fits a line; otherwise turned
 * (30°, 45°, 60° or 90°, the flattest that keeps neighbours apart; `centred` says whether a label sits mid-slot
 * or on its tick), then set smaller. Only when even upright
 * labels at the smallest size would overlap does the axis thin them out, and the notes say so.
 */
export function categoryLayout(
  labels: string[],
  area: LabelArea,
  placement: 'x' | 'y',
  centred = true,
): CategoryLayout {
  const count = Math.max(1, labels.length);
  const longest = Math.max(0, ...labels.map((l) => textWidth(l, LABEL_FONT)));
  const notes: string[] = [];
  const shortened = () => notes.push(`${placement} 轴较长的标签已截短 / long ${placement}-axis labels were shortened`);
  const layout = (axisLabel: Record<string, unknown>, overhang = 0) => ({ axisLabel, overhang, notes });
  if (placement === 'y') {
    // Room per label along the axis: the height below the title, less the value axis and a legend.
    const slot = (area.height - area.top - 72) / count;
    const maxWidth = Math.round(area.width * 0.3);
    const lines = Math.ceil(longest / maxWidth);
    const wrap =
      longest > maxWidth
        ? { width: maxWidth, overflow: lines * lineOf(LABEL_FONT) <= slot ? 'break' : 'truncate' }
        : {};
    if (wrap.overflow === 'truncate') shortened();
    return layout(fitted(slot, { interval: 0, ...wrap }, placement, count, notes));
  }
  // Room per label across the axis: the width less the value axis labels and the grid margins.
  const slot = (area.width - (area.sides ?? 110)) / count;
  const room = slot - 6;
  if (longest <= room) return layout({ interval: 0 });
  if (room >= 2 * LABEL_FONT + 4 && Math.ceil(longest / room) <= 3 && longestWord(labels) <= room)
    return layout({ interval: 0, width: Math.floor(room), overflow: 'break' });
  const angle = [30, 45, 60, 90].find((a) => slot * Math.sin((a * Math.PI) / 180) >= lineOf(LABEL_FONT)) ?? 90;
  // A turned label may take at most a third of the chart's height; longer ones end in an ellipsis.
  const maxLength = Math.round(area.height / 3);
  const turned = {
    interval: 0,
    rotate: angle,
    ...(longest > maxLength ? { width: maxLength, overflow: 'truncate' } : {}),
  };
  if (longest > maxLength) shortened();
  // A turned label ends at its tick and runs down-left: past the chart's edge unless the grid moves right (the
  // value axis' own labels, about 20 px, already give some room).
  const reach = Math.min(longest, maxLength) * Math.cos((angle * Math.PI) / 180) - (centred ? slot / 2 : 0) - 20;
  return layout(
    fitted(slot * Math.sin((angle * Math.PI) / 180), turned, placement, count, notes),
    Math.max(0, Math.ceil(reach)),
  );
}

/** Labels as given when a line of them fits `slot`; else smaller type; else thinned out, with a note. */
function fitted(
  slot: number,
  layout: Record<string, unknown>,
  axisName: string,
  count: number,
  notes: string[],
): Record<string, unknown> {
  if (slot >= lineOf(LABEL_FONT)) return layout;
  const fontSize = Math.floor(slot / 1.3);
  if (fontSize >= MIN_LABEL_FONT) return { ...layout, fontSize };
  notes.push(
    `${axisName} 轴有 ${count} 个类别，图宽只够显示部分标签（加大 width/height 可全部显示）/ the ${axisName} axis has ${count} categories, too many to label each at this size (a larger width/height shows them all)`,
  );
  return { ...layout, interval: 'auto', hideOverlap: true, fontSize: MIN_LABEL_FONT };
}

/** Bars (or points) with this many or fewer carry their values. */
export const FEW_BARS = 12;

/** A number as a label: thousands grouped, at most two decimals. */
export function formatValue(value: unknown): string {
  const n = Array.isArray(value) ? value.at(-1) : value;
  return typeof n === 'number' && Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: 2 }) : '';
}

/** The widest run of a label that must stay on one line: split at spaces and around each CJK character. */
function longestWord(labels: string[]): number {
  const words = labels.flatMap((l) => l.split(/\s+|(?<=[\u2e80-\uffff])|(?=[\u2e80-\uffff])/u));
  return Math.max(0, ...words.map((w) => textWidth(w, LABEL_FONT)));
}

/** Approximate text width for layout done outside ECharts (CJK glyphs are square, Latin about half). */
export function textWidth(text: string, fontSize: number): number {
  let width = 0;
  for (const char of text) width += char.charCodeAt(0) > 0x2e80 ? fontSize : fontSize * 0.58;
  return width;
}
