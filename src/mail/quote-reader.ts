import { createRequire } from 'node:module';
import path from 'node:path';
import ExcelJS from 'exceljs';
import type { contract } from '../erp/index.ts';

type QuoteLine = contract.QuoteLineInput;
type Flag = { lineNo?: number; reason: string };

/** What a reply is read against: the RFQ's currency and each line's asked quantity and unit. */
export interface AskedQuote {
  currency: string;
  lines: ReadonlyArray<{ lineNo: number; quantity: number; unit: string }>;
}

/** The columns of a quote table, each found by any of its header words (the template's, and common variants). */
const COLUMNS = {
  lineNo: ['行号', '序号', 'line', 'no', 'no.', '#', 'item no'],
  quantity: ['数量', 'qty', 'quantity'],
  unit: ['单位', 'unit', 'uom'],
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
/** Each column as a flag names it, Chinese and English. */
const LABELS: Record<Column, [string, string]> = {
  lineNo: ['行号', 'line'],
  quantity: ['数量', 'quantity'],
  unit: ['单位', 'unit'],
  unitPrice: ['单价', 'unit price'],
  currency: ['币种', 'currency'],
  priceBreaks: ['阶梯价', 'price breaks'],
  moq: ['最小起订量', 'MOQ'],
  leadTimeDays: ['交期', 'lead time'],
  validUntil: ['有效期', 'valid until'],
  freight: ['运费', 'freight'],
  remarks: ['备注', 'remarks'],
};

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

/** A plain number (`1,234.50`); anything else, a currency or unit included, is not one. */
export function readNumber(cell: string): number | undefined {
  const text = cell.trim().replace(/,(?=\d{3}\b)/g, '');
  if (!/^\d+(\.\d+)?$/.test(text)) return undefined;
  return Number(text);
}

const DOLLARS = ['USD', 'HKD', 'SGD', 'AUD', 'CAD', 'NZD', 'TWD'];
/** What a currency sign or word may mean; `$` and `¥` mean several, and are read only where the rest of the reply
 *  says which. */
const CURRENCY_WORDS: Record<string, readonly string[]> = {
  $: DOLLARS,
  us$: ['USD'],
  hk$: ['HKD'],
  s$: ['SGD'],
  a$: ['AUD'],
  c$: ['CAD'],
  nz$: ['NZD'],
  nt$: ['TWD'],
  '¥': ['CNY', 'JPY'],
  '￥': ['CNY', 'JPY'],
  '€': ['EUR'],
  '£': ['GBP'],
  '₩': ['KRW'],
  '₹': ['INR'],
  rmb: ['CNY'],
  元: ['CNY'],
  人民币: ['CNY'],
  美元: ['USD'],
  美金: ['USD'],
  欧元: ['EUR'],
  日元: ['JPY'],
  円: ['JPY'],
  港元: ['HKD'],
  港币: ['HKD'],
  英镑: ['GBP'],
};
const ISO_CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

/** The currencies a currency cell or sign may mean: an ISO code, a sign or a word; undefined when it is none. */
export function currenciesOf(text: string): readonly string[] | undefined {
  const word = text.trim().toLowerCase();
  if (CURRENCY_WORDS[word]) return CURRENCY_WORDS[word];
  const code = word.toUpperCase();
  return /^[A-Z]{3}$/.test(code) && ISO_CURRENCIES.has(code) ? [code] : undefined;
}

/** An amount as suppliers write it: `14.2`, `¥14.2`, `US$ 1.60`, `1.60 USD`, `14.20 元`, `14.2 元/只`. */
interface Amount {
  value: number;
  /** The sign or code as written, and the currencies it may mean; absent when it carries none. */
  sign?: string;
  currencies?: readonly string[];
  /** The unit after a slash (`/只`), when it names one. */
  unit?: string;
}
const AMOUNT = /^([^\d\s.,/]*?)\s*(\d[\d,]*(?:\.\d+)?)\s*([^\d\s/][^/]*?)?\s*(?:\/\s*(\S.*))?$/;

function readAmount(cell: string): Amount | undefined {
  const m = AMOUNT.exec(cell.trim());
  if (!m) return undefined;
  const value = readNumber(m[2]);
  if (value === undefined) return undefined;
  const [, before, , after, unit] = m;
  if (before && after) return undefined;
  const sign = before || after;
  const currencies = sign ? currenciesOf(sign) : undefined;
  if (sign && !currencies) return undefined;
  return { value, ...(sign && currencies && { sign, currencies }), ...(unit && { unit: unit.trim() }) };
}

/** Words for one piece, which a supplier's own layout may use for the RFQ's: any other unit must match exactly. */
const PIECE = new Set(['个', '只', '件', '支', '粒', 'pc', 'pcs', 'piece', 'pieces', 'ea', 'each']);
const sameUnit = (a: string, b: string) => {
  const [x, y] = [norm(a).replace(/\.$/, ''), norm(b).replace(/\.$/, '')];
  return x === y || (PIECE.has(x) && PIECE.has(y));
};

/** `100:14.2; 500:13.5` or `≥100 14.2 / ≥500 13.5`: each break a minimum quantity and an amount. */
function readBreaks(cell: string): Array<{ minQty: number; amount: Amount }> | undefined {
  if (!cell.trim() || cell.trim() === '-') return [];
  const breaks = [];
  for (const part of cell.split(/[;；/,，\n]+/).filter((p) => p.trim())) {
    const m = /^\s*(?:≥|>=|from\s*)?(\d+)\s*(?:pcs|个)?\s*[:：@=\s]\s*(\S.*?)\s*$/i.exec(part);
    const amount = m ? readAmount(m[2]) : undefined;
    if (!m || !amount) return undefined;
    breaks.push({ minQty: Number(m[1]), amount });
  }
  return breaks;
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
/** How the spreadsheet reader hands over a formula cell: its formula, never the value the sheet last computed. */
export const FORMULA_PREFIX = '=';
const isFormula = (text: string) => text.startsWith(FORMULA_PREFIX);

/**
 * The currency a line is quoted in, from everything that states one — the currency cell and the signs or codes on
 * its price, price breaks and freight — or the RFQ's when nothing does. Statements that disagree, or a sign such as
 * `$` that several currencies share and nothing narrows to one, are a problem to flag, never a currency to pick.
 */
function lineCurrency(stated: Array<{ what: string; currencies: readonly string[] }>, asked: string) {
  if (!stated.length) return { currency: asked };
  let possible = stated[0].currencies;
  for (const s of stated.slice(1)) possible = possible.filter((c) => s.currencies.includes(c));
  const said = stated.map((s) => s.what).join('、');
  if (!possible.length) return { problem: `币种不一致（${said}）/ the currencies stated disagree (${said})` };
  if (possible.length === 1) return { currency: possible[0] };
  if (possible.includes(asked)) return { currency: asked };
  return {
    problem: `币种不明确（${said} 可指 ${possible.join('/')}）/ ambiguous currency (${said} may mean ${possible.join('/')})`,
  };
}

/**
 * Quote lines from rows of cells (a sheet, a CSV, an HTML or text table, the quote form): the header row is found by
 * its words, every row under it with a line number is one quote. Nothing is guessed and nothing silently replaced:
 * a cell that is present but not readable, a formula, a currency that disagrees with another or cannot be told, a
 * quantity or unit other than the RFQ's, or a line the RFQ does not have flags its line for the buyer instead.
 */
export function readQuoteRows(rows: string[][], asked: AskedQuote): { lines: QuoteLine[]; flags: Flag[] } {
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
    const line = asked.lines.find((l) => l.lineNo === lineNo);
    if (!line) problems.push(`询价单没有第 ${lineNo} 行 / the RFQ has no line ${lineNo}`);
    /** A present cell read by `read`; a formula or an unreadable text is a problem, an empty cell is absent. */
    const optional = <T>(c: Column, read: (s: string) => T | undefined): T | undefined => {
      const text = cell(c);
      if (!text || text === '-') return undefined;
      const [zh, en] = LABELS[c];
      if (isFormula(text)) {
        problems.push(
          `${zh}是公式（${text.slice(0, 60)}），不采用其缓存值 / ${en} is a formula: its cached value is not taken`,
        );
        return undefined;
      }
      const value = read(text);
      if (value === undefined) problems.push(`${zh}“${text.slice(0, 60)}”无法识别 / ${en} not readable`);
      return value;
    };
    const price = optional('unitPrice', readAmount);
    if (price === undefined && !problems.length)
      problems.push(`单价“${cell('unitPrice')}”无法识别 / unit price not readable`);
    const currencyCell = optional('currency', currenciesOf);
    const breaks = optional('priceBreaks', readBreaks);
    const freight = optional('freight', readAmount);
    const quantity = optional('quantity', (q) => readNumber(q));
    const unit = optional('unit', (u) => u);
    const moq = optional('moq', (s) => int(readNumber(s)));
    const lead = optional('leadTimeDays', (s) => int(readNumber(s.replace(/\s*(天|days?)$/i, ''))));
    const validUntil = optional('validUntil', (s) => (ISO_DATE.test(s) ? s : undefined));

    if (line && quantity !== undefined && quantity !== line.quantity)
      problems.push(
        `数量 ${quantity} 与询价数量 ${line.quantity} 不同 / quantity ${quantity} differs from the asked ${line.quantity}`,
      );
    for (const [what, stated] of [
      ['单位 / unit', unit],
      ['单价 / unit price', price?.unit],
      ...(breaks ?? []).map((b) => ['阶梯价 / price break', b.amount.unit] as const),
    ] as const)
      if (line && stated !== undefined && !sameUnit(stated, line.unit))
        problems.push(`${what}“${stated}”与询价单位“${line.unit}”不同 / the unit differs from the RFQ’s ${line.unit}`);
    const stated = [
      ...(currencyCell ? [{ what: cell('currency'), currencies: currencyCell }] : []),
      ...[price, freight, ...(breaks ?? []).map((b) => b.amount)].flatMap((a) =>
        a?.sign && a.currencies ? [{ what: a.sign, currencies: a.currencies }] : [],
      ),
    ];
    const currency = lineCurrency(stated, asked.currency);
    if (currency.problem) problems.push(currency.problem);

    if (problems.length || price === undefined || currency.currency === undefined) {
      flags.push({ lineNo, reason: problems.join('; ').slice(0, 500) });
      continue;
    }
    lines.push({
      lineNo,
      unitPrice: price.value,
      currency: currency.currency,
      priceBreaks: (breaks ?? []).map((b) => ({ minQty: b.minQty, unitPrice: b.amount.value })),
      ...(moq !== undefined && { moq }),
      ...(lead !== undefined && { leadTimeDays: lead }),
      ...(validUntil !== undefined && { validUntil }),
      ...(freight !== undefined && { freight: freight.value }),
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

/** Rows of every worksheet of an XLSX file, each cell as its text; a formula cell as its formula (`=B2*0.2`), since
 *  the value the sheet last computed is whatever its author's program left there. */
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
          c.type === ExcelJS.ValueType.Formula
            ? `${FORMULA_PREFIX}${c.formula ?? ''}`
            : v instanceof Date
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
