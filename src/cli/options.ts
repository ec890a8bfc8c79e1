import type { Command } from 'commander';
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
