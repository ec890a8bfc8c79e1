/** `npm run charts:gallery`: gallery/index.html + one PNG/SVG per chart example, drawn by the local renderer. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ChartService, ChartStore, writeGallery } from '../src/charts/index.ts';

const dir = path.resolve(process.argv[2] ?? 'gallery');
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-gallery-'));
try {
  const files = await writeGallery(new ChartService(new ChartStore(scratch)), dir);
  console.log(`${files.length} charts → ${path.join(dir, 'index.html')}`);
} finally {
  fs.rmSync(scratch, { recursive: true, force: true });
}
