import type { ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * What a child process may see of this one's environment: what running needs (the program path, the home and temp
 * folders, locale and time zone, fonts), never this process's secrets (model keys, tokens, database URLs). A child
 * gets these plus the variables it is given by name.
 */
const INHERITED = [
  'PATH',
  'HOME',
  'TMPDIR',
  'TMP',
  'TEMP',
  'LANG',
  'LANGUAGE',
  'LC_ALL',
  'LC_CTYPE',
  'TZ',
  'XDG_RUNTIME_DIR',
  'XDG_CACHE_HOME',
  'XDG_CONFIG_HOME',
  'FONTCONFIG_PATH',
  'FONTCONFIG_FILE',
  'SYSTEMROOT',
] as const;

/** The environment of a child process: the inherited basics (or only `inherit`) and `extra`, nothing else. */
export function childEnv(
  extra: Record<string, string | undefined> = {},
  inherit: readonly string[] = INHERITED,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of inherit) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  for (const [name, value] of Object.entries(extra)) if (value !== undefined) env[name] = value;
  return env;
}

/**
 * Node arguments that run the module `name` beside the caller (`import.meta.url`): `name.ts` with the TypeScript
 * loader when running from the sources, `name.js` in the compiled build.
 */
export function nodeScript(callerUrl: string, name: string): string[] {
  const here = fileURLToPath(callerUrl);
  const extension = path.extname(here);
  const entry = path.join(path.dirname(here), `${name}${extension}`);
  const loader = extension === '.ts' ? ['--import', pathToFileURL(createRequire(callerUrl).resolve('tsx')).href] : [];
  return [...loader, entry];
}

/** A pooled child process that is idle must not keep the host alive; one at work must. */
export function setIdle(child: ChildProcess, idle: boolean): void {
  const channel = child.channel as { ref(): void; unref(): void } | null | undefined;
  if (idle) {
    child.unref();
    channel?.unref();
  } else {
    child.ref();
    channel?.ref();
  }
}
