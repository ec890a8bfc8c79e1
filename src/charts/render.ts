import { createRequire } from 'node:module';
import { Resvg } from '@resvg/resvg-js';
import type { EChartsOption } from 'echarts/types/dist/echarts';
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

/** Rasterises an SVG at its own size with the bundled CJK font (system fonts are never consulted). */
export function svgToPng(svg: string): Buffer {
  const resvg = new Resvg(svg, {
    fitTo: { mode: 'original' },
    font: {
      fontFiles: FONT_FILES,
      loadSystemFonts: false,
      defaultFontFamily: FONT_FAMILY,
      sansSerifFamily: FONT_FAMILY,
    },
  });
  return resvg.render().asPng();
}
