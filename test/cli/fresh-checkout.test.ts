import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type RunningProcura, startProcura } from '../ui/procura.ts';

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
  let procura: RunningProcura | undefined;
  afterAll(async () => {
    await procura?.close();
    if (checkout) fs.rmSync(checkout, { recursive: true, force: true });
  });

  it('compiles itself, builds the browser UI with progress, starts every part and serves the UI at /', async () => {
    checkout = freshCheckout();
    expect(fs.existsSync(path.join(checkout, 'web/dist'))).toBe(false);
    expect(fs.existsSync(path.join(checkout, 'dist'))).toBe(false);
    procura = await startProcura(400_000, {}, checkout);
    const deadline = Date.now() + 120_000;
    while (!procura.output().includes('Ctrl-C to stop')) {
      if (Date.now() > deadline) throw new Error(`no start-up report:\n${procura.output().slice(-3000)}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const output = procura.output();
    // it compiled itself into the checkout's dist/ and built the UI, saying so
    expect(output).toMatch(/compiling the CLI/);
    expect(fs.existsSync(path.join(checkout, 'dist/manifest.json'))).toBe(true);
    expect(output).toMatch(/building the browser UI/);
    expect(output).toMatch(/browser UI built in/);
    // every part is reported with the time it took
    for (const part of ['ERP', 'ERP MCP', 'Supplier sites', 'Chart renderer', 'Chart MCP', 'Chat API + UI', 'Agent'])
      expect(output).toMatch(new RegExp(`\\n  ${part.replace(/[+]/g, '\\+')} +\\d+\\.\\d\\d · +\\d+\\.\\d\\d\\n`));
    expect(output).toMatch(/demo tokens:\n {2}laoxiao +pk_/);

    const page = await fetch(`${procura.apiUrl}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await page.text()).toContain('<div id="root">');
    // the chart renderer draws only with its token, which the start-up report does not show
    const renderer = output.match(/Chart renderer +(http:\/\/127\.0\.0\.1:\d+)\/<token>\/api\/gpt-vis/)?.[1];
    expect(renderer).toBeDefined();
    expect((await fetch(`${renderer}/api/gpt-vis`, { method: 'POST' })).status).toBe(404);
  }, 600_000);
});
