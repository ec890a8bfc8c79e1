import { createRequire } from 'node:module';
import path from 'node:path';
import ExcelJS from 'exceljs';
import type { contract } from '../erp/index.ts';

type QuoteLine = contract.QuoteLineInput;
type Flag = { lineNo?: number; reason: string };

/** The columns of a quote table, each found by any of its header words (the template's, and common variants). */
const COLUMNS = {
  lineNo: ['行号', '序号', 'line', 'no', 'no.', '#', 'item no'],
  unitPrice: ['单价', 'unit price', 'price', '价格'],
  currency: ['币种', '货币', 'currency', 'ccy'],
  priceBreaks: ['阶梯价', 'price breaks', 'breaks', 'tiers'],
  moq: ['最小起订量', '起订量', 'moq', 'min qty'],
  leadTimeDays: ['交期', '交期(天)', 'lead time', 'lead time (days)', 'lead'],
  validUntil: ['有效期', '有效期至', 'valid until', 'validity'],
  freight: ['运费', 'freight'],
  remarks: ['备注', 'remarks', 'note', 'notes'],
} as const;
type Column = keyof typeof COLUMNS;

/** The header row of the reply template; suppliers who keep it are read without any guessing. */
export const TEMPLATE_HEADER = [
  '行号 Line',
  '物料 Item',
  '数量 Qty',
  '单位 Unit',
  '需求日期 Required',
  '单价 Unit price',
  '币种 Currency',
  '阶梯价 Price breaks',
  'MOQ',
  '交期(天) Lead time (days)',
  '有效期 Valid until',
  '运费 Freight',
  '备注 Remarks',
];

const norm = (cell: string) => cell.trim().toLowerCase().replace(/\s+/g, ' ');

/** Which column a header cell names: the longest header word it consists of, starts or ends with, in Chinese or
 *  English (template cells carry both), so `Price breaks` is not read as `Price`. */
function columnOf(cell: string): Column | undefined {
  const text = norm(cell);
  if (!text) return undefined;
  let best: { column: Column; length: number } | undefined;
  for (const [column, words] of Object.entries(COLUMNS) as Array<[Column, readonly string[]]>)
    for (const w of words)
      if ((text === w || text.startsWith(`${w} `) || text.endsWith(` ${w}`)) && w.length > (best?.length ?? 0))
        best = { column, length: w.length };
  return best?.column;
}

/** A number as suppliers write it: `1,234.50`, `¥14.2`, `14.20 元`; anything else is not a number. */
export function readNumber(cell: string): number | undefined {
  const text = cell
    .trim()
    .replace(/^[¥$€£]|元$|\s*(rmb|cny|usd|eur)$/i, '')
    .replace(/,(?=\d{3}\b)/g, '')
    .trim();
  if (!/^\d+(\.\d+)?$/.test(text)) return undefined;
  return Number(text);
}

/** `100:14.2; 500:13.5` or `≥100 14.2 / ≥500 13.5`: each break a minimum quantity and a unit price. */
function readBreaks(cell: string): Array<{ minQty: number; unitPrice: number }> | undefined {
  if (!cell.trim() || cell.trim() === '-') return [];
  const breaks = [];
  for (const part of cell.split(/[;；/,，\n]+/).filter((p) => p.trim())) {
    const m = /^\s*(?:≥|>=|from\s*)?(\d+)\s*(?:pcs|个)?\s*[:：@=\s]\s*[¥$€]?\s*(\d+(?:\.\d+)?)\s*$/i.exec(part);
    if (!m) return undefined;
    breaks.push({ minQty: Number(m[1]), unitPrice: Number(m[2]) });
  }
  return breaks;
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Quote lines from rows of cells (a sheet, a CSV, an HTML or text table): the header row is found by its words,
 * every row under it with a line number is one quote. A cell that is present but not readable flags its line
 * instead of being guessed; a line without a unit price or currency is flagged too.
 */
export function readQuoteRows(rows: string[][], fallbackCurrency?: string): { lines: QuoteLine[]; flags: Flag[] } {
  const headerAt = rows.findIndex((r) => {
    const found = new Set(r.map(columnOf).filter(Boolean));
    return found.has('lineNo') && found.has('unitPrice');
  });
  if (headerAt < 0) return { lines: [], flags: [] };
  const columns = rows[headerAt].map(columnOf);
  const lines: QuoteLine[] = [];
  const flags: Flag[] = [];
  for (const row of rows.slice(headerAt + 1)) {
    const cell = (c: Column) => {
      const i = columns.indexOf(c);
      return i < 0 ? '' : (row[i] ?? '').trim();
    };
    const lineNo = readNumber(cell('lineNo'));
    if (lineNo === undefined || !Number.isInteger(lineNo)) continue;
    const problems: string[] = [];
    const price = readNumber(cell('unitPrice'));
    if (price === undefined) problems.push(`单价“${cell('unitPrice')}”无法识别 / unit price not readable`);
    const currency = (cell('currency') || fallbackCurrency || '').toUpperCase();
    if (!/^[A-Z]{3}$/.test(currency)) problems.push('币种缺失或无法识别 / currency missing or not readable');
    const optional = (c: Column, read: (s: string) => unknown) => {
      const text = cell(c);
      if (!text || text === '-') return undefined;
      const value = read(text);
      if (value === undefined) problems.push(`${c}“${text}”无法识别 / ${c} not readable`);
      return value;
    };
    const breaks = optional('priceBreaks', readBreaks) as QuoteLine['priceBreaks'] | undefined;
    const moq = optional('moq', (s) => int(readNumber(s)));
    const lead = optional('leadTimeDays', (s) => int(readNumber(s.replace(/\s*(天|days?)$/i, ''))));
    const validUntil = optional('validUntil', (s) => (ISO_DATE.test(s) ? s : undefined));
    const freight = optional('freight', readNumber);
    if (problems.length || price === undefined) {
      flags.push({ lineNo, reason: problems.join('; ') });
      continue;
    }
    lines.push({
      lineNo,
      unitPrice: price,
      currency,
      priceBreaks: breaks ?? [],
      ...(moq !== undefined && { moq: moq as number }),
      ...(lead !== undefined && { leadTimeDays: lead as number }),
      ...(validUntil !== undefined && { validUntil: validUntil as string }),
      ...(freight !== undefined && { freight: freight as number }),
      ...(cell('remarks') && { remarks: cell('remarks').slice(0, 1000) }),
    });
  }
  return { lines, flags };
}

const int = (n: number | undefined) => (n !== undefined && Number.isInteger(n) ? n : undefined);

/** Rows of a plain-text table: cells split by `|`, tabs or two and more spaces. */
export function textRows(text: string): string[][] {
  return text
    .split(/\r?\n/)
    .map((line) => line.replace(/^\s*>+\s?/, ''))
    .filter((line) => !/^\s*[-|:+\s]+\s*$/.test(line))
    .map((line) =>
      line.includes('|')
        ? line
            .replace(/^\s*\|/, '')
            .replace(/\|\s*$/, '')
            .split('|')
        : line.split(/\t| {2,}/),
    )
    .map((cells) => cells.map((c) => c.trim()));
}

/** Rows of every `<table>` in an HTML body. */
export function htmlRows(html: string): string[][] {
  const rows: string[][] = [];
  for (const tr of html.match(/<tr[\s\S]*?<\/tr>/gi) ?? [])
    rows.push(
      (tr.match(/<t[hd][^>]*>[\s\S]*?<\/t[hd]>/gi) ?? []).map((td) =>
        td
          .replace(/<[^>]+>/g, '')
          .replace(/&nbsp;/g, ' ')
          .replace(/&amp;/g, '&')
          .replace(/&lt;/g, '<')
          .replace(/&gt;/g, '>')
          .trim(),
      ),
    );
  return rows;
}

/** Rows of a CSV file (RFC 4180 quoting). */
export function csvRows(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  const endCell = () => {
    row.push(cell);
    cell = '';
  };
  const endRow = () => {
    endCell();
    rows.push(row);
    row = [];
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') endCell();
    else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      endRow();
    } else cell += ch;
  }
  if (cell || row.length) endRow();
  return rows;
}

