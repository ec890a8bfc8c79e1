import path from 'node:path';
import type { ExportFormat } from '../../protocol/index.ts';
import { unprocessable } from '../../shared/index.ts';
import type { ApiUser } from '../auth.ts';
import type { History } from '../chat/history.ts';
import { type ImageLoader, ReportPdf } from './pdf.ts';
import { type DataFile, reportWorkbook } from './xlsx.ts';

const CONTENT_TYPES: Record<ExportFormat, string> = {
  pdf: 'application/pdf',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

/** Where the session keeps the data behind its reports (the analysis result JSON). */
const DATA_DIR = '/data/';
const MAX_DATA_BYTES = 5 * 1024 * 1024;

/** Chart images a report may embed: `/charts/<id>.png|svg` on the chart renderer's own origins, nothing else. */
export function chartImageLoader(origins: string[], timeoutMs = 10_000): ImageLoader {
  const trusted = new Set(origins.map((o) => new URL(o).origin));
  return async (url) => {
    const parsed = URL.canParse(url) ? new URL(url) : undefined;
    if (!parsed || !trusted.has(parsed.origin) || !/^\/charts\/[\w-]+\.(png|svg)$/.test(parsed.pathname)) return;
    const response = await fetch(parsed, { redirect: 'error', signal: AbortSignal.timeout(timeoutMs) });
    if (!response.ok) return;
    return {
      bytes: new Uint8Array(await response.arrayBuffer()),
      contentType: parsed.pathname.endsWith('.svg') ? 'image/svg+xml' : 'image/png',
    };
  };
}

/** Reports people can send on: a session's Markdown report as a PDF or an XLSX workbook, for its owner only. */
export class ReportExports {
  private readonly pdf: ReportPdf;

  constructor(
    private readonly history: History,
    options: { chromiumPath: string; loadImage: ImageLoader },
  ) {
    this.pdf = new ReportPdf({ executablePath: options.chromiumPath, loadImage: options.loadImage });
  }

  async export(user: ApiUser, sessionId: string, filePath: string, format: ExportFormat) {
    if (!filePath.toLowerCase().endsWith('.md'))
      throw unprocessable('只能导出 Markdown 报告 / only Markdown reports (.md) can be exported', [
        { field: 'path', message: 'must end with .md' },
      ]);
    const report = await this.history.download(user, sessionId, filePath);
    const markdown = new TextDecoder().decode(report.bytes);
    const stem = report.name.replace(/\.md$/i, '');
    const bytes =
      format === 'pdf'
        ? await this.pdf.render({ title: stem, markdown })
        : await reportWorkbook(markdown, await this.dataFiles(user, sessionId));
    return { name: `${stem}.${format}`, bytes, contentType: CONTENT_TYPES[format] };
  }

  /** The session's JSON data files that parse; others are left out rather than failing the export. */
  private async dataFiles(user: ApiUser, sessionId: string): Promise<DataFile[]> {
    const files = (await this.history.files(user, sessionId)).filter(
      (f) => f.path.startsWith(DATA_DIR) && f.path.endsWith('.json') && (f.size ?? 0) <= MAX_DATA_BYTES,
    );
    const out: DataFile[] = [];
    for (const file of files) {
      try {
        const { bytes } = await this.history.download(user, sessionId, file.path);
        out.push({ name: path.posix.basename(file.path), value: JSON.parse(new TextDecoder().decode(bytes)) });
      } catch {
        // a file that vanished or is not JSON simply adds no sheet
      }
    }
    return out;
  }

  close(): Promise<void> {
    return this.pdf.close();
  }
}
