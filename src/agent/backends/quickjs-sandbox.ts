import fs from 'node:fs';
import path from 'node:path';
import {
  type EditResult,
  type ExecuteResponse,
  type FileInfo,
  FilesystemBackend,
  type FileUploadResponse,
  type GlobResult,
  type GrepResult,
  type LsResult,
  type ReadRawResult,
  type SandboxBackendProtocolV2,
  type WriteResult,
} from 'deepagents';
import { transform } from 'esbuild';
import { badRequest, notFound } from '../../shared/index.ts';
import { DiskQuota, DiskQuotaError } from './disk-quota.ts';
import { safeLabel } from './labels.ts';
import {
  DEFAULT_SANDBOX_LIMITS,
  type DirectoryEntry,
  EXIT_CODES,
  OutputBuffer,
  type SandboxLimits,
  type Script,
  type ScriptFiles,
} from './quickjs-runner.ts';
import { SandboxPool, type SandboxPoolOptions } from './sandbox-pool.ts';

/** How the model runs code: the description of `execute`, and the answer to a command it does not take. */
export const SANDBOX_EXECUTE_GUIDE = `沙箱中运行 JS/TS（QuickJS）/ Runs JavaScript or TypeScript in the QuickJS sandbox, not a shell: \`node /analysis/analyze.js\`, \`tsx /analysis/analyze.ts\`,
or inline \`js: <code>\` / \`ts: <code>\`. ES modules with top-level await; await fs.readFile(path) → string,
fs.writeFile(path, text), fs.listDir(path) → [{path, isDir, size}]; console.log is the output; no require/import,
network or process. Paths: /data/x.json. exit 124 = time or CPU limit, 137 = memory.`;

const UNKNOWN_COMMAND = `不支持的命令 / unsupported command. ${SANDBOX_EXECUTE_GUIDE}`;

export interface QuickJsSandboxOptions {
  /** The workspace directory; every path the agent or a script uses is confined to it. */
  rootDir: string;
  id: string;
  limits?: Partial<SandboxLimits>;
  /** Where scripts run (separate processes). */
  pool: SandboxPool;
  /** The disk quota and the directory it counts (the user's, across sessions); no quota when absent. */
  quota?: { guard: DiskQuota; dir: string };
}

const FILE_ERRORS: Record<string, string> = {
  file_not_found: '文件不存在 / file not found',
  is_directory: '这是目录 / is a directory',
  permission_denied: '没有权限 / permission denied',
  invalid_path: '路径不允许（必须在工作区内）/ path not allowed (must stay inside the workspace)',
};

/**
 * A deepagents sandbox whose files are a workspace directory on disk (deepagents' `FilesystemBackend` in virtual
 * mode: `..`, `~`, absolute escapes and symlinks out are refused; symlinks are never listed) and whose `execute`
 * runs JavaScript/TypeScript in QuickJS, in a separate process, bridged only to those files (see
 * {@link SANDBOX_EXECUTE_GUIDE}). Writes count against the user's disk quota.
 */
export class QuickJsSandbox extends FilesystemBackend implements SandboxBackendProtocolV2 {
  readonly id: string;
  readonly rootDir: string;
  private readonly limits: SandboxLimits;
  private readonly pool: SandboxPool;
  private readonly quota?: { guard: DiskQuota; dir: string };

  constructor(options: QuickJsSandboxOptions) {
    super({ rootDir: options.rootDir, virtualMode: true });
    this.id = options.id;
    this.rootDir = path.resolve(options.rootDir);
    this.limits = { ...DEFAULT_SANDBOX_LIMITS, ...options.limits };
    this.pool = options.pool;
    this.quota = options.quota;
    fs.mkdirSync(this.rootDir, { recursive: true });
  }

  async execute(command: string): Promise<ExecuteResponse> {
    const parsed = parseCommand(command);
    if ('error' in parsed) return { output: parsed.error, exitCode: parsed.exitCode, truncated: false };
    let source: string;
    let filename: string;
    if ('inline' in parsed) {
      source = parsed.inline;
      filename = `/inline.${parsed.typescript ? 'ts' : 'js'}`;
    } else {
      try {
        source = await this.readText(parsed.file);
        filename = parsed.file;
      } catch (error) {
        return { output: (error as Error).message, exitCode: EXIT_CODES.usage, truncated: false };
      }
    }
    const script = parsed.typescript ? await this.stripTypes(source, filename) : { code: source, filename };
    if ('exitCode' in script) return script;
    return this.pool.run(script, this.scriptFiles(), this.limits);
  }

