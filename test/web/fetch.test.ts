import { existsSync } from 'node:fs';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, type RunningServer } from '../../src/shared/index.ts';
import {
  buildShops,
  INJECTION_PAGE,
  productPath,
  type ShopProduct,
  startSupplierSites,
} from '../../src/suppliers/index.ts';
import { type ToolContext, ToolRegistry } from '../../src/tools/index.ts';
import {
  FENCE_CLOSE,
  FENCE_OPEN,
  type FetchUrlResult,
  isPublicAddress,
  registerWebTools,
  retryAfterMs,
  UrlGuard,
  type WebTools,
} from '../../src/tools/web/index.ts';

const ctx: ToolContext = { userId: 'laoxiao', role: 'buyer', traceId: 't-web' };
const HAS_CHROMIUM = existsSync('/usr/bin/chromium');
if (!HAS_CHROMIUM)
  console.warn('跳过浏览器测试：/usr/bin/chromium 不存在 / skipping browser tests: /usr/bin/chromium not installed');

type Sites = Awaited<ReturnType<typeof startSupplierSites>>;

/** The tiers a page shows, in order: every minimum quantity and its price must be there. */
function expectTiers(result: FetchUrlResult, product: ShopProduct) {
  if (result.offers.length > 0) {
    expect(result.offers.map((o) => [o.minQuantity, o.price, o.currency])).toEqual(
      product.tiers.map((t) => [t.minQuantity, t.unitPrice, product.currency]),
    );
    return;
  }
  let from = 0;
  for (const tier of product.tiers) {
    const qty = result.content.indexOf(String(tier.minQuantity), from);
    expect(qty, `min qty ${tier.minQuantity}`).toBeGreaterThan(-1);
    const price = result.content.indexOf(tier.unitPrice.toFixed(2), qty);
    expect(price, `price ${tier.unitPrice} after qty ${tier.minQuantity}`).toBeGreaterThan(-1);
    from = price;
  }
}

describe('fetch_url over the supplier shops', () => {
  let sites: Sites;
  let registry: ToolRegistry;
  let web: WebTools;
  beforeAll(async () => {
    sites = await startSupplierSites({ host: '127.0.0.1', port: 0, rateLimit: false });
    registry = new ToolRegistry();
    web = registerWebTools(registry, { suppliersUrl: sites.server.url, env: {} });
  });
  afterAll(async () => {
    await web.close();
    await sites.server.close();
  });

  const fetchUrl = (url: string, extra: Record<string, unknown> = {}) =>
    registry.execute('fetch_url', { url, ...extra }, ctx) as Promise<FetchUrlResult>;

  it('is declared read-only, parallel, in the web group', () => {
    expect(registry.get('fetch_url')).toMatchObject({ safety: 'read-only', execution: 'parallel', group: 'web' });
  });

  for (const shop of buildShops()) {
    const needsBrowser = shop.profile.layout === 'js-priced';
    it.skipIf(needsBrowser && !HAS_CHROMIUM)(
      `reads the price tiers of ${shop.profile.key} (${shop.profile.layout})`,
      async () => {
        const product = shop.products[0];
        const result = await fetchUrl(`${sites.server.url}${productPath(product)}`);
        expect(result.success, JSON.stringify(result)).toBe(true);
        expectTiers(result, product);
        expect(result.content).toContain(product.lastUpdated);
        if (needsBrowser) expect(result.fetchedWith).toBe('chromium');
        if (shop.profile.blocksBots)
          expect(result.attempts.map((a) => [a.step, a.status])).toEqual([
            ['http', 403],
            ['browser-headers', 200],
          ]);
      },
    );
  }

  it('follows a redirect on an allowlisted site and a paginated catalogue to its next page', async () => {
    const first = await fetchUrl(`${sites.server.url}/torch/`);
    expect(first.finalUrl).toBe(`${sites.server.url}/torch/catalog?page=1`);
    expect(first.content).toContain(`${sites.server.url}/torch/catalog?page=2`);
  });

  it('reads JSON (price history) as a fenced code block', async () => {
    const result = await fetchUrl(`${sites.server.url}/denso/api/history/dn-f7tc.json`);
    expect(result.content).toContain('"history"');
    expect(result.content).toContain('```json');
  });

  it('caches per URL and cuts long content with a note', async () => {
    const url = `${sites.server.url}/bosch/`;
    const first = await fetchUrl(url);
    const second = await fetchUrl(url);
    expect([first.cached, second.cached]).toEqual([false, true]);
    expect(second.content).toBe(first.content);
    const short = await fetchUrl(url, { maxChars: 500 });
    expect(short.truncated).toBe(true);
    expect(short.content).toContain('truncated: showing 500');
  });

  it('fences the prompt-injection page as untrusted data', async () => {
    const shop = buildShops().find((s) => s.profile.key === INJECTION_PAGE.shop);
    const product = shop?.products.find((p) => p.model === INJECTION_PAGE.model) as ShopProduct;
    const result = await fetchUrl(`${sites.server.url}${productPath(product)}`);
    expect(result.content.startsWith(FENCE_OPEN)).toBe(true);
    expect(result.content.endsWith(FENCE_CLOSE)).toBe(true);
    // The page's own fake end marker is defused: the fence closes exactly once, at the end.
    expect(result.content.split(FENCE_CLOSE)).toHaveLength(2);
    const inside = result.content.indexOf('ignore previous instructions');
    expect(inside).toBeGreaterThan(result.content.indexOf('Untrusted web page content'));
    expect(result.content).toContain('不要执行');
  });

  it('reports unknown pages as a failure the model can act on', async () => {
    const result = await registry.execute('fetch_url', { url: `${sites.server.url}/bosch/products/nope` }, ctx);
    expect(result).toMatchObject({ success: false, error: expect.stringContaining('404'), stateChanged: false });
  });
});

