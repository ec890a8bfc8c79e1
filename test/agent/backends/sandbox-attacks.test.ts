/**
 * The sandbox attacked from inside: escapes to the host (modules, process, network, files out of the workspace,
 * symlinks) and exhaustion (memory, CPU, output, disk). The host here is the test process, standing in for the
 * chat API that runs the agent.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_CODES, Workspaces } from '../../../src/agent/backends/index.ts';
import { tempDir } from './harness.ts';

const MIB = 1024 * 1024;
let dataDir: string;
let workspaces: Workspaces;

beforeAll(() => {
  dataDir = tempDir('procura-sandbox-attacks-');
  workspaces = new Workspaces({
    dataDir,
    limits: { timeoutMs: 4_000, cpuMs: 4_000, memoryBytes: 32 * MIB, outputChars: 10_000 },
    diskQuotaBytes: 2 * MIB,
  });
});
afterAll(async () => {
  await workspaces.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** The sandbox processes of this test process: pid, niceness and environment, from /proc (Linux). */
function sandboxProcesses(): Array<{ pid: number; nice: number; env: string[] }> {
  const found = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) !== process.pid || !cmdline.includes('sandbox-process')) continue;
      const env = fs.readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0').filter(Boolean);
      found.push({ pid: Number(entry), nice: Number(fields[16]), env });
    } catch {
      // the process ended while being read
    }
  }
  return found;
}

