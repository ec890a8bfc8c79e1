// Compiles the CLI (src/cli/main.ts and everything it imports) into dist/ as a few ESM chunks, so `procura`
// starts without compiling TypeScript or resolving a thousand module files. Plain JavaScript: bin/procura.js
// runs it on demand, before anything can compile TypeScript.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(import.meta.dirname, '..');
/** Where builds go: dist/ of the checkout, or PROCURA_DIST_DIR (the tests build into a temp dir). */
export const DIST = process.env.PROCURA_DIST_DIR ? path.resolve(process.env.PROCURA_DIST_DIR) : path.join(ROOT, 'dist');
const MANIFEST = path.join(DIST, 'manifest.json');
const LOCK = path.join(DIST, '.build.lock');
const KEPT_BUILDS = 3;

/**
 * Packages loaded from node_modules at run time instead of being bundled: native addons, and packages that
 * read their own files (browser registry, wasm, fonts, map data) or are started as a child process, and the
 * tokenizer's 1 MB ranks, which a run loads only when it counts tokens.
 */
const EXTERNAL = [
  'better-sqlite3',
  'pg-native',
  '@resvg/resvg-js',
  'playwright-core',
  '@antv/mcp-server-chart',
  'echarts',
  'echarts-v4-maps',
  '@jitl/quickjs-ng-wasmfile-release-sync',
  'quickjs-emscripten-core',
  '@expo-google-fonts/noto-sans-sc',
  'esbuild',
  'pino',
  'thread-stream',
  'js-tiktoken',
  // pdf.js loads its worker (pdf.worker.mjs) and font data beside its own module: bundled, it finds neither.
  'pdfjs-dist',
];

const BANNER = [
  "import { createRequire as __procuraRequire } from 'node:module';",
  "import { fileURLToPath as __procuraChunkPath } from 'node:url';",
  'const require = __procuraRequire(import.meta.url);',
  'const __filename = __procuraChunkPath(import.meta.url);',
  "const __dirname = __procuraChunkPath(new URL('.', import.meta.url));",
].join('\n');

/** Files whose change makes a build stale: the sources it read, the dependency lock, and this script. */
const ALWAYS_CHECKED = ['package.json', 'package-lock.json', 'scripts/build-cli.js'];

const stamp = (file) => {
  const stat = fs.statSync(path.join(ROOT, file), { throwIfNoEntry: false });
  return stat ? `${stat.size}:${stat.mtimeMs}` : 'missing';
};

/** The compiled entry when dist/ holds a build of the current sources, else undefined. */
export function freshEntry() {
  let manifest;
  try {
    manifest = JSON.parse(fs.readFileSync(MANIFEST, 'utf8'));
  } catch {
    return undefined;
  }
  for (const [file, expected] of Object.entries(manifest.inputs)) if (stamp(file) !== expected) return undefined;
  const entry = path.join(DIST, manifest.dir, 'main.js');
  return fs.existsSync(entry) ? entry : undefined;
}

/**
 * Our own sources find their assets (skills/, web/dist, YAML configs, fonts) relative to their own file, so in
 * the chunks of `outdir` their `import.meta.url`, `dirname` and `filename` are rewritten to the source file's
 * place in the checkout, computed from the chunk's own location at run time.
 */
const sourceLocations = (outdir) => ({
  name: 'procura-source-locations',
  setup(build) {
    build.onLoad({ filter: /\.tsx?$/ }, async (args) => {
      if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      let code = await fs.promises.readFile(args.path, 'utf8');
      if (/import\.meta\.(url|dirname|filename)\b/.test(code)) {
        const relative = JSON.stringify(path.relative(outdir, args.path).split(path.sep).join('/'));
        const url = `new URL(${relative}, import.meta.url)`;
        code = code
          .replace(/import\.meta\.url\b/g, `${url}.href`)
          .replace(/import\.meta\.filename\b/g, `__procuraFileURLToPath(${url})`)
          .replace(/import\.meta\.dirname\b/g, `__procuraDirname(__procuraFileURLToPath(${url}))`);
        code = `import { fileURLToPath as __procuraFileURLToPath } from 'node:url';\nimport { dirname as __procuraDirname } from 'node:path';\n${code}`;
      }
      return { contents: code, loader: args.path.endsWith('x') ? 'tsx' : 'ts' };
    });
  },
});

