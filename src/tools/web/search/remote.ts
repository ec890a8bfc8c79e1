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

/** A remote result in the fields a hit is made of; `content` is cut down to the snippet. */
interface RemoteResult {
  title: string;
  url: string;
  content: string;
  source: string;
  score?: number;
  publishedAt?: string;
}

/** A search API asked by one authenticated JSON POST: each API says how to ask it and how to read its answer. */
abstract class RemoteSearch<Options extends { url: string; apiKey?: string }> implements SearchProvider {
  abstract readonly name: string;
  /** The API's name in error messages. */
  protected abstract readonly label: string;

  constructor(protected readonly options: Options) {}

  protected abstract request(query: string, topK: number): Record<string, unknown>;
  protected abstract read(answer: unknown): RemoteResult[];

  async search(query: string, topK: number, signal?: AbortSignal): Promise<SearchHit[]> {
    const body = this.request(query, topK);
    const answer = await postSearchApi(this.label, this.options.url, this.options.apiKey, body, signal);
    return this.read(answer)
      .slice(0, topK)
      .map(({ title, url, content, source, score, publishedAt }) => ({
        title,
        url,
        snippet: content.slice(0, 500),
        source,
        ...(score !== undefined ? { score } : {}),
        ...(publishedAt ? { publishedAt } : {}),
      }));
  }
}

/** Zhipu (BigModel) Web Search API: `POST /api/paas/v4/web_search`. */
export class ZhipuSearch extends RemoteSearch<{ url: string; apiKey?: string; engine: string }> {
  readonly name = 'zhipu';
  protected readonly label = '智谱 Zhipu';

  protected request(query: string, topK: number) {
    // The API takes at most 70 characters of query and 50 results.
    return { search_query: query.slice(0, 70), search_engine: this.options.engine, count: Math.min(topK, 50) };
  }

  protected read(answer: unknown): RemoteResult[] {
    return zhipuResponse.parse(answer).search_result.map((r) => ({
      title: r.title,
      url: r.link,
      content: r.content,
      source: r.media ? `zhipu:${r.media}` : 'zhipu',
      publishedAt: r.publish_date,
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
export class TavilySearch extends RemoteSearch<{ url: string; apiKey?: string }> {
  readonly name = 'tavily';
  protected readonly label = 'Tavily';

  protected request(query: string, topK: number) {
    return { query, max_results: Math.min(topK, 20), search_depth: 'basic', topic: 'general' };
  }

  protected read(answer: unknown): RemoteResult[] {
    return tavilyResponse.parse(answer).results.map((r) => ({
      title: r.title,
      url: r.url,
      content: r.content,
      source: 'tavily',
      score: r.score,
      publishedAt: r.published_date,
    }));
  }
}
