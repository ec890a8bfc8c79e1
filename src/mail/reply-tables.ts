import { inflateRawSync } from 'node:zlib';
import { simpleParser } from 'mailparser';
import { csvRows, htmlRows, pdfText, textRows, xlsxRows } from './quote-reader.ts';

/** Attachments read as quotes; anything else is listed and ignored. */
const READABLE = [
  { kind: 'xlsx', types: ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'], ext: /\.xlsx$/i },
  { kind: 'csv', types: ['text/csv', 'application/csv'], ext: /\.csv$/i },
  { kind: 'pdf', types: ['application/pdf'], ext: /\.pdf$/i },
] as const;
export type ReadableKind = (typeof READABLE)[number]['kind'];
export const MAX_ATTACHMENT_BYTES = 5 * 1024 * 1024;
export const MAX_ATTACHMENTS = 5;

/**
 * What one quote file may hold before it is refused unread: a quote is a few dozen lines, so these are generous,
 * and far below what stalls a reader (a spreadsheet of a million cells, a shared-string or zip bomb).
 */
export const TABLE_LIMITS = {
  /** Cells in one file (every sheet of a workbook, every row of a CSV or body table). */
  cells: 20_000,
  /** Entries of a workbook's shared-string table. */
  sharedStrings: 20_000,
  /** A workbook's parts, decompressed, together. */
  unzippedBytes: 16 * 1024 * 1024,
} as const;

/** A file over one of `TABLE_LIMITS`: refused with the reason, never read. */
export class OverLimit extends Error {}

/** Which readable kind an attachment is (by its type or its name), if any. */
export function readableKind(a: { contentType: string; filename?: string }): ReadableKind | undefined {
  return READABLE.find((r) => (r.types as readonly string[]).includes(a.contentType) || r.ext.test(a.filename ?? ''))
    ?.kind;
}

/** A mail as the serving process needs it: who and what it is for, what it says, and the tables it holds. */
export interface ParsedReply {
  messageId?: string;
  sender: string;
  /** Every address it was sent to (To, Cc, Delivered-To, X-Original-To). */
  addresses: string[];
  /** In-Reply-To and References. */
  references: string[];
  subject: string;
  text: string;
  attachments: Array<{ name: string; type: string; size: number }>;
  /** The content of those a quote may be read from, by their place in `attachments`. */
  files: Array<{ position: number; content: Buffer }>;
}

/** The tables of a reply, in the order a quote is looked for: each readable attachment, then the body. */
export interface ReplyTables {
  tables: Array<{ attachment?: string; rows: string[][] }>;
  /** Attachments listed and not read: other types, over the size or count limit, unreadable, refused. */
  ignored: string[];
  /** Attachments refused for a limit, each with why. */
  refused: string[];
}

/** The mail's envelope, text and kept attachments (the first step: enough to tell whose reply it is). */
export async function parseMail(raw: Buffer): Promise<{ reply: ParsedReply; mail: ParsedMail }> {
  const mail = await simpleParser(raw, { skipImageLinks: true, skipTextLinks: true });
  const list = (a: typeof mail.to) =>
    a ? (Array.isArray(a) ? a : [a]).flatMap((x) => x.value.map((v) => v.address ?? '')) : [];
  const reply: ParsedReply = {
    messageId: mail.messageId,
    sender: (mail.from?.value[0]?.address ?? '').toLowerCase(),
    addresses: [
      ...list(mail.to),
      ...list(mail.cc),
      String(mail.headers.get('delivered-to') ?? ''),
      String(mail.headers.get('x-original-to') ?? ''),
    ],
    references: [mail.inReplyTo ?? '', ...[mail.references ?? []].flat()],
    subject: mail.subject ?? '',
    text: mail.text ?? '',
    attachments: mail.attachments.map((a) => ({ name: a.filename ?? '(unnamed)', type: a.contentType, size: a.size })),
    // Those a quote may be read from are kept, so the buyer can open the source of a figure.
    files: mail.attachments
      .map((a, position) => ({ position, content: a.content, kind: readableKind(a), size: a.size }))
      .filter((f) => f.kind && f.size <= MAX_ATTACHMENT_BYTES)
      .slice(0, MAX_ATTACHMENTS)
      .map(({ position, content }) => ({ position, content })),
  };
  return { reply, mail };
}
type ParsedMail = Awaited<ReturnType<typeof simpleParser>>;

/** The tables of a parsed mail (the second step), each file checked against `TABLE_LIMITS` before it is read. */
export async function mailTables(mail: ParsedMail): Promise<ReplyTables> {
  const tables: ReplyTables['tables'] = [];
  const ignored: string[] = [];
  const refused: string[] = [];
  let checked = 0;
  for (const a of mail.attachments) {
    const kind = readableKind(a);
    const name = a.filename ?? '(unnamed)';
    if (!kind || a.size > MAX_ATTACHMENT_BYTES || checked >= MAX_ATTACHMENTS) {
      if (a.contentDisposition === 'attachment' || kind) ignored.push(name);
      continue;
    }
    checked++;
    try {
      tables.push({ attachment: name, rows: await fileRows(kind, a.content) });
    } catch (error) {
      if (error instanceof OverLimit) {
        refused.push(`${name}：${error.message}`);
        ignored.push(`${name} (refused)`);
      } else ignored.push(`${name} (unreadable)`);
    }
  }
  for (const rows of [typeof mail.html === 'string' ? htmlRows(mail.html) : [], textRows(mail.text ?? '')])
    if (cellCount(rows) <= TABLE_LIMITS.cells) tables.push({ rows });
    else refused.push(overCells('正文 / body'));
  return { tables, ignored, refused };
}

/** The rows of one quote file, refused (`OverLimit`) before reading when it is over a limit. */
export async function fileRows(kind: ReadableKind, content: Buffer): Promise<string[][]> {
  if (kind === 'xlsx') {
    checkWorkbook(content);
    return xlsxRows(content);
  }
  if (kind === 'csv' && separators(content) > TABLE_LIMITS.cells) throw new OverLimit(overCells('CSV'));
  const rows = kind === 'csv' ? csvRows(content.toString('utf8')) : textRows(await pdfText(content));
  if (cellCount(rows) > TABLE_LIMITS.cells) throw new OverLimit(overCells(kind.toUpperCase()));
  return rows;
}

/** The cells of a CSV file, counted before any is built: its commas and line breaks (a quoted comma counts too). */
function separators(content: Buffer): number {
  let n = 0;
  for (const byte of content) if (byte === 0x2c || byte === 0x0a) n++;
  return n;
}

const cellCount = (rows: string[][]) => rows.reduce((n, r) => n + r.length, 0);
const overCells = (what: string) =>
  `${what} 超过 ${TABLE_LIMITS.cells} 个单元格，未读取 / more than ${TABLE_LIMITS.cells} cells: not read`;
const MiB = (n: number) => `${n / 1024 / 1024} MiB`;

/**
 * Reads a workbook's zip directory and decompresses its parts under a budget (the bytes a zip says it holds can
 * lie), then counts the cells of every sheet and the shared strings, so a bomb is refused before the spreadsheet
 * library builds a single object for it.
 */
function checkWorkbook(data: Buffer): void {
  let budget: number = TABLE_LIMITS.unzippedBytes;
  let cells = 0;
  let sharedStrings = 0;
  for (const entry of zipEntries(data)) {
    const part = unzipEntry(data, entry, budget);
    budget -= part.length;
    if (/^xl\/worksheets\/[^/]+\.xml$/.test(entry.name)) cells += count(part, /<c[\s>/]/g);
    if (entry.name === 'xl/sharedStrings.xml') sharedStrings += count(part, /<si[\s>/]/g);
    if (cells > TABLE_LIMITS.cells) throw new OverLimit(overCells('XLSX'));
    if (sharedStrings > TABLE_LIMITS.sharedStrings)
      throw new OverLimit(
        `XLSX 共享字符串超过 ${TABLE_LIMITS.sharedStrings} 条，未读取 / more than ${TABLE_LIMITS.sharedStrings} shared strings: not read`,
      );
  }
}

const count = (text: Buffer, pattern: RegExp) => text.toString('latin1').match(pattern)?.length ?? 0;

interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  localHeader: number;
}