  /** TypeScript → JavaScript here, in the host's long-lived esbuild service, so the sandbox process stays small. */
  private async stripTypes(source: string, filename: string): Promise<Script | ExecuteResponse> {
    try {
      return {
        code: (await transform(source, { loader: 'ts', target: 'es2022', sourcefile: filename })).code,
        filename,
      };
    } catch (error) {
      const output = new OutputBuffer(this.limits.outputChars);
      const messages = (error as { errors?: Array<{ text: string; location?: { line: number; column: number } }> })
        .errors ?? [{ text: (error as Error).message }];
      for (const m of messages) {
        const at = m.location ? `${filename}:${m.location.line}:${m.location.column + 1}` : filename;
        output.write(`SyntaxError: ${m.text} (${at})`);
      }
      return output.response(EXIT_CODES.error);
    }
  }

  override async write(filePath: string, content: string): Promise<WriteResult> {
    try {
      return await this.withinQuota([[filePath, Buffer.byteLength(content)]], () => super.write(filePath, content));
    } catch (error) {
      return { error: `Error writing file '${filePath}': ${(error as Error).message}` };
    }
  }

  override async edit(filePath: string, oldString: string, newString: string, replaceAll = false): Promise<EditResult> {
    const growth = async () => {
      const current = await super.readRaw(filePath).catch(() => undefined);
      const content = current?.data?.content;
      if (typeof content !== 'string' || !oldString) return 0; // deepagents reports the problem itself
      const occurrences = replaceAll ? content.split(oldString).length - 1 : 1;
      return occurrences * (Buffer.byteLength(newString) - Buffer.byteLength(oldString));
    };
    try {
      return await this.guardQuota(growth, () => super.edit(filePath, oldString, newString, replaceAll));
    } catch (error) {
      return { error: `Error editing file '${filePath}': ${(error as Error).message}` };
    }
  }

  /** All or nothing: when the files together do not fit the quota, none is written. */
  override async uploadFiles(files: Array<[string, Uint8Array]>): Promise<FileUploadResponse[]> {
    try {
      return await this.withinQuota(
        files.map(([filePath, content]) => [filePath, content.byteLength]),
        () => super.uploadFiles(files),
      );
    } catch (error) {
      if (!(error instanceof DiskQuotaError)) throw error;
      return files.map(([filePath]) => ({ path: filePath, error: 'permission_denied' }));
    }
  }

  /** Symlinks are never listed (nor what lies behind a linked directory). */
  override async ls(dirPath: string): Promise<LsResult> {
    const listing = await super.ls(dirPath);
    return listing.files ? { ...listing, files: await this.withoutLinks(listing.files) } : listing;
  }

  override async glob(pattern: string, searchPath = '/'): Promise<GlobResult> {
    const found = await super.glob(pattern, searchPath);
    return found.files ? { ...found, files: await this.withoutLinks(found.files) } : found;
  }

  override async grep(
    pattern: string,
    dirPath = '/',
    glob: string | null = null,
    maxCount: number | null = null,
  ): Promise<GrepResult> {
    const found = await super.grep(pattern, dirPath, glob, maxCount);
    return found.matches ? { ...found, matches: await this.withoutLinks(found.matches) } : found;
  }

  /** deepagents' `readRaw` throws on a refused path; the protocol wants the error as data. */
  override async readRaw(filePath: string): Promise<ReadRawResult> {
    try {
      return await super.readRaw(filePath);
    } catch (error) {
      return { error: `Error reading file '${filePath}': ${(error as Error).message}` };
    }
  }

  /** One workspace file for handing to the user (the chat API serves it); 400 for a refused path, 404 if absent. */
  async downloadFile(filePath: string): Promise<{ path: string; content: Uint8Array }> {
    const [result] = await this.downloadFiles([filePath]);
    if (result?.content) return { path: filePath, content: result.content };
    const message = `${FILE_ERRORS[result?.error ?? 'file_not_found']}: ${filePath}`;
    throw result?.error === 'file_not_found' ? notFound(message) : badRequest(message);
  }

  /** Every file of the workspace (recursive), paths as the agent sees them. */
  async listFiles(): Promise<FileInfo[]> {
    return (await this.glob('**/*', '/')).files ?? [];
  }

  private async readText(filePath: string): Promise<string> {
    const [result] = await this.downloadFiles([filePath]);
    if (!result?.content) throw new Error(`${FILE_ERRORS[result?.error ?? 'file_not_found']}: ${filePath}`);
    if (result.content.byteLength > this.limits.memoryBytes) {
      throw new Error(`文件超过沙箱内存限制 / file larger than the sandbox memory limit: ${filePath}`);
    }
    return new TextDecoder().decode(result.content);
  }

  /** Entries whose path has no symlink in it, from the workspace root down. */
  private async withoutLinks<T extends { path: string }>(entries: T[]): Promise<T[]> {
    const kept: T[] = [];
    for (const entry of entries) if (!(await this.passesLink(entry.path))) kept.push(entry);
    return kept;
  }