/** Rows of every worksheet of an XLSX file, each cell as its text. */
export async function xlsxRows(data: Buffer): Promise<string[][]> {
  const book = new ExcelJS.Workbook();
  await book.xlsx.load(data as unknown as ArrayBuffer);
  const rows: string[][] = [];
  book.eachSheet((sheet) =>
    sheet.eachRow((r) => {
      const cells: string[] = [];
      r.eachCell({ includeEmpty: true }, (c, col) => {
        const v = c.value;
        cells[col - 1] =
          v instanceof Date
            ? v.toISOString().slice(0, 10)
            : v === null || v === undefined
              ? ''
              : typeof v === 'object'
                ? (c.text ?? '')
                : String(v);
      });
      rows.push(Array.from(cells, (c) => c ?? ''));
    }),
  );
  return rows;
}

/** pdf.js's metrics of the 14 standard fonts, which PDFs use without embedding a font (a quotation system's
 *  Helvetica); without them pdf.js still reads the text but warns on every such file. */
const STANDARD_FONTS = `${path.join(path.dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json')), 'standard_fonts')}/`;

/** The text of a PDF that has a text layer (a scan without one reads as nothing and is flagged). */
export async function pdfText(data: Buffer): Promise<string> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const doc = await pdfjs.getDocument({
    data: new Uint8Array(data),
    isEvalSupported: false,
    useSystemFonts: false,
    standardFontDataUrl: STANDARD_FONTS,
  }).promise;
  const lines: string[] = [];
  for (let p = 1; p <= Math.min(doc.numPages, 20); p++) {
    const content = await (await doc.getPage(p)).getTextContent();
    // Items on one baseline make one line; a gap between items becomes a column break.
    const byY = new Map<number, Array<{ x: number; s: string }>>();
    for (const item of content.items as Array<{ str: string; transform: number[] }>) {
      const y = Math.round(item.transform[5]);
      byY.set(y, [...(byY.get(y) ?? []), { x: item.transform[4], s: item.str }]);
    }
    for (const y of [...byY.keys()].sort((a, b) => b - a))
      lines.push(
        (byY.get(y) ?? [])
          .sort((a, b) => a.x - b.x)
          .map((i) => i.s.trim())
          .filter(Boolean)
          .join('  '),
      );
  }
  await doc.destroy();
  return lines.join('\n');
}

/** The reply template: the RFQ's lines with empty quote columns, for the supplier to fill and send back. */
export async function replyTemplate(rfq: {
  rfqNo: string;
  currency: string;
  lines: Array<{ lineNo: number; item: string; quantity: number; unit: string; requiredDate: string }>;
}): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet(rfq.rfqNo);
  sheet.addRow(TEMPLATE_HEADER);
  for (const l of rfq.lines) sheet.addRow([l.lineNo, l.item, l.quantity, l.unit, l.requiredDate, '', rfq.currency]);
  sheet.getRow(1).font = { bold: true };
  sheet.columns.forEach((c) => {
    c.width = 16;
  });
  return Buffer.from(await book.xlsx.writeBuffer());
}