/** Largest lag of the host's event loop while `work` runs (a blocked loop shows as one long lag). */
async function hostLagDuring<T>(
  work: () => Promise<T>,
): Promise<{ result: T; maxLagMs: number; rssGrowthMib: number }> {
  const rssBefore = process.memoryUsage().rss;
  let peakRss = rssBefore;
  let last = performance.now();
  let maxLagMs = 0;
  const tick = setInterval(() => {
    const now = performance.now();
    maxLagMs = Math.max(maxLagMs, now - last);
    last = now;
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 10);
  try {
    const result = await work();
    maxLagMs = Math.max(maxLagMs, performance.now() - last);
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
    return { result, maxLagMs, rssGrowthMib: (peakRss - rssBefore) / MIB };
  } finally {
    clearInterval(tick);
  }
}

describe('sandbox escapes', () => {
  it('reaches no host module, process, environment or network from inside', async () => {
    const sandbox = workspaces.sandbox('mallory', 'escape');
    const probes: Array<[string, RegExp]> = [
      [
        'js: console.log(typeof require, typeof process, typeof fetch, typeof WebSocket, typeof XMLHttpRequest)',
        /^undefined undefined undefined undefined undefined$/,
      ],
      ['js: const p = fs.readFile.constructor("return typeof process")(); console.log(p)', /^undefined$/],
      ['js: console.log(typeof globalThis.constructor.constructor("return this")().process)', /^undefined$/],
      ['js: const m = await import("node:child_process"); console.log(m)', /Error/],
      ['js: import * as os from "os"; console.log(os.getenv("PATH"))', /Error/],
      ['js: import * as std from "std"; console.log(std.getenv("DATABASE_URL"))', /Error/],
      [
        'js: console.log(typeof __filename, typeof Deno, typeof Bun, typeof scriptArgs)',
        /^undefined undefined undefined undefined$/,
      ],
    ];
    for (const [command, expected] of probes) {
      const run = await sandbox.execute(command);
      expect(run.output, command).toMatch(expected);
    }
    // The processes scripts run in do not inherit the host's environment (tokens, database URLs).
    const processes = sandboxProcesses();
    expect(processes.length).toBeGreaterThan(0);
    const allowed = ['PATH', 'NODE_CHANNEL_FD', 'NODE_CHANNEL_SERIALIZATION_MODE']; // the last two: Node's own IPC
    for (const p of processes) expect(allowed).toEqual(expect.arrayContaining(p.env.map((e) => e.split('=')[0])));
  });

  it('cannot leave the workspace with .., absolute paths, ~ or NUL bytes', async () => {
    const sandbox = workspaces.sandbox('mallory', 'paths');
    for (const target of ['/../../../../etc/passwd', '../secret', '/data/../../other/x', '/x\u0000.txt']) {
      const read = await sandbox.execute(`js: console.log(await fs.readFile(${JSON.stringify(target)}))`);
      expect(read.exitCode, target).toBe(EXIT_CODES.error);
      expect(read.output, target).not.toMatch(/root:/);
      const written = await sandbox.execute(`js: await fs.writeFile(${JSON.stringify(target)}, "pwned")`);
      expect(written.exitCode, target).toBe(EXIT_CODES.error);
      expect((await sandbox.read(target)).content ?? '').not.toBe('pwned');
      expect((await sandbox.write(target, 'pwned')).error, target).toBeTruthy();
    }
    // `~` is no home directory here but a plain name, and an absolute host path is a workspace path.
    expect((await sandbox.execute('js: await fs.writeFile("~/x", "tilde")')).exitCode).toBe(0);
    expect(fs.readFileSync(path.join(sandbox.rootDir, '~/x'), 'utf8')).toBe('tilde');
    const absolute = await sandbox.execute('js: console.log(await fs.readFile("/etc/passwd"))');
    expect(absolute.output).toMatch(/file not found/);
    expect((await sandbox.execute('js: await fs.writeFile("/etc/passwd", "x")')).exitCode).toBe(0);
    expect(fs.readFileSync(path.join(sandbox.rootDir, 'etc/passwd'), 'utf8')).toBe('x');
    expect(fs.readFileSync('/etc/passwd', 'utf8')).not.toBe('x');
    expect((await sandbox.execute('js: console.log(JSON.stringify(await fs.listDir("/..")))')).output).toBe('[]');
    expect(fs.readdirSync(sandbox.rootDir).sort()).toEqual(['etc', '~']);
    // A NUL inside file text is data, not the end of the string.
    const nul = await sandbox.execute(
      'js: await fs.writeFile("/nul.txt", "ab\\u0000cd"); console.log((await fs.readFile("/nul.txt")).length)',
    );
    expect(nul.output).toBe('5');
    expect(fs.readFileSync(path.join(sandbox.rootDir, 'nul.txt'), 'utf8')).toBe('ab\u0000cd');
  });

  it('never lists symlinks and never follows one out, for the agent or a script', async () => {
    const sandbox = workspaces.sandbox('mallory', 'links');
    const outside = tempDir('procura-outside-');
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'top secret');
    await sandbox.write('/data/own.txt', 'own words');
    fs.symlinkSync(outside, path.join(sandbox.rootDir, 'data', 'linked-dir'));
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(sandbox.rootDir, 'data', 'linked-file.txt'));
    fs.symlinkSync(path.join(sandbox.rootDir, 'data', 'own.txt'), path.join(sandbox.rootDir, 'data', 'inner-link.txt'));
    try {
      const listed = [
        ...((await sandbox.ls('/data')).files ?? []),
        ...((await sandbox.glob('**/*', '/')).files ?? []),
        ...(await sandbox.listFiles()),
      ].map((f) => f.path);
      expect(listed).toContain('/data/own.txt');
      expect(listed.filter((p) => /link/.test(p))).toEqual([]);
      expect((await sandbox.grep('secret', '/')).matches ?? []).toEqual([]);
      expect((await sandbox.grep('own words', '/')).matches?.map((m) => m.path)).toEqual(['/data/own.txt']);

      for (const target of ['/data/linked-dir/secret.txt', '/data/linked-file.txt']) {
        expect((await sandbox.read(target)).content ?? '', target).not.toContain('top secret');
        expect((await sandbox.write(target, 'overwritten')).error, target).toBeTruthy();
        const run = await sandbox.execute(`js: console.log(await fs.readFile(${JSON.stringify(target)}))`);
        expect(run.output).not.toContain('top secret');
        expect(run.exitCode).toBe(EXIT_CODES.error);
        await sandbox.execute(`js: await fs.writeFile(${JSON.stringify(target)}, "overwritten")`);
      }
      expect((await sandbox.execute('js: await fs.writeFile("/data/linked-dir/new.txt", "x")')).exitCode).toBe(
        EXIT_CODES.error,
      );
      const scriptListing = await sandbox.execute('js: console.log(JSON.stringify(await fs.listDir("/data")))');
      expect(JSON.parse(scriptListing.output).map((f: { path: string }) => f.path)).toEqual(['/data/own.txt']);
      expect(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('top secret');
      expect(fs.readdirSync(outside)).toEqual(['secret.txt']);
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });
});

describe('sandbox exhaustion', () => {
  it('stops a memory bomb with a clear error, without growing the host', async () => {
    const sandbox = workspaces.sandbox('mallory', 'memory');
    const { result, rssGrowthMib } = await hostLagDuring(() =>
      sandbox.execute("js: const a=[]; for(;;) a.push('x'.repeat(1e6)+a.length)"),
    );
    expect(result.exitCode).toBe(EXIT_CODES.memory);
    expect(result.output).toMatch(/memory limit exceeded \(32 MiB\)/);
    expect(rssGrowthMib).toBeLessThan(100);
  });

  it('stops an endless loop with a clear error while the host keeps serving', async () => {
    const sandbox = workspaces.sandbox('mallory', 'loop');
    const niceness: number[] = [];
    const watch = setInterval(() => niceness.push(...sandboxProcesses().map((p) => p.nice)), 500);
    const { result, maxLagMs } = await hostLagDuring(() => sandbox.execute('js: for(;;){}'));
    clearInterval(watch);
    // After a moment the looping process runs at the lowest CPU priority, below the host.
    expect(niceness).toContain(19);
    expect(result.exitCode).toBe(EXIT_CODES.timeout);
    expect(result.output).toMatch(/timed out|CPU time limit exceeded/);
    // The loop ran for seconds; the host's event loop was never held for anywhere near that long.
    expect(maxLagMs).toBeLessThan(1_000);
  });

  it('stops a script at its CPU limit before its wall-clock limit', async () => {
    const cpuBound = new Workspaces({ dataDir, limits: { timeoutMs: 20_000, cpuMs: 1_000 } });
    try {
      const run = await cpuBound.sandbox('mallory', 'cpu').execute('js: let i = 0; for(;;) i++');
      expect(run).toMatchObject({
        exitCode: EXIT_CODES.timeout,
        output: 'CPU 时间超出限制 / CPU time limit exceeded (1 s)',
      });
    } finally {
      await cpuBound.close();
    }
  });

  it('caps huge output and says so', async () => {
    const sandbox = workspaces.sandbox('mallory', 'output');
    // 2 MB, 200 times the cap: enough to be cut, little enough to be written well within the time limit on a busy machine.
    const run = await sandbox.execute('js: for (let i = 0; i < 200; i++) console.log("x".repeat(1e4))');
    expect(run.truncated).toBe(true);
    expect(run.output.length).toBeLessThan(10_000 + 100);
    expect(run.output).toMatch(/output truncated$/);
  });

  it('refuses writes over the per-user disk quota with a clear error, writing nothing', async () => {
    const session = workspaces.sandbox('hoarder', 's1');
    // The attack of the report: write as fast as possible until something stops it.
    const flood = await session.execute(
      'js: let i = 0; try { for (;;) await fs.writeFile("/data/f" + i++ + ".txt", "x".repeat(100000)) } catch (e) { console.log(i, e.message) }',
    );
    expect(flood.output).toMatch(/disk quota exceeded, nothing was written/);
    const userDir = path.dirname(session.rootDir);
    const used = () =>
      fs
        .readdirSync(userDir, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .reduce((sum, e) => sum + fs.statSync(path.join(e.parentPath, e.name)).size, 0);
    expect(used()).toBeLessThanOrEqual(2 * MIB);
    const count = Number(flood.output.split(' ')[0]);
    // The refused file does not exist at all, not even half-written.
    expect(fs.existsSync(path.join(session.rootDir, `data/f${count - 1}.txt`))).toBe(false);

    // The quota is the user's, across sessions; the agent's own file tools are held to it too.
    const other = workspaces.sandbox('hoarder', 's2');
    expect((await other.write('/big.txt', 'y'.repeat(300_000))).error).toMatch(/disk quota exceeded/);
    expect(fs.existsSync(path.join(other.rootDir, 'big.txt'))).toBe(false);
    const uploads = await other.uploadFiles([
      ['/a.txt', new Uint8Array(10)],
      ['/b.txt', new Uint8Array(300_000)],
    ]);
    expect(uploads.map((u) => u.error)).toEqual(['permission_denied', 'permission_denied']);
    expect(fs.existsSync(path.join(other.rootDir, 'a.txt'))).toBe(false);
    expect((await session.edit('/data/f0.txt', 'x', 'yy', true)).error).toMatch(/disk quota exceeded/);
    expect(fs.readFileSync(path.join(session.rootDir, 'data/f0.txt'), 'utf8')).toBe('x'.repeat(100_000));
    // Shrinking and same-size rewrites still work when full; another user is not affected.
    expect((await session.execute('js: await fs.writeFile("/data/f0.txt", "small")')).exitCode).toBe(0);
    expect(
      (await workspaces.sandbox('someone-else', 's1').write('/big.txt', 'y'.repeat(300_000))).error,
    ).toBeUndefined();
  });

  it('writes nothing for a script once it was stopped, and its queued writes hold up no later run', async () => {
    const session = workspaces.sandbox('flooder', 's1');
    // Thousands of writes queued without waiting, then a loop until the time limit stops the script.
    const run = await session.execute(
      'js: for (let i = 0; i < 3000; i++) fs.writeFile("/q" + i + ".txt", "x"); for (;;) {}',
    );
    expect(run.exitCode).toBe(EXIT_CODES.timeout);
    const files = () => fs.readdirSync(session.rootDir).length;
    const atEnd = files();
    const next = await session.execute('js: await fs.writeFile("/after.txt", "ok"); console.log("ok")');
    expect(next).toMatchObject({ output: 'ok', exitCode: 0 });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(files()).toBe(atEnd + 1);
  });

  it('holds the quota when many writes race', async () => {
    const sandbox = workspaces.sandbox('racer', 's1');
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => sandbox.write(`/r${i}.txt`, 'z'.repeat(400_000))),
    );
    const written = results.filter((r) => !r.error).length;
    expect(written).toBe(Math.floor((2 * MIB) / 400_000));
    expect(fs.readdirSync(sandbox.rootDir)).toHaveLength(written);
  });

  it("runs another user's script to completion while one is being stopped", async () => {
    // Limits long enough that the neighbour's script clearly runs while the attacker's are still going.
    const shared = new Workspaces({
      dataDir,
      limits: { timeoutMs: 10_000, cpuMs: 10_000, memoryBytes: 32 * MIB },
      pool: { spares: 3 },
    });
    try {
      const attacker = shared.sandbox('mallory', 'concurrent');
      const neighbour = shared.sandbox('laoxiao', 'concurrent');
      // Three booted processes, so no one below waits for a process start.
      await Promise.all([1, 2, 3].map(() => neighbour.execute('js: 1')));
      const order: string[] = [];
      const track = (name: string, run: Promise<{ exitCode: number | null; output: string }>) =>
        run.then((r) => {
          order.push(name);
          return r;
        });
      const loop = track('loop', attacker.execute('js: for(;;){}'));
      const bomb = track('bomb', attacker.execute("js: const a=[]; for(;;) a.push('x'.repeat(1e6)+a.length)"));
      const work = track(
        'neighbour',
        neighbour.execute(
          'js: let sum = 0; for (let i = 0; i < 20; i++) { await fs.writeFile("/n" + i + ".txt", String(i)); sum += Number(await fs.readFile("/n" + i + ".txt")) } console.log(sum)',
        ),
      );
      const [looped, bombed, done] = await Promise.all([loop, bomb, work]);
      expect(done).toMatchObject({ exitCode: 0, output: '190' });
      expect(looped.exitCode).toBe(EXIT_CODES.timeout);
      expect(bombed.exitCode).toBe(EXIT_CODES.memory);
      expect(order.indexOf('neighbour')).toBeLessThan(order.indexOf('loop'));
      // The attacker's sandbox still works afterwards.
      expect(await attacker.execute('js: console.log("ok")')).toMatchObject({ exitCode: 0, output: 'ok' });
    } finally {
      await shared.close();
    }
  });
});
