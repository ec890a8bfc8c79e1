import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';

const BIN = path.resolve(import.meta.dirname, '../../bin/procura.js');

export interface ApiProcess {
  url: string;
  child: ChildProcess;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
  /** SIGKILL: no shutdown code runs. */
  kill(): Promise<void>;
}

/** `procura api` as its own process on an ephemeral port, on the offline model, with the given environment. */
export async function spawnApi(
  dataDir: string,
  urls: { erp: string; suppliers: string; chartMcp: string },
  env: NodeJS.ProcessEnv = {},
): Promise<ApiProcess> {
  const child = spawn(
    process.execPath,
    [
      BIN,
      'api',
      '--port',
      '0',
      '--data-dir',
      dataDir,
      '--erp-url',
      urls.erp,
      '--suppliers-url',
      urls.suppliers,
      '--chart-mcp-url',
      urls.chartMcp,
    ],
    {
      env: { ...process.env, DEEPSEEK_API_KEY: '', OPENAI_BASE_URL: '', LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`procura api did not start: ${stderr}`)), 60_000);
    let out = '';
    child.stdout?.on('data', (chunk) => {
      out += chunk;
      const match = /Chat API\s+(http:\/\/\S+)\/api\/v1/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`procura api exited (${code}): ${stderr}`)));
  });
  const end = (signal: NodeJS.Signals) =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill(signal);
    });
  return { url, child, stop: () => end('SIGTERM'), kill: () => end('SIGKILL') };
}
