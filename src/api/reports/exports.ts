import { type ChildProcess, spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import type { ExportFormat } from '../../protocol/index.ts';
import { childEnv, nodeScript, ProblemError, unprocessable } from '../../shared/index.ts';
import type { ApiUser } from '../auth.ts';
import type { History } from '../chat/history.ts';

const CONTENT_TYPES: Record<ExportFormat, string> = {
  pdf: 'application/pdf',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

/** Where the session keeps the data behind its reports (the analysis result JSON). */
const DATA_DIR = '/data/';
const MIB = 1024 * 1024;

/** What one export may take; past a size or row limit the export is refused with 413, never cut short. */
export interface ExportLimits {
  /** The Markdown report itself. */
  reportBytes: number;
  /** The session's `/data/*.json` files together (an XLSX export adds them as sheets). */
  dataBytes: number;
  /** Rows of the report's tables and the data files' record lists together (XLSX). */
  rows: number;
  /** Rows of the report's tables in a PDF: a document to read, so far fewer than a workbook holds. */
  pdfRows: number;
  /** Exports this process runs at once (each user one at a time); more get 429. */
  concurrent: number;
  /** An export process still running after this long is stopped. */
  timeoutMs: number;
  /** The export process's JavaScript heap. */
  heapMb: number;
}

export const DEFAULT_EXPORT_LIMITS: ExportLimits = {
  reportBytes: 1 * MIB,
  dataBytes: 8 * MIB,
  rows: 100_000,
  pdfRows: 5_000,
  concurrent: 2,
  timeoutMs: 300_000,
  heapMb: 512,
};

/** The export process's niceness: exports yield the CPU to the API's requests. */
const EXPORT_NICENESS = 10;
const STDERR_KEPT = 4_096;
/** Seconds a refused client should wait before asking again. */
const RETRY_AFTER_S = 5;

/** What the API hands the export process. */
export interface ExportJob {
  format: ExportFormat;
  title: string;
  markdown: Uint8Array;
  dataFiles: Array<{ name: string; bytes: Uint8Array }>;
  maxRows: number;
  chromiumPath: string;
  imageOrigins: string[];
}

/** What the export process answers: it started, it refuses or failed (a problem), or the document follows on stdout. */
export type ExportReply =
  | { type: 'started' }
  | { type: 'streaming' }
  | {
      type: 'refused' | 'failed';
      status: number;
      code: string;
      message: string;
      extra: Record<string, unknown>;
    };

export interface ExportedFile {
  name: string;
  contentType: string;
  /** The document as the export process writes it. */
  body: ReadableStream<Uint8Array>;
}

/**
 * Reports people can send on: a session's Markdown report as a PDF or an XLSX workbook, for its owner only. Each
 * export runs in a process of its own (lower CPU priority, bounded heap, a wall-time limit) and is streamed to the
 * client as it is written, so an export neither blocks the API's event loop nor grows its memory. Inputs past the
 * size and row limits get 413; a user's second export while one runs, or any past the process's slots, gets 429.
 */
export class ReportExports {
  private readonly limits: ExportLimits;
  /** Users with an export running. */
  private readonly busy = new Set<string>();
  private readonly children = new Set<ChildProcess>();

  constructor(
    private readonly history: History,
    private readonly options: { chromiumPath: string; imageOrigins: string[]; limits?: Partial<ExportLimits> },
  ) {
    this.limits = { ...DEFAULT_EXPORT_LIMITS, ...options.limits };
  }

  async export(user: ApiUser, sessionId: string, filePath: string, format: ExportFormat): Promise<ExportedFile> {
    if (!filePath.toLowerCase().endsWith('.md'))
      throw unprocessable('只能导出 Markdown 报告 / only Markdown reports (.md) can be exported', [
        { field: 'path', message: 'must end with .md' },
      ]);
    this.claim(user.username);
    let handedOver = false;
    try {
      const report = await this.history.download(user, sessionId, filePath);
      if (report.bytes.byteLength > this.limits.reportBytes)
        throw tooLarge('报告', 'the report', report.bytes.byteLength, this.limits.reportBytes);
      const job: ExportJob = {
        format,
        title: report.name.replace(/\.md$/i, ''),
        markdown: report.bytes,
        dataFiles: format === 'xlsx' ? await this.dataFiles(user, sessionId, filePath) : [],
        maxRows: format === 'pdf' ? this.limits.pdfRows : this.limits.rows,
        chromiumPath: this.options.chromiumPath,
        imageOrigins: this.options.imageOrigins,
      };
      // Once only: a later export of the same user must not lose its slot when this process finally exits.
      let released = false;
      const release = () => {
        if (!released) this.busy.delete(user.username);
        released = true;
      };
      const child = this.spawn(release);
      handedOver = true;
      const body = await run(child, job).catch((error: unknown) => {
        // Refused or failed: the slot is free now, not once the process has finished exiting.
        child.kill('SIGKILL');
        release();
        throw error;
      });
      return { name: `${job.title}.${format}`, contentType: CONTENT_TYPES[format], body };
    } finally {
      if (!handedOver) this.busy.delete(user.username);
    }
  }

  /** Takes the user's one export slot (and one of the process's), or refuses with 429. */
  private claim(username: string): void {
    if (this.busy.has(username))
      throw new ProblemError(
        429,
        'export_in_progress',
        '您的上一个导出仍在进行，请稍后再试 / your previous export is still running: try again when it has finished',
        { retry_after: RETRY_AFTER_S },
      );
    if (this.busy.size >= this.limits.concurrent)
      throw new ProblemError(
        429,
        'exports_busy',
        `同时最多进行 ${this.limits.concurrent} 个导出，请稍后再试 / at most ${this.limits.concurrent} exports run at once: try again shortly`,
        { retry_after: RETRY_AFTER_S },
      );
    this.busy.add(username);
  }

  /**
   * The data behind the report: the session's JSON data files as they were when it was written. A file a later run
   * wrote again (a second analysis in the session) holds that run's data, not this report's, and adds no sheet.
   * Refused together past the data limit (before any is read).
   */
  private async dataFiles(user: ApiUser, sessionId: string, reportPath: string): Promise<ExportJob['dataFiles']> {
    const all = await this.history.files(user, sessionId);
    const written = all.find((f) => f.path === path.posix.normalize(`/${reportPath}`))?.modified_at;
    const files = all.filter(
      (f) =>
        f.path.startsWith(DATA_DIR) &&
        f.path.endsWith('.json') &&
        !(written && f.modified_at && Date.parse(f.modified_at) > Date.parse(written)),
    );
    const total = files.reduce((sum, f) => sum + (f.size ?? 0), 0);
    if (total > this.limits.dataBytes)
      throw tooLarge('会话的数据文件', "the session's data files", total, this.limits.dataBytes);
    const out: ExportJob['dataFiles'] = [];
    let read = 0;
    for (const file of files) {
      try {
        const { bytes } = await this.history.download(user, sessionId, file.path);
        read += bytes.byteLength;
        // A file that grew since it was listed still counts against the limit.
        if (read > this.limits.dataBytes)
          throw tooLarge('会话的数据文件', "the session's data files", read, this.limits.dataBytes);
        out.push({ name: path.posix.basename(file.path), bytes });
      } catch (error) {
        if (error instanceof ProblemError && error.status === 413) throw error;
        // a file that vanished adds no sheet
      }
    }
    return out;
  }

  /** Starts an export process; `done` runs once it has exited, however it ends. */
  private spawn(done: () => void): ChildProcess {
    const child = spawn(
      process.execPath,
      [`--max-old-space-size=${this.limits.heapMb}`, ...nodeScript(import.meta.url, 'export-process')],
      { stdio: ['ignore', 'pipe', 'pipe', 'ipc'], serialization: 'advanced', env: childEnv(), cwd: os.tmpdir() },
    );
    this.children.add(child);
    if (child.pid) {
      try {
        os.setPriority(child.pid, EXPORT_NICENESS);
      } catch {
        // not permitted here: the export keeps the API's priority
      }
    }
    const timer = setTimeout(() => child.kill('SIGKILL'), this.limits.timeoutMs);
    child.once('close', () => {
      clearTimeout(timer);
      this.children.delete(child);
      done();
    });
    child.on('error', () => undefined); // reported through 'close' and the run's answer
    return child;
  }

  async close(): Promise<void> {
    for (const child of this.children) child.kill('SIGKILL');
  }
}

function tooLarge(what: string, whatEn: string, bytes: number, limit: number): ProblemError {
  const mib = (n: number) => (n / MIB).toFixed(1);
  return new ProblemError(
    413,
    'export_too_large',
    `${what}共 ${mib(bytes)} MiB，导出最多 ${mib(limit)} MiB / ${whatEn} ${whatEn.endsWith('s') ? 'are' : 'is'} ${mib(bytes)} MiB; an export takes at most ${mib(limit)} MiB`,
    { bytes, limit_bytes: limit },
  );
}

/**
 * Hands `job` to the export process and resolves with its output stream once it says the document follows, or
 * rejects with the problem it reports (or the way it ended). Cancelling the stream ends the process.
 */
function run(child: ChildProcess, job: ExportJob): Promise<ReadableStream<Uint8Array>> {
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_KEPT);
  });
  return new Promise((resolve, reject) => {
    child.on('message', (reply: ExportReply) => {
      if (reply.type === 'started') child.send(job);
      else if (reply.type === 'streaming') resolve(output(child));
      else reject(new ProblemError(reply.status, reply.code, reply.message, reply.extra));
    });
    child.once('close', (code, signal) => {
      if (/heap out of memory|Allocation failed/i.test(stderr))
        reject(
          new ProblemError(
            413,
            'export_too_large',
            '导出所需内存超出限制 / the export needs more memory than an export may use',
          ),
        );
      else
        reject(
          new ProblemError(
            503,
            'export_failed',
            `导出未能完成，请稍后再试 / the export did not finish (${signal ?? code}): try again later`,
            { retry_after: RETRY_AFTER_S },
          ),
        );
    });
  });
}

/**
 * The export process's stdout as a stream with backpressure (the process waits while the client reads slowly). It
 * errors instead of ending when the process fails midway, so a cut document is never delivered as whole; cancelling
 * it (the client went away) ends the process.
 */
function output(child: ChildProcess): ReadableStream<Uint8Array> {
  const stdout = child.stdout!;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      stdout.on('data', (chunk: Buffer) => {
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 0) <= 0) stdout.pause();
      });
      child.once('close', (code, signal) => {
        if (code === 0) controller.close();
        else
          controller.error(new Error(`the export process ended (${signal ?? code}) before the document was complete`));
      });
    },
    pull() {
      stdout.resume();
    },
    cancel() {
      child.kill('SIGKILL');
    },
  });
}
