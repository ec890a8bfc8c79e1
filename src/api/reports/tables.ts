import { marked, type Tokens } from 'marked';

/** A cell as a spreadsheet should hold it: numbers as numbers (with their display format), the rest as text. */
export interface TypedCell {
  value: string | number | null;
  /** Excel number format for numeric cells parsed from money or percentages. */
  format?: string;
}

export interface ReportTable {
  /** The nearest heading above the table (or "表格 N / Table N"). */
  title: string;
  header: string[];
  rows: TypedCell[][];
}

const MONEY = /^([¥￥$€])\s*(-?[\d,]+(?:\.\d+)?)$/;
const PERCENT = /^([+-]?[\d,]+(?:\.\d+)?)\s*%$/;
const PLAIN = /^[+-]?[\d,]*\d(?:\.\d+)?$/;
const EMPTY = new Set(['', '—', '-', '–', 'N/A', 'n/a']);

/** Reads `¥12.30`, `+5.0%`, `1,200` as numbers so a workbook can sum and sort them; everything else stays text. */
export function typeCell(text: string): TypedCell {
  const t = text.trim();
  if (EMPTY.has(t)) return { value: null };
  const money = MONEY.exec(t);
  if (money) {
    const symbol = money[1] === '￥' ? '¥' : money[1];
    return { value: Number(money[2].replace(/,/g, '')), format: `"${symbol}"#,##0.00` };
  }
  const percent = PERCENT.exec(t);
  if (percent) return { value: Number(percent[1].replace(/,/g, '')) / 100, format: '0.0%' };
  if (PLAIN.test(t)) return { value: Number(t.replace(/,/g, '')) };
  return { value: t };
}

/** Every Markdown table of a report, titled by the heading it stands under. Inline markup is reduced to its text. */
export function reportTables(markdown: string): ReportTable[] {
  const tables: ReportTable[] = [];
  let heading = '';
  for (const token of marked.lexer(markdown)) {
    if (token.type === 'heading') heading = plainText((token as Tokens.Heading).tokens, token.text);
    if (token.type !== 'table') continue;
    const table = token as Tokens.Table;
    tables.push({
      title: heading || `表格 ${tables.length + 1} / Table ${tables.length + 1}`,
      header: table.header.map((cell) => plainText(cell.tokens, cell.text)),
      rows: table.rows.map((row) => row.map((cell) => typeCell(plainText(cell.tokens, cell.text)))),
    });
  }
  return tables;
}

function plainText(tokens: Tokens.Generic[] | undefined, fallback: string): string {
  if (!tokens?.length) return fallback;
  return tokens
    .map((t) => (Array.isArray(t.tokens) && t.tokens.length ? plainText(t.tokens, t.text ?? '') : (t.text ?? t.raw)))
    .join('');
}
