import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, type RunningServer } from '../../src/shared/index.ts';
import { createSupplierSites } from '../../src/suppliers/index.ts';
import { type ToolContext, ToolRegistry } from '../../src/tools/index.ts';
import {
  LocalSearchIndex,
  registerWebTools,
  tokenize,
  type WebSearchResult,
  type WebTools,
} from '../../src/tools/web/index.ts';

const ctx: ToolContext = { userId: 'laoxiao', role: 'buyer', traceId: 't-search' };
const BASE = 'http://127.0.0.1:8090';

describe('local search index', () => {
  const index = new LocalSearchIndex(createSupplierSites().documents(BASE));
  const urls = async (query: string, topK = 5) => (await index.search(query, topK)).map((hit) => hit.url);

  it('tokenizes Chinese into bigrams and Latin into words', () => {
    expect(tokenize('摩托车火花塞 F7TC')).toEqual(['摩托', '托车', '车火', '火花', '花塞', 'f7tc']);
    expect(tokenize('链')).toEqual(['链']);
  });

  it('finds shop pages for Chinese queries', async () => {
    const hits = await urls('博世 火花塞 F7TC');
    expect(hits[0]).toBe(`${BASE}/bosch/products/bs-f7tc`);
    expect(await urls('正新 真空胎', 3)).toContain(`${BASE}/cst/products/cs-90-90-18`);
  });

  it('finds shop pages and news for English queries', async () => {
    expect(await urls('Brembo brake pad', 3)).toContain(`${BASE}/brembo/products/br-bp-125f`);
    expect((await urls('iridium spark plug price', 3))[0]).toBe(`${BASE}/news/iridium-supply-tight`);
  });

  it('finds industry news by topic', async () => {
    expect((await urls('天然橡胶 轮胎 涨价', 3))[0]).toBe(`${BASE}/news/natural-rubber-tyres`);
  });
});

describe('web_search tool and providers', () => {
  let fake: RunningServer;
  const seen: Array<{ path: string; auth: string | undefined; body: Record<string, unknown> }> = [];
  beforeAll(async () => {
    const app = new Hono();
    app.post('/api/paas/v4/web_search', async (c) => {
      const body = await c.req.json();
      seen.push({ path: c.req.path, auth: c.req.header('authorization'), body });
      if (c.req.header('authorization') !== 'Bearer zhipu-key') return c.json({ error: { message: 'bad key' } }, 401);
      return c.json({
        id: 'x',
        search_result: [
          {
            title: '火花塞价格行情',
            content: '2026 年火花塞价格…',
            link: 'https://news.example/plug',
            media: '汽配网',
            publish_date: '2026-04-01',
          },
          { title: 'F7TC 参数', content: 'F7TC 规格', link: 'https://parts.example/f7tc' },
        ],
      });
    });
    app.post('/search', async (c) => {
      const body = await c.req.json();
      seen.push({ path: c.req.path, auth: c.req.header('authorization'), body });
      if (c.req.header('authorization') !== 'Bearer tvly-key') return c.json({ detail: 'unauthorized' }, 401);
      return c.json({
        results: [{ title: 'Spark plug prices', url: 'https://news.example/en', content: 'Prices fell', score: 0.9 }],
      });
    });
    fake = await listen(app.fetch, { host: '127.0.0.1', port: 0 });
  });
  afterAll(() => fake.close());

  async function withTools(env: NodeJS.ProcessEnv, run: (registry: ToolRegistry, tools: WebTools) => Promise<void>) {
    const registry = new ToolRegistry();
    const tools = registerWebTools(registry, { suppliersUrl: BASE, env });
    try {
      await run(registry, tools);
    } finally {
      await tools.close();
    }
  }

  it('uses the local index by default, in Chinese and English', async () => {
    await withTools({}, async (registry, tools) => {
      expect(tools.provider.name).toBe('local');
      expect(registry.get('web_search')).toMatchObject({ safety: 'read-only', group: 'web' });
      const zh = (await registry.execute('web_search', { query: '电装 机油滤清器', top_k: 3 }, ctx)) as WebSearchResult;
      expect(zh.results[0].url).toBe(`${BASE}/denso/products/dn-of-hf204`);
      expect(zh.notice).toContain('untrusted');
      const en = (await registry.execute('web_search', { query: 'motorcycle battery VARTA' }, ctx)) as WebSearchResult;
      expect(en.results.map((r) => r.url)).toContain(`${BASE}/varta/products/vt-ytx7l-bs`);
      expect(await registry.execute('web_search', { query: 'zzqx' }, ctx)).toMatchObject({ success: false });
      expect(await registry.execute('web_search', { query: '' }, ctx)).toMatchObject({ success: false });
    });
  });

  it('calls Zhipu web search with the key, engine and count', async () => {
    const env = {
      PROCURA_WEB_SEARCH: 'zhipu',
      ZHIPU_API_KEY: 'zhipu-key',
      ZHIPU_SEARCH_URL: `${fake.url}/api/paas/v4/web_search`,
    };
    await withTools(env, async (registry) => {
      const result = (await registry.execute('web_search', { query: '火花塞 价格', top_k: 2 }, ctx)) as WebSearchResult;
      expect(result.provider).toBe('zhipu');
      expect(result.results).toEqual([
        {
          title: '火花塞价格行情',
          url: 'https://news.example/plug',
          snippet: '2026 年火花塞价格…',
          source: 'zhipu:汽配网',
          publishedAt: '2026-04-01',
        },
        { title: 'F7TC 参数', url: 'https://parts.example/f7tc', snippet: 'F7TC 规格', source: 'zhipu' },
      ]);
      expect(seen.at(-1)).toMatchObject({
        auth: 'Bearer zhipu-key',
        body: { search_query: '火花塞 价格', search_engine: 'search_std', count: 2 },
      });
    });
    await withTools({ ...env, ZHIPU_API_KEY: 'wrong' }, async (registry) => {
      expect(await registry.execute('web_search', { query: 'x' }, ctx)).toMatchObject({
        success: false,
        error: expect.stringContaining('HTTP 401'),
        suggestion: expect.stringContaining('API key'),
      });
    });
    await withTools({ PROCURA_WEB_SEARCH: 'zhipu' }, async (registry) => {
      expect(await registry.execute('web_search', { query: 'x' }, ctx)).toMatchObject({
        success: false,
        error: expect.stringContaining('no API key'),
      });
    });
  });

  it('calls Tavily with the key and result count', async () => {
    const env = { PROCURA_WEB_SEARCH: 'tavily', TAVILY_API_KEY: 'tvly-key', TAVILY_SEARCH_URL: `${fake.url}/search` };
    await withTools(env, async (registry) => {
      const result = (await registry.execute(
        'web_search',
        { query: 'spark plug price', top_k: 4 },
        ctx,
      )) as WebSearchResult;
      expect(result).toMatchObject({
        provider: 'tavily',
        results: [{ url: 'https://news.example/en', score: 0.9, source: 'tavily' }],
      });
      expect(seen.at(-1)).toMatchObject({
        auth: 'Bearer tvly-key',
        body: { query: 'spark plug price', max_results: 4 },
      });
    });
  });

  it('rejects an unknown provider setting by name', () => {
    expect(() =>
      registerWebTools(new ToolRegistry(), { suppliersUrl: BASE, env: { PROCURA_WEB_SEARCH: 'bing' } }),
    ).toThrow(/PROCURA_WEB_SEARCH/);
  });
});
