import { z } from 'zod';
import { postSearchApi, type SearchHit, type SearchProvider } from './provider.ts';

const zhipuResponse = z.object({
  search_result: z
    .array(
      z.object({
        title: z.string().default(''),
        content: z.string().default(''),
        link: z.string(),
        media: z.string().optional(),
        publish_date: z.string().optional(),
      }),
    )
    .default([]),
});

/** Zhipu (BigModel) Web Search API: `POST /api/paas/v4/web_search`. */
export class ZhipuSearch implements SearchProvider {
  readonly name = 'zhipu';

  constructor(private readonly options: { url: string; apiKey?: string; engine: string }) {}

  async search(query: string, topK: number, signal?: AbortSignal): Promise<SearchHit[]> {
    // The API takes at most 70 characters of query and 50 results.
    const body = { search_query: query.slice(0, 70), search_engine: this.options.engine, count: Math.min(topK, 50) };
    const data = zhipuResponse.parse(
      await postSearchApi('智谱 Zhipu', this.options.url, this.options.apiKey, body, signal),
    );
    return data.search_result.slice(0, topK).map((r) => ({
      title: r.title,
      url: r.link,
      snippet: r.content.slice(0, 500),
      source: r.media ? `zhipu:${r.media}` : 'zhipu',
      ...(r.publish_date ? { publishedAt: r.publish_date } : {}),
    }));
  }
}

const tavilyResponse = z.object({
  results: z
    .array(
      z.object({
        title: z.string().default(''),
        url: z.string(),
        content: z.string().default(''),
        score: z.number().optional(),
        published_date: z.string().optional(),
      }),
    )
    .default([]),
});

/** Tavily Search API: `POST /search`. */
export class TavilySearch implements SearchProvider {
  readonly name = 'tavily';

  constructor(private readonly options: { url: string; apiKey?: string }) {}

  async search(query: string, topK: number, signal?: AbortSignal): Promise<SearchHit[]> {
    const body = { query, max_results: Math.min(topK, 20), search_depth: 'basic', topic: 'general' };
    const data = tavilyResponse.parse(
      await postSearchApi('Tavily', this.options.url, this.options.apiKey, body, signal),
    );
    return data.results.slice(0, topK).map((r) => ({
      title: r.title,
      url: r.url,
      snippet: r.content.slice(0, 500),
      source: 'tavily',
      ...(r.score !== undefined ? { score: r.score } : {}),
      ...(r.published_date ? { publishedAt: r.published_date } : {}),
    }));
  }
}
