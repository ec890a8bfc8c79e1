import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHART_EXAMPLES, ChartService, ChartStore, locate, startChartsServer } from '../../src/charts/index.ts';

describe('chart renderer service', () => {
  let dataDir: string;
  let renderer: Awaited<ReturnType<typeof startChartsServer>>;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-renderer-'));
    renderer = await startChartsServer({ host: '127.0.0.1', port: 0, dataDir });
  });
  afterAll(async () => {
    await renderer?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const post = (pathname: string, body: unknown) =>
    fetch(`${renderer.server.url}${pathname}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  it('the REST form answers bad input with 4xx problems, never 5xx', async () => {
    const unknown = await post('/api/charts/gantt', { data: [] });
    expect(unknown.status).toBe(400);
    const invalid = await post('/api/charts/pie', { data: [{ category: '博世', value: 'x' }] });
    expect(invalid.status).toBe(422);
    expect(((await invalid.json()) as { errors: Array<{ field: string }> }).errors[0].field).toBe('data[0].value');
    expect((await post('/api/charts/pie', '{not json')).status).toBe(400);
    expect(
      (
        await post('/api/charts/flow-diagram', {
          data: { nodes: [{ name: 'A' }], edges: [{ source: 'A', target: 'B' }] },
        })
      ).status,
    ).toBe(422);
    expect((await fetch(`${renderer.server.url}/charts/${'0'.repeat(24)}.png`)).status).toBe(404);
    expect((await fetch(`${renderer.server.url}/charts/..%2F..%2Fetc.png`)).status).toBe(404);
  });

  it('the GPT-Vis form carries failures in the body, as its clients expect', async () => {
    const answer = await post('/api/gpt-vis', { type: 'pie', data: [] });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ success: false, errorMessage: expect.stringContaining('data') });
    expect(await (await post('/api/gpt-vis', { nothing: true })).json()).toMatchObject({ success: false });
  });

  it('draws the same SVG for the same input, force layouts included', () => {
    const service = new ChartService(new ChartStore(dataDir));
    // zrender numbers instances and style classes globally; everything else must match exactly
    const draw = (type: string, tool: string) =>
      service.draw(type, CHART_EXAMPLES[tool]).svg.replace(/zr\d+-cls-\d+/g, 'zr-cls');
    for (const [type, tool] of [
      ['network-graph', 'generate_network_graph'],
      ['word-cloud', 'generate_word_cloud_chart'],
      ['venn', 'generate_venn_chart'],
      ['flow-diagram', 'generate_flow_diagram'],
    ]) {
      expect(draw(type, tool)).toBe(draw(type, tool));
    }
  });

  it('geocodes provinces, cities and supplier addresses; unknown names stay unknown', () => {
    expect(locate('江苏省')?.place.kind).toBe('province');
    expect(locate('株洲市')?.place).toMatchObject({ province: '湖南', kind: 'city' });
    expect(locate('广西壮族自治区')?.place.name).toBe('广西');
    expect(locate('苏州工业园区')).toMatchObject({ approximate: true, place: { province: '江苏' } });
    expect(locate('火星基地')).toBeUndefined();
  });
});
