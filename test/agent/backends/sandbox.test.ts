import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_CODES, type QuickJsSandbox, Workspaces } from '../../../src/agent/backends/index.ts';
import { ProblemError } from '../../../src/shared/index.ts';
import { tempDir } from './harness.ts';

let dataDir: string;
let sandbox: QuickJsSandbox;

beforeAll(() => {
  dataDir = tempDir('procura-sandbox-');
  sandbox = new Workspaces({ dataDir, limits: { timeoutMs: 1500, memoryBytes: 32 * 1024 * 1024 } }).sandbox(
    'laoxiao',
    'session-1',
  );
});
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe('QuickJsSandbox files', () => {
  it('keeps a session workspace under <dataDir>/workspaces/<user>/<session>/', async () => {
    expect(sandbox.rootDir).toBe(path.join(dataDir, 'workspaces', 'laoxiao', 'session-1'));
    expect(await sandbox.write('/data/prices.csv', 'part,price\nF7TC,12.5\n')).toMatchObject({
      path: '/data/prices.csv',
    });
    expect(fs.readFileSync(path.join(sandbox.rootDir, 'data/prices.csv'), 'utf8')).toContain('F7TC');
    expect((await sandbox.read('/data/prices.csv')).content).toContain('F7TC,12.5');
    expect(await sandbox.edit('/data/prices.csv', '12.5', '13.0')).toMatchObject({ occurrences: 1 });
    expect((await sandbox.ls('/data')).files?.map((f) => f.path)).toEqual(['/data/prices.csv']);
    expect((await sandbox.grep('F7TC', '/')).matches?.[0]).toMatchObject({ path: '/data/prices.csv', line: 2 });
  });

  it('refuses paths that leave the workspace: .., ~, and symlinks pointing out', async () => {
    const outside = tempDir('procura-outside-');
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'top secret');
    fs.symlinkSync(outside, path.join(sandbox.rootDir, 'escape'));
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(sandbox.rootDir, 'secret-link.txt'));

    expect((await sandbox.read('/../../../etc/passwd')).error).toBeTruthy();
    expect((await sandbox.read('~/x')).error).toBeTruthy();
    expect((await sandbox.readRaw('/../x')).error).toBeTruthy();
    expect((await sandbox.write('/../evil.txt', 'x')).error).toBeTruthy();
    expect((await sandbox.read('/escape/secret.txt')).error).toBeTruthy();
    expect((await sandbox.read('/secret-link.txt')).error).toBeTruthy();
    expect((await sandbox.write('/escape/new.txt', 'x')).error).toBeTruthy();
    expect((await sandbox.downloadFiles(['/escape/secret.txt']))[0]?.error).toBe('invalid_path');
    expect(fs.existsSync(path.join(outside, 'new.txt'))).toBe(false);
    expect(fs.existsSync(path.join(path.dirname(sandbox.rootDir), 'evil.txt'))).toBe(false);

    const run = await sandbox.execute('js: console.log(await fs.readFile("/escape/secret.txt"))');
    expect(run.exitCode).toBe(EXIT_CODES.error);
    expect(run.output).not.toContain('top secret');
    expect(run.output).toMatch(/path not allowed/);
    fs.rmSync(path.join(sandbox.rootDir, 'escape'));
    fs.rmSync(path.join(sandbox.rootDir, 'secret-link.txt'));
    fs.rmSync(outside, { recursive: true, force: true });
  });

  it('hands a workspace file to the user and lists the session files', async () => {
    await sandbox.write('/analysis/report_20260101.md', '# 报告');
    const file = await sandbox.downloadFile('/analysis/report_20260101.md');
    expect(new TextDecoder().decode(file.content)).toBe('# 报告');
    await expect(sandbox.downloadFile('/analysis/missing.md')).rejects.toMatchObject({ status: 404 });
    await expect(sandbox.downloadFile('/../../agent-store.sqlite')).rejects.toBeInstanceOf(ProblemError);
    await expect(sandbox.downloadFile('/../../agent-store.sqlite')).rejects.toMatchObject({ status: 400 });
    const listed = (await sandbox.listFiles()).map((f) => f.path);
    expect(listed).toEqual(expect.arrayContaining(['/analysis/report_20260101.md', '/data/prices.csv']));
  });

  it('gives each user and session its own directory, with ids that cannot collide or escape', () => {
    const workspaces = new Workspaces({ dataDir });
    const roots = ['u1', 'u1/../u2', 'u_1', 'u.1', '王'].map((user) => workspaces.sandbox(user, 's').rootDir);
    expect(new Set(roots).size).toBe(roots.length);
    for (const root of roots) expect(root.startsWith(path.join(dataDir, 'workspaces') + path.sep)).toBe(true);
    expect(() => workspaces.sandbox('', 's')).toThrow();
  });
});

