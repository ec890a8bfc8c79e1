import type { Writable } from 'node:stream';
import ExcelJS from 'exceljs';
import { reportTables } from './tables.ts';

/** A JSON file of the session (e.g. `/data/analysis_result.json`) whose record lists become sheets. */
export interface DataFile {
  name: string;
  value: unknown;
}

type CellValue = string | number | boolean | null;

/** One sheet of the workbook: a header row, then rows of values with an optional Excel number format each. */
export interface SheetPlan {
  title: string;
  header: string[];
  rows: Array<Array<{ value: CellValue; format?: string }>>;
}

/**
 * The sheets of a report's workbook: one per table of the report (numbers typed, money and percentages formatted),
 * then one per list of records in the session's data files (the price data behind the report). Planned before any
 * byte is written, so a workbook past the row limit is refused rather than cut.
 */
export function workbookSheets(markdown: string, dataFiles: DataFile[] = []): SheetPlan[] {
  const sheets: SheetPlan[] = reportTables(markdown);
  for (const file of dataFiles) {
    for (const list of recordLists(file)) {
      const header = [...new Set(list.records.flatMap((r) => Object.keys(r)))];
      sheets.push({
        title: list.name,
        header,
        rows: list.records.map((record) => header.map((column) => ({ value: record[column] ?? null }))),
      });
    }
  }
  return sheets;
}

/** Data rows of a planned workbook (header rows not counted). */
export const sheetRows = (sheets: SheetPlan[]): number => sheets.reduce((sum, sheet) => sum + sheet.rows.length, 0);

/**
 * Writes the workbook to `out` row by row (Excel's streaming writer: each row leaves memory once written). Text
 * that a spreadsheet would read as a formula (`= + - @`, tab, carriage return first) is written with a leading
 * apostrophe, so a cell a model or a web page filled can never become a formula when someone edits it.
 */
export async function writeWorkbook(sheets: SheetPlan[], out: Writable): Promise<void> {
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: true });
  workbook.creator = 'Procura';
  workbook.created = new Date();
  const names = new SheetNames();
  const plans = sheets.length
    ? sheets
    : [{ title: '报告 Report', header: ['报告中没有表格 / the report has no tables'], rows: [] }];
  for (const plan of plans) {
    const sheet = workbook.addWorksheet(names.take(plan.title), { views: [{ state: 'frozen', ySplit: 1 }] });
    sheet.columns = columnWidths(plan).map((width) => ({ width }));
    const header = sheet.addRow(plan.header.map(neutralised));
    header.font = { bold: true };
    header.commit();
    for (const row of plan.rows) {
      const added = sheet.addRow(row.map((cell) => neutralised(cell.value)));
      row.forEach((cell, i) => {
        if (cell.format) added.getCell(i + 1).numFmt = cell.format;
      });
      added.commit();
    }
    sheet.commit();
  }
  await workbook.commit();
}

const FORMULA_START = /^[=+\-@\t\r]/;

/** A text cell a spreadsheet could take for a formula, made plain text (OWASP's CSV-injection rule). */
export function neutralised<T extends CellValue>(value: T): T | string {
  return typeof value === 'string' && FORMULA_START.test(value) ? `'${value}` : value;
}

/** Each column as wide as its longest text (8 to 60 characters). */
function columnWidths(plan: SheetPlan): number[] {
  return plan.header.map((title, i) => {
    let width = title.length * 2;
    for (const row of plan.rows) width = Math.max(width, String(row[i]?.value ?? '').length + 2);
    return Math.min(Math.max(width, 8), 60);
  });
}

type FlatRecord = Record<string, CellValue>;

/** Lists of records in a data file: the file itself when it is one, else each top-level property that is one. */
function recordLists(file: DataFile): Array<{ name: string; records: FlatRecord[] }> {
  const stem = file.name.replace(/\.json$/i, '');
  if (isRecordList(file.value)) return [{ name: stem, records: file.value.map((r) => flatten(r)) }];
  if (!isPlainObject(file.value)) return [];
  return Object.entries(file.value)
    .filter((entry): entry is [string, Record<string, unknown>[]] => isRecordList(entry[1]))
    .map(([key, list]) => ({ name: `${stem}.${key}`, records: list.map((r) => flatten(r)) }));
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isRecordList = (v: unknown): v is Record<string, unknown>[] =>
  Array.isArray(v) && v.length > 0 && v.every(isPlainObject);

/** Nested objects become dotted columns (`supplier.name`); lists stay readable as JSON text. */
function flatten(record: Record<string, unknown>, prefix = ''): FlatRecord {
  const out: FlatRecord = {};
  for (const [key, value] of Object.entries(record)) {
    const column = prefix + key;
    if (isPlainObject(value)) Object.assign(out, flatten(value, `${column}.`));
    else if (Array.isArray(value)) out[column] = JSON.stringify(value);
    else if (value === undefined) out[column] = null;
    else out[column] = value as CellValue;
  }
  return out;
}

/** Excel's sheet-name rules: ≤ 31 characters, none of `[]:*?/\`, unique regardless of case. */
class SheetNames {
  private readonly used = new Set<string>();

  take(wanted: string): string {
    const base =
      wanted
        .replace(/[[\]:*?/\\]/g, ' ')
        .trim()
        .slice(0, 28) || 'Sheet';
    let name = base;
    for (let n = 2; this.used.has(name.toLowerCase()); n++) name = `${base} ${n}`;
    this.used.add(name.toLowerCase());
    return name;
  }
}
