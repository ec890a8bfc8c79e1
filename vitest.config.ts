import { transform } from 'esbuild';
import { configDefaults, defineConfig, type Plugin } from 'vitest/config';

/** Vite's default TypeScript transform (oxc) does not lower TC39 standard decorators yet;
 *  esbuild (also what `tsx` uses at run time) does, so decorated files go through it. */
function standardDecorators(): Plugin {
  return {
    name: 'procura:standard-decorators',
    enforce: 'pre',
    async transform(code, id) {
      if (!id.endsWith('.ts') || !/(^|[\s{;])@[A-Za-z_$][\w$.]*\s*[(\n]/m.test(code)) return null;
      const out = await transform(code, { loader: 'ts', target: 'es2022', sourcemap: true, sourcefile: id });
      return { code: out.code, map: out.map };
    },
  };
}

const ALL = ['*.test.ts', 'src/**/*.test.ts', 'test/**/*.test.ts'];
/** Files that judge what happens within a time (a browser reconnecting with backoff; one user's script finishing
 *  while another's runs into its CPU and wall-clock limits; a run kept alive by progress under an inactivity limit): they run after the others, alone, so another file's
 *  load cannot stretch the timing they judge. */
const ALONE = ['test/ui/reconnect.test.ts', 'test/agent/backends/sandbox-attacks.test.ts', 'test/api/progress.test.ts'];

export default defineConfig({
  plugins: [standardDecorators()],
  test: {
    // The browser UI is built once for the run, before any file starts, so no file rebuilds it under another.
    globalSetup: ['test/ui/build-once.ts'],
    // Two files at a time on a 2-core machine: most files wait on sockets, a browser or a child process.
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ALL,
          exclude: [...configDefaults.exclude, ...ALONE],
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      { extends: true, test: { name: 'alone', include: ALONE, maxWorkers: 1, sequence: { groupOrder: 1 } } },
    ],
    // Every JSON answer of the chat API is held to the schema its OpenAPI document publishes (src/api/openapi.ts).
    env: { PROCURA_CHECK_RESPONSES: '1' },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // A browser or a started stack on a busy 2-core machine can take seconds to show a change; the library's 1 s
    // default for expect.poll made assertions fail that would have passed a moment later.
    expect: { poll: { timeout: 10_000 } },
  },
});
