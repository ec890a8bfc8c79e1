import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { FONT_FILES } from './theme.ts';

/** The part of HarfBuzz's subsetter (its own WebAssembly build, shipped by harfbuzzjs) used here. */
interface HarfBuzz {
  memory: { buffer: ArrayBuffer };
  _initialize(): void;
  malloc(size: number): number;
  free(pointer: number): void;
  hb_blob_create(data: number, length: number, mode: number, userData: number, destroy: number): number;
  hb_blob_destroy(blob: number): void;
  hb_blob_get_data(blob: number, length: number): number;
  hb_blob_get_length(blob: number): number;
  hb_face_create(blob: number, index: number): number;
  hb_face_destroy(face: number): void;
  hb_face_reference_blob(face: number): number;
  hb_subset_input_create_or_fail(): number;
  hb_subset_input_destroy(input: number): void;
  hb_subset_input_unicode_set(input: number): number;
  hb_subset_input_set(input: number, which: number): number;
  hb_subset_input_get_flags(input: number): number;
  hb_subset_input_set_flags(input: number, flags: number): void;
  hb_set_add(set: number, value: number): void;
  hb_subset_or_fail(face: number, input: number): number;
}

/** Node's WebAssembly global (the project compiles without the DOM typings that declare it). */
const wasmApi = (
  globalThis as unknown as {
    WebAssembly: {
      Module: new (bytes: Uint8Array) => object;
      Instance: new (module: object, imports: object) => { exports: unknown };
    };
  }
).WebAssembly;

const HB_MEMORY_MODE_READONLY = 1;
const HB_SUBSET_SETS_DROP_TABLE_TAG = 3;
const HB_SUBSET_FLAGS_NO_HINTING = 0x1;
const HB_SUBSET_FLAGS_NO_LAYOUT_CLOSURE = 0x200;
/** Substitution tables: chart labels need no ligatures or vertical forms, and closing over them is slow. */
const DROPPED_TABLES = ['GSUB', 'JSTF'];
const tag = (name: string) => [...name].reduce((value, char) => (value << 8) + char.charCodeAt(0), 0) >>> 0;

/**
 * The bundled CJK fonts, parsed once per process, cut down per chart to the characters it uses. resvg reads
 * and parses every font file it is given on every render, and the full Noto Sans SC is 10 MB per weight: a
 * few-KB subset keeps rasterising close to the cost of the picture itself.
 */
class FontSubsets {
  private readonly hb: HarfBuzz;
  private readonly faces: number[];
  private readonly dir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-fonts-'));
  private next = 0;
  private current?: Subset;

  constructor(fontFiles: string[]) {
    const require = createRequire(import.meta.url);
    const module = new wasmApi.Module(fs.readFileSync(require.resolve('harfbuzzjs/dist/harfbuzz-subset.wasm')));
    this.hb = new wasmApi.Instance(module, {}).exports as HarfBuzz;
    this.hb._initialize();
    this.faces = fontFiles.map((file) => {
      const font = fs.readFileSync(file);
      const pointer = this.hb.malloc(font.byteLength);
      new Uint8Array(this.hb.memory.buffer).set(font, pointer);
      const blob = this.hb.hb_blob_create(pointer, font.byteLength, HB_MEMORY_MODE_READONLY, 0, 0);
      const face = this.hb.hb_face_create(blob, 0);
      this.hb.hb_blob_destroy(blob);
      return face;
    });
    process.once('exit', () => fs.rmSync(this.dir, { recursive: true, force: true }));
  }

  private subset(face: number, text: string): Uint8Array {
    const hb = this.hb;
    const input = hb.hb_subset_input_create_or_fail();
    if (!input) throw new Error('font subsetting failed: no memory for the input');
    try {
      const unicodes = hb.hb_subset_input_unicode_set(input);
      for (const char of text) hb.hb_set_add(unicodes, char.codePointAt(0)!);
      const dropped = hb.hb_subset_input_set(input, HB_SUBSET_SETS_DROP_TABLE_TAG);
      for (const name of DROPPED_TABLES) hb.hb_set_add(dropped, tag(name));
      hb.hb_subset_input_set_flags(
        input,
        hb.hb_subset_input_get_flags(input) | HB_SUBSET_FLAGS_NO_HINTING | HB_SUBSET_FLAGS_NO_LAYOUT_CLOSURE,
      );
      const subset = hb.hb_subset_or_fail(face, input);
      if (!subset) throw new Error('font subsetting failed');
      const blob = hb.hb_face_reference_blob(subset);
      try {
        const data = hb.hb_blob_get_data(blob, 0);
        return new Uint8Array(hb.memory.buffer, data, hb.hb_blob_get_length(blob)).slice();
      } finally {
        hb.hb_blob_destroy(blob);
        hb.hb_face_destroy(subset);
      }
    } finally {
      hb.hb_subset_input_destroy(input);
    }
  }

  /**
   * Font files holding every glyph of `text`, for one resvg render; `release` when the render is done.
   * Subsets grow: one covering every character drawn so far serves the next charts until a chart brings a new
   * character, so most renders subset nothing. Past MAX_COVERED characters it starts again from one chart's.
   */
  filesFor(text: string): { files: string[]; release(): void } {
    const wanted = new Set(text);
    let current = this.current;
    if (!current || [...wanted].some((char) => !current!.covered.has(char))) {
      const covered =
        current && current.covered.size + wanted.size <= MAX_COVERED
          ? new Set([...current.covered, ...wanted])
          : wanted;
      const files = this.write([...covered].join(''));
      this.retire(current);
      current = this.current = { covered, files, users: 0, retired: false };
    }
    const used = current;
    used.users++;
    return {
      files: used.files,
      release: () => {
        used.users--;
        if (used.retired) this.retire(used);
      },
    };
  }

  /** Font files holding exactly the glyphs of `text` (the benchmark's floor); `release` removes them. */
  exactFiles(text: string): { files: string[]; release(): void } {
    const files = this.write([...new Set(text)].join(''));
    return {
      files,
      release: () => {
        for (const file of files) fs.rmSync(file, { force: true });
      },
    };
  }

  private write(characters: string): string[] {
    return this.faces.map((face) => {
      const file = path.join(this.dir, `${this.next++}.ttf`);
      fs.writeFileSync(file, this.subset(face, characters));
      return file;
    });
  }

  /** Removes a replaced subset's files once no render reads them. */
  private retire(subset: Subset | undefined): void {
    if (!subset) return;
    subset.retired = true;
    if (subset.users === 0) for (const file of subset.files) fs.rmSync(file, { force: true });
  }
}

interface Subset {
  covered: Set<string>;
  files: string[];
  /** Renders reading these files now. */
  users: number;
  retired: boolean;
}

/** Characters a grown subset may cover (a few MB of glyphs) before it is cut back. */
const MAX_COVERED = 8000;

let loaded: FontSubsets | undefined;
/** The process's font subsetter, created on first use. */
export const fontSubsets = (): FontSubsets => {
  loaded ??= new FontSubsets(FONT_FILES);
  return loaded;
};
