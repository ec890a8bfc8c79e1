import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** A backend that can take whole files (deepagents sandboxes and composite backends can). */
export interface FileUploader {
  uploadFiles(
    files: Array<[string, Uint8Array]>,
  ): Promise<Array<{ path: string; error: unknown }>> | Array<{ path: string; error: unknown }>;
  downloadFiles(
    paths: string[],
  ):
    | Promise<Array<{ path: string; content: Uint8Array | null; error: unknown }>>
    | Array<{ path: string; content: Uint8Array | null; error: unknown }>;
}

interface LocalFile {
  /** Path inside the sandbox, e.g. `/skills/procurement/web-scraper/SKILL.md`. */
  target: string;
  hash: string;
  content: Buffer;
}

const md5 = (data: Uint8Array) => createHash('md5').update(data).digest('hex');

/** How many sandboxes a process remembers the contents of: every session has its own, and a server sees many. */
const REMEMBERED_SANDBOXES = 1_000;

/**
 * Keeps a sandbox's `/skills/` in step with the local `skills/` folder: incremental by content hash. Local files are
 * kept, deployed and hashed, by (size, mtime), so unchanged files are not re-read; what each of the most recently
 * synced sandboxes holds is remembered, so a second sync uploads only what changed since, and a forgotten sandbox is
 * asked again.
 */
export class SkillsSync {
  private readonly localCache = new Map<string, { size: number; mtimeMs: number; hash: string; content: Buffer }>();
  private readonly synced = new Map<string, Map<string, string>>();

  /**
   * @param replacements literal text replaced in skill files on the way into the sandbox — deployment values such
   *   as the supplier sites' real address in place of the documented default.
   */
  /**
   * @param files single files placed outside `/skills/`, by their sandbox path (e.g. the global `/AGENTS.md`).
   */
  constructor(
    private readonly root: string,
    private readonly replacements: Record<string, string> = {},
    private readonly files: Record<string, string> = {},
  ) {}

  /** Local skill files (and the single files) with their hashes. */
  private localFiles(): LocalFile[] {
    const sources: Array<[string, string]> = Object.entries(this.files)
      .filter(([, full]) => fs.existsSync(full))
      .map(([target, full]) => [target, full]);
    if (fs.existsSync(this.root)) {
      for (const entry of fs.readdirSync(this.root, { recursive: true, withFileTypes: true })) {
        if (!entry.isFile()) continue;
        const full = path.join(entry.parentPath, entry.name);
        sources.push([`/skills/${path.relative(this.root, full).split(path.sep).join('/')}`, full]);
      }
    }
    return sources.map(([target, full]) => {
      const stat = fs.statSync(full);
      let cached = this.localCache.get(full);
      if (!cached || cached.size !== stat.size || cached.mtimeMs !== stat.mtimeMs) {
        const content = this.deploy(fs.readFileSync(full));
        cached = { size: stat.size, mtimeMs: stat.mtimeMs, hash: md5(content), content };
        this.localCache.set(full, cached);
      }
      return { target, hash: cached.hash, content: cached.content };
    });
  }

  private deploy(content: Buffer): Buffer {
    const pairs = Object.entries(this.replacements).filter(([from, to]) => from && from !== to);
    if (pairs.length === 0) return content;
    let text = content.toString('utf8');
    for (const [from, to] of pairs) text = text.split(from).join(to);
    return Buffer.from(text, 'utf8');
  }

  /** Uploads new and changed skill files into one sandbox (identified by `workspace`); returns their paths. */
  async sync(workspace: string, backend: FileUploader): Promise<string[]> {
    const local = this.localFiles();
    let known = this.synced.get(workspace);
    if (known) this.synced.delete(workspace);
    else {
      // First sight of this sandbox in this process (or forgotten since): learn what it already holds.
      known = new Map();
      const remote = await backend.downloadFiles(local.map((f) => f.target));
      for (const r of remote) if (r.content) known.set(r.path, md5(r.content));
    }
    // Most recently synced last; the least recent is forgotten.
    this.synced.set(workspace, known);
    if (this.synced.size > REMEMBERED_SANDBOXES) this.synced.delete(this.synced.keys().next().value as string);
    const changed = local.filter((f) => known.get(f.target) !== f.hash);
    if (changed.length === 0) return [];
    const results = await backend.uploadFiles(changed.map((f) => [f.target, new Uint8Array(f.content)]));
    const uploaded = results.filter((r) => !r.error).map((r) => r.path);
    for (const f of changed) if (uploaded.includes(f.target)) known.set(f.target, f.hash);
    return uploaded;
  }
}
