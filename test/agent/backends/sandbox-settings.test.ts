import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES, sandboxOptionsFrom, Workspaces } from '../../../src/agent/backends/index.ts';
import { loadSettings } from '../../../src/shared/index.ts';
import { tempDir } from './harness.ts';

describe('sandbox settings', () => {
  it('reads the limits from SANDBOX_* and applies them to executions', async () => {
    const settings = loadSettings(
      {},
      { SANDBOX_MEMORY_MB: '16', SANDBOX_TIMEOUT_MS: '1500', SANDBOX_OUTPUT_CHARS: '200', SANDBOX_DISK_QUOTA_MB: '1' },
    );
    const options = sandboxOptionsFrom(settings);
    expect(options).toMatchObject({
      limits: { memoryBytes: 16 * 1024 * 1024, timeoutMs: 1500, outputChars: 200 },
      diskQuotaBytes: 1024 * 1024,
    });
    const dataDir = tempDir('procura-sandbox-settings-');
    const workspaces = new Workspaces({ dataDir, ...options });
    try {
      const sandbox = workspaces.sandbox('u1', 's1');
      const memory = await sandbox.execute('js: console.log(new Array(5e6).fill(1).length)');
      expect(memory).toMatchObject({ exitCode: EXIT_CODES.memory });
      expect(memory.output).toMatch(/\(16 MiB\)/);
      const slow = await sandbox.execute('js: await new Promise(() => {})');
      expect(slow.output).toMatch(/longer than 1.5 s/);
      expect((await sandbox.write('/big.txt', 'x'.repeat(1_100_000))).error).toMatch(/disk quota exceeded/);
    } finally {
      await workspaces.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('keeps the built-in defaults when nothing is set, and names a bad value', () => {
    expect(sandboxOptionsFrom(loadSettings({}, {}))).toEqual({ limits: {}, diskQuotaBytes: undefined, pool: {} });
    expect(() => loadSettings({}, { SANDBOX_MEMORY_MB: 'lots' })).toThrow(/sandboxMemoryMb \(SANDBOX_MEMORY_MB\)/);
  });
});
