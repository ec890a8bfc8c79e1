import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';

/**
 * Keeps what a benchmark prints as its latest results: everything written to standard output from this call on is
 * also saved, when the process ends, to `bench/results/<name>.md` with the date, Node version and machine, so the
 * docs link to measured numbers instead of repeating them.
 */
export function recordResults(name: string, dir = path.join(import.meta.dirname, 'results')): void {
  const lines: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    lines.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stdout.write;
  process.once('exit', (code) => {
    const file = path.join(dir, `${name}.md`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const machine = `${os.cpus().length} × ${os.cpus()[0]?.model.trim() ?? 'CPU'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB`;
    const args = process.argv.slice(2).join(' ');
    fs.writeFileSync(
      file,
      `# npm run bench:${name}${args ? ` -- ${args}` : ''}\n\n` +
        `${new Date().toISOString()} · Node ${process.version} · ${machine}${code ? ` · exit code ${code}` : ''}\n\n` +
        `\`\`\`text\n${stripVTControlCharacters(lines.join('')).trimEnd()}\n\`\`\`\n`,
    );
  });
}