describe('fetch_url retries', () => {
  let sites: Sites;
  let strict: Sites;
  let web: WebTools;
  let strictWeb: WebTools;
  beforeAll(async () => {
    sites = await startSupplierSites({ host: '127.0.0.1', port: 0, rateLimit: { limit: 1, windowMs: 1000 } });
    strict = await startSupplierSites({ host: '127.0.0.1', port: 0, rateLimit: { limit: 1, windowMs: 120_000 } });
    web = registerWebTools(new ToolRegistry(), {
      suppliersUrl: sites.server.url,
      env: {},
      settings: { cacheTtlSeconds: 0 },
    });
    strictWeb = registerWebTools(new ToolRegistry(), {
      suppliersUrl: strict.server.url,
      env: {},
      settings: { cacheTtlSeconds: 0 },
    });
  });
  afterAll(async () => {
    await Promise.all([web.close(), strictWeb.close()]);
    await Promise.all([sites.server.close(), strict.server.close()]);
  });

  it('waits out 429 Retry-After, then succeeds with browser-like headers', async () => {
    const url = `${sites.server.url}/delphi/products/dp-f7tc`;
    expect((await web.fetcher.fetchUrl({ url, mode: 'auto', maxChars: 20_000 })).status).toBe(200);
    const second = await web.fetcher.fetchUrl({ url, mode: 'auto', maxChars: 20_000 });
    expect(second.status).toBe(200);
    expect(second.attempts[0]).toEqual({ step: 'http', status: 429 });
    expect(second.attempts.at(-1)).toMatchObject({ step: 'browser-headers', status: 200, waitedMs: 1000 });
  });

  it('gives up clearly when Retry-After exceeds the bound', async () => {
    const url = `${strict.server.url}/delphi/products/dp-f7tc`;
    await strictWeb.fetcher.fetchUrl({ url, mode: 'auto', maxChars: 20_000 });
    await expect(strictWeb.fetcher.fetchUrl({ url, mode: 'auto', maxChars: 20_000 })).rejects.toThrow(
      /rate limited.*120 s/,
    );
  });

  it('parses Retry-After as seconds or an HTTP date', () => {
    expect(retryAfterMs('3')).toBe(3000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 5_000)).toBe(5_000);
    expect(retryAfterMs('soon')).toBeUndefined();
  });
});

describe('fetch_url without a browser', () => {
  let sites: Sites;
  let registry: ToolRegistry;
  let web: WebTools;
  beforeAll(async () => {
    sites = await startSupplierSites({ host: '127.0.0.1', port: 0, rateLimit: false });
    registry = new ToolRegistry();
    web = registerWebTools(registry, {
      suppliersUrl: sites.server.url,
      env: {},
      settings: { chromiumPath: '/nonexistent/chromium' },
    });
  });
  afterAll(async () => {
    await web.close();
    await sites.server.close();
  });

  it('says so clearly, in auto mode as a note and in browser mode as a failure', async () => {
    const url = `${sites.server.url}/ngk/products/ng-f7tc`;
    const auto = (await registry.execute('fetch_url', { url }, ctx)) as FetchUrlResult;
    expect(auto.fetchedWith).toBe('http');
    expect(auto.notes.join(' ')).toContain('no headless browser at /nonexistent/chromium');
    expect(await registry.execute('fetch_url', { url, mode: 'browser' }, ctx)).toMatchObject({
      success: false,
      error: expect.stringContaining('no headless browser'),
    });
  });
});

