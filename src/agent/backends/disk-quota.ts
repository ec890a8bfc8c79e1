import fs from 'node:fs/promises';
import path from 'node:path';

export class DiskQuotaError extends Error {}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/**
 * Bytes each user may keep in their workspaces (all sessions together). A write is checked before anything is
 * written, under a per-user lock so parallel writes cannot pass the check together: over the quota, nothing is
 * written at all.
 */
export class DiskQuota {
  private readonly locks = new Map<string, Promise<unknown>>();

  constructor(readonly limitBytes: number) {}

  /**
   * Runs `write` if `userDir` stays within the quota after growing by what `growth` reports (bytes added, or
   * negative when the write shrinks files); throws a {@link DiskQuotaError} otherwise.
   */
  guard<T>(userDir: string, growth: () => Promise<number>, write: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(userDir) ?? Promise.resolve();
    const turn = previous.then(async () => {
      const added = await growth();
      if (added > 0) {
        const used = await directoryBytes(userDir);
        if (used + added > this.limitBytes) {
          throw new DiskQuotaError(
            `磁盘配额不足，未写入任何内容 / disk quota exceeded, nothing was written: this write needs ${mib(added)}, ` +
              `${mib(used)} of ${mib(this.limitBytes)} are in use`,
          );
        }
      }
      return write();
    });
    const settled = turn.catch(() => undefined);
    this.locks.set(userDir, settled);
    void settled.then(() => {
      if (this.locks.get(userDir) === settled) this.locks.delete(userDir);
    });
    return turn;
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