  private async passesLink(virtualPath: string): Promise<boolean> {
    let current = this.rootDir;
    for (const segment of virtualPath.split('/').filter(Boolean)) {
      current = path.join(current, segment);
      const stat = await fs.promises.lstat(current).catch(() => undefined);
      if (!stat) return false;
      if (stat.isSymbolicLink()) return true;
    }
    return false;
  }

  /** Runs a write of files with these new sizes if the user's workspaces stay within the quota. */
  private withinQuota<T>(sizes: Array<[string, number]>, write: () => Promise<T>): Promise<T> {
    return this.guardQuota(async () => {
      let growth = 0;
      for (const [filePath, size] of sizes) growth += size - (await this.existingBytes(filePath));
      return growth;
    }, write);
  }

  private guardQuota<T>(growth: () => Promise<number>, write: () => Promise<T>): Promise<T> {
    return this.quota ? this.quota.guard.guard(this.quota.dir, growth, write) : write();
  }

  /** Size of the regular file a write would replace (0 for none; a refused path is refused by the write itself). */
  private async existingBytes(filePath: string): Promise<number> {
    if (filePath.includes('..') || filePath.includes('\0')) return 0;
    const full = path.join(this.rootDir, path.posix.normalize(`/${filePath}`));
    const stat = await fs.promises.lstat(full).catch(() => undefined);
    return stat?.isFile() ? stat.size : 0;
  }

  private scriptFiles(): ScriptFiles {
    return {
      readFile: (filePath) => this.readText(filePath),
      writeFile: async (filePath, text) => {
        const content = new TextEncoder().encode(text);
        const [result] = await this.withinQuota([[filePath, content.byteLength]], () =>
          super.uploadFiles([[filePath, content]]),
        );
        if (result?.error) throw new Error(`${FILE_ERRORS[result.error]}: ${filePath}`);
      },
      listDir: async (dirPath): Promise<DirectoryEntry[]> => {
        const listing = await this.ls(dirPath);
        if (listing.error) throw new Error(listing.error);
        return (listing.files ?? []).map((f) => ({ path: f.path, isDir: f.is_dir === true, size: f.size ?? 0 }));
      },
    };
  }
}

type ParsedCommand =
  | { file: string; typescript: boolean }
  | { inline: string; typescript: boolean }
  | { error: string; exitCode: number };

function parseCommand(command: string): ParsedCommand {
  if (typeof command !== 'string' || !command.trim()) return { error: UNKNOWN_COMMAND, exitCode: EXIT_CODES.usage };
  const text = command.trim();
  const inline = /^(js|ts|javascript|typescript):/i.exec(text);
  if (inline) {
    return { inline: text.slice(inline[0].length).replace(/^[ \t]*\n?/, ''), typescript: /^t/i.test(inline[1] ?? '') };
  }
  const run = /^(node|tsx)\s+(\S+)$/.exec(text);
  if (!run) return { error: UNKNOWN_COMMAND, exitCode: EXIT_CODES.unknownCommand };
  const file = run[2] ?? '';
  const extension = path.posix.extname(file).toLowerCase();
  if (['.ts', '.mts', '.cts'].includes(extension)) return { file, typescript: true };
  if (['.js', '.mjs', '.cjs'].includes(extension)) return { file, typescript: false };
  return {
    error: `只能运行 .js/.ts 脚本 / only .js or .ts scripts can run: ${file}`,
    exitCode: EXIT_CODES.usage,
  };
}

export interface WorkspacesOptions {
  dataDir: string;
  limits?: Partial<SandboxLimits>;
  /** Bytes each user may keep in their workspaces, all sessions together. */
  diskQuotaBytes?: number;
  pool?: Partial<SandboxPoolOptions>;
}

export const DEFAULT_DISK_QUOTA_BYTES = 256 * 1024 * 1024;

/**
 * Per-user, per-session sandbox workspaces under `<dataDir>/workspaces/<user>/<session>/`, with one pool of
 * sandbox processes and one disk quota per user.
 */
export class Workspaces {
  readonly root: string;
  readonly pool: SandboxPool;
  private readonly quota: DiskQuota;

  constructor(private readonly options: WorkspacesOptions) {
    this.root = path.resolve(options.dataDir, 'workspaces');
    this.pool = new SandboxPool(options.pool);
    this.quota = new DiskQuota(options.diskQuotaBytes ?? DEFAULT_DISK_QUOTA_BYTES);
  }

  /** The sandbox of one session of one user (its directory is created on first use). */
  sandbox(userId: string, sessionId: string): QuickJsSandbox {
    const user = safeLabel(userId);
    const session = safeLabel(sessionId);
    return new QuickJsSandbox({
      rootDir: path.join(this.root, user, session),
      id: `quickjs:${user}/${session}`,
      limits: this.options.limits,
      pool: this.pool,
      quota: { guard: this.quota, dir: path.join(this.root, user) },
    });
  }

  /** Stops the sandbox processes (running scripts included). */
  close(): Promise<void> {
    return this.pool.close();
  }
}