describe('QuickJsSandbox execute', () => {
  it('runs an analysis script that reads workspace data and writes /data/analysis_result.json', async () => {
    const rows = ['supplier,part,price', '博世,F7TC,12.5', '博世,F7TC,13.5', 'NGK,F7TC,11.0', 'NGK,F7TC,12.0'];
    await sandbox.write('/data/quotes.csv', rows.join('\n'));
    await sandbox.write(
      '/analysis/analyze.ts',
      `interface Quote { supplier: string; price: number }
const [, ...lines] = (await fs.readFile('/data/quotes.csv')).trim().split('\\n');
const quotes: Quote[] = lines.map((l) => { const [supplier, , price] = l.split(','); return { supplier, price: Number(price) }; });
const bySupplier: Record<string, number[]> = {};
for (const q of quotes) (bySupplier[q.supplier] ??= []).push(q.price);
const result = Object.entries(bySupplier).map(([supplier, prices]) => ({
  supplier, average: prices.reduce((a, b) => a + b, 0) / prices.length, quotes: prices.length,
})).sort((a, b) => a.average - b.average);
await fs.writeFile('/data/analysis_result.json', JSON.stringify({ generatedAt: new Date(0).toISOString(), result }, null, 2));
console.log('cheapest:', result[0].supplier, Math.round(result[0].average * 10) / 10);`,
    );
    const run = await sandbox.execute('tsx /analysis/analyze.ts');
    expect(run).toMatchObject({ exitCode: 0, truncated: false });
    expect(run.output).toBe('cheapest: NGK 11.5');
    const written = JSON.parse(fs.readFileSync(path.join(sandbox.rootDir, 'data/analysis_result.json'), 'utf8'));
    expect(written.result).toEqual([
      { supplier: 'NGK', average: 11.5, quotes: 2 },
      { supplier: '博世', average: 13, quotes: 2 },
    ]);
  });

  it('runs inline JavaScript with JSON, Math, Date and a directory listing', async () => {
    const run = await sandbox.execute(
      'js:\nconst files = await fs.listDir("/data");\nconsole.log(files.some((f) => f.path === "/data/quotes.csv"), JSON.stringify({m: Math.max(1, 2)}), typeof Date.now());\nconsole.error({ nested: [1, 2] });',
    );
    expect(run.exitCode).toBe(0);
    expect(run.output).toBe('true {"m":2} number\n{ nested: [ 1, 2 ] }');
  });

  it('offers no require, import, fetch or process', async () => {
    const probe = await sandbox.execute(
      'js: console.log(typeof require, typeof fetch, typeof process, typeof globalThis.XMLHttpRequest)',
    );
    expect(probe.output).toBe('undefined undefined undefined undefined');
    const required = await sandbox.execute('js: require("fs")');
    expect(required.exitCode).toBe(EXIT_CODES.error);
    expect(required.output).toMatch(/ReferenceError: .*require/);
    const imported = await sandbox.execute('js: import fs from "node:fs"; console.log(fs)');
    expect(imported.exitCode).toBe(EXIT_CODES.error);
    const fetched = await sandbox.execute('js: await fetch("http://127.0.0.1/")');
    expect(fetched.output).toMatch(/ReferenceError: .*fetch/);
    const processed = await sandbox.execute('js: process.exit(0)');
    expect(processed.output).toMatch(/ReferenceError: .*process/);
  });

  it('stops an infinite loop at the time limit with exit code 124', async () => {
    const run = await sandbox.execute('js: let i = 0; while (true) { i++ }');
    expect(run.exitCode).toBe(EXIT_CODES.timeout);
    expect(run.output).toMatch(/timed out/);
    const swallowed = await sandbox.execute('js: while (true) { try { for(;;){} } catch { console.log("caught") } }');
    expect(swallowed.exitCode).toBe(EXIT_CODES.timeout);
    const hanging = await sandbox.execute('js: await new Promise(() => {})');
    expect(hanging.exitCode).toBe(EXIT_CODES.timeout);
  });

  it('stops a memory bomb with exit code 137', async () => {
    // A generous time limit, so only the memory limit can end these runs.
    const sandbox = new Workspaces({ dataDir, limits: { timeoutMs: 20_000, memoryBytes: 32 * 1024 * 1024 } }).sandbox(
      'laoxiao',
      'session-1',
    );
    const big = await sandbox.execute('js: const a = new Array(1e8).fill(0); console.log(a.length)');
    expect(big.exitCode).toBe(EXIT_CODES.memory);
    expect(big.output).toMatch(/memory limit exceeded \(32 MiB\)/);
    const growing = await sandbox.execute('js: const a = []; while (true) a.push(new Array(1000).fill(a.length))');
    expect(growing.exitCode).toBe(EXIT_CODES.memory);
    const strings = await sandbox.execute('js: const a = []; for (let i = 0; ; i++) a.push({ i, label: "part-" + i })');
    expect(strings.exitCode).toBe(EXIT_CODES.memory);
  });

  it('reports syntax errors, exceptions and stack overflow as failed runs, and the next run still works', async () => {
    const syntax = await sandbox.execute('js: let x = ;');
    expect(syntax).toMatchObject({ exitCode: EXIT_CODES.error });
    expect(syntax.output).toMatch(/SyntaxError/);
    const tsSyntax = await sandbox.execute('ts: const x: number = ;');
    expect(tsSyntax.output).toMatch(/SyntaxError: .*\/inline\.ts:1:/);
    const thrown = await sandbox.execute('js: console.log("before"); throw new TypeError("boom")');
    expect(thrown.exitCode).toBe(EXIT_CODES.error);
    expect(thrown.output).toMatch(/^before\nTypeError: boom/);
    const recursion = await sandbox.execute('js: function f() { return f() + 1 } f()');
    expect(recursion.exitCode).toBe(EXIT_CODES.error);
    expect(recursion.output).toMatch(/stack overflow/);
    expect(await sandbox.execute('js: console.log("still fine")')).toMatchObject({ exitCode: 0, output: 'still fine' });
  });

  it('answers unknown commands, missing scripts and non-string writes with guidance', async () => {
    const shell = await sandbox.execute('python analyze.py');
    expect(shell.exitCode).toBe(EXIT_CODES.unknownCommand);
    expect(shell.output).toMatch(/node \/analysis\/analyze\.js/);
    const missing = await sandbox.execute('node /analysis/missing.js');
    expect(missing).toMatchObject({ exitCode: EXIT_CODES.usage });
    expect(missing.output).toMatch(/file not found/);
    const notText = await sandbox.execute('js: await fs.writeFile("/x.json", { a: 1 })');
    expect(notText.output).toMatch(/JSON\.stringify/);
  });

  it('caps the captured output and marks the response truncated', async () => {
    const small = new Workspaces({ dataDir, limits: { outputChars: 100 } }).sandbox('laoxiao', 'session-1');
    const run = await small.execute('js: for (let i = 0; i < 100; i++) console.log("line " + i)');
    expect(run).toMatchObject({ exitCode: 0, truncated: true });
    expect(run.output.length).toBeLessThan(200);
  });
});
