import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DiskQuota, DiskQuotaError } from '../../../src/agent/backends/index.ts';
import { tempDir } from './harness.ts';

/** A quota over a real directory, counting how often it walks it. */
function countingQuota(limitBytes: number) {
  const dir = tempDir('procura-quota-');
  let walks = 0;
  const quota = new DiskQuota(limitBytes, async (d) => {
    walks++;
    return fs
      .readdirSync(d, { withFileTypes: true })
      .filter((e) => e.isFile())
      .reduce((sum, e) => sum + fs.statSync(path.join(d, e.name)).size, 0);
  });
  const write = (name: string, bytes: number) =>
    quota.guard(
      dir,
      async () => bytes,
      async () => fs.writeFileSync(path.join(dir, name), 'x'.repeat(bytes)),
    );
  return { dir, quota, write, walks: () => walks };
}

describe('disk quota', () => {
  it('does not walk the whole workspace for every write', async () => {
    const q = countingQuota(1_000_000);
    for (let i = 0; i < 200; i++) await q.write(`f${i}`, 100);
    expect(q.walks()).toBe(1);
    fs.rmSync(q.dir, { recursive: true, force: true });
  });

  it('keeps its total exact: refuses past the limit, and counts files removed meanwhile before refusing', async () => {
    const q = countingQuota(1_000);
    await q.write('a', 600);
    await expect(q.write('b', 600)).rejects.toBeInstanceOf(DiskQuotaError);
    expect(fs.existsSync(path.join(q.dir, 'b'))).toBe(false);
    // Removed outside the quota's knowledge (a deleted session): the next write that seems too big is re-checked.
    fs.rmSync(path.join(q.dir, 'a'));
    await q.write('b', 600);
    expect(fs.statSync(path.join(q.dir, 'b')).size).toBe(600);
    await expect(q.write('c', 500)).rejects.toThrow(/disk quota exceeded/);
    fs.rmSync(q.dir, { recursive: true, force: true });
  });
});
