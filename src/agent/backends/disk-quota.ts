import fs from 'node:fs/promises';
import path from 'node:path';

export class DiskQuotaError extends Error {}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** How long a measured total is trusted before the directory is walked again. */
const FRESH_MS = 5_000;

/**
 * Bytes each user may keep in their workspaces (all sessions together). A write is checked before anything is
 * written, under a per-user lock so parallel writes cannot pass the check together: over the quota, nothing is
 * written at all. The user's total is measured by walking their directory, then kept up to date by each write for
 * a few seconds: walking on every write made each write cost as much as the files already there. A write the kept
 * total would refuse is checked against a fresh walk first (files may have been removed meanwhile).
 */
export class DiskQuota {
  private readonly locks = new Map<string, Promise<unknown>>();
  private readonly totals = new Map<string, { bytes: number; at: number }>();

  constructor(
    readonly limitBytes: number,
    private readonly measure: (dir: string) => Promise<number> = directoryBytes,
  ) {}

  /**
   * Runs `write` if `userDir` stays within the quota after growing by what `growth` reports (bytes added, or
   * negative when the write shrinks files); throws a {@link DiskQuotaError} otherwise.
   */
  guard<T>(userDir: string, growth: () => Promise<number>, write: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(userDir) ?? Promise.resolve();
    const turn = previous.then(async () => {
      const added = await growth();
      if (added > 0) {
        let { bytes: used, walked } = await this.used(userDir);
        if (used + added > this.limitBytes && !walked) {
          this.totals.delete(userDir);
          used = (await this.used(userDir)).bytes;
        }
        if (used + added > this.limitBytes) {
          throw new DiskQuotaError(
            `磁盘配额不足，未写入任何内容 / disk quota exceeded, nothing was written: this write needs ${mib(added)}, ` +
              `${mib(used)} of ${mib(this.limitBytes)} are in use`,
          );
        }
      }
      try {
        const result = await write();
        const total = this.totals.get(userDir);
        if (total) total.bytes = Math.max(0, total.bytes + added);
        return result;
      } catch (error) {
        // A failed write may have written part of it: measure again next time.
        this.totals.delete(userDir);
        throw error;
      }
    });
    const settled = turn.catch(() => undefined);
    this.locks.set(userDir, settled);
    void settled.then(() => {
      if (this.locks.get(userDir) === settled) this.locks.delete(userDir);
    });
    return turn;
  }

  /** The user's bytes: the kept total while fresh, else a walk of their directory (`walked`). */
  private async used(userDir: string): Promise<{ bytes: number; walked: boolean }> {
    const kept = this.totals.get(userDir);
    if (kept && Date.now() - kept.at < FRESH_MS) return { bytes: kept.bytes, walked: false };
    const bytes = await this.measure(userDir);
    this.totals.set(userDir, { bytes, at: Date.now() });
    return { bytes, walked: true };
  }
}

/** Bytes of the regular files under a directory; links are not followed and count for nothing. */
export async function directoryBytes(dir: string): Promise<number> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = await fs.readdir(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  let total = 0;
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += await directoryBytes(full);
    else if (entry.isFile()) total += (await fs.lstat(full).catch(() => ({ size: 0 }))).size;
  }
  return total;
}