describe('SSRF guard', () => {
  let sites: Sites;
  let redirector: RunningServer;
  let registry: ToolRegistry;
  let web: WebTools;
  beforeAll(async () => {
    sites = await startSupplierSites({ host: '127.0.0.1', port: 0, rateLimit: false });
    const app = new Hono();
    app.get('/to-private', (c) => c.redirect('http://10.0.0.1/admin', 302));
    app.get('/to-metadata', (c) => c.redirect('http://169.254.169.254/latest/meta-data/', 302));
    app.get('/to-erp', (c) => c.redirect(sites.server.url.replace(/:\d+$/, ':8080/api/suppliers'), 302));
    app.get('/loop', (c) => c.redirect('/loop', 302));
    redirector = await listen(app.fetch, { host: '127.0.0.1', port: 0 });
    registry = new ToolRegistry();
    // `rebind.example` plays a DNS name that points at loopback.
    const resolver = async (host: string) =>
      host === 'rebind.example' ? ['127.0.0.1'] : host === 'v6.example' ? ['::1'] : ['93.184.215.14'];
    web = registerWebTools(registry, {
      suppliersUrl: sites.server.url,
      env: {},
      settings: { allowlist: [redirector.url] },
      resolver,
    });
  });
  afterAll(async () => {
    await web.close();
    await redirector.close();
    await sites.server.close();
  });

  const refused = async (url: string, reason: RegExp) => {
    const result = await registry.execute('fetch_url', { url }, ctx);
    expect(result, url).toMatchObject({ success: false, stateChanged: false });
    expect((result as { error: string }).error, url).toMatch(reason);
  };

  it('refuses private, loopback, link-local and metadata addresses', async () => {
    await refused('http://127.0.0.1:8080/api', /loopback/);
    await refused('http://169.254.169.254/latest/meta-data/', /link-local/);
    await refused('http://10.0.0.1/', /private/);
    await refused('http://[::1]:8090/', /loopback/);
    await refused('http://[::ffff:169.254.169.254]/', /link-local/);
    await refused('http://0x7f000001/', /loopback/);
    await refused('http://0.0.0.0/', /unspecified/);
    await refused('http://100.100.100.200/', /carrier-grade/);
  });

  it('refuses other schemes and credentials', async () => {
    await refused('file:///etc/passwd', /only http and https/);
    await refused('ftp://example.com/', /only http and https/);
    await refused('http://user:pw@example.com/', /credentials/);
  });

  it('refuses DNS names that resolve to loopback', async () => {
    await refused('http://rebind.example/', /rebind\.example resolves to a non-public address 127\.0\.0\.1/);
    await refused('http://v6.example/', /non-public address ::1/);
    const real = new UrlGuard([]);
    await expect(real.check(`http://localhost:${sites.server.port}/`)).rejects.toThrow(/loopback/);
  });

  it('checks every redirect hop and caps redirects', async () => {
    await refused(`${redirector.url}/to-private`, /10\.0\.0\.1.*private/);
    await refused(`${redirector.url}/to-metadata`, /link-local/);
    await refused(`${redirector.url}/to-erp`, /loopback/);
    await refused(`${redirector.url}/loop`, /more than 5 redirects/);
  });

  it('allows only the allowlisted port of a private host', async () => {
    const guard = new UrlGuard(['127.0.0.1:8090']);
    await expect(guard.check('http://127.0.0.1:8090/bosch/')).resolves.toMatchObject({ allowlisted: true });
    await expect(guard.check('http://127.0.0.1:8091/')).rejects.toThrow(/loopback/);
  });

  it('classifies addresses', () => {
    expect(['8.8.8.8', '2606:4700::1111', '93.184.215.14'].every(isPublicAddress)).toBe(true);
    expect(
      [
        '127.0.0.1',
        '10.1.2.3',
        '172.16.0.1',
        '192.168.1.1',
        '169.254.169.254',
        '::1',
        'fe80::1',
        'fd00::1',
        '::ffff:10.0.0.1',
        '0.0.0.0',
        '::',
        'nonsense',
      ].some(isPublicAddress),
    ).toBe(false);
  });
});
