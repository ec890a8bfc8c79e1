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
    expect(turn.answer).toMatch(/价格异常（对比 ERP 近 12 个月成交中位价 ¥[\d.]+）：.*warn/);
    expect(turn.answer).toMatch(/供应商评分：.*准时 [\d.]+%/);

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

    const reportFile = files.find((f) => /analysis\/report_\d{8}\.md$/.test(f));
    expect(reportFile).toBeDefined();
    const report = fs.readFileSync(path.join(workspace, reportFile!), 'utf8');
    expect(report).toContain('ERP 目录价');
    expect(report).toContain('官网报价');
    const charts = [...report.matchAll(/!\[[^\]]*\]\((http[^)]+\.png)\)/g)].map((m) => m[1]);
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
      path.join(workspace, files.find((f) => /analysis\/report_\d{8}\.md$/.test(f))!),
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
        expect(reportSection(report, ANOMALIES_HEADING)).toMatch(
          new RegExp(`高于 12 个月中位价的报价：.*${row.供应商} ${p.source} ¥${p.price.toFixed(2)}`),
        );
      }
    }
    // The web quotes ranked by their deviation from the median, lowest first, as the ERP computed it.
    const webRows = anomalies.filter((r) => r.价格来源 === '官网报价');
    const ranked = [...webRows].sort((a, b) => printedNumber(a.偏离中位价) - printedNumber(b.偏离中位价));
    expect(reportSection(report, ANOMALIES_HEADING)).toContain(
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
  }, 120_000);

  it('the order agent gets price_check and is told to check each line before drafting', async () => {
    await h.send(h.contextFor('laoxiao', 'real-order'), '给博世下 200 个 F7TC 火花塞的采购单');
    const order = calls.find((c) => c.agent === 'procurement-order');
    expect(order, calls.map((c) => c.agent).join()).toBeDefined();
    expect(order!.tools.map((t) => t.name)).toContain('price_check');
    expect(system(order!)).toMatch(/起草订单前对每一行调用 price_check/);
  }, 120_000);
});
