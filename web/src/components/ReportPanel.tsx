import { useEffect, useState } from 'react';
import type { ChatClient, ExportFormat } from '../../../src/protocol/index.ts';
import { saveBlob } from '../download.ts';
import { useT } from '../i18n.ts';
import type { ChartItem } from '../session.ts';
import { ChartGallery } from './Charts.tsx';
import { Markdown } from './Markdown.tsx';

const basename = (path: string) => path.split('/').pop() ?? path;
/** Server-side conversions of the Markdown report. */
const EXPORTS = [
  { format: 'pdf', label: 'reportPdf' },
  { format: 'xlsx', label: 'reportXlsx' },
] as const;
/** What a person reads or sends on; every other file the agent wrote (its inputs, scripts, raw answers) is a detail. */
const DOCUMENT = /\.(md|pdf|xlsx|xls|csv|docx|png|svg|jpe?g)$/i;

/** An export being made: which report, to what, and since when (the panel counts the seconds). */
interface Exporting {
  path: string;
  format: ExportFormat;
  since: number;
}

/**
 * The session's reports (each analysis writes its own, newest first) with their PDF and Excel exports, the chosen
 * one shown with its charts; the other documents next; the files the agent wrote for itself under "details".
 */
export function ReportPanel({
  client,
  sessionId,
  files,
  charts,
}: {
  client: ChatClient;
  sessionId?: string;
  files: string[];
  charts: ChartItem[];
}) {
  const t = useT();
  // Report names carry when their analysis started, so the newest sorts first.
  const reports = files.filter((f) => f.endsWith('.md')).sort((a, b) => b.localeCompare(a));
  const documents = files.filter((f) => DOCUMENT.test(f) && !f.endsWith('.md'));
  const details = files.filter((f) => !DOCUMENT.test(f));
  const [chosen, setChosen] = useState<string>();
  const reportPath = chosen && reports.includes(chosen) ? chosen : reports[0];
  const [report, setReport] = useState<{ path: string; text?: string; error?: string }>();
  useEffect(() => {
    if (!sessionId || !reportPath) {
      setReport(undefined);
      return;
    }
    let live = true;
    setReport({ path: reportPath });
    client
      .fileText(sessionId, reportPath)
      .then((text) => live && setReport({ path: reportPath, text }))
      .catch((error: Error) => live && setReport({ path: reportPath, error: error.message }));
    return () => {
      live = false;
    };
  }, [client, sessionId, reportPath]);

  const [exportError, setExportError] = useState<string>();
  const [exporting, setExporting] = useState<Exporting>();
  const [, tick] = useState(0);
  // While an export is made on the server, the seconds it has taken so far show it is still at work.
  useEffect(() => {
    if (!exporting) return;
    const timer = setInterval(() => tick((n) => n + 1), 1000);
    return () => clearInterval(timer);
  }, [exporting]);
  const download = async (path: string, format?: ExportFormat) => {
    if (!sessionId) return;
    setExportError(undefined);
    if (format) setExporting({ path, format, since: Date.now() });
    try {
      const blob = await client.fileBlob(sessionId, path, format);
      saveBlob(blob, format ? basename(path).replace(/\.md$/i, `.${format}`) : basename(path));
    } catch (error) {
      setExportError((error as Error).message);
    } finally {
      if (format) setExporting(undefined);
    }
  };
  const fileButton = (f: string) => (
    <button key={f} type="button" className="chip" data-testid="download" onClick={() => download(f)}>
      ⬇ {basename(f)}
    </button>
  );

  if (!reports.length && !charts.length && !files.length) return <p className="empty-small">{t('noReport')}</p>;
  const reportHasImages = Boolean(report?.text && /!\[[^\]]*\]\(/.test(report.text));
  return (
    <div className="report" data-testid="report-panel">
      {reports.length > 0 && (
        <ul className="report-list" data-testid="reports" aria-label={t('report')}>
          {reports.map((path) => (
            <li key={path} className="downloads" data-testid="report-item" data-path={path}>
              <button
                type="button"
                className={`chip ${path === reportPath ? 'chip-active' : ''}`}
                data-testid="report-choice"
                aria-pressed={path === reportPath}
                onClick={() => setChosen(path)}
              >
                {basename(path)}
              </button>
              <button type="button" className="chip" data-testid="download" onClick={() => download(path)}>
                ⬇ .md
              </button>
              {EXPORTS.map(({ format, label }) => {
                const busy = exporting?.path === path && exporting.format === format;
                return (
                  <button
                    key={format}
                    type="button"
                    className="chip"
                    data-testid={`export-${format}`}
                    aria-busy={busy}
                    // The server makes one export per person at a time.
                    disabled={Boolean(exporting)}
                    onClick={() => download(path, format)}
                  >
                    {busy ? (
                      <span data-testid="export-progress">
                        <span className="spinner" /> {t('exportingNow')}{' '}
                        {Math.floor((Date.now() - exporting.since) / 1000)} s
                      </span>
                    ) : (
                      `⬇ ${t(label)}`
                    )}
                  </button>
                );
              })}
            </li>
          ))}
        </ul>
      )}
      {documents.length > 0 && (
        <div className="downloads" data-testid="documents">
          <span className="muted">{t('downloads')}</span>
          {documents.map(fileButton)}
        </div>
      )}
      {details.length > 0 && (
        <details className="file-details" data-testid="internal-files">
          <summary>
            {t('fileDetails')} ({details.length})
          </summary>
          <div className="downloads">{details.map(fileButton)}</div>
        </details>
      )}
      {exportError && <p className="banner banner-error">{exportError}</p>}
      {report?.text && <Markdown className="report-body" text={report.text} />}
      {report?.error && <p className="banner banner-error">{report.error}</p>}
      {reportPath && !report?.text && !report?.error && <p className="muted">{t('loading')}</p>}
      {!reportHasImages && <ChartGallery charts={charts} />}
    </div>
  );
}
