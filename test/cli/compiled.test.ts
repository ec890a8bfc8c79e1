import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin/procura.js');

/** Each test run builds into its own dist directory, so it neither waits for nor disturbs the checkout's. */
const distDir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-dist-'));
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-cli-data-'));
const baseEnv = { ...process.env, PROCURA_DIST_DIR: distDir, DATABASE_URL: '', REDIS_URL: '', LOG_LEVEL: 'silent' };

async function procura(args: string[], env: NodeJS.ProcessEnv = {}) {
  const { stdout, stderr } = await run(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    env: { ...baseEnv, ...env },
    timeout: 180_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  return { stdout, stderr };
}

const manifest = () =>
  JSON.parse(fs.readFileSync(path.join(distDir, 'manifest.json'), 'utf8')) as {
    dir: string;
    inputs: Record<string, string>;
  };

afterAll(() => {
  fs.rmSync(distDir, { recursive: true, force: true });
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('the compiled CLI', () => {
  beforeAll(async () => {
    // the first start builds dist/ on demand and says so on stderr, keeping stdout for the command
    const first = await procura(['--help']);
    expect(first.stderr).toMatch(/compiling/);
    expect(first.stdout).toMatch(/^Usage: procura/);
  }, 300_000);

  it('runs plain JavaScript from dist/ once built, with no note', async () => {
    const { dir } = manifest();
    const entry = path.join(distDir, dir, 'main.js');
    expect(fs.existsSync(entry)).toBe(true);
    const again = await procura(['--help']);
    expect(again.stderr).toBe('');
    expect(manifest().dir).toBe(dir);
    // Node alone runs it: nothing compiles TypeScript at start-up
    const direct = await run(process.execPath, [entry, '--help'], { cwd: os.tmpdir(), env: baseEnv });
    expect(direct.stdout).toBe(again.stdout);
  });

  it('prints what the sources print', async () => {
    for (const args of [
      ['--help'],
      ['chat', '--help'],
      ['start', '--help'],
      ['tools', '--json'],
      ['tools', '--json', '--user', 'laoxiao', '--data-dir', dataDir],
      ['user', 'list', '--data-dir', dataDir],
    ]) {
      const compiled = await procura(args);
      const sources = await procura(args, { PROCURA_FROM_SOURCE: '1' });
      expect(compiled.stdout.length, args.join(' ')).toBeGreaterThan(20);
      expect(compiled.stdout, args.join(' ')).toBe(sources.stdout);
    }
    const listed = JSON.parse((await procura(['tools', '--json'])).stdout) as { tools: Array<{ name: string }> };
    expect(listed.tools.length).toBeGreaterThan(5);
  }, 300_000);

  it('runs the sources with tsx, saying so, when it cannot build', async () => {
    const fallback = await procura(['chat', '--help'], { PROCURA_DIST_DIR: '/dev/null/dist' });
    expect(fallback.stderr).toMatch(/running the sources with tsx/);
    expect(fallback.stdout).toBe((await procura(['chat', '--help'])).stdout);
  }, 300_000);

  it('rebuilds when a source it was built from changed', async () => {
    const before = manifest();
    const source = 'src/cli/main.ts';
    expect(before.inputs[source]).toBeDefined();
    // as if the file had been edited since: its recorded size and time no longer match
    fs.writeFileSync(
      path.join(distDir, 'manifest.json'),
      JSON.stringify({ ...before, inputs: { ...before.inputs, [source]: '0:0' } }),
    );
    const after = await procura(['chat', '--help']);
    expect(after.stderr).toMatch(/compiling/);
    expect(after.stdout).toMatch(/--once <message>/);
    expect(manifest().dir).not.toBe(before.dir);
    expect(manifest().inputs[source]).toBe(before.inputs[source]);
  }, 300_000);
});
