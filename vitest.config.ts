import { transform } from 'esbuild';
import { defineConfig, type Plugin } from 'vitest/config';

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

export default defineConfig({
  plugins: [standardDecorators()],
  test: {
    include: ['*.test.ts', 'src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // A browser or a started stack on a busy 2-core machine can take seconds to show a change; the library's 1 s
    // default for expect.poll made assertions fail that would have passed a moment later.
    expect: { poll: { timeout: 10_000 } },
  },
});
