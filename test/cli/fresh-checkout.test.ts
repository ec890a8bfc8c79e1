import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/tools/charts/index.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** A checkout of the current tree as git would give it (no dist/, no web/dist, no data/), sharing node_modules. */
function freshCheckout(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-checkout-'));
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: ROOT })
    .toString()
    .split('\0')
    .filter((file) => file && fs.existsSync(path.join(ROOT, file)));
  for (const file of files) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, file), path.join(dir, file));
  }
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'junction');
  return dir;
}

describe('npx procura start on a fresh checkout', () => {
  let checkout: string;
  let child: ChildProcess | undefined;
  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    if (checkout) fs.rmSync(checkout, { recursive: true, force: true });
  });

  it('compiles itself, builds the browser UI with progress, starts every part and serves the UI at /', async () => {
    checkout = freshCheckout();
    expect(fs.existsSync(path.join(checkout, 'web/dist'))).toBe(false);
    expect(fs.existsSync(path.join(checkout, 'dist'))).toBe(false);
    const ports: Record<string, string> = {};
    for (const name of ['ERP_PORT', 'SUPPLIERS_PORT', 'CHARTS_PORT', 'CHART_MCP_PORT', 'ERP_MCP_PORT', 'API_PORT'])
      ports[name] = String(await freePort());
    const dataDir = path.join(checkout, 'data');
    child = spawn(process.execPath, ['bin/procura.js', 'start', '--data-dir', dataDir], {
      cwd: checkout,
      env: {
        ...process.env,
        ...ports,
        DATABASE_URL: '',
        REDIS_URL: '',
        DEEPSEEK_API_KEY: '',
        OPENAI_API_KEY: '',
        OPENAI_BASE_URL: '',
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout?.on('data', (d) => {
      output += d;
    });
    child.stderr?.on('data', (d) => {
      output += d;
    });
    const deadline = Date.now() + 400_000;
    while (!output.includes('Ctrl-C to stop')) {
      if (child.exitCode !== null) throw new Error(`procura start exited (${child.exitCode}):\n${output.slice(-3000)}`);
      if (Date.now() > deadline) throw new Error(`procura start did not get ready:\n${output.slice(-3000)}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    // it compiled itself into the checkout's dist/ and built the UI, saying so
    expect(output).toMatch(/compiling the CLI/);
    expect(fs.existsSync(path.join(checkout, 'dist/manifest.json'))).toBe(true);
    expect(output).toMatch(/building the browser UI/);
    expect(output).toMatch(/browser UI built in/);
    // every part is reported with the time it took
    for (const part of ['ERP', 'ERP MCP', 'Supplier sites', 'Chart renderer', 'Chart MCP', 'Chat API + UI', 'Agent'])
      expect(output).toMatch(new RegExp(`\\n  ${part.replace(/[+]/g, '\\+')} +\\d+\\.\\d\\d · +\\d+\\.\\d\\d\\n`));
    expect(output).toMatch(/demo tokens:\n {2}laoxiao +pk_/);

    const page = await fetch(`http://127.0.0.1:${ports.API_PORT}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await page.text()).toContain('<div id="root">');
    // the chart renderer draws only with its token, which the start-up report does not show
    expect((await fetch(`http://127.0.0.1:${ports.CHARTS_PORT}/api/gpt-vis`, { method: 'POST' })).status).toBe(404);
    expect(output).toContain('/<token>/api/gpt-vis');
  }, 480_000);
});