/**
 * The chunks are ES modules and import the external packages from the checkout's node_modules; a dist directory
 * outside the checkout gets a link to them.
 */
function prepareDist() {
  fs.mkdirSync(DIST, { recursive: true });
  fs.writeFileSync(path.join(DIST, 'package.json'), '{ "type": "module", "private": true }\n');
  const modules = path.join(DIST, 'node_modules');
  if (path.relative(ROOT, DIST).startsWith('..') && !fs.existsSync(modules))
    fs.symlinkSync(path.join(ROOT, 'node_modules'), modules, 'junction');
}

/** Runs `work` holding dist/.build.lock; a lock older than two minutes is a crashed build and is taken over. */
async function withLock(work) {
  prepareDist();
  for (;;) {
    try {
      fs.closeSync(fs.openSync(LOCK, 'wx'));
      break;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
      const age = Date.now() - (fs.statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs ?? 0);
      if (age > 120_000) fs.rmSync(LOCK, { force: true });
      else await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  try {
    return await work();
  } finally {
    fs.rmSync(LOCK, { force: true });
  }
}

/**
 * Builds dist/<build>/main.js and its chunks, then points dist/manifest.json at it. Concurrent callers wait for
 * one build. The last few builds are kept: a server started from an older one still loads its chunks lazily.
 */
export async function buildCli({ quiet = false } = {}) {
  return withLock(async () => {
    const ready = freshEntry();
    if (ready) return ready;
    const { build } = await import('esbuild');
    const buildStartedAt = Date.now();
    const dir = `build-${buildStartedAt.toString(36)}-${randomBytes(3).toString('hex')}`;
    const started = performance.now();
    const outdir = path.join(DIST, dir);
    const result = await build({
      // `start` is `procura start`'s own module, entered directly by the tests' started stack (bench/eval/stack.ts),
      // so the stack they test is the code `npm start` runs, chunks and asset paths included.
      entryPoints: { main: path.join(ROOT, 'src/cli/main.ts'), start: path.join(ROOT, 'src/cli/commands/start.ts') },
      outdir,
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      external: EXTERNAL,
      // bundled CommonJS packages call require() for Node's own modules and may name their own file
      banner: { js: BANNER },
      plugins: [sourceLocations(outdir)],
      metafile: true,
      logLevel: 'error',
      absWorkingDir: ROOT,
    });
    const sources = Object.keys(result.metafile.inputs).filter((file) => !file.includes('node_modules/'));
    const inputs = Object.fromEntries([...sources, ...ALWAYS_CHECKED].map((file) => [file, stamp(file)]));
    // A source saved while esbuild was reading may not be what it read: leave that input stale, so the next start
    // builds again instead of trusting this build.
    for (const file of sources) {
      const mtime = fs.statSync(path.join(ROOT, file), { throwIfNoEntry: false })?.mtimeMs ?? 0;
      if (mtime >= buildStartedAt) inputs[file] = 'changed during the build';
    }
    const temp = `${MANIFEST}.${process.pid}.tmp`;
    fs.writeFileSync(temp, JSON.stringify({ dir, builtAt: new Date().toISOString(), inputs }, null, 1));
    fs.renameSync(temp, MANIFEST);
    const builds = fs
      .readdirSync(DIST)
      .filter((name) => name.startsWith('build-'))
      .sort((a, b) => fs.statSync(path.join(DIST, b)).mtimeMs - fs.statSync(path.join(DIST, a)).mtimeMs);
    for (const old of builds.slice(KEPT_BUILDS)) fs.rmSync(path.join(DIST, old), { recursive: true, force: true });
    if (!quiet)
      process.stderr.write(
        `procura: 已编译 / compiled ${sources.length} source files → ${path.relative(process.cwd(), outdir)} in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
      );
    return path.join(DIST, dir, 'main.js');
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) await buildCli();
