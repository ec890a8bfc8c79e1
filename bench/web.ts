/**
 * `npm run bench:web`: fetch_url over the local supplier shops (cold, then cached) and web_search over the
 * local index. The shops run without their rate limit so the numbers measure the fetch chain, not the waits.
 */
import { existsSync } from 'node:fs';
import { buildShops, productPath, startSupplierSites } from '../src/suppliers/index.ts';
import { createWebTools } from '../src/tools/web/index.ts';
import { recordResults } from './results.ts';

recordResults('web');

const sites = await startSupplierSites({ host: '127.0.0.1', port: 0, rateLimit: false });
const web = createWebTools({ suppliersUrl: sites.server.url, settings: { cacheTtlSeconds: 600 } });
const shops = buildShops();
const httpUrls = shops
  .filter((s) => s.profile.layout !== 'js-priced')
  .flatMap((s) => s.products.map((p) => `${sites.server.url}${productPath(p)}`));
const browserUrls = shops
  .filter((s) => s.profile.layout === 'js-priced')
  .flatMap((s) => s.products.map((p) => `${sites.server.url}${productPath(p)}`));

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

async function measure(label: string, urls: string[], concurrency: number, fetcher = web.fetcher) {
  const latencies: number[] = [];
  const queue = [...urls];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let url = queue.shift(); url; url = queue.shift()) {
        const t0 = performance.now();
        await fetcher.fetchUrl({ url, mode: 'auto', maxChars: 20_000 });
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return {
    case: label,
    pages: urls.length,
    'pages/s': Math.round((urls.length / seconds) * 10) / 10,
    'p50 ms': Math.round(percentile(latencies, 50) * 100) / 100,
    'p95 ms': Math.round(percentile(latencies, 95) * 100) / 100,
  };
}

const rows = [
  await measure('fetch_url cold, 1 at a time', httpUrls, 1),
  await measure('fetch_url cached, 1 at a time', httpUrls, 1),
];
const coldParallel = createWebTools({ suppliersUrl: sites.server.url, settings: { cacheTtlSeconds: 0 } });
rows.push(await measure('fetch_url cold, 8 in parallel', httpUrls, 8, coldParallel.fetcher));
if (existsSync(web.settings.chromiumPath))
  rows.push(await measure('fetch_url Chromium (JS page), cold', browserUrls, 1));
else console.log(`(no Chromium at ${web.settings.chromiumPath}: JavaScript pages not measured)`);
console.table(rows);

const queries = [
  '火花塞 价格',
  '博世 刹车片',
  'iridium spark plug',
  '天然橡胶 轮胎',
  'oil filter lead time',
  'F7TC',
  '链条 钢材',
  'VARTA battery',
];
const rounds = 250;
const t0 = performance.now();
for (let i = 0; i < rounds; i++) for (const query of queries) await web.search.webSearch({ query, top_k: 5 });
const searchSeconds = (performance.now() - t0) / 1000;
console.table([
  {
    case: 'web_search local index',
    queries: rounds * queries.length,
    'queries/s': Math.round((rounds * queries.length) / searchSeconds),
    'mean ms': Math.round((searchSeconds * 1000 * 1000) / (rounds * queries.length)) / 1000,
  },
]);

await Promise.all([web.close(), coldParallel.close()]);
await sites.server.close();
