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

/** Chart images on disk under `<dataDir>/charts`, named by the content hash of what was asked. */
export class ChartStore {
  readonly dir: string;

  constructor(dataDir: string) {
    this.dir = path.join(dataDir, 'charts');
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
    return text ? (JSON.parse(text) as StoredMeta) : undefined;
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
  }

  async get(id: string, format: ImageFormat): Promise<Buffer | undefined> {
    return fs.readFile(this.file(id, format)).catch(() => undefined);
  }
}
