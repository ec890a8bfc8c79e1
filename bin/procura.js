#!/usr/bin/env node
// Procura runs compiled JavaScript from dist/ (built by `npm install`, or here on first use and whenever a
// source changed). PROCURA_FROM_SOURCE=1 runs the TypeScript sources through tsx instead.
import { buildCli, freshEntry } from '../scripts/build-cli.js';

async function compiledEntry() {
  const entry = freshEntry();
  if (entry) return entry;
  process.stderr.write('procura: 正在编译 / compiling the CLI into dist/ …\n');
  try {
    return await buildCli();
  } catch (error) {
    process.stderr.write(
      `procura: 编译失败，改为直接运行源码 / compiling failed, running the sources with tsx instead: ${error.message}\n`,
    );
    return undefined;
  }
}

const entry = process.env.PROCURA_FROM_SOURCE === '1' ? undefined : await compiledEntry();
if (entry) await import(entry);
else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
}
