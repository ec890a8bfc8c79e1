import path from 'node:path';
import { ProblemError } from '../../shared/index.ts';
import type { History } from '../chat/history.ts';
import { ApiRoutes } from '../openapi.ts';
import { SessionId } from '../schemas.ts';
import type { ReportExports } from './exports.ts';
import { FileQuery } from './schemas.ts';

export interface ReportsAppDeps {
  history: History;
  exports: ReportExports;
}

/** A session's files: as stored, or a report exported as PDF or XLSX (`?format=`). */
export function reportsApp(deps: ReportsAppDeps): ApiRoutes {
  const routes = new ApiRoutes();

  routes.add(
    {
      method: 'get',
      path: '/files/{session_id}/{path}',
      restParam: 'path',
      operationId: 'getSessionFile',
      summary: '会话的工作区文件，或报告导出为 PDF/XLSX / a workspace file, or a report exported as PDF or XLSX',
      tags: ['reports'],
      params: { session_id: SessionId },
      query: FileQuery,
      responses: {
        200: { description: 'the file, as an attachment', file: [...new Set(Object.values(CONTENT_TYPES))] },
        400: { description: 'a malformed percent-escape in the path' },
        404: { description: 'no such file, or someone else’s session' },
        413: { description: 'the report, its data or its rows exceed the export limits' },
        429: { description: 'an export of this user is already running, or every export slot is busy' },
        503: { description: 'no Chromium to print the PDF' },
      },
    },
    async (c, { params, query }) => {
      const sessionId = params.session_id;
      // The file's path is the rest of the request path, after the session id (wherever this app is mounted).
      const prefix = `/files/${sessionId}/`;
      const filePath = decodePathPart(c.req.path.slice(c.req.path.indexOf(prefix) + prefix.length));
      if (query.format) {
        const file = await deps.exports.export(c.var.user, sessionId, filePath, query.format);
        return c.body(file.body, 200, fileHeaders(file.name, file.contentType));
      }
      const file = await deps.history.download(c.var.user, sessionId, filePath);
      return c.body(file.bytes as Uint8Array<ArrayBuffer>, 200, fileHeaders(file.name, contentType(file.name)));
    },
  );

  return routes;
}

/** `decodeURIComponent` that answers a malformed escape (`%ZZ`, a cut `%E0%A4%A`) with 400 instead of a URIError. */
function decodePathPart(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new ProblemError(400, 'bad_request', '路径含有无效的百分号转义 / the path has a malformed percent-escape');
  }
}

const CONTENT_TYPES: Record<string, string> = {
  '.md': 'text/markdown; charset=utf-8',
  '.csv': 'text/csv; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.html': 'text/html; charset=utf-8',
  '.pdf': 'application/pdf',
  '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

function contentType(name: string): string {
  return CONTENT_TYPES[path.extname(name).toLowerCase()] ?? 'application/octet-stream';
}

function fileHeaders(name: string, type: string): Record<string, string> {
  return {
    'content-type': type,
    'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(name)}`,
    'x-content-type-options': 'nosniff',
  };
}
