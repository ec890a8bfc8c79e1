import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { ChatClient } from '../protocol/index.ts';
import { loadSettings, type Settings } from '../shared/index.ts';

/** Adds the options every serving command shares. */
export function withCommonOptions(command: Command): Command {
  return command
    .option('--data-dir <dir>', 'data directory (SQLite files, tokens, charts) / 数据目录', undefined)
    .option('--host <host>', 'interface to listen on / 监听地址', undefined);
}

/** Settings from the environment, overridden by the command's flags. */
export function settingsFrom(
  opts: Record<string, unknown>,
  extra: Partial<Record<keyof Settings, unknown>> = {},
): Settings {
  return loadSettings({ dataDir: opts.dataDir, host: opts.host, ...extra });
}

/** A host as it appears in a URL (IPv6 in brackets). */
export const urlHost = (host: string) => (host.includes(':') ? `[${host}]` : host);

/** Stops the given closers on Ctrl-C / SIGTERM, then exits. */
export function closeOnSignal(...closers: Array<() => Promise<void>>): void {
  let closing = false;
  const stop = async () => {
    if (closing) process.exit(1);
    closing = true;
    for (const close of closers.reverse()) await close().catch(() => undefined);
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/** The API token: `--token`, else `PROCURA_TOKEN`, else the first demo user's token of an embedded data dir. */
function resolveToken(opts: { token?: string }, dataDir: string): string {
  const token = opts.token ?? process.env.PROCURA_TOKEN;
  if (token) return token;
  const file = path.join(dataDir, 'demo-tokens.json');
  if (fs.existsSync(file)) {
    const demo = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, string>;
    const first = Object.values(demo)[0];
    if (first) return first;
  }
  throw new Error('需要 API 令牌：--token 或 PROCURA_TOKEN / an API token is needed: --token or PROCURA_TOKEN');
}

/**
 * A client of the chat API as the user: `--url` (else `PROCURA_API_URL`, else the API port of the settings) and the
 * user's token (see `resolveToken`). The commands that reach the API (`chat`, `rfq`) take the same options.
 */
export function chatApiClient(opts: Record<string, unknown> & { url?: string; token?: string }): {
  client: ChatClient;
  url: string;
} {
  const settings = settingsFrom(opts);
  const url = opts.url ?? process.env.PROCURA_API_URL ?? `http://${urlHost(settings.host)}:${settings.apiPort}`;
  if (!/^https?:\/\/[^\s]+$/.test(url)) throw new Error(`--url 无效 / invalid --url: ${url}`);
  return { client: new ChatClient(url, resolveToken(opts, settings.dataDir)), url };
}

/** Adds the options of a command that reaches the chat API as the user. */
export function withApiOptions(command: Command): Command {
  return command
    .option('--url <url>', 'chat API address (default PROCURA_API_URL or http://<host>:<API_PORT>)')
    .option('--token <token>', 'API token (default PROCURA_TOKEN, or the demo user of --data-dir)')
    .option('--data-dir <dir>', 'data directory holding demo-tokens.json')
    .option('--host <host>', 'API host when --url is not given');
}
