import { createRequire } from 'node:module';
import { renderAsync } from '@resvg/resvg-js';
import type { EChartsOption } from 'echarts/types/dist/echarts';
import { fontSubsets } from './fonts.ts';
import { FONT_FAMILY } from './theme.ts';

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

/**
 * PNGs are drawn at twice the chart's size (device pixel ratio 2): sharp in the enlarged view, on high-density
 * screens and in a printed PDF, where a 1× image is visibly soft. Width and height stay in CSS pixels.
 */
export const PIXEL_RATIO = 2;

/**
 * Rasterises an SVG at `scale` times its own size with the bundled CJK font (system fonts are never consulted), given as a
 * subset holding just this SVG's characters. resvg runs on a worker thread, off the event loop.
 */
export async function svgToPng(svg: string, scale = PIXEL_RATIO): Promise<Buffer> {
  const fonts = fontSubsets().filesFor(svg);
  try {
    const image = await renderAsync(svg, {
      fitTo: scale === 1 ? { mode: 'original' } : { mode: 'zoom', value: scale },
      font: {
        fontFiles: fonts.files,
        loadSystemFonts: false,
        defaultFontFamily: FONT_FAMILY,
        sansSerifFamily: FONT_FAMILY,
      },
    });
    return image.asPng();
  } finally {
    fonts.release();
  }
}
