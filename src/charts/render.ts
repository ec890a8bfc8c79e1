import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { Resvg } from '@resvg/resvg-js';
import type { EChartsOption } from 'echarts/types/dist/echarts';
import subsetFont from 'subset-font';
import { FONT_FAMILY, FONT_FILES } from './theme.ts';

/**
 * ECharts' own type declarations do not resolve under NodeNext (extensionless re-exports), so the runtime is
 * loaded as its CommonJS bundle and typed from the self-contained declaration file.
 */
export const echarts = createRequire(import.meta.url)('echarts') as typeof import('echarts/types/dist/echarts');

/** Server-side SVG of one option; the chart instance is always disposed. */
export function renderSvg(option: EChartsOption, width: number, height: number): string {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width, height });
  try {
    chart.setOption(option);
    return chart.renderToSVGString();
  } finally {
    chart.dispose();
  }
}

let fullFonts: Promise<Buffer[]> | undefined;

/**
 * Rasterises an SVG at its own size with the bundled CJK font (system fonts are never consulted). The 10 MB
 * font is first cut down to the characters this SVG contains: resvg parses every font file it is given on
 * each call, and a few-KB subset makes that several times faster than the full file.
 */
export async function svgToPng(svg: string): Promise<Buffer> {
  fullFonts ??= Promise.all(FONT_FILES.map((file) => fs.readFile(file)));
  const characters = [...new Set(svg)].join('');
  const subsets = await Promise.all(
    (await fullFonts).map((font) => subsetFont(font, characters, { targetFormat: 'truetype' })),
  );
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'procura-font-'));
  try {
    const fontFiles = await Promise.all(
      subsets.map(async (subset, i) => {
        const file = path.join(dir, `${i}.ttf`);
        await fs.writeFile(file, subset);
        return file;
      }),
    );
    const resvg = new Resvg(svg, {
      fitTo: { mode: 'original' },
      font: { fontFiles, loadSystemFonts: false, defaultFontFamily: FONT_FAMILY, sansSerifFamily: FONT_FAMILY },
    });
    return resvg.render().asPng();
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}
