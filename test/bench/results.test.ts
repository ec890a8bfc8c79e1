import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

describe('benchmark results', () => {
  it('keep what a benchmark printed, with when and where it ran, in <name>.md', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-bench-'));
    try {
      const script = path.join(dir, 'probe.ts');
      const results = path.resolve('bench/results.ts');
      fs.writeFileSync(
        script,
        `import { recordResults } from ${JSON.stringify(results)};\n` +
          `recordResults('probe', ${JSON.stringify(dir)});\n` +
          "console.log('\\x1b[32mp50\\x1b[0m 1.5 ms');\nconsole.table([{ route: '/x', rps: 42 }]);\n",
      );
      execFileSync(process.execPath, ['--import', 'tsx', script, '--seconds', '1'], { stdio: 'pipe' });
      const text = fs.readFileSync(path.join(dir, 'probe.md'), 'utf8');
      expect(text).toMatch(/^# npm run bench:probe -- --seconds 1\n/);
      expect(text).toContain(`Node ${process.version}`);
      expect(text).toContain('p50 1.5 ms');
      expect(text).not.toContain('\x1b[');
      expect(text).toMatch(/│ '\/x'\s+│ 42\s+│/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
