import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/** Every TypeScript source file under a folder. */
function sources(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name) && !e.name.endsWith('.test.ts'))
    .map((e) => path.join(e.parentPath, e.name));
}

/** Relative imports of a file, resolved to repository paths. */
function imports(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  return [...text.matchAll(/from '(\.[^']+)'/g)].map((m) => path.relative('.', path.resolve(path.dirname(file), m[1])));
}

const partOf = (file: string) => (file.startsWith('web/') ? 'web' : file.split(path.sep)[1]);

describe('module faces', () => {
  it('parts reach each other only through an index.ts, and nothing but the browser UI imports web/', () => {
    const crossing: string[] = [];
    for (const file of [...sources('src'), ...sources('web/src')]) {
      for (const target of imports(file)) {
        if (target.startsWith('web/') && !file.startsWith('web/')) crossing.push(`${file} -> ${target}`);
        if (!target.startsWith('src/') || partOf(target) === partOf(file)) continue;
        if (path.basename(target) !== 'index.ts') crossing.push(`${file} -> ${target}`);
      }
    }
    expect(crossing).toEqual([]);
  });
});
