import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

export type ImageFormat = 'svg' | 'png';

/** What is remembered about a stored chart besides its images. */
export interface StoredMeta {
  width: number;
  height: number;
  notes: string[];
}

const ID = /^[0-9a-f]{24}$/;
const FILES = ['json', 'svg', 'png'] as const;

/** How much the image cache may hold; past either bound the least recently used charts are removed. */
export interface CacheLimits {
  maxCharts: number;
  maxBytes: number;
}

export const DEFAULT_CACHE_LIMITS: CacheLimits = { maxCharts: 5000, maxBytes: 512 * 1024 * 1024 };

/** Canonical JSON (sorted keys) so the same arguments always hash the same. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

/**
 * Chart images on disk under `<dataDir>/charts`, named by the content hash of what was asked. The cache is
 * bounded in count and bytes, so distinct requests cannot fill the disk: the least recently used charts go
 * first (after a restart, the oldest written).
 */
export class ChartStore {
  readonly dir: string;
  readonly limits: CacheLimits;
  /** id → bytes on disk, in use order (oldest first); read from the directory on first use. */
  private index?: Promise<Map<string, number>>;

  constructor(dataDir: string, limits: Partial<CacheLimits> = {}) {
    this.dir = path.join(dataDir, 'charts');
    this.limits = { ...DEFAULT_CACHE_LIMITS, ...limits };
  }

  private entries(): Promise<Map<string, number>> {
    this.index ??= (async () => {
      const names = await fs.readdir(this.dir).catch(() => [] as string[]);
      const found = new Map<string, { bytes: number; time: number }>();
      for (const name of names) {
        const [id, format] = name.split('.');
        if (!ID.test(id) || !FILES.includes(format as never) || name.endsWith('.tmp')) continue;
        const stat = await fs.stat(path.join(this.dir, name)).catch(() => undefined);
        if (!stat) continue;
        const entry = found.get(id) ?? { bytes: 0, time: 0 };
        found.set(id, { bytes: entry.bytes + stat.size, time: Math.max(entry.time, stat.mtimeMs) });
      }
      return new Map([...found].sort((a, b) => a[1].time - b[1].time).map(([id, e]) => [id, e.bytes]));
    })();
    return this.index;
  }

  /** Number of stored charts and their bytes on disk. */
  async usage(): Promise<{ charts: number; bytes: number }> {
    const entries = await this.entries();
    return { charts: entries.size, bytes: [...entries.values()].reduce((sum, n) => sum + n, 0) };
  }

  private async evict(entries: Map<string, number>): Promise<void> {
    let bytes = [...entries.values()].reduce((sum, n) => sum + n, 0);
    for (const [id, size] of entries) {
      if (entries.size <= this.limits.maxCharts && bytes <= this.limits.maxBytes) break;
      entries.delete(id);
      bytes -= size;
      // the meta first: without it the chart counts as absent, even while its images are being removed
      for (const format of FILES) await fs.rm(path.join(this.dir, `${id}.${format}`), { force: true });
    }
  }

  /** Same type + arguments (+ renderer version) → same id. */
  static idOf(type: string, args: unknown, version: string): string {
    return createHash('sha256')
      .update(`${version}\n${type}\n${canonical(args)}`)
      .digest('hex')
      .slice(0, 24);
  }

  static isId(id: string): boolean {
    return ID.test(id);
  }

  private file(id: string, format: ImageFormat): string {
    if (!ChartStore.isId(id)) throw new Error(`invalid chart id ${id}`);
    return path.join(this.dir, `${id}.${format}`);
  }

  /** The meta of a stored chart; written last, so its presence means both images are complete. */
  async meta(id: string): Promise<StoredMeta | undefined> {
    const text = await fs.readFile(path.join(this.dir, `${id}.json`), 'utf8').catch(() => undefined);
    if (!text) return undefined;
    const entries = await this.entries();
    const size = entries.get(id);
    if (size !== undefined) {
      entries.delete(id);
      entries.set(id, size);
    }
    return JSON.parse(text) as StoredMeta;
  }

  async put(id: string, svg: string, png: Buffer, meta: StoredMeta): Promise<void> {
    await fs.mkdir(this.dir, { recursive: true });
    // write-then-rename so a concurrent reader never sees half a file; unique temp names, since two identical
    // requests may store the same id at the same moment
    for (const [format, content] of [
      ['svg', svg],
      ['png', png],
      ['json', JSON.stringify(meta)],
    ] as const) {
      const target = format === 'json' ? path.join(this.dir, `${id}.json`) : this.file(id, format);
      const temp = `${target}.${randomUUID()}.tmp`;
      await fs.writeFile(temp, content);
      await fs.rename(temp, target);
    }
    const entries = await this.entries();
    entries.delete(id);
    entries.set(id, Buffer.byteLength(svg) + png.length + Buffer.byteLength(JSON.stringify(meta)));
    await this.evict(entries);
  }

  async get(id: string, format: ImageFormat): Promise<Buffer | undefined> {
    return fs.readFile(this.file(id, format)).catch(() => undefined);
  }
}
