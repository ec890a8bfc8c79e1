import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildCli, freshEntry } from '../../scripts/build-cli.js';
import { buildReferences } from './build-files.ts';

/** The build `npm start` runs, in dist/ (the global setup built it for this run). */
const build = path.dirname(freshEntry() ?? (await buildCli({ quiet: true })));

describe('the files the compiled build opens at run time', () => {
  const references = buildReferences(build);

  // Every file the compiled code opens must be there: pdf.js's worker (`./pdf.worker.mjs`) once was not, and under
  // `npm start` every PDF quote read as unreadable.
  it('each resolves from the build in dist/', async () => {
    const missing = (await references).filter((r) => !r.resolved);
    expect(missing).toEqual([]);
  }, 300_000);

  it('a file left out of a build is named', async () => {
    const copy = fs.mkdtempSync(path.join(path.dirname(build), 'omitted-'));
    try {
      fs.cpSync(build, copy, { recursive: true });
      // A file of the build another chunk loads (a chunk imported on first use, a worker, an asset), deleted.
      const found = await references;
      const loaded = found.find(
        (r) => r.resolved && path.dirname(r.resolved) === build && path.basename(r.resolved) !== r.chunk,
      );
      expect(loaded).toBeDefined();
      fs.rmSync(path.join(copy, path.basename(loaded!.resolved!)));
      const missing = (await buildReferences(copy)).filter((r) => !r.resolved);
      expect(missing).toContainEqual({ chunk: loaded!.chunk, named: loaded!.named, resolved: undefined });
      // Nothing else went missing: only what named the deleted file.
      expect(missing.length).toBe(found.filter((r) => !r.resolved || r.resolved === loaded!.resolved).length);
    } finally {
      fs.rmSync(copy, { recursive: true, force: true });
    }
  }, 300_000);
});
