import { z } from 'zod';
import { productSlug } from '../../suppliers/index.ts';
import { isToolFailure, Tool, type ToolContext, type ToolControl, ToolError, type ToolRegistry } from '../registry.ts';
import { FENCE_CLOSE, type WebFetcher } from './fetcher.ts';

interface SweptPart {
  id: number;
  code: string;
  name: string;
  unitPrice: number;
  supplier: { id: number; name: string };
}

interface Offer {
  currency?: string;
  tiers?: Array<{ minQuantity: number; unitPrice: number }>;
  stock?: number;
  leadTimeDays?: number;
}

/** The JSON a shop's offers API returned, out of the fetcher's untrusted-content fence. */
function fencedJson(content: string): Offer | undefined {
  const body = content.split('\n').slice(2).join('\n').replace(FENCE_CLOSE, '');
  try {
    // The JSON document, whatever Markdown the fetcher put around it.
    return JSON.parse(body.slice(body.indexOf('{'), body.lastIndexOf('}') + 1)) as Offer;
  } catch {
    return undefined;
  }
}

/**
 * A price sweep over the supplier web shops for one part category: the user's ERP parts of the category, then the
 * offer of each part at its supplier's shop, fetched through the guarded fetch chain. Long, so it runs in the
 * background and reports progress per part.
 */
export class PriceSweep {
  constructor(
    private readonly registry: ToolRegistry,
    private readonly ctx: ToolContext,
    private readonly fetcher: WebFetcher,
    private readonly suppliersUrl: string,
  ) {}

  @Tool({
    name: 'price_sweep',
    label: '全网比价',
    description:
      '对一个零部件分类做全网比价：取 ERP 中该分类的零部件，逐个抓取其供应商官网的报价（阶梯价、库存、交期），与 ERP 目录价对比。在后台运行，立即返回 task_id，用 check_background_tasks 查看进度和结果。/ Sweep the supplier shops for one part category (web offer vs ERP list price). Runs in the background: returns a task_id at once; read progress and results with check_background_tasks.',
    schema: z.object({
      category: z.string().trim().min(1).max(40).describe('分类代码，如 spark_plug / category code'),
      maxParts: z.number().int().min(1).max(50).default(20).describe('最多比较的零部件数 / most parts to compare'),
    }),
    safety: 'read-only',
    background: true,
    group: 'web',
  })
  async sweep(input: { category: string; maxParts: number }, control: ToolControl) {
    const found = await this.registry.execute(
      'part_query',
      { category: input.category, size: input.maxParts },
      this.ctx,
    );
    if (isToolFailure(found)) throw new ToolError(found.error, found.suggestion);
    const parts = ((found as { items?: SweptPart[] }).items ?? []).slice(0, input.maxParts);
    if (parts.length === 0)
      throw new ToolError(
        `分类 ${input.category} 下没有零部件 / no parts in category ${input.category}`,
        '用 part_query 的分类列表确认分类代码 / check the category code',
      );
    const shops = new Map<number, string | undefined>();
    const rows = [];
    for (const [i, part] of parts.entries()) {
      control.progress?.(`${i + 1}/${parts.length} ${part.code} @ ${part.supplier.name}`);
      if (!shops.has(part.supplier.id)) {
        const supplier = await this.registry.execute('supplier_get', { supplierId: part.supplier.id }, this.ctx);
        shops.set(part.supplier.id, isToolFailure(supplier) ? undefined : (supplier as { key?: string }).key);
      }
      const shop = shops.get(part.supplier.id);
      const row = { code: part.code, name: part.name, supplier: part.supplier.name, listPrice: part.unitPrice };
      if (!shop) {
        rows.push({ ...row, error: '供应商没有网店 / the supplier has no shop' });
        continue;
      }
      const url = `${this.suppliersUrl}/${shop}/api/offers/${productSlug(part.code)}`;
      try {
        const page = await this.fetcher.fetchUrl({ url, mode: 'auto', maxChars: 20_000 }, { signal: control.signal });
        const offer = page.status === 200 ? fencedJson(page.content) : undefined;
        const best = offer?.tiers?.length ? Math.min(...offer.tiers.map((t) => t.unitPrice)) : undefined;
        rows.push(
          best === undefined
            ? { ...row, url, error: `没有报价 / no offer (HTTP ${page.status})` }
            : {
                ...row,
                url,
                currency: offer?.currency,
                webPrice: offer?.tiers?.[0]?.unitPrice,
                bestTierPrice: best,
                stock: offer?.stock,
                leadTimeDays: offer?.leadTimeDays,
              },
        );
      } catch (error) {
        rows.push({ ...row, url, error: error instanceof Error ? error.message : String(error) });
      }
    }
    const priced = rows.filter((r) => 'webPrice' in r).length;
    return { category: input.category, parts: rows.length, priced, rows };
  }
}
