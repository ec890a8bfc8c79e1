import fs from 'node:fs';
import path from 'node:path';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ANOMALIES_HEADING,
  printedAs,
  printedNumber,
  reportSection,
  SCORECARDS_HEADING,
  sectionTable,
} from '../../bench/eval/price-review.ts';
import { type AgentHarness, startAgentHarness } from './harness.ts';
import { type ModelCall, recordingModels } from './stand-ins.ts';

/** Text without its source citations (`[E1]`, `[E1, W2]`), to read the figures as a sentence. */
const uncited = (text: string) => text.replace(/\s?\[[EW]\d+(?:,\s*[EW]\d+)*\]/g, '');

describe('canonical analysis on the offline model (real sandbox, charts, supplier sites)', () => {
  let h: AgentHarness;
  beforeAll(async () => {
    h = await startAgentHarness();
  }, 90_000);
  afterAll(() => h?.close());

  it('compares spark-plug suppliers from ERP and web prices: result JSON, 2 served charts, a report', async () => {
    const ctx = h.contextFor('laoxiao', 'analysis-1');
    const turn = await h.send(ctx, '帮我对摩托车火花塞做供应商比价分析');
    expect(turn.interrupts).toEqual([]);
    expect(turn.answer).toContain('供应商比价结果');
    // The summary carries the review too: the flagged prices and each supplier's delivery record.
    expect(uncited(turn.answer)).toMatch(/价格异常（对比 ERP 近 12 个月成交中位价 ¥[\d.]+）：.*warn/);
    expect(uncited(turn.answer)).toMatch(/供应商评分：.*准时 [\d.]+%/);

    const workspace = path.join(h.dataDir, 'workspaces');
    const files = fs.readdirSync(workspace, { recursive: true }).map(String);
    const resultFile = files.find((f) => f.endsWith('data/analysis_result.json'));
    expect(resultFile, files.join('\n')).toBeDefined();
    const result = JSON.parse(fs.readFileSync(path.join(workspace, resultFile!), 'utf8'));
    expect(result.model).toBe('F7TC');
    expect(result.suppliers).toHaveLength(6);
    // ERP list prices and supplier web prices both made it in.
    expect(result.suppliers.every((s: { erpPrice: number }) => s.erpPrice > 0)).toBe(true);
    expect(
      result.suppliers.filter((s: { webPrice: number | null }) => typeof s.webPrice === 'number').length,
    ).toBeGreaterThanOrEqual(5);
    expect(result.trend.length).toBeGreaterThanOrEqual(2);

    const reportFile = files.find((f) => /analysis\/report_\d{8}_\d{6}\.md$/.test(f));
    expect(reportFile).toBeDefined();
    const report = fs.readFileSync(path.join(workspace, reportFile!), 'utf8');
    expect(report).toContain('ERP 目录价');
    expect(report).toContain('官网报价');
    const images = [...report.matchAll(/!\[([^\]]*)\]\((http[^)]+\.png)\)/g)];
    const charts = images.map((m) => m[2]);
    // Each image's alt text says what the chart shows and its main figure, as the chart tool described it.
    for (const [, alt] of images) expect(alt).toMatch(/.+，.*(最高|最大).+\/ .*(highest|largest)/);
    expect(charts.length).toBeGreaterThanOrEqual(2);
    expect(charts.length).toBeLessThanOrEqual(4);
    for (const url of charts) {
      const res = await fetch(url);
      expect(res.status).toBe(200);
      const png = new Uint8Array(await res.arrayBuffer());
      expect([...png.slice(1, 4)].map((c) => String.fromCharCode(c)).join('')).toBe('PNG');
    }
  }, 120_000);

  it('reports price anomalies and supplier scorecards with the ERP’s own answers', async () => {
    const workspace = path.join(h.dataDir, 'workspaces');
    const files = fs.readdirSync(workspace, { recursive: true }).map(String);
    const report = fs.readFileSync(
      path.join(workspace, files.find((f) => /analysis\/report_\d{8}_\d{6}\.md$/.test(f))!),
      'utf8',
    );
    const result = JSON.parse(
      fs.readFileSync(path.join(workspace, files.find((f) => f.endsWith('data/analysis_result.json'))!), 'utf8'),
    ) as { suppliers: Array<{ code: string; erpPrice: number; webPrice: number | null }> };
    const erp = async (route: string) =>
      (
        await h.erp.fetch(
          new Request(`http://erp.test/api${route}`, { headers: { authorization: `Bearer ${h.tokens.laoxiao}` } }),
        )
      ).json() as Promise<Record<string, never>>;
    const parts = (await erp('/parts?name=F7TC&size=50')).items as Array<{
      id: number;
      code: string;
      supplier: { id: number };
    }>;

    // Price anomalies: one row per ERP list price and per web quote, each as the ERP's price check judges it.
    const anomalies = sectionTable(report, ANOMALIES_HEADING) ?? [];
    const priced = result.suppliers.flatMap((s) => [
      { code: s.code, source: 'ERP 目录价', price: s.erpPrice },
      ...(s.webPrice === null ? [] : [{ code: s.code, source: '官网报价', price: s.webPrice }]),
    ]);
    expect(anomalies.map((r) => [r.料号, r.价格来源])).toEqual(priced.map((p) => [p.code, p.source]));
    expect(priced.filter((p) => p.source === '官网报价').length).toBeGreaterThanOrEqual(5);
    let flagged = 0;
    for (const [i, p] of priced.entries()) {
      const part = parts.find((x) => x.code === p.code)!;
      const check = await erp(`/parts/${part.id}/price-check?unitPrice=${p.price}&supplierId=${part.supplier.id}`);
      const row = anomalies[i];
      expect(printedAs(row.单价, p.price, 2), `${row.单价} vs ${p.price}`).toBe(true);
      expect(printedAs(row['12 个月中位价'], check.median12m, 2), `${row['12 个月中位价']} vs ${check.median12m}`).toBe(
        true,
      );
      expect(
        printedAs(row['12 个月最低价'], check.minPrice12m, 2),
        `${row['12 个月最低价']} vs ${check.minPrice12m}`,
      ).toBe(true);
      expect(printedAs(row.偏离中位价, check.deviationPct, 1), `${row.偏离中位价} vs ${check.deviationPct}`).toBe(true);
      expect(row.严重程度).toContain(check.severity);
      if (['info', 'warn', 'critical'].includes(check.severity)) {
        flagged++;
        expect(uncited(reportSection(report, ANOMALIES_HEADING) ?? '')).toMatch(
          new RegExp(`高于 12 个月中位价的报价：.*${row.供应商} ${p.source} ¥${p.price.toFixed(2)}`),
        );
      }
    }
    // The web quotes ranked by their deviation from the median, lowest first, as the ERP computed it.
    const webRows = anomalies.filter((r) => r.价格来源 === '官网报价');
    const ranked = [...webRows].sort((a, b) => printedNumber(a.偏离中位价) - printedNumber(b.偏离中位价));
    expect(uncited(reportSection(report, ANOMALIES_HEADING) ?? '')).toContain(
      `官网报价相对 12 个月中位价：${ranked.map((r) => `${r.供应商} ${r.偏离中位价}`).join('、')}。`,
    );
    // The demo history makes some F7TC prices stand out (Bosch's list price is well above the median).
    expect(flagged).toBeGreaterThan(0);

    // Supplier scorecards: one row per supplier compared, as the ERP scores it.
    const cards = sectionTable(report, SCORECARDS_HEADING) ?? [];
    expect(cards).toHaveLength(result.suppliers.length);
    for (const s of result.suppliers) {
      const part = parts.find((x) => x.code === s.code)!;
      const card = (await erp(`/suppliers/${part.supplier.id}/scorecard?months=12`)) as Record<
        string,
        Record<string, number | null>
      >;
      const row = cards[result.suppliers.indexOf(s)];
      expect(
        printedAs(row.准时交付率, card.delivery.onTimePct, 1),
        `${row.准时交付率} vs ${card.delivery.onTimePct}`,
      ).toBe(true);
      expect(printedNumber(row.已收货订单)).toBe(card.delivery.received);
      expect(
        printedAs(row['目录价 vs 市场中位价'], card.price.vsMarketMedianPct, 1),
        `${row['目录价 vs 市场中位价']} vs ${card.price.vsMarketMedianPct}`,
      ).toBe(true);
      expect(printedNumber(row.订单数)).toBe(card.volume.orders);
      expect(printedAs(row.采购金额, card.volume.amount, 2), `${row.采购金额} vs ${card.volume.amount}`).toBe(true);
      expect(printedAs(row.取消率, card.cancellations.pct, 1), `${row.取消率} vs ${card.cancellations.pct}`).toBe(true);
    }
  });

  it('remembers the suppliers and the query in the user’s preferences', async () => {
    const storage = await h.runtime.storage();
    const ctx = h.contextFor('laoxiao', 'analysis-1');
    const backend = (await storage.backend({ context: ctx, state: {} } as never)) as unknown as {
      downloadFiles(p: string[]): Promise<Array<{ content: Uint8Array | null }>>;
    };
    const [prefs] = await backend.downloadFiles(['/memories/laoxiao/preferences.md']);
    const text = new TextDecoder().decode(prefs.content!);
    expect(text).toContain('## recent_queries');
    expect(text).toContain('火花塞');
  });

  it('takes the trend and what was paid from the ERP’s price history, per supplier and across suppliers; drafts never move it', async () => {
    const session = (id: string) => {
      const root = path.join(h.dataDir, 'workspaces');
      const file = (pattern: RegExp) =>
        fs
          .readdirSync(root, { recursive: true })
          .map(String)
          .find((f) => f.includes(id) && pattern.test(f));
      return JSON.parse(fs.readFileSync(path.join(root, file(/data\/analysis_result\.json$/)!), 'utf8'));
    };
    const erp = async (route: string, init: RequestInit = {}) =>
      (
        await h.erp.fetch(
          new Request(`http://erp.test/api${route}`, {
            ...init,
            headers: { authorization: `Bearer ${h.tokens.laoxiao}`, 'content-type': 'application/json' },
          }),
        )
      ).json() as Promise<Record<string, never>>;
    // Every tool call of the run, the sub-agents' included, as LangChain reports them.
    const calls: Array<{ name: string; args: Record<string, unknown> }> = [];
    h.callbacks.push({
      handleToolStart: (
        _tool: unknown,
        input: string,
        _run: string,
        _parent?: string,
        _tags?: string[],
        _meta?: unknown,
        name?: string,
      ) => calls.push({ name: name ?? '', args: JSON.parse(input || '{}') }),
    });
    const analyse = async (id: string) => {
      calls.length = 0;
      const turn = await h.send(h.contextFor('laoxiao', id), '帮我对摩托车火花塞做供应商比价分析');
      return { turn, calls: [...calls], result: session(id) };
    };
    const first = await analyse('paid-1');
    // Never one page of order search results: the ERP's price history, both groupings, is the only source.
    expect(first.calls.map((c) => c.name)).not.toContain('order_search_details');
    const asked = first.calls.filter((c) => c.name === 'part_price_history').map((c) => c.args.by);
    expect(asked.sort()).toEqual(['product', 'supplier']);
    const partId = first.calls.find((c) => c.name === 'part_price_history')!.args.partId;
    const across = await erp(`/parts/${partId}/price-history?months=12&by=product`);
    const perSupplier = await erp(`/parts/${partId}/price-history?months=12&by=supplier`);
    const series = across.series as Array<{ months: Array<Record<string, number>> }>;
    expect(first.result.trend.map((m: Record<string, unknown>) => [m.month, m.avgPrice, m.lines, m.quantity])).toEqual(
      series[0].months.map((m) => [m.month, m.avgUnitPrice, m.lines, m.quantity]),
    );
    expect(first.result.trendBasis).toContain('所有供应商');
    expect(first.result.trendBasis).toContain(String(across.definition));
    const bySupplier = perSupplier.series as Array<{
      supplier: { nameZh: string };
      months: Array<Record<string, number>>;
      total: Record<string, number>;
    }>;
    for (const row of first.result.suppliers) {
      const own = bySupplier.find((s) => s.supplier.nameZh === row.supplier)!;
      expect([row.avgPaid, row.paidLines, row.orderedQty], row.supplier).toEqual([
        own.total.avgUnitPrice,
        own.total.lines,
        own.total.quantity,
      ]);
      const trend = first.result.supplierTrends.find((t: { supplier: string }) => t.supplier === row.supplier);
      expect(trend.months.map((m: Record<string, unknown>) => [m.month, m.avgPrice])).toEqual(
        own.months.map((m) => [m.month, m.avgUnitPrice]),
      );
    }
    // The answer labels the trend as across suppliers, and names what each supplier was paid.
    expect(first.turn.answer).toMatch(/价格趋势（所有供应商.*加权/);
    expect(first.turn.answer).toMatch(/各供应商成交均价/);

    // A buyer drafts, submits and cancels orders at absurd prices: what the analysis was computed from does not move.
    const parts = (await erp('/parts?name=F7TC&size=50')).items as Array<{
      id: number;
      unitPrice: number;
      moq: number;
      supplier: { id: number };
    }>;
    for (const [i, part] of parts.entries()) {
      const order = await erp('/orders/create', {
        method: 'POST',
        body: JSON.stringify({
          supplierId: part.supplier.id,
          lines: [{ partId: part.id, quantity: part.moq * 20, unitPrice: Math.round(part.unitPrice * 7) }],
          status: i % 2 ? 'pending_approval' : 'draft',
        }),
      });
      if (i % 3 === 0)
        await erp(`/orders/${order.id}/cancel`, { method: 'POST', body: JSON.stringify({ version: order.version }) });
    }
    expect(await erp(`/parts/${partId}/price-history?months=12&by=product`)).toEqual(across);
    expect(await erp(`/parts/${partId}/price-history?months=12&by=supplier`)).toEqual(perSupplier);
  }, 120_000);

  // Last in this file: it rewrites the spark plugs' paid lines.
  it('heads the trend with the like-for-like index: flat when only the supplier mix moved, the mix named apart', async () => {
    const db = h.erp.database.db;
    const plugs = (await db.selectFrom('parts').select(['id', 'unit_price_e4']).where('model', '=', 'F7TC').execute())
      .map((p) => ({ id: Number(p.id), price: Number(p.unit_price_e4) }))
      .sort((a, b) => a.price - b.price);
    const [cheapest, dearest] = [plugs[0], plugs.at(-1)!];
    // Every supplier is paid its list price every month; the buyer moves from the cheapest to the dearest.
    const lines = await db
      .selectFrom('order_lines')
      .innerJoin('orders', 'orders.id', 'order_lines.order_id')
      .select(['order_lines.id', 'order_lines.part_id', 'orders.created_at'])
      .where(
        'order_lines.part_id',
        'in',
        plugs.map((p) => p.id),
      )
      .execute();
    const now = new Date();
    for (const line of lines) {
      const at = new Date(line.created_at);
      const age = Math.max(0, (now.getUTCFullYear() - at.getUTCFullYear()) * 12 + now.getUTCMonth() - at.getUTCMonth());
      const part = plugs.find((p) => p.id === Number(line.part_id))!;
      const quantity = part === cheapest ? 10 + 100 * age : part === dearest ? 10 + 100 * Math.max(0, 12 - age) : 10;
      await db
        .updateTable('order_lines')
        .set({ unit_price_e4: part.price, quantity })
        .where('id', '=', Number(line.id))
        .execute();
    }
    const turn = await h.send(h.contextFor('laoxiao', 'index-1'), '帮我对摩托车火花塞做供应商比价分析');
    const text = uncited(turn.answer);
    const answered = (
      (await (
        await h.erp.fetch(
          new Request(`http://erp.test/api/parts/${cheapest.id}/price-history?months=12&by=product`, {
            headers: { authorization: `Bearer ${h.tokens.laoxiao}` },
          }),
        )
      ).json()) as { index: { change: { indexPct: number; averagePct: number; mixPct: number } } }
    ).index.change;
    expect(answered.indexPct).toBe(0);
    expect(Math.abs(answered.mixPct)).toBeGreaterThan(5);
    // Flat, with the index's figure; the average's rise is stated apart, as the mix, with the supplier bought from more.
    expect(text).toMatch(/同口径价格持平（价格指数 (\+)?0\.0%）/);
    expect(text).toContain(`均价 ${answered.averagePct > 0 ? '+' : ''}${answered.averagePct.toFixed(1)}%`);
    expect(text).toContain(`供应商结构影响 ${answered.mixPct > 0 ? '+' : ''}${answered.mixPct.toFixed(1)}%`);
    expect(text).toMatch(/但更多从 \S+ 采购（数量份额 [\d.]+% → [\d.]+%）/);
    expect(text).not.toMatch(/：上涨|：下降/);
    // Each supplier's own line stays.
    expect(text).toMatch(/各供应商成交均价/);
  }, 120_000);
});

