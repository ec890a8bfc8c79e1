import { baseOption, type CommonArgs, fontOf, textWidth } from '../frame.ts';
import { ChartInputError, defineChart } from '../module.ts';

interface SpreadsheetArgs extends CommonArgs {
  data: Array<Record<string, string | number | null>>;
  rows?: string[];
  columns?: string[];
  values?: string[];
}

type Cell = string | number | null | undefined;

/** A flat table (`columns` orders it), or a pivot table (rows × columns, summed values) when `rows` or `values` are given. */
function tableOf(args: SpreadsheetArgs): Cell[][] {
  if (!args.rows?.length && !args.values?.length) {
    const headers = args.columns?.length ? args.columns : [...new Set(args.data.flatMap((row) => Object.keys(row)))];
    return [headers, ...args.data.map((row) => headers.map((h) => row[h]))];
  }
  const rows = args.rows ?? [];
  const columns = args.columns ?? [];
  const numeric = Object.keys(args.data[0] ?? {}).filter((k) => typeof args.data[0][k] === 'number');
  const values = args.values?.length ? args.values : numeric.filter((k) => !rows.includes(k) && !columns.includes(k));
  const key = (row: Record<string, Cell>, fields: string[]) => fields.map((f) => String(row[f] ?? '')).join(' / ');
  const rowKeys = [...new Set(args.data.map((r) => key(r, rows)))];
  const columnKeys = [...new Set(args.data.map((r) => key(r, columns)))];
  const sums = new Map<string, number>();
  for (const r of args.data)
    for (const v of values) {
      const at = `${key(r, rows)}\u0000${key(r, columns)}\u0000${v}`;
      sums.set(at, (sums.get(at) ?? 0) + Number(r[v] ?? 0));
    }
  const header = [
    rows.join(' / ') || '',
    ...columnKeys.flatMap((c) => values.map((v) => [c, values.length > 1 ? v : ''].filter(Boolean).join(' · ') || v)),
  ];
  return [
    header,
    ...rowKeys.map((r) => [r, ...columnKeys.flatMap((c) => values.map((v) => sums.get(`${r}\u0000${c}\u0000${v}`)))]),
  ];
}

const format = (cell: Cell) =>
  cell === null || cell === undefined ? '' : typeof cell === 'number' ? cell.toLocaleString('zh-CN') : cell;

/** Drawn as a striped table; rows that do not fit are summarised in a last line. */
export const spreadsheet = defineChart<SpreadsheetArgs>({
  type: 'spreadsheet',
  build(args, frame) {
    if (!args.data.length) throw new ChartInputError('表格没有数据 / the spreadsheet has no rows');
    const table = tableOf(args);
    const rowHeight = 28;
    const fits = Math.max(2, Math.floor((frame.height - 16) / rowHeight));
    const shown = table.length > fits ? [...table.slice(0, fits - 1)] : table;
    const widths = table[0].map((_, c) => Math.max(...shown.map((row) => textWidth(format(row[c]), 12))) + 20);
    const scale = Math.min(1, (frame.width - 16) / widths.reduce((a, b) => a + b, 0));
    const elements: object[] = [];
    shown.forEach((row, r) => {
      let x = 8;
      const y = 8 + r * rowHeight;
      elements.push({
        type: 'rect',
        shape: { x: 8, y, width: frame.width - 16, height: rowHeight },
        style: { fill: r === 0 ? frame.theme.neutral : r % 2 ? frame.background : `${frame.theme.neutral}80` },
      });
      row.forEach((cell, c) => {
        const w = widths[c] * scale;
        elements.push({
          type: 'text',
          x: typeof cell === 'number' ? x + w - 10 : x + 10,
          y: y + rowHeight / 2,
          style: {
            text: format(cell),
            fill: frame.theme.text,
            ...fontOf(12, r === 0),
            align: typeof cell === 'number' ? 'right' : 'left',
            verticalAlign: 'middle',
          },
        });
        x += w;
      });
    });
    if (shown.length < table.length)
      elements.push({
        type: 'text',
        x: 16,
        y: 8 + shown.length * rowHeight + rowHeight / 2,
        style: {
          text: `… 另有 ${table.length - shown.length} 行 / ${table.length - shown.length} more rows`,
          fill: frame.theme.subtleText,
          ...fontOf(12),
          verticalAlign: 'middle',
        },
      });
    return { ...baseOption({ ...args, title: undefined }, frame), graphic: elements };
  },
});
