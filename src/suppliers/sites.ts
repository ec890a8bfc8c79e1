import { getConnInfo } from '@hono/node-server/conninfo';
import { Hono } from 'hono';
import { listen, type RunningServer } from '../shared/index.ts';
import { buildShops, type Shop, type ShopProduct } from './catalog.ts';
import { NEWS_ARTICLES } from './news.ts';
import {
  blockedPage,
  catalogPage,
  historyPage,
  newsIndexPage,
  newsPage,
  PAGE_SIZE,
  portalPage,
  productPage,
  productPath,
} from './pages.ts';

export interface RateLimit {
  /** Requests a client may make per window. */
  limit: number;
  windowMs: number;
}

export interface SupplierSitesOptions {
  /** Budget of the rate-limited shop; `false` turns it off (throughput benchmarks). */
  rateLimit?: RateLimit | false;
}

/** A page the search index can hold: what a crawler would have read from the sites. */
export interface SiteDocument {
  url: string;
  title: string;
  text: string;
  kind: 'product' | 'shop' | 'news';
}

export interface SupplierSites {
  fetch: (request: Request) => Response | Promise<Response>;
  shops: readonly Shop[];
  /** Every product, shop and news page with its text, for a search index over `baseUrl`. */
  documents(baseUrl: string): SiteDocument[];
}

export const DEFAULT_RATE_LIMIT: RateLimit = { limit: 10, windowMs: 10_000 };

/** Anti-bot check of the strict shop: a browser sends a Mozilla UA and an Accept-Language header. */
function looksLikeBrowser(request: Request): boolean {
  const agent = request.headers.get('user-agent') ?? '';
  return (
    agent.startsWith('Mozilla/') &&
    !/bot|crawl|spider|curl|wget|python|node|undici|axios|procura|headless/i.test(agent) &&
    request.headers.has('accept-language')
  );
}

/** Fixed-window request counter per client address. */
function windowCounter(limit: RateLimit) {
  const windows = new Map<string, { start: number; count: number }>();
  return (client: string, now = Date.now()): number | undefined => {
    let window = windows.get(client);
    if (!window || now - window.start >= limit.windowMs) {
      window = { start: now, count: 0 };
      windows.set(client, window);
    }
    window.count++;
    if (window.count <= limit.limit) return undefined;
    return Math.max(1, Math.ceil((window.start + limit.windowMs - now) / 1000));
  };
}

function clientAddress(c: Parameters<typeof getConnInfo>[0]): string {
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'in-process';
  }
}

