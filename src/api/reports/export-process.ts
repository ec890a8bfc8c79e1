/**
 * One export, in a process of its own: the API hands over the report and its data files, this process plans the
 * document, refuses it past the row limit, or streams the PDF or XLSX to stdout and exits. Its memory, CPU and
 * time are this process's, never the API's event loop. Each format loads only its own modules, on demand: the
 * process starts once per export.
 */
import { PassThrough } from 'node:stream';
import type { ExportJob, ExportReply } from './exports.ts';

const send = (reply: ExportReply) =>
  new Promise<void>((resolve) => (process.send ? process.send(reply, () => resolve()) : resolve()));

/** Writes `bytes` to stdout and resolves once they are handed to the pipe. */
const writeOut = (bytes: Uint8Array | string) =>
  new Promise<void>((resolve, reject) => process.stdout.write(bytes, (error) => (error ? reject(error) : resolve())));

async function run(job: ExportJob): Promise<void> {
  const decoder = new TextDecoder();
  const markdown = decoder.decode(job.markdown);
  const tooMany = (rows: number) =>
    rows > job.maxRows
      ? send({
          type: 'refused',
          status: 413,
          code: 'export_too_large',
          message: `报告及其数据共 ${rows} 行，导出最多 ${job.maxRows} 行 / the report and its data have ${rows} rows; an export takes at most ${job.maxRows}`,
          extra: { rows, max_rows: job.maxRows },
        }).then(() => true)
      : Promise.resolve(false);

  if (job.format === 'pdf') {
    const [{ chartImageLoader, ReportPdf }, { reportTables }] = await Promise.all([
      import('./pdf.ts'),
      import('./tables.ts'),
    ]);
    if (await tooMany(reportTables(markdown).reduce((sum, t) => sum + t.rows.length, 0))) return;
    const pdf = new ReportPdf({ executablePath: job.chromiumPath, loadImage: chartImageLoader(job.imageOrigins) });
    try {
      const bytes = await pdf.render({ title: job.title, markdown });
      await send({ type: 'streaming' });
      await writeOut(bytes);
    } finally {
      await pdf.close();
    }
    return;
  }

  const { sheetRows, workbookSheets, writeWorkbook } = await import('./xlsx.ts');
  const dataFiles = job.dataFiles.flatMap((file) => {
    try {
      return [{ name: file.name, value: JSON.parse(decoder.decode(file.bytes)) as unknown }];
    } catch {
      return []; // a file that is not JSON simply adds no sheet
    }
  });
  const sheets = workbookSheets(markdown, dataFiles);
  if (await tooMany(sheetRows(sheets))) return;
  await send({ type: 'streaming' });
  const out = new PassThrough();
  // stdout stays open until this process exits; the writer ends `out`, not stdout.
  out.pipe(process.stdout, { end: false });
  await writeWorkbook(sheets, out);
  await writeOut('');
}

process.once('message', (job: ExportJob) => {
  run(job)
    .then(() => process.exit(0))
    .catch(async (error: unknown) => {
      const problem = error as { status?: number; code?: string; message?: string; extra?: Record<string, unknown> };
      await send({
        type: 'failed',
        status: problem.status ?? 503,
        code: problem.code ?? 'export_failed',
        message: problem.message ?? String(error),
        extra: problem.extra ?? {},
      });
      process.exit(1);
    });
});
process.send?.({ type: 'started' } satisfies ExportReply);
