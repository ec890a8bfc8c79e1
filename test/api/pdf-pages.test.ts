import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReportPdf } from '../../src/api/reports/pdf.ts';
import { ChartService, ChartStore } from '../../src/charts/index.ts';
import { seeded } from '../seeded.ts';

const CHROMIUM = process.env.PROCURA_CHROMIUM_PATH ?? '/usr/bin/chromium';
const hasTools = (() => {
  try {
    execFileSync('pdftotext', ['-v'], { stdio: 'ignore' });
    return fs.existsSync(CHROMIUM);
  } catch {
    return false;
  }
})();

const SUPPLIERS = ['博世（苏州）', '电装（天津）', 'NGK 上海', '重庆火花塞厂', 'Champion', '温州瑞安汽配', '宁波点火'];
const WORDS = ['供应商', '报价', '交期', '准时率', '历史价格', '库存', '采购量', '质量', '付款条件', '比价结果'];

/**
 * A report the way the analyst writes them, with varied lengths: sections of headings (h2/h3), paragraphs, tables
 * and captioned charts in random order and size, so headings fall at every height of a page.
 */
function report(seed: number, chartUrl: string): { markdown: string; headings: string[] } {
  const { next } = seeded(seed);
  const pick = <T>(list: T[]) => list[Math.floor(next() * list.length)];
  const headings: string[] = [];
  const lines = [`# 火花塞供应商比价报告 ${seed}`, ''];
  for (let section = 1; section <= 14; section++) {
    const level = next() < 0.6 ? '##' : '###';
    const heading = `${section}. ${pick(WORDS)}分析 H${seed}x${section}`;
    headings.push(heading);
    lines.push(`${level} ${heading}`, '');
    for (let block = 0, blocks = 1 + Math.floor(next() * 3); block < blocks; block++) {
      const kind = next();
      if (kind < 0.45) {
        const sentences = 1 + Math.floor(next() * 8);
        lines.push(
          Array.from(
            { length: sentences },
            () => `${pick(SUPPLIERS)}的${pick(WORDS)}为 ${(next() * 100).toFixed(1)}，${pick(WORDS)}稳定。`,
          ).join(''),
          '',
        );
      } else if (kind < 0.75) {
        lines.push('| 供应商 | 单价（元） | 交期（天） |', '| --- | ---: | ---: |');
        for (let row = 0, rows = 2 + Math.floor(next() * 10); row < rows; row++)
          lines.push(`| ${pick(SUPPLIERS)} | ${(8 + next() * 6).toFixed(2)} | ${Math.ceil(next() * 30)} |`);
        lines.push('');
      } else lines.push(`![图 ${section}-${block}：${pick(WORDS)}对比](${chartUrl})`, '');
    }
  }
  return { markdown: lines.join('\n'), headings };
}

describe.skipIf(!hasTools)('report PDF: a heading is never the last line of a page; charts print at 2×', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-pdf-pages-'));
  let pdf: ReportPdf;
  let chartUrl: string;
  let chartWidth: number;

  beforeAll(async () => {
    const service = new ChartService(new ChartStore(dir));
    const chart = await service.render('column', {
      title: '供应商报价对比',
      data: SUPPLIERS.slice(0, 6).map((category, i) => ({ category, value: 10 + i })),
    });
    const png = (await service.image(chart.id, 'png'))!;
    chartWidth = chart.width;
    chartUrl = `http://charts.procura.test/charts/${chart.id}.png`;
    pdf = new ReportPdf({
      executablePath: CHROMIUM,
      loadImage: async (url) => (url === chartUrl ? { bytes: png, contentType: 'image/png' } : undefined),
    });
  }, 60_000);
  afterAll(async () => {
    await pdf?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('keeps each heading with the content after it, over reports of varied shape', async () => {
    let pagesChecked = 0;
    for (const seed of [3, 17, 29, 41]) {
      const { markdown, headings } = report(seed, chartUrl);
      const file = path.join(dir, `report-${seed}.pdf`);
      fs.writeFileSync(file, await pdf.render({ title: `报告 ${seed}`, markdown }));
      const pages = Number(/Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', [file], { encoding: 'utf8' }))![1]);
      expect(pages).toBeGreaterThan(2);
      const allText = execFileSync('pdftotext', [file, '-'], { encoding: 'utf8' }).replace(/\s+/g, '');
      // every heading is in the document, so a missing one cannot pass for a kept one
      for (const heading of headings) expect(allText).toContain(heading.replace(/\s+/g, ''));
      // the charts are embedded at twice their size, sharp in print
      const images = execFileSync('pdfimages', ['-list', file], { encoding: 'utf8' }).trim().split('\n').slice(2);
      expect(images.length).toBe((markdown.match(/!\[/g) ?? []).length);
      for (const image of images) expect(Number(image.trim().split(/\s+/)[3])).toBe(chartWidth * 2);
      for (let page = 1; page <= pages; page++) {
        const text = execFileSync('pdftotext', ['-layout', '-f', String(page), '-l', String(page), file, '-'], {
          encoding: 'utf8',
        });
        const last = text
          .split('\n')
          .map((l) => l.trim())
          .filter(Boolean)
          .at(-1);
        expect(last, `page ${page} of report ${seed}`).toBeDefined();
        expect(
          headings.some((h) => last!.replace(/\s+/g, '') === h.replace(/\s+/g, '')),
          `page ${page} of report ${seed} ends with the heading "${last}"`,
        ).toBe(false);
        pagesChecked++;
      }
    }
    expect(pagesChecked).toBeGreaterThan(10);
  }, 120_000);
});
