import { deadline } from '../../../shared/index.ts';
import { ToolError } from '../../registry.ts';

export interface SearchHit {
  title: string;
  url: string;
  snippet: string;
  /** Which provider found it. */
  source: string;
  publishedAt?: string;
  score?: number;
}

/** One way to search the web; the `web_search` tool is the same whichever is configured. */
export interface SearchProvider {
  readonly name: string;
  search(query: string, topK: number, signal?: AbortSignal): Promise<SearchHit[]>;
}

/** POSTs JSON to a search API and turns HTTP failures into errors the model can act on. */
export async function postSearchApi(
  provider: string,
  url: string,
  apiKey: string | undefined,
  body: unknown,
  signal?: AbortSignal,
): Promise<unknown> {
  if (!apiKey)
    throw new ToolError(
      `${provider} 搜索没有配置 API Key / no API key configured for ${provider} search`,
      '设置对应的环境变量，或改用本地搜索 PROCURA_WEB_SEARCH=local / set the key or use the local index',
    );
  const limit = deadline(15_000, signal);
  try {
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: limit.signal,
      });
    } catch (error) {
      throw new ToolError(
        `${provider} 搜索不可用 / ${provider} search unreachable: ${(error as Error).message}`,
        '稍后重试 / retry later',
      );
    }
    if (!response.ok) {
      const detail = (await response.text().catch(() => '')).slice(0, 300);
      throw new ToolError(
        `${provider} 搜索返回 HTTP ${response.status} / ${provider} search answered HTTP ${response.status}: ${detail}`,
        response.status === 401 || response.status === 403
          ? '检查 API Key / check the API key'
          : response.status === 429
            ? '搜索额度或频率受限，稍后重试 / quota or rate limit: retry later'
            : '稍后重试或换一个查询 / retry later or rephrase',
      );
    }
    return await response.json();
  } finally {
    limit.clear();
  }
}
