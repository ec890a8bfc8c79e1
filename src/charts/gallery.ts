import fs from 'node:fs';
import path from 'node:path';
import { chartTypeOfTool } from './catalog.ts';
import { CHART_EXAMPLES } from './examples.ts';
import { svgToPng } from './render.ts';
import type { ChartService } from './service.ts';

/** Theme variants shown beside the 27 examples, so a reviewer sees the themes and style options too. */
const VARIANTS: Array<{ tool: string; label: string; args: Record<string, unknown> }> = [
  { tool: 'generate_column_chart', label: 'dark', args: { theme: 'dark' } },
  { tool: 'generate_line_chart', label: 'academy', args: { theme: 'academy' } },
  {
    tool: 'generate_pie_chart',
    label: 'palette + background',
    args: {
      innerRadius: 0,
      style: { palette: ['#5B8FF9', '#61DDAA', '#65789B', '#F6BD16'], backgroundColor: '#fafafa' },
    },
  },
  { tool: 'generate_organization_chart', label: 'horizontal', args: { orient: 'horizontal' } },
  { tool: 'generate_liquid_chart', label: 'pin shape', args: { shape: 'pin' } },
  {
    tool: 'generate_district_map',
    label: 'China by province',
    args: {
      title: '华东供应商分布',
      data: {
        name: '中国',
        dataType: 'enum',
        colors: ['#1783FF', '#F0884D'],
        subdistricts: [
          { name: '江苏省', dataValue: '核心' },
          { name: '上海市', dataValue: '核心' },
          { name: '浙江省', dataValue: '备选' },
          { name: '天津市', dataValue: '备选' },
          { name: '湖南省', dataValue: '备选' },
          { name: '广东省', dataValue: '备选' },
          { name: '福建省', dataValue: '备选' },
        ],
      },
    },
  },
];

const escapeHtml = (text: string) => text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** Renders every example (and the variants) to PNG in `dir` and writes `index.html`, a contact sheet to judge them by eye. */
export async function writeGallery(service: ChartService, dir: string): Promise<string[]> {
  fs.mkdirSync(dir, { recursive: true });
  const entries = [
    ...Object.entries(CHART_EXAMPLES).map(([tool, args]) => ({ tool, label: '', args })),
    ...VARIANTS.map((v) => ({ ...v, args: { ...CHART_EXAMPLES[v.tool], ...v.args } })),
  ];
  const cards: string[] = [];
  const files: string[] = [];
  for (const { tool, label, args } of entries) {
    const type = chartTypeOfTool(tool)!;
    const name = `${type}${label ? `-${label.replace(/[^a-z]+/gi, '-')}` : ''}`.toLowerCase();
    const started = performance.now();
    const drawn = service.draw(type, args);
    fs.writeFileSync(path.join(dir, `${name}.png`), await svgToPng(drawn.svg));
    fs.writeFileSync(path.join(dir, `${name}.svg`), drawn.svg);
    const ms = Math.round(performance.now() - started);
    files.push(path.join(dir, `${name}.png`));
    cards.push(
      `<figure><a href="${name}.svg"><img src="${name}.png" alt="${escapeHtml(type)}"></a><figcaption><b>${escapeHtml(type)}</b>${
        label ? ` · ${escapeHtml(label)}` : ''
      } · ${drawn.width}×${drawn.height} · ${ms} ms${drawn.notes.length ? `<br>${escapeHtml(drawn.notes.join('; '))}` : ''}</figcaption></figure>`,
    );
  }
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    `<!doctype html><meta charset="utf-8"><title>Procura charts</title>
<style>body{font-family:system-ui,sans-serif;margin:24px;background:#f5f5f5}main{display:grid;grid-template-columns:repeat(auto-fill,minmax(420px,1fr));gap:16px}
figure{margin:0;background:#fff;padding:8px;border-radius:6px;box-shadow:0 1px 3px #0002}img{width:100%;height:auto}figcaption{font-size:13px;color:#444;margin-top:4px}</style>
<h1>Procura 图表 / charts (${cards.length})</h1><main>${cards.join('\n')}</main>\n`,
  );
  return files;
}
