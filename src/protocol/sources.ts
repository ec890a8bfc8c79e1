import { z } from 'zod';

/**
 * Where a figure Procura shows comes from, and how the source is cited in text. An analysis numbers its sources —
 * `E1`, `E2`, … for ERP requests, `W1`, … for supplier pages — writes the ids after each figure (`¥15.02 [E1]`,
 * `+3.1% [E1, W2]`) and lists them at the end. The analysis result JSON keeps the same sources as records.
 */

/** An ERP figure's source: the tool that asked the ERP, its arguments and the ERP's `x-trace-id` of the answer. */
export const ErpSourceSchema = z.object({
  id: z.string().regex(/^E\d{1,4}$/),
  kind: z.literal('erp'),
  tool: z.string().min(1),
  args: z.record(z.string(), z.unknown()),
  /** Null when the server answered without one. */
  traceId: z.string().nullable(),
});

/** A web price's source: the supplier page's address and when it was read. */
export const WebSourceSchema = z.object({
  id: z.string().regex(/^W\d{1,4}$/),
  kind: z.literal('web'),
  url: z.string().min(1),
  fetchedAt: z.string().min(1),
});

export const SourceSchema = z.discriminatedUnion('kind', [ErpSourceSchema, WebSourceSchema]);
export type Source = z.infer<typeof SourceSchema>;
export type ErpSource = z.infer<typeof ErpSourceSchema>;
export type WebSource = z.infer<typeof WebSourceSchema>;

/** A citation in text: `[E1]` or `[E1, W2]`. */
export const SOURCE_REFS = /\[([EW]\d{1,4}(?:,\s*[EW]\d{1,4})*)\]/g;

/** Orders ids as they are numbered: ERP first, then pages, each by number. */
const byId = (a: string, b: string) => a[0].localeCompare(b[0]) || Number(a.slice(1)) - Number(b.slice(1));

/** The citation of some sources, e.g. `[E1, W2]`; empty without any. */
export function cite(ids: Iterable<string>): string {
  const unique = [...new Set(ids)].sort(byId);
  return unique.length ? `[${unique.join(', ')}]` : '';
}

/** The ids a text cites, in order of first appearance. */
export function citedIds(text: string): string[] {
  const ids = [...text.matchAll(SOURCE_REFS)].flatMap((m) => m[1].split(/,\s*/));
  return [...new Set(ids)];
}

/** One source as a reader sees it: the ERP request and its trace id, or the page and when it was read. */
export function describeSource(source: Source): string {
  return source.kind === 'erp'
    ? `ERP \`${source.tool}\` ${JSON.stringify(source.args)} · x-trace-id ${source.traceId ?? '—（未返回 / none given）'}`
    : `${source.url} · 读取于 / read at ${source.fetchedAt}`;
}

export const SOURCES_HEADING = '数据来源 / Sources';

/** The list that closes an answer: a heading line, then `- [E1] …` per source. */
export function sourcesList(sources: readonly Source[]): string[] {
  return sources.length ? [`**${SOURCES_HEADING}**`, ...sources.map((s) => `- [${s.id}] ${describeSource(s)}`)] : [];
}

/** The section that closes a report: a table of every source (a sheet of its own in the workbook). */
export function sourcesSection(sources: readonly Source[]): string[] {
  if (!sources.length) return [];
  const cell = (text: string) => text.replace(/\|/g, '\\|');
  return [
    `## ${SOURCES_HEADING}`,
    '| 编号 | 来源 |',
    '| --- | --- |',
    ...sources.map((s) => `| ${s.id} | ${cell(describeSource(s))} |`),
    '',
  ];
}

/** The sources an answer or a report lists (`- [E1] …` lines or `| E1 | … |` rows), by id, as plain text. */
export function listedSources(markdown: string): Map<string, string> {
  const listed = new Map<string, string>();
  const plain = (text: string) => text.replace(/\\\|/g, '|').replace(/`/g, '').trim();
  for (const m of markdown.matchAll(/^\s*[-*]\s+\[([EW]\d{1,4})\]\s+(.+)$/gm)) listed.set(m[1], plain(m[2]));
  for (const m of markdown.matchAll(/^\|\s*([EW]\d{1,4})\s*\|\s*(.+?)\s*\|\s*$/gm)) listed.set(m[1], plain(m[2]));
  return listed;
}
