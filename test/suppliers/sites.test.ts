import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { demoParts } from '../../src/erp/index.ts';
import {
  buildShops,
  PRICE_OUTLIERS,
  SHOP_PROFILES,
  type ShopLayout,
  startSupplierSites,
  USD_CNY_RATE,
} from '../../src/suppliers/index.ts';

const BROWSER = { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0', 'accept-language': 'zh-CN' };

describe('supplier shop catalogue', () => {
  const shops = buildShops();

  it('has a shop for every ERP supplier, covering six layouts, and is deterministic', () => {
    expect(shops.length).toBeGreaterThanOrEqual(6);
    const layouts = new Set<ShopLayout>(SHOP_PROFILES.map((p) => p.layout));
    expect(layouts.size).toBe(6);
    expect(JSON.stringify(buildShops())).toBe(JSON.stringify(shops));
    const offered = new Set(shops.flatMap((s) => s.products.map((p) => `${s.profile.key}/${p.model}`)));
    for (const part of demoParts()) expect(offered).toContain(`${part.supplierKey}/${part.model}`);
  });

  it('prices close to the ERP list price, except the deliberate outliers', () => {
    for (const shop of shops) {
      for (const product of shop.products) {
        const cny = product.tiers[0].unitPrice * (product.currency === 'USD' ? USD_CNY_RATE : 1);
        const ratio = cny / product.erpListPrice;
        const outlier = PRICE_OUTLIERS[`${shop.profile.key}/${product.model}`];
        if (outlier) expect(Math.abs(ratio - 1)).toBeGreaterThan(0.14);
        else expect(Math.abs(ratio - 1)).toBeLessThan(0.04);
        expect(product.tiers.map((t) => t.unitPrice)).toEqual(
          [...product.tiers.map((t) => t.unitPrice)].sort((a, b) => b - a),
        );
        expect(product.history).toHaveLength(12);
        expect(product.history.at(-1)?.unitPrice).toBe(product.tiers[0].unitPrice);
      }
    }
  });
});

describe('supplier sites over HTTP', () => {
  let sites: Awaited<ReturnType<typeof startSupplierSites>>;
  let limited: Awaited<ReturnType<typeof startSupplierSites>>;
  beforeAll(async () => {
    sites = await startSupplierSites({ host: '127.0.0.1', port: 0, rateLimit: false });
    limited = await startSupplierSites({ host: '127.0.0.1', port: 0, rateLimit: { limit: 2, windowMs: 60_000 } });
  });
  afterAll(async () => {
    await sites.server.close();
    await limited.server.close();
  });

  it('refuses non-browser clients on the strict shop and serves browsers', async () => {
    const url = `${sites.server.url}/champion/products/ch-f7tc`;
    expect((await fetch(url, { headers: { 'user-agent': 'curl/8.0' } })).status).toBe(403);
    expect((await fetch(url, { headers: BROWSER })).status).toBe(200);
  });

  it('rate-limits with 429 and Retry-After', async () => {
    const url = `${limited.server.url}/delphi/products/dp-f7tc`;
    expect((await fetch(url)).status).toBe(200);
    expect((await fetch(url)).status).toBe(200);
    const third = await fetch(url);
    expect(third.status).toBe(429);
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThanOrEqual(59);
  });

  it('paginates the catalogue and rejects pages out of range', async () => {
    const first = await fetch(`${sites.server.url}/torch/`, { redirect: 'manual' });
    expect(first.status).toBe(302);
    const page1 = await (await fetch(`${sites.server.url}/torch/catalog?page=1`)).text();
    expect(page1).toContain('/torch/catalog?page=2');
    expect((await fetch(`${sites.server.url}/torch/catalog?page=99`)).status).toBe(400);
    expect((await fetch(`${sites.server.url}/nowhere/`)).status).toBe(404);
  });

  it('publishes a 12-month price history as JSON', async () => {
    const body = (await (await fetch(`${sites.server.url}/bosch/api/history/bs-f7tc.json`)).json()) as {
      history: Array<{ month: string; unitPrice: number }>;
    };
    expect(body.history).toHaveLength(12);
    expect(body.history.at(-1)?.month).toBe('2026-05');
  });

  it('url_mapping.yaml covers every demo part and every URL answers 200 with a price', async () => {
    const mapping = parse(
      await readFile(
        new URL('../../skills/procurement/supplier-price-urls/data/url_mapping.yaml', import.meta.url),
        'utf8',
      ),
    ) as {
      base_url: string;
      entries: Array<{ model: string; supplier: string; quote_url: string; history_url: string }>;
    };
    const covered = new Set(mapping.entries.map((e) => `${e.supplier}/${e.model}`));
    for (const part of demoParts()) expect(covered).toContain(`${part.supplierKey}/${part.model}`);
    const shops = new Map(sites.shops.map((s) => [s.profile.key, s]));
    for (const entry of mapping.entries) {
      const local = (url: string) => url.replace(mapping.base_url, sites.server.url);
      const page = await fetch(local(entry.quote_url), { headers: BROWSER });
      expect(page.status, entry.quote_url).toBe(200);
      const html = await page.text();
      const product = shops.get(entry.supplier)?.products.find((p) => p.model === entry.model);
      expect(product, entry.quote_url).toBeDefined();
      // The JavaScript-priced shop loads its price from its offers API; every other page carries it in the HTML.
      if (shops.get(entry.supplier)?.profile.layout === 'js-priced') {
        const offer = (await (
          await fetch(`${local(entry.quote_url).replace('/products/', '/api/offers/')}.json`)
        ).json()) as {
          tiers: Array<{ unitPrice: number }>;
        };
        expect(offer.tiers[0].unitPrice).toBe(product?.tiers[0].unitPrice);
      } else expect(html, entry.quote_url).toContain(product?.tiers[0].unitPrice.toFixed(2));
      expect((await fetch(local(entry.history_url), { headers: BROWSER })).status).toBe(200);
    }
  });
});
