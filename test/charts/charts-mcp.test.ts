import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHART_EXAMPLES, PIXEL_RATIO, startChartsServer } from '../../src/charts/index.ts';
import {
  type ChartMcpServer,
  type ChartTools,
  registerChartTools,
  startChartMcpServer,
} from '../../src/tools/charts/index.ts';
import { ToolRegistry } from '../../src/tools/index.ts';

/** Width and height from a PNG's IHDR chunk, after checking the signature. */
function pngSize(bytes: Uint8Array): { width: number; height: number } {
  expect([...bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  expect(Buffer.from(bytes.subarray(12, 16)).toString('ascii')).toBe('IHDR');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

const ctx = { userId: 'u1', role: 'buyer' as const, traceId: 't1' };
const MAP_TOOLS = new Set(['generate_district_map', 'generate_pin_map', 'generate_path_map']);

describe('chart renderer behind the real @antv/mcp-server-chart', () => {
  let dataDir: string;
  let renderer: Awaited<ReturnType<typeof startChartsServer>>;
  let mcp: ChartMcpServer;
  let tools: ChartTools;
  const registry = new ToolRegistry();

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-charts-'));
    renderer = await startChartsServer({ host: '127.0.0.1', port: 0, dataDir });
    mcp = await startChartMcpServer({ port: 0, rendererUrl: renderer.renderUrl });
    tools = await registerChartTools(registry, mcp.url, mcp.token);
  });

  afterAll(async () => {
    await tools?.close();
    await mcp?.close();
    await renderer?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('lists 27 tools: 26 chart types behind generate_visualization, the spreadsheet as its own tool', () => {
    expect(tools.catalog.charts.size + tools.catalog.passThrough.length).toBe(27);
    expect(tools.catalog.passThrough.map((t) => t.name)).toEqual(['generate_spreadsheet']);
    expect(Object.keys(CHART_EXAMPLES).sort()).toEqual(
      [...[...tools.catalog.charts.values()].map((c) => c.tool.name), 'generate_spreadsheet'].sort(),
    );
  });

  for (const [tool, example] of Object.entries(CHART_EXAMPLES)) {
    it(`${tool}: served PNG and SVG of the asked size`, async () => {
      const width = MAP_TOOLS.has(tool) ? 900 : 640;
      const height = MAP_TOOLS.has(tool) ? 700 : 420;
      const args = { ...example, width, height };
      const answer = (await (tool === 'generate_spreadsheet'
        ? registry.execute('generate_spreadsheet', args, ctx)
        : registry.execute(
            'generate_visualization',
            { chart_type: tool.replace(/^generate_/, ''), chart_config: args },
            ctx,
          ))) as { success: boolean; image_url: string; svg_url: string; notes?: string[] };
      expect(answer, JSON.stringify(answer)).toMatchObject({ success: true });
      expect(answer.image_url.startsWith(`${renderer.server.url}/charts/`)).toBe(true);
      expect(answer.notes).toBeUndefined();

      const png = await fetch(answer.image_url);
      expect(png.status).toBe(200);
      expect(png.headers.get('content-type')).toBe('image/png');
      // PNGs are drawn at 2× (sharp in the lightbox and the PDF); the SVG keeps the asked size.
      expect(pngSize(new Uint8Array(await png.arrayBuffer()))).toEqual({
        width: width * PIXEL_RATIO,
        height: height * PIXEL_RATIO,
      });

      const svg = await fetch(answer.svg_url);
      expect(svg.headers.get('content-type')).toContain('image/svg+xml');
      const text = await svg.text();
      expect(text).toMatch(new RegExp(`^<svg[^>]* width="${width}" height="${height}"`));
      // Chinese text reaches the image as text in the bundled font, not as boxes
      if (tool !== 'generate_spreadsheet') expect(text).toMatch(/[\u4e00-\u9fff]/);
    });
  }

  it('the same config gives the same image id', async () => {
    const call = () =>
      registry.execute(
        'generate_visualization',
        { chart_type: 'pie', chart_config: CHART_EXAMPLES.generate_pie_chart },
        ctx,
      );
    const [a, b] = (await Promise.all([call(), call()])) as Array<{ image_url: string }>;
    expect(a.image_url).toBe(b.image_url);
  });

  it('a monthly line chart comes back with its gap and an alt text naming its subject and main figure', async () => {
    const answer = (await registry.execute(
      'generate_visualization',
      {
        chart_type: 'line',
        chart_config: {
          title: '火花塞 F7TC 月均价',
          data: [
            { time: '2026-01', value: 14.8 },
            { time: '2026-02', value: 15.2 },
            { time: '2026-04', value: 14.9 },
          ],
        },
      },
      ctx,
    )) as Record<string, unknown> & { spec: { x_data: string[] } };
    // the alt text right after the address, so a shortened copy of the answer still carries it
    expect(Object.keys(answer).slice(0, 3)).toEqual(['success', 'image_url', 'alt']);
    expect(answer.alt).toBe(
      '火花塞 F7TC 月均价，2026-01 至 2026-04，最高 15.2（2026-02）/ 2026-01 to 2026-04, highest 15.2 (2026-02)',
    );
    expect(answer.spec.x_data).toEqual(['2026-01', '2026-02', '2026-03', '2026-04']);
    const svg = await (await fetch(String(answer.svg_url))).text();
    expect(svg).toContain('>2026-03</text>');
  });

  it('a bad config gets the exact field errors and a correct example, not a crash', async () => {
    const answer = (await registry.execute(
      'generate_visualization',
      {
        chart_type: 'column',
        chart_config: { data: [{ category: '博世', value: '很多' }, { value: 3 }], theme: 'neon' },
      },
      ctx,
    )) as { success: false; error: string; suggestion: string };
    expect(answer.success).toBe(false);
    expect(answer.error).toContain('data[0].value');
    expect(answer.error).toContain('data[1].category');
    expect(answer.error).toContain('theme');
    expect(answer.suggestion).toContain('chart_type="column"');
    expect(answer.suggestion).toContain('"category"');
  });

  it('an unknown chart type lists the available ones', async () => {
    const answer = (await registry.execute(
      'generate_visualization',
      { chart_type: 'gantt', chart_config: {} },
      ctx,
    )) as {
      success: false;
      suggestion: string;
    };
    expect(answer.success).toBe(false);
    expect(answer.suggestion).toContain('dual_axes');
  });

  it('unknown place names are named in the answer; nothing found is an error, not a crash', async () => {
    const partly = (await registry.execute(
      'generate_visualization',
      { chart_type: 'pin_map', chart_config: { title: '供应商', data: ['苏州市', '火星基地'] } },
      ctx,
    )) as { success: boolean; notes: string[] };
    expect(partly.success).toBe(true);
    expect(partly.notes.join()).toContain('火星基地');
    const none = (await registry.execute(
      'generate_visualization',
      { chart_type: 'pin_map', chart_config: { title: '供应商', data: ['火星基地'] } },
      ctx,
    )) as { success: boolean; error: string };
    expect(none.success).toBe(false);
    expect(none.error).toContain('火星基地');
  });
});
