import fs from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';

/** A file or package a chunk of the compiled build opens at run time, and the path it resolves to from the chunk. */
export interface BuildReference {
  chunk: string;
  /** As the chunk names it: `./pdf.worker.mjs`, `better-sqlite3`, … */
  named: string;
  /** Where it resolves from the chunk's own directory; undefined when it resolves nowhere. */
  resolved?: string;
}

const relativeFile = /(["'`])(\.{1,2}\/[^"'`\s${}]*\.[A-Za-z0-9]{1,6})\1/g;
const urlOfChunk = /new URL\((["'`])([^"'`]+)\1,import\.meta\.url\)/g;
const urlBesideSource = /new URL\((["'`])([^"'`]+)\1,new URL\((["'`])([^"'`]+)\3,import\.meta\.url\)\.href\)/g;
const besideChunkDir = /\.(?:join|resolve)\(__dirname,((?:(["'`])[^"'`]*\2,?)+)\)/g;
/** `import"x"`, `import{a}from"x"`, `import*as a from"x"` and `import("x")` of a package, as the minified chunk has them. */
const packageImport = /(?:^|[;\n])import\s*(?:[\w$\s{},*]*?\bfrom\s*)?["']([^"']+)["']|\bimport\(["']([^"']+)["']\)/g;
const packageSpecifier = /^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*(\/[\w.@-]+)*$/;

/** The package a bare specifier names (`@scope/name/sub` → `@scope/name`). */
const packageName = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

/** Where Node finds a package from `dir`: the first node_modules up the tree holding it. */
function packageDir(dir: string, name: string): string | undefined {
  for (let at = dir; ; at = path.dirname(at)) {
    const candidate = path.join(at, 'node_modules', name);
    if (fs.existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (path.dirname(at) === at) return undefined;
  }
}

const existing = (file: string) => (fs.existsSync(file) ? file : undefined);

/** What Procura ships: a package it lists may be loaded lazily, yet must be there (a bundled library's optional
 *  `import('ws').catch(…)` of a package nobody installed is not). */
const shipped = new Set(
  Object.keys(
    (
      JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../package.json'), 'utf8')) as {
        dependencies: Record<string, string>;
      }
    ).dependencies,
  ),
);

/**
 * Every file and package the chunks of a build in `buildDir` name for loading at run time, each resolved as Node
 * resolves it from the chunk: relative file names (pdf.js's `./pdf.worker.mjs`, lazily imported chunks),
 * `new URL(…, import.meta.url)`, `path.join(__dirname, …)` of bundled packages, the packages imported statically (the
 * externals left in node_modules) and those of Procura's dependencies imported lazily. Comments are dropped first: a
 * JSDoc `import('./x.js')` loads nothing.
 */
export async function buildReferences(buildDir: string): Promise<BuildReference[]> {
  const references: BuildReference[] = [];
  const chunks = fs.readdirSync(buildDir).filter((name) => /\.m?js$/.test(name));
  // esbuild reads the chunks side by side, on every core.
  const minified = await Promise.all(
    chunks.map((chunk) =>
      transform(fs.readFileSync(path.join(buildDir, chunk), 'utf8'), {
        format: 'esm',
        minifyWhitespace: true,
        legalComments: 'none',
      }),
    ),
  );
  for (const [index, { code }] of minified.entries()) {
    const chunk = chunks[index];
    const file = path.join(buildDir, chunk);
    const chunkUrl = new URL(`file://${file}`);
    const add = (named: string, resolved: string | undefined) => references.push({ chunk, named, resolved });
    for (const [, , named] of code.matchAll(relativeFile)) add(named, existing(path.resolve(buildDir, named)));
    for (const [, , named] of code.matchAll(urlOfChunk)) add(named, existing(fileURLToPath(new URL(named, chunkUrl))));
    for (const [, , named, , source] of code.matchAll(urlBesideSource))
      add(named, existing(fileURLToPath(new URL(named, new URL(source, chunkUrl)))));
    for (const [, segments] of code.matchAll(besideChunkDir)) {
      const parts = [...segments.matchAll(/(["'`])([^"'`]*)\1/g)].map((m) => m[2]);
      add(parts.join('/'), existing(path.join(buildDir, ...parts)));
    }
    for (const [, imported, loaded] of code.matchAll(packageImport)) {
      const specifier = imported ?? loaded;
      if (!packageSpecifier.test(specifier) || builtinModules.includes(packageName(specifier))) continue;
      if (loaded && !shipped.has(packageName(specifier))) continue;
      add(specifier, packageDir(buildDir, packageName(specifier)));
    }
  }
  return [...new Map(references.map((r) => [`${r.chunk} ${r.named}`, r])).values()];
}
