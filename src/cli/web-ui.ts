import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { childEnv } from '../shared/index.ts';

/** The browser UI's sources; `vite build` writes it to `dist/` inside, which the chat API serves. */
export const WEB_ROOT = path.resolve(import.meta.dirname, '../../web');

/**
 * Builds the browser UI when `<webRoot>/dist/index.html` is missing (a fresh checkout), showing Vite's
 * progress on stderr. Answers whether it had to build.
 */
export async function ensureWebUi(webRoot = WEB_ROOT, log: (line: string) => void = console.error): Promise<boolean> {
  if (fs.existsSync(path.join(webRoot, 'dist', 'index.html'))) return false;
  let vite: string;
  try {
    vite = path.join(
      path.dirname(createRequire(path.join(webRoot, 'package.json')).resolve('vite/package.json')),
      'bin/vite.js',
    );
  } catch {
    throw new Error(
      '网页尚未构建且未安装 vite / the browser UI is not built and vite is not installed: run `npm install` (with dev dependencies), then `npm run build:web`',
    );
  }
  log('正在构建网页 / building the browser UI (web/dist, once) …');
  const started = performance.now();
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, [vite, 'build', '--config', path.join(webRoot, 'vite.config.ts')], {
      cwd: webRoot,
      env: childEnv({ NODE_ENV: process.env.NODE_ENV }),
      // Vite's progress goes to stderr: stdout carries what the command itself reports
      stdio: ['ignore', 2, 2],
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`网页构建失败 / building the browser UI failed (vite exit ${code})`)),
    );
  });
  log(`网页已构建 / browser UI built in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return true;
}
