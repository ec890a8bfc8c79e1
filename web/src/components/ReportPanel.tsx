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

/** The session's report (the newest `.md` file the agent wrote), its charts, and downloads of every output file. */
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
  const reportPath = [...files].reverse().find((f) => f.endsWith('.md'));
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
  const download = async (path: string, format?: ExportFormat) => {
    if (!sessionId) return;
    setExportError(undefined);
    try {
      const blob = await client.fileBlob(sessionId, path, format);
      saveBlob(blob, format ? basename(path).replace(/\.md$/i, `.${format}`) : basename(path));
    } catch (error) {
      setExportError((error as Error).message);
    }
  };

  if (!reportPath && !charts.length) return <p className="empty-small">{t('noReport')}</p>;
  const reportHasImages = Boolean(report?.text && /!\[[^\]]*\]\(/.test(report.text));
  return (
    <div className="report" data-testid="report-panel">
      {files.length > 0 && (
        <div className="downloads">
          <span className="muted">{t('downloads')}</span>
          {files.map((f) => (
            <button key={f} type="button" className="chip" data-testid="download" onClick={() => download(f)}>
              ⬇ {basename(f)}
            </button>
          ))}
          {reportPath &&
            EXPORTS.map(({ format, label }) => (
              <button
                key={format}
                type="button"
                className="chip"
                data-testid={`export-${format}`}
                onClick={() => download(reportPath, format)}
              >
                ⬇ {t(label)}
              </button>
            ))}
        </div>
      )}
      {exportError && <p className="banner banner-error">{exportError}</p>}
      {report?.text && <Markdown className="report-body" text={report.text} />}
      {report?.error && <p className="banner banner-error">{report.error}</p>}
      {reportPath && !report?.text && !report?.error && <p className="muted">{t('loading')}</p>}
      {!reportHasImages && <ChartGallery charts={charts} />}
    </div>
  );
}