describe('what a real model is sent for an analysis and an order', () => {
  const calls: ModelCall[] = [];
  let h: AgentHarness;
  const text = (m: BaseMessage) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content));
  // The orchestrator delegates the request to the sub-agent it names; the sub-agent answers at once.
  const script = (call: ModelCall) => {
    if (call.agent !== 'orchestrator') return new AIMessage('完成 / done');
    if (call.messages.some((m) => m.getType() === 'tool')) return new AIMessage('好的 / ok');
    const asked = call.messages
      .filter((m) => m.getType() === 'human')
      .map(text)
      .join('\n');
    const subagent = asked.includes('下') ? 'procurement-order' : 'procurement-analyst';
    return new AIMessage({
      content: '',
      tool_calls: [
        { id: 't1', name: 'task', args: { subagent_type: subagent, description: asked }, type: 'tool_call' },
      ],
    });
  };
  beforeAll(async () => {
    h = await startAgentHarness(undefined, { models: recordingModels(calls, script) });
  }, 90_000);
  afterAll(() => h?.close());
  const system = (call: ModelCall) =>
    call.messages
      .filter((m) => m.getType() === 'system')
      .map(text)
      .join('\n');

  it('the analyst gets price_check and supplier_scorecard, the skill that uses them and both report sections', async () => {
    await h.send(h.contextFor('laoxiao', 'real-analysis'), '帮我对摩托车火花塞做供应商比价分析');
    const analyst = calls.find((c) => c.agent === 'procurement-analyst');
    expect(analyst, calls.map((c) => c.agent).join()).toBeDefined();
    expect(analyst!.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['price_check', 'supplier_scorecard']));
    const prompt = system(analyst!);
    expect(prompt).toContain('## 价格异常 / Price anomalies');
    expect(prompt).toContain('## 供应商评分 / Supplier scorecards');
    // The skill as the skills middleware lists it, synced from skills/procurement/.
    expect(prompt).toContain('price-anomalies');
    expect(prompt).toContain('/skills/procurement/price-anomalies/SKILL.md');
    // The trend comes from the ERP's price history, and every number names its source.
    expect(analyst!.tools.map((t) => t.name)).toContain('part_price_history');
    expect(prompt).toMatch(/价格趋势和历史成交均价只用 part_price_history/);
    expect(prompt).toMatch(/每个数字都要注明来源/);
    for (const skill of ['price-history', 'cite-sources'])
      expect(prompt).toContain(`/skills/procurement/${skill}/SKILL.md`);
  }, 120_000);

  it('the order agent gets price_check and is told to check each line before drafting', async () => {
    await h.send(h.contextFor('laoxiao', 'real-order'), '给博世下 200 个 F7TC 火花塞的采购单');
    const order = calls.find((c) => c.agent === 'procurement-order');
    expect(order, calls.map((c) => c.agent).join()).toBeDefined();
    expect(order!.tools.map((t) => t.name)).toContain('price_check');
    expect(system(order!)).toMatch(/起草[^，。]*前对每一?行调用 price_check/);
  }, 120_000);
});
