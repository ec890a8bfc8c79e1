import MiniSearch from 'minisearch';
import type { SearchHit, SearchProvider } from './provider.ts';

export interface IndexedPage {
  url: string;
  title: string;
  text: string;
  kind: string;
  publishedAt?: string;
}

const CJK_RUN = /[\u3400-\u9fff\uf900-\ufaff]+|[a-z0-9]+/g;
const CJK = /[\u3400-\u9fff\uf900-\ufaff]/;

/**
 * Chinese has no spaces: CJK runs become overlapping bigrams (a lone character stays a token), Latin text
 * becomes words. The same tokens serve documents and queries, so "火花塞价格" finds "火花塞 … 价格".
 */
export function tokenize(text: string): string[] {
  const tokens: string[] = [];
  for (const [run] of text.toLowerCase().matchAll(CJK_RUN)) {
    if (!CJK.test(run)) {
      tokens.push(run);
      continue;
    }
    const chars = [...run];
    if (chars.length === 1) tokens.push(run);
    for (let i = 0; i + 1 < chars.length; i++) tokens.push(chars[i] + chars[i + 1]);
  }
  return tokens;
}

/** The text around the first query term, for a result snippet. */
function snippetOf(text: string, terms: string[]): string {
  const lower = text.toLowerCase();
  const at = Math.max(0, Math.min(...terms.map((t) => lower.indexOf(t)).filter((i) => i >= 0), lower.length));
  const start = Math.max(0, at - 40);
  return `${start > 0 ? '…' : ''}${text.slice(start, start + 200).trim()}${start + 200 < text.length ? '…' : ''}`;
}

/** Full-text index held in memory (MiniSearch, BM25), built at start-up over the supplier sites and the news. */
export class LocalSearchIndex implements SearchProvider {
  readonly name = 'local';
  private readonly index = new MiniSearch<IndexedPage & { id: number }>({
    fields: ['title', 'text'],
    storeFields: ['url', 'title', 'text', 'kind', 'publishedAt'],
    tokenize,
    searchOptions: {
      boost: { title: 2 },
      prefix: (term) => !CJK.test(term) && term.length >= 3,
      fuzzy: (term) => (!CJK.test(term) && term.length >= 5 ? 0.2 : false),
    },
  });
  private nextId = 0;

  constructor(pages: readonly IndexedPage[] = []) {
    this.add(pages);
  }

  get size(): number {
    return this.index.documentCount;
  }

  add(pages: readonly IndexedPage[]): void {
    this.index.addAll(pages.map((page) => ({ ...page, id: this.nextId++ })));
  }

  async search(query: string, topK: number): Promise<SearchHit[]> {
    const terms = tokenize(query);
    return this.index
      .search(query)
      .slice(0, topK)
      .map((r) => ({
        title: r.title as string,
        url: r.url as string,
        snippet: snippetOf(r.text as string, terms),
        source: `local:${r.kind as string}`,
        score: Math.round(r.score * 100) / 100,
        ...(r.publishedAt ? { publishedAt: r.publishedAt as string } : {}),
      }));
  }
}