const END_OF_DIRECTORY = 0x06054b50;
const DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;
const notAWorkbook = () => new Error('not a readable XLSX zip');

/** The entries of a zip's central directory (no ZIP64: a quote never needs it). */
function zipEntries(data: Buffer): ZipEntry[] {
  let end = -1;
  for (let i = data.length - 22; i >= Math.max(0, data.length - 22 - 0xffff); i--)
    if (data.readUInt32LE(i) === END_OF_DIRECTORY) {
      end = i;
      break;
    }
  if (end < 0) throw notAWorkbook();
  const entries: ZipEntry[] = [];
  let at = data.readUInt32LE(end + 16);
  for (let n = data.readUInt16LE(end + 10); n > 0; n--) {
    if (at + 46 > data.length || data.readUInt32LE(at) !== DIRECTORY_ENTRY) throw notAWorkbook();
    const nameLength = data.readUInt16LE(at + 28);
    entries.push({
      name: data.toString('utf8', at + 46, at + 46 + nameLength),
      method: data.readUInt16LE(at + 10),
      compressedSize: data.readUInt32LE(at + 20),
      localHeader: data.readUInt32LE(at + 42),
    });
    at += 46 + nameLength + data.readUInt16LE(at + 30) + data.readUInt16LE(at + 32);
  }
  return entries;
}

/** One entry's bytes, decompressing at most `budget` bytes: past that the workbook is refused. */
function unzipEntry(data: Buffer, entry: ZipEntry, budget: number): Buffer {
  const at = entry.localHeader;
  if (at + 30 > data.length || data.readUInt32LE(at) !== LOCAL_HEADER) throw notAWorkbook();
  const start = at + 30 + data.readUInt16LE(at + 26) + data.readUInt16LE(at + 28);
  const stored = data.subarray(start, start + entry.compressedSize);
  const tooBig = () =>
    new OverLimit(
      `XLSX 解压后超过 ${MiB(TABLE_LIMITS.unzippedBytes)}，未读取 / more than ${MiB(TABLE_LIMITS.unzippedBytes)} decompressed: not read`,
    );
  if (entry.method === 0) {
    if (stored.length > budget) throw tooBig();
    return stored;
  }
  if (entry.method !== 8) throw notAWorkbook();
  try {
    return inflateRawSync(stored, { maxOutputLength: Math.max(1, budget) });
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError) throw tooBig();
    throw notAWorkbook();
  }
}
