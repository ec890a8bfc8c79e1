import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';

const ROOT = path.resolve(import.meta.dirname, '../../skills');

/** Every SKILL.md under skills/, with its path. */
function skillFiles(dir = ROOT): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory() ? skillFiles(path.join(dir, e.name)) : e.name === 'SKILL.md' ? [path.join(dir, e.name)] : [],
    );
}

describe('the skill packs', () => {
  it('each open with front matter that parses to a name and a description (else the agents never see them)', () => {
    const files = skillFiles();
    expect(files.length).toBeGreaterThan(5);
    const problems = files.flatMap((file) => {
      const where = path.relative(ROOT, file);
      const front = /^---\n([\s\S]*?)\n---/.exec(fs.readFileSync(file, 'utf8'))?.[1];
      if (front === undefined) return [`${where}: no front matter`];
      try {
        const meta = YAML.parse(front) as { name?: unknown; description?: unknown };
        return typeof meta?.name === 'string' && typeof meta.description === 'string' && meta.description.length > 0
          ? []
          : [`${where}: name or description missing`];
      } catch (error) {
        return [`${where}: ${(error as Error).message.split('\n')[0]}`];
      }
    });
    expect(problems).toEqual([]);
  });

  it('name only files that exist: the sections a skill keeps apart are read by the paths its SKILL.md gives', () => {
    const named = skillFiles().flatMap((file) =>
      [...fs.readFileSync(file, 'utf8').matchAll(/\/skills\/([\w./-]+\.(?:md|ya?ml|json))/g)].map((m) => [file, m[1]]),
    );
    expect(named.length).toBeGreaterThanOrEqual(3);
    const missing = named.filter(([, target]) => !fs.existsSync(path.join(ROOT, target)));
    expect(missing.map(([file, target]) => `${path.relative(ROOT, file)} → ${target}`)).toEqual([]);
  });
});