/** The simulated supplier web: one Hono app, one shop per path prefix (`/bosch/`, `/denso/`, …) plus `/news/`. */
export function createSupplierSites(options: SupplierSitesOptions = {}): SupplierSites {
  const shops = buildShops();
  const byKey = new Map(shops.map((s) => [s.profile.key, s]));
  const rateLimit = options.rateLimit === undefined ? DEFAULT_RATE_LIMIT : options.rateLimit;
  const counters = new Map(
    rateLimit ? shops.filter((s) => s.profile.rateLimited).map((s) => [s.profile.key, windowCounter(rateLimit)]) : [],
  );
  const app = new Hono();

  app.get('/', (c) => c.html(portalPage(shops)));
  app.get('/news/', (c) => c.html(newsIndexPage(NEWS_ARTICLES)));
  app.get('/news/:slug', (c) => {
    const article = NEWS_ARTICLES.find((a) => a.slug === c.req.param('slug'));
    return article ? c.html(newsPage(article)) : c.notFound();
  });

  // Shop-wide behaviour first: anti-bot and rate limits apply to every page and API of that shop.
  app.use('/:shop/*', async (c, next) => {
    const shop = byKey.get(c.req.param('shop'));
    if (!shop) return c.text('未找到 / not found', 404);
    if (shop.profile.blocksBots && !looksLikeBrowser(c.req.raw)) return c.html(blockedPage(), 403);
    const counter = counters.get(shop.profile.key);
    const retryAfter = counter?.(clientAddress(c));
    if (retryAfter !== undefined) {
      c.header('Retry-After', String(retryAfter));
      return c.text(`请求过于频繁，请 ${retryAfter} 秒后重试 / too many requests, retry in ${retryAfter}s`, 429);
    }
    await next();
  });

  const shopOf = (key: string) => byKey.get(key) as Shop;
  const productOf = (shop: Shop, slug: string): ShopProduct | undefined =>
    shop.products.find((p) => p.slug === slug.replace(/\.json$/, ''));

  app.get('/:shop', (c) => c.redirect(`/${c.req.param('shop')}/`, 301));
  app.get('/:shop/', (c) => {
    const shop = shopOf(c.req.param('shop'));
    return shop.profile.layout === 'paginated'
      ? c.redirect(`/${shop.profile.key}/catalog?page=1`, 302)
      : c.html(catalogPage(shop));
  });
  app.get('/:shop/catalog', (c) => {
    const shop = shopOf(c.req.param('shop'));
    if (shop.profile.layout !== 'paginated') return c.html(catalogPage(shop));
    const pages = Math.max(1, Math.ceil(shop.products.length / PAGE_SIZE));
    const pageNumber = Number(c.req.query('page') ?? '1');
    if (!Number.isInteger(pageNumber) || pageNumber < 1 || pageNumber > pages)
      return c.text(`页码应为 1–${pages} / page must be 1–${pages}`, 400);
    return c.html(catalogPage(shop, pageNumber));
  });
  app.get('/:shop/products/:slug', (c) => {
    const shop = shopOf(c.req.param('shop'));
    const product = productOf(shop, c.req.param('slug'));
    return product ? c.html(productPage(shop, product)) : c.text('产品不存在 / no such product', 404);
  });
  app.get('/:shop/products/:slug/history', (c) => {
    const shop = shopOf(c.req.param('shop'));
    const product = productOf(shop, c.req.param('slug'));
    return product ? c.html(historyPage(shop, product)) : c.text('产品不存在 / no such product', 404);
  });
  app.get('/:shop/api/history/:slug', (c) => {
    const shop = shopOf(c.req.param('shop'));
    const product = productOf(shop, c.req.param('slug'));
    if (!product) return c.json({ error: '产品不存在 / no such product' }, 404);
    return c.json({ sku: product.sku, model: product.model, currency: product.currency, history: product.history });
  });
  app.get('/:shop/api/offers/:slug', (c) => {
    const shop = shopOf(c.req.param('shop'));
    const product = productOf(shop, c.req.param('slug'));
    if (!product) return c.json({ error: '产品不存在 / no such product' }, 404);
    const { sku, model, currency, tiers, stock, leadTimeDays, lastUpdated } = product;
    return c.json({ sku, model, currency, tiers, stock, leadTimeDays, lastUpdated });
  });

  const documents = (baseUrl: string): SiteDocument[] => {
    const base = baseUrl.replace(/\/$/, '');
    const docs: SiteDocument[] = [];
    for (const shop of shops) {
      const { supplier } = shop;
      docs.push({
        url: `${base}/${shop.profile.key}/`,
        title: `${supplier.nameZh} ${supplier.nameEn} 官方商城 / web shop`,
        text: `${supplier.nameZh} ${supplier.nameEn} ${supplier.city} ${supplier.province} ${[...new Set(shop.products.map((p) => `${p.categoryZh} ${p.nameZh} ${p.nameEn} ${p.model}`))].join(' ')}`,
        kind: 'shop',
      });
      for (const p of shop.products) {
        docs.push({
          url: `${base}${productPath(p)}`,
          title: `${p.nameZh} ${p.model} - ${supplier.nameZh} ${supplier.nameEn}`,
          text: `${p.nameZh} ${p.nameEn} ${p.model} ${p.sku} ${p.categoryZh} ${p.category.replace('_', ' ')} ${p.spec} ${supplier.nameZh} ${supplier.nameEn} 报价 price quote ${p.currency}`,
          kind: 'product',
        });
      }
    }
    for (const a of NEWS_ARTICLES) {
      docs.push({
        url: `${base}/news/${a.slug}`,
        title: a.title,
        text: `${a.date} ${a.tags.join(' ')} ${a.body.join(' ')}`,
        kind: 'news',
      });
    }
    return docs;
  };

  return { fetch: app.fetch, shops, documents };
}

/** Serves the supplier sites on host:port (port 0 picks a free one). */
export async function startSupplierSites(
  options: SupplierSitesOptions & { host: string; port: number },
): Promise<SupplierSites & { server: RunningServer }> {
  const sites = createSupplierSites(options);
  const server = await listen(sites.fetch, { host: options.host, port: options.port });
  return { ...sites, server };
}
