import ExcelJS from 'exceljs';
import { reportTables } from './tables.ts';

/** A JSON file of the session (e.g. `/data/analysis_result.json`) whose record lists become sheets. */
export interface DataFile {
  name: string;
  value: unknown;
}

const MAX_DATA_ROWS = 50_000;

/**
 * A workbook for people to work on: one sheet per table of the report (numbers typed, money and percentages
 * formatted), then one sheet per list of records in the session's data files (the price data behind the report).
 */
export async function reportWorkbook(markdown: string, dataFiles: DataFile[] = []): Promise<Uint8Array> {
  const workbook = new ExcelJS.Workbook();
  workbook.creator = 'Procura';
  workbook.created = new Date();
  const names = new SheetNames();
  for (const table of reportTables(markdown)) {
    const sheet = workbook.addWorksheet(names.take(table.title));
    sheet.addRow(table.header).font = { bold: true };
    for (const row of table.rows) {
      const added = sheet.addRow(row.map((c) => c.value));
      row.forEach((cell, i) => {
        if (cell.format) added.getCell(i + 1).numFmt = cell.format;
      });
    }
    finishSheet(sheet, table.header);
  }
  for (const file of dataFiles) {
    for (const list of recordLists(file)) {
      const columns = [...new Set(list.records.flatMap((r) => Object.keys(r)))];
      const sheet = workbook.addWorksheet(names.take(list.name));
      sheet.addRow(columns).font = { bold: true };
      for (const record of list.records.slice(0, MAX_DATA_ROWS)) sheet.addRow(columns.map((c) => record[c] ?? null));
      finishSheet(sheet, columns);
    }
  }
  if (!workbook.worksheets.length)
    workbook.addWorksheet('报告 Report').addRow(['报告中没有表格 / the report has no tables']);
  return new Uint8Array(await workbook.xlsx.writeBuffer());
}

function finishSheet(sheet: ExcelJS.Worksheet, header: string[]): void {
  sheet.views = [{ state: 'frozen', ySplit: 1 }];
  header.forEach((title, i) => {
    let width = title.length * 2;
    sheet.getColumn(i + 1).eachCell({ includeEmpty: false }, (cell) => {
      width = Math.max(width, String(cell.value ?? '').length + 2);
    });
    sheet.getColumn(i + 1).width = Math.min(Math.max(width, 8), 60);
  });
}

type FlatRecord = Record<string, string | number | boolean | null>;

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
    else out[column] = value as string | number | boolean | null;
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
