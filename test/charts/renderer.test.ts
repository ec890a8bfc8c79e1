import fs from 'node:fs';
import http from 'node:http';
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

  const post = (pathname: string, body: unknown, base = renderer.renderUrl) =>
    fetch(`${base}${pathname}`, {
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

  it('a drawing connection ends with its answer, so a keep-alive client never sends a chart on one the renderer closed', async () => {
    // The AntV server's client keeps idle connections with no limit of its own, as this agent does.
    const agent = new http.Agent({ keepAlive: true });
    const url = new URL(`${renderer.renderUrl}/api/gpt-vis`);
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const request = http.request(
        url,
        { method: 'POST', agent, headers: { 'content-type': 'application/json' } },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode));
        },
      );
      request.on('error', reject);
      request.end(JSON.stringify({ type: 'pie', data: [{ category: '博世', value: 3 }] }));
    });
    expect(status).toBe(200);
    await new Promise((resolve) => setImmediate(resolve));
    expect(Object.values(agent.freeSockets).flat()).toEqual([]);
    agent.destroy();
  });

  it('draws only for a caller that knows the token: without it, or with a wrong one, 404 and nothing stored', async () => {
    const pie = { type: 'pie', data: [{ category: '博世', value: 3 }] };
    const token = renderer.renderUrl.slice(renderer.server.url.length + 1);
    const wrong = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    const stored = () => fs.readdirSync(path.join(dataDir, 'charts'), { withFileTypes: true }).length;
    fs.mkdirSync(path.join(dataDir, 'charts'), { recursive: true });
    const before = stored();
    for (const base of [renderer.server.url, `${renderer.server.url}/${wrong}`, `${renderer.server.url}/x`]) {
      expect((await post('/api/gpt-vis', pie, base)).status).toBe(404);
      expect((await post('/api/charts/pie', { data: pie.data }, base)).status).toBe(404);
    }
    expect((await post('/api/gpt-vis', pie, `${renderer.server.url}/${token}/..`)).status).toBe(404);
    expect(stored()).toBe(before);
    const drawn = (await (await post('/api/gpt-vis', pie)).json()) as { success: boolean; resultObj: string };
    expect(drawn.success).toBe(true);
    // the image itself is read without the token, by its content address
    expect((await fetch(drawn.resultObj)).status).toBe(200);
    expect(drawn.resultObj).not.toContain(token);
  });

  it('keeps the image cache within its bounds, evicting the least recently used charts', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-renderer-cache-'));
    const small = await startChartsServer({ host: '127.0.0.1', port: 0, dataDir: dir, cache: { maxCharts: 3 } });
    try {
      const urls: string[] = [];
      for (let i = 0; i < 8; i++) {
        const answer = await post(
          '/api/charts/column',
          { data: [{ category: `第${i}批`, value: i + 1 }] },
          small.renderUrl,
        );
        urls.push(((await answer.json()) as { png: string }).png);
        // the first chart is used again each round, so it stays while the others come and go
        await post('/api/charts/column', { data: [{ category: '第0批', value: 1 }] }, small.renderUrl);
      }
      const files = fs.readdirSync(path.join(dir, 'charts'));
      expect(files.length).toBeLessThanOrEqual(9);
      expect(await small.service.store.usage()).toMatchObject({ charts: 3 });
      expect((await fetch(urls[0])).status).toBe(200);
      expect((await fetch(urls[7])).status).toBe(200);
      expect((await fetch(urls[1])).status).toBe(404);

      // a byte bound holds too, also for a store opened on a directory that is already over it
      const bytes = (await small.service.store.usage()).bytes;
      const reopened = new ChartStore(dir, { maxBytes: Math.floor(bytes / 2) });
      const service = new ChartService(reopened);
      await service.render('pie', { data: [{ category: '新', value: 1 }] });
      expect((await reopened.usage()).bytes).toBeLessThanOrEqual(Math.floor(bytes / 2));
      const onDisk = fs
        .readdirSync(path.join(dir, 'charts'))
        .reduce((sum, name) => sum + fs.statSync(path.join(dir, 'charts', name)).size, 0);
      expect(onDisk).toBeLessThanOrEqual(Math.floor(bytes / 2));
    } finally {
      await small.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
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
