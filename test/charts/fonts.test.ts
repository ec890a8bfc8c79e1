import { Resvg } from '@resvg/resvg-js';
import { describe, expect, it } from 'vitest';
import { PIXEL_RATIO, svgToPng } from '../../src/charts/index.ts';
import { FONT_FAMILY, FONT_FILES } from '../../src/charts/theme.ts';

const svgOf = (text: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="320" height="60"><rect width="320" height="60" fill="#fff"/><text x="10" y="24" font-family="${FONT_FAMILY}" font-size="18">${text}</text><text x="10" y="50" font-family="${FONT_FAMILY}" font-size="18" font-weight="bold">${text}</text></svg>`;

/** The same SVG drawn by resvg with the full font files, at the renderer's pixel ratio: what the subsets must reproduce. */
const SCALE = { mode: 'zoom', value: PIXEL_RATIO } as const;
const withFullFonts = (svg: string) =>
  new Resvg(svg, {
    fitTo: SCALE,
    font: { fontFiles: FONT_FILES, loadSystemFonts: false, defaultFontFamily: FONT_FAMILY },
  })
    .render()
    .asPng();

describe('chart fonts', () => {
  it('draws text with per-chart font subsets exactly as with the full fonts, as the covered characters grow', async () => {
    for (const text of [
      '博世火花塞 F7TC ¥12.50',
      '电装 NGK 价格对比 (元)',
      '博世火花塞 ¥12.50',
      '采购量：1,200 件 — 季度',
    ]) {
      const svg = svgOf(text);
      const png = await svgToPng(svg);
      expect(png.equals(withFullFonts(svg))).toBe(true);
      // and the text is really drawn: not the same picture as with no font at all
      const blank = new Resvg(svg, { fitTo: SCALE, font: { loadSystemFonts: false } }).render().asPng();
      expect(png.equals(blank)).toBe(false);
    }
  });

  it('renders concurrently without a render losing its font files to another', async () => {
    const texts = Array.from({ length: 12 }, (_, i) => `第${'一二三四五六七八九十百千'[i]}季度 供应商${i}`);
    const pngs = await Promise.all(texts.map((text) => svgToPng(svgOf(text))));
    texts.forEach((text, i) => {
      expect(pngs[i].equals(withFullFonts(svgOf(text)))).toBe(true);
    });
  });
});
