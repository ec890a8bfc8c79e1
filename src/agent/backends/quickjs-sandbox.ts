import fs from 'node:fs';
import path from 'node:path';
import {
  type ExecuteResponse,
  type FileInfo,
  FilesystemBackend,
  type ReadRawResult,
  type SandboxBackendProtocolV2,
} from 'deepagents';
import { badRequest, notFound } from '../../shared/index.ts';
import { safeLabel } from './labels.ts';
import {
  DEFAULT_SANDBOX_LIMITS,
  type DirectoryEntry,
  EXIT_CODES,
  runScript,
  type SandboxLimits,
  type Script,
  type ScriptFiles,
} from './quickjs-runner.ts';

/** How the model runs code; goes into the prompts of agents that have `execute`. */
export const SANDBOX_EXECUTE_GUIDE = `沙箱执行 JavaScript/TypeScript（QuickJS），不是 shell / the sandbox runs JavaScript or TypeScript (QuickJS), not a shell.
命令格式 / command forms:
  node /analysis/analyze.js      运行工作区中的脚本 / run a workspace script (.js/.mjs)
  tsx /analysis/analyze.ts       TypeScript 脚本（类型被去除）/ TypeScript, types stripped
  js: <code>  或 / or  ts: <code>  直接运行代码 / run inline code (may span lines)
脚本是 ES 模块，可用顶层 await / scripts are ES modules with top-level await. Available:
  await fs.readFile(path) → string, await fs.writeFile(path, text), await fs.listDir(path) → [{path, isDir, size}]
  console.log(...) 作为输出 / is the output; JSON, Math, Date 可用 / are available.
没有 require/import、网络、process / no require/import, network or process. 路径是工作区内的绝对路径，如 /data/x.json
/ paths are workspace paths such as /data/x.json. Limits: time and memory; exit code 124 = timeout, 137 = memory.`;

const UNKNOWN_COMMAND = `不支持的命令 / unsupported command. ${SANDBOX_EXECUTE_GUIDE}`;

export interface QuickJsSandboxOptions {
  /** The workspace directory; every path the agent or a script uses is confined to it. */
  rootDir: string;
  id: string;
  limits?: Partial<SandboxLimits>;
}

const FILE_ERRORS: Record<string, string> = {
  file_not_found: '文件不存在 / file not found',
  is_directory: '这是目录 / is a directory',
  permission_denied: '没有权限 / permission denied',
  invalid_path: '路径不允许（必须在工作区内）/ path not allowed (must stay inside the workspace)',
};

/**
 * A deepagents sandbox whose files are a workspace directory on disk (deepagents' `FilesystemBackend` in virtual
 * mode: `..`, `~`, absolute escapes and symlinks out are refused) and whose `execute` runs JavaScript/TypeScript in
 * QuickJS bridged only to those files (see {@link SANDBOX_EXECUTE_GUIDE}).
 */
export class QuickJsSandbox extends FilesystemBackend implements SandboxBackendProtocolV2 {
  readonly id: string;
  readonly rootDir: string;
  private readonly limits: SandboxLimits;

  constructor(options: QuickJsSandboxOptions) {
    super({ rootDir: options.rootDir, virtualMode: true });
    this.id = options.id;
    this.rootDir = path.resolve(options.rootDir);
    this.limits = { ...DEFAULT_SANDBOX_LIMITS, ...options.limits };
    fs.mkdirSync(this.rootDir, { recursive: true });
  }

  async execute(command: string): Promise<ExecuteResponse> {
    const parsed = parseCommand(command);
    if ('error' in parsed) return { output: parsed.error, exitCode: parsed.exitCode, truncated: false };
    let script: Script;
    if ('inline' in parsed) {
      script = {
        source: parsed.inline,
        filename: `/inline.${parsed.typescript ? 'ts' : 'js'}`,
        typescript: parsed.typescript,
      };
    } else {
      try {
        script = { source: await this.readText(parsed.file), filename: parsed.file, typescript: parsed.typescript };
      } catch (error) {
        return { output: (error as Error).message, exitCode: EXIT_CODES.usage, truncated: false };
      }
    }
    return runScript(script, this.scriptFiles(), this.limits);
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

  private scriptFiles(): ScriptFiles {
    return {
      readFile: (filePath) => this.readText(filePath),
      writeFile: async (filePath, text) => {
        const [result] = await this.uploadFiles([[filePath, new TextEncoder().encode(text)]]);
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
}

/** Per-user, per-session sandbox workspaces under `<dataDir>/workspaces/<user>/<session>/`. */
export class Workspaces {
  readonly root: string;

  constructor(private readonly options: WorkspacesOptions) {
    this.root = path.resolve(options.dataDir, 'workspaces');
  }

  /** The sandbox of one session of one user (its directory is created on first use). */
  sandbox(userId: string, sessionId: string): QuickJsSandbox {
    const user = safeLabel(userId);
    const session = safeLabel(sessionId);
    return new QuickJsSandbox({
      rootDir: path.join(this.root, user, session),
      id: `quickjs:${user}/${session}`,
      limits: this.options.limits,
    });
  }
}
