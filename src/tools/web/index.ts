import { createSupplierSites } from '../../suppliers/index.ts';
import type { ToolRegistry } from '../registry.ts';
import { BrowserRenderer } from './browser.ts';
import { WebFetcher } from './fetcher.ts';
import { type Resolver, UrlGuard } from './guard.ts';
import { GuardedHttp } from './http.ts';
import { PriceSweep } from './price-sweep.ts';
import type { Connector } from './proxy.ts';
import { LocalSearchIndex } from './search/local-index.ts';
import type { SearchProvider } from './search/provider.ts';
import { TavilySearch, ZhipuSearch } from './search/remote.ts';
import { WebSearch } from './search/web-search.ts';
import { loadWebSettings, type WebSettings } from './settings.ts';

export { BrowserRenderer, CHROMIUM_ARGS } from './browser.ts';
export type { StructuredOffer } from './extract.ts';
export {
  FENCE_CLOSE,
  FENCE_OPEN,
  type FetchAttempt,
  type FetchUrlInput,
  type FetchUrlResult,
  fenceUntrusted,
  retryAfterMs,
  WebFetcher,
} from './fetcher.ts';
export { BlockedUrlError, isPublicAddress, type Resolver, systemResolver, UrlGuard } from './guard.ts';
export { BLOCKED_HEADER, type Connector, directConnector, GuardedProxy } from './proxy.ts';
export { type IndexedPage, LocalSearchIndex, tokenize } from './search/local-index.ts';
export type { SearchHit, SearchProvider } from './search/provider.ts';
export { TavilySearch, ZhipuSearch } from './search/remote.ts';
export { WebSearch, type WebSearchResult } from './search/web-search.ts';
export { loadWebSettings, type WebSettings } from './settings.ts';

export interface WebToolsOptions {
  /** Base URL of the supplier sites: allowlisted for fetching and indexed for search. */
  suppliersUrl: string;
  /** Overrides of the environment's web settings. */
  settings?: Partial<WebSettings>;
  env?: NodeJS.ProcessEnv;
  resolver?: Resolver;
  /** How the browser's proxy opens connections to approved addresses (tests map fake public addresses here). */
  connector?: Connector;
  /** Replaces the search provider chosen by the settings. */
  searchProvider?: SearchProvider;
}

export interface WebTools {
  fetcher: WebFetcher;
  search: WebSearch;
  provider: SearchProvider;
  guard: UrlGuard;
  settings: WebSettings;
  /** Closes the browser and the connection pool. */
  close(): Promise<void>;
}

/** The provider the settings select; the local index covers the supplier sites and their news. */
export function searchProviderFor(settings: WebSettings, suppliersUrl: string): SearchProvider {
  switch (settings.searchProvider) {
    case 'zhipu':
      return new ZhipuSearch({ url: settings.zhipuUrl, apiKey: settings.zhipuApiKey, engine: settings.zhipuEngine });
    case 'tavily':
      return new TavilySearch({ url: settings.tavilyUrl, apiKey: settings.tavilyApiKey });
    case 'local': {
      // Indexed on the first search: listing the tools or starting a process that never searches skips it.
      let index: LocalSearchIndex | undefined;
      return {
        name: 'local',
        search: (query, topK) => {
          index ??= new LocalSearchIndex(createSupplierSites().documents(suppliersUrl));
          return index.search(query, topK);
        },
      };
    }
  }
}

/** Builds the web services (fetch chain, SSRF guard, search) from settings. */
export function createWebTools(options: WebToolsOptions): WebTools {
  const settings = loadWebSettings(options.settings, options.env);
  const guard = new UrlGuard([options.suppliersUrl, ...settings.allowlist], options.resolver);
  const http = new GuardedHttp(guard, {
    maxRedirects: settings.maxRedirects,
    maxBytes: settings.maxBytes,
    timeoutMs: settings.timeoutMs,
  });
  const browser = new BrowserRenderer(settings.chromiumPath, guard, settings.timeoutMs, options.connector);
  const fetcher = new WebFetcher({
    http,
    browser,
    cacheTtlMs: settings.cacheTtlSeconds * 1000,
    maxRetryAfterMs: settings.maxRetryAfterSeconds * 1000,
  });
  const provider = options.searchProvider ?? searchProviderFor(settings, options.suppliersUrl);
  return {
    fetcher,
    search: new WebSearch(provider),
    provider,
    guard,
    settings,
    close: async () => {
      await browser.close();
      await http.close();
    },
  };
}

/**
 * Registers `fetch_url`, `web_search` and the background `price_sweep` (group `web`) on the registry; the caller
 * closes the returned tools.
 */
export function registerWebTools(registry: ToolRegistry, options: WebToolsOptions): WebTools {
  const tools = createWebTools(options);
  const suppliersUrl = options.suppliersUrl.replace(/\/$/, '');
  registry
    .register(WebFetcher, () => tools.fetcher)
    .register(WebSearch, () => tools.search)
    .register(PriceSweep, (ctx) => new PriceSweep(registry, ctx, tools.fetcher, suppliersUrl));
  return tools;
}
