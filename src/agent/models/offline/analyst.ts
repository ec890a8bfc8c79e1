import YAML from 'yaml';
import { capabilitiesText } from './capabilities.ts';
import { categoryLabel, mostSupplied, type PartRef, type SupplierRef, suggestRequests } from './catalogue.ts';
import { type ConversationView, called, items, lastStep, stripLineNumbers, type ToolStep } from './conversation.ts';
import { askUser, chosen, ground, taskIntent, taskTexts } from './grounding.ts';
import type { Plan } from './model.ts';
import { CAPABILITIES_GOAL } from './orchestrator.ts';
import {
  anomalySection,
  type ReviewedOffer,
  type ReviewResult,
  reviewAdvice,
  reviewCalls,
  reviewResults,
  reviewSummary,
  scorecardSection,
} from './price-review.ts';

/** Where the analyst's skill data and outputs live in the sandbox (seed: 5-stage workflow). */
export const ANALYST_PATHS = {
  skills: '/skills/procurement/',
  urlMapping: '/skills/procurement/supplier-price-urls/data/url_mapping.yaml',
  inputs: '/data/price_inputs.json',
  script: '/analysis/analyze.js',
  result: '/data/analysis_result.json',
  report: (date: Date) => `/analysis/report_${date.toISOString().slice(0, 10).replace(/-/g, '')}.md`,
};

interface OrderItem {
  createdAt: string;
  supplier: { name: string };
  lines: Array<{ code: string; quantity: number; unitPrice: number }>;
}

/** The analysis script run in the sandbox: ERP list prices, supplier web prices and order history in, result JSON out. */
export const ANALYSIS_SCRIPT = `// Procura 采购比价分析：读取 ${ANALYST_PATHS.inputs}，写出 ${ANALYST_PATHS.result}
const input = JSON.parse(await fs.readFile('${ANALYST_PATHS.inputs}'));
const round = (n) => Math.round(n * 100) / 100;
const suppliers = input.offers.map((o) => {
  const history = input.history.filter((h) => h.code === o.code);
  const qty = history.reduce((s, h) => s + h.quantity, 0);
  const avgPaid = qty ? history.reduce((s, h) => s + h.quantity * h.unitPrice, 0) / qty : null;
  const web = typeof o.webPrice === 'number' ? o.webPrice : null;
  return {
    supplier: o.supplier, code: o.code, erpPrice: o.erpPrice, webPrice: web,
    webVsErpPct: web === null ? null : round(((web - o.erpPrice) / o.erpPrice) * 100),
    avgPaid: avgPaid === null ? null : round(avgPaid), orderedQty: qty, moq: o.moq,
  };
});
const best = (key) => suppliers.filter((s) => typeof s[key] === 'number').sort((a, b) => a[key] - b[key])[0] || null;
const months = {};
for (const h of input.history) {
  const m = h.createdAt.slice(0, 7);
  months[m] = months[m] || { amount: 0, qty: 0 };
  months[m].amount += h.quantity * h.unitPrice;
  months[m].qty += h.quantity;
}
const trend = Object.keys(months).sort().map((m) => ({ month: m, avgPrice: round(months[m].amount / months[m].qty) }));
const prices = suppliers.map((s) => s.webPrice ?? s.erpPrice);
// The ERP's price checks (12-month median per product) and supplier scorecards, as its tools answered them.
const priceChecks = input.priceChecks || [];
const anomalies = priceChecks
  .filter((c) => ['info', 'warn', 'critical'].includes(c.severity))
  .sort((a, b) => b.deviationPct - a.deviationPct);
const result = {
  category: input.category, model: input.model, generatedAt: input.generatedAt,
  suppliers, cheapestErp: best('erpPrice'), cheapestWeb: best('webPrice'),
  priceSpreadPct: round(((Math.max(...prices) - Math.min(...prices)) / Math.min(...prices)) * 100),
  trend, outliers: suppliers.filter((s) => s.webVsErpPct !== null && Math.abs(s.webVsErpPct) >= 10),
  priceChecks, anomalies, scorecards: input.scorecards || [],
};
await fs.writeFile('${ANALYST_PATHS.result}', JSON.stringify(result, null, 2));
console.log(JSON.stringify(result));
`;

export const ANALYSIS_COMMAND = `node ${ANALYST_PATHS.script}`;

/**
 * The analyst: scan skills → ERP data + supplier prices → the ERP's price checks and scorecards → analysis code →
 * 2–4 charts → report → summary.
 */
export function planAnalysis(view: ConversationView): Plan {
  if (view.request.includes(CAPABILITIES_GOAL)) return planCapabilities(view);
  const texts = taskTexts(view);
  const { intent } = taskIntent(texts);
  if (intent === 'inventory' && view.tools.has('inventory_warning')) return planInventory(view);
  // 1. skills + ERP data: the supplier list, then the parts the request names
  const grounded = ground(view, texts);
  if ('plan' in grounded) {
    const calls = grounded.plan.toolCalls ?? [];
    return called(view, 'ls')
      ? grounded.plan
      : { toolCalls: [{ name: 'ls', args: { path: ANALYST_PATHS.skills } }, ...calls] };
  }
  const { facts } = grounded;
  const pick = chosen(view);
  let category = pick?.startsWith('category:') ? pick.slice(9) : undefined;
  if (!category && called(view, 'ask_user'))
    return { text: '没有选定要分析的类别，未做分析。/ No category was chosen: nothing was analysed.' };
  if (!facts.parts.length && !category) {
    if (facts.partWords) {
      return {
        text: `ERP 中没有找到「${facts.partWords}」相关的零部件。/ No part in the ERP matches “${facts.partWords}”.`,
      };
    }
    return askCategory(view);
  }
  const categories = [...new Set(facts.parts.map((p) => p.category))];
  if (!category && categories.length > 1) {
    return askUser(
      view,
      `「${facts.partWords}」对应多个类别，要分析哪一个？/ Which category should I analyse?`,
      categories.slice(0, 8).map((c) => ({
        label: categoryLabel(facts.parts.filter((p) => p.category === c)).slice(0, 120),
        value: `category:${c}`,
      })),
    );
  }
  category ??= categories[0];
  const listing = view.steps.find((s) => s.name === 'part_query' && s.args.category === category);
  if (!listing) return { toolCalls: [{ name: 'part_query', args: { category, size: 50 } }] };
  if (listing.text === undefined) return {};
  const parts = items<PartRef>(listing);
  const named = new Set(facts.parts.filter((p) => p.category === category).map((p) => p.model));
  const model =
    mostSupplied(named.size ? parts.filter((p) => named.has(p.model)) : parts)?.model ?? mostSupplied(parts)?.model;
  let offers = parts.filter((p) => p.model === model);
  if (facts.suppliers.length >= 2) {
    const chosenOffers = offers.filter((p) => facts.suppliers.some((s) => s.id === p.supplier.id));
    if (chosenOffers.length >= 2) offers = chosenOffers;
  }
  if (!model || offers.length < 2) {
    return {
      text: `${model ?? category} 在 ERP 中只有 ${offers.length} 家供应商，无法做供应商比价。/ Only ${offers.length} supplier offers ${model ?? category}: there is nothing to compare.`,
    };
  }
  const label = categoryLabel(parts);
  // 2. quote URLs + order history
  if (!called(view, 'order_search_details')) {
    return {
      toolCalls: [
        { name: 'read_file', args: { file_path: ANALYST_PATHS.urlMapping, limit: 2000 } },
        { name: 'order_search_details', args: { keyword: model, size: 50 } },
      ],
    };
  }
  // 3. supplier web prices
  const mapping = quoteUrls(lastStep(view, 'read_file'), model);
  if (!called(view, 'fetch_url') && mapping.length > 0) {
    return { toolCalls: mapping.slice(0, 8).map((m) => ({ name: 'fetch_url', args: { url: m.url } })) };
  }
  const webPrices = new Map<string, number>();
  for (const step of view.steps.filter((s) => s.name === 'fetch_url')) {
    const entry = mapping.find((m) => m.url === step.args.url);
    const price = pagePrice(step.result);
    if (entry && price !== undefined) webPrices.set(entry.code, price);
  }
  // 4. the ERP's judgement: each list price and web quote against 12 months of paid prices, each supplier's scorecard
  const reviewed: ReviewedOffer[] = offers.map((p) => ({
    partId: p.id,
    supplierId: p.supplier.id,
    supplier: p.supplier.name,
    code: p.code,
    erpPrice: p.unitPrice,
    webPrice: webPrices.get(p.code) ?? null,
  }));
  const review = reviewCalls(view, reviewed);
  if (review) return review;
  // 5. analysis code in the sandbox
  if (!called(view, 'execute')) {
    if (!called(view, 'write_file')) {
      const history = items<OrderItem>(lastStep(view, 'order_search_details')).flatMap((o) =>
        o.lines
          .filter((l) => offers.some((p) => p.code === l.code))
          .map((l) => ({
            code: l.code,
            quantity: l.quantity,
            unitPrice: l.unitPrice,
            createdAt: o.createdAt,
            supplier: o.supplier.name,
          })),
      );
      const inputs = {
        category: label,
        model,
        generatedAt: new Date().toISOString(),
        offers: offers.map((p) => ({
          supplier: p.supplier.name,
          code: p.code,
          erpPrice: p.unitPrice,
          webPrice: webPrices.get(p.code) ?? null,
          moq: p.moq,
        })),
        history,
        ...reviewResults(view, reviewed),
      };
      return {
        toolCalls: [
          { name: 'write_file', args: { file_path: ANALYST_PATHS.inputs, content: JSON.stringify(inputs, null, 2) } },
          { name: 'write_file', args: { file_path: ANALYST_PATHS.script, content: ANALYSIS_SCRIPT } },
        ],
      };
    }
    return { toolCalls: [{ name: 'execute', args: { command: ANALYSIS_COMMAND } }] };
  }
  const result = analysisResult(lastStep(view, 'execute'));
  if (!result)
    return { text: `分析脚本执行失败：${lastStep(view, 'execute')?.text ?? ''}\nThe analysis script failed.` };
  // 6. charts, then the report
  if (!called(view, 'generate_visualization') && view.tools.has('generate_visualization')) {
    return { toolCalls: chartCalls(result) };
  }
  const chartSteps = view.steps.filter((s) => s.name === 'generate_visualization');
  // A chart that failed (a busy renderer) is drawn once more before the report is written.
  const failed = chartSteps.filter((s) => s.text !== undefined && !chartUrl(s));
  if (failed.length && chartSteps.length <= chartCalls(result).length) {
    return { toolCalls: failed.map((s) => ({ name: s.name, args: s.args })) };
  }
  const charts = chartSteps.map(chartUrl).filter((u): u is string => Boolean(u));
  const reportPath = ANALYST_PATHS.report(new Date());
  if (!view.steps.some((s) => s.name === 'write_file' && s.args.file_path === reportPath)) {
    return {
      toolCalls: [{ name: 'write_file', args: { file_path: reportPath, content: comparisonReport(result, charts) } }],
    };
  }
  return { text: comparisonSummary(result, charts, reportPath, intent === 'trend') };
}

/** No part named: offer the catalogue's categories that several suppliers carry. */
function askCategory(view: ConversationView): Plan {
  const listing = view.steps.find((s) => s.name === 'part_query' && s.args.category === undefined);
  if (!listing) return { toolCalls: [{ name: 'part_query', args: { size: 50 } }] };
  const parts = items<PartRef>(listing);
  const categories = [...new Set(parts.map((p) => p.category))].filter(
    (c) => new Set(parts.filter((p) => p.category === c).map((p) => p.supplier.id)).size >= 2,
  );
  if (!categories.length) return { text: 'ERP 中没有多家供应商供应的零部件类别。/ No category has several suppliers.' };
  return askUser(
    view,
    '要分析哪一类零部件？/ Which part category should I analyse?',
    categories.slice(0, 8).map((c) => ({
      label: categoryLabel(parts.filter((p) => p.category === c)).slice(0, 120),
      value: `category:${c}`,
    })),
  );
}

/** What the offline model can do, with three requests built from the user's catalogue. */
function planCapabilities(view: ConversationView): Plan {
  if (!called(view, 'part_query')) {
    return {
      toolCalls: [
        { name: 'supplier_query', args: {} },
        { name: 'part_query', args: { size: 50 } },
      ],
    };
  }
  const suggestions = suggestRequests(
    items<PartRef>(lastStep(view, 'part_query')),
    items<SupplierRef>(lastStep(view, 'supplier_query')),
  );
  return { text: capabilitiesText(suggestions) };
}

interface AnalysisResult extends ReviewResult {
  category: string;
  model: string;
  suppliers: Array<{
    supplier: string;
    code: string;
    erpPrice: number;
    webPrice: number | null;
    webVsErpPct: number | null;
    avgPaid: number | null;
    orderedQty: number;
    moq: number;
  }>;
  cheapestErp: { supplier: string; erpPrice: number } | null;
  cheapestWeb: { supplier: string; webPrice: number } | null;
  priceSpreadPct: number;
  trend: Array<{ month: string; avgPrice: number }>;
  outliers: Array<{ supplier: string; webVsErpPct: number }>;
}

function quoteUrls(step: ToolStep | undefined, model: string): Array<{ code: string; url: string }> {
  if (!step?.text) return [];
  try {
    const doc = YAML.parse(stripLineNumbers(step.text)) as {
      entries?: Array<{ model?: string; part_code?: string; quote_url?: string }>;
    };
    return (doc.entries ?? [])
      .filter((e) => e.model === model && e.part_code && e.quote_url)
      .map((e) => ({ code: e.part_code as string, url: e.quote_url as string }));
  } catch {
    return [];
  }
}

/** The unit price a quote page states: structured offers first (lowest quantity tier), then the first price in the text. */
export function pagePrice(result: unknown): number | undefined {
  const page = result as
    | { success?: boolean; offers?: Array<{ price: number; minQuantity?: number }>; content?: string }
    | undefined;
  if (!page || page.success === false) return undefined;
  const offers = [...(page.offers ?? [])].filter((o) => typeof o.price === 'number' && o.price > 0);
  if (offers.length) return offers.sort((a, b) => (a.minQuantity ?? 1) - (b.minQuantity ?? 1))[0].price;
  const text = page.content ?? '';
  const yuan = /(?:¥|￥|CNY|RMB)\s*(\d+(?:\.\d+)?)/.exec(text);
  if (yuan) return Number(yuan[1]);
  // Quoted in dollars: convert at the rate the page states.
  const usd = /US\$\s*(\d+(?:\.\d+)?)/.exec(text);
  const rate = /1\s*USD\s*=\s*(\d+(?:\.\d+)?)\s*CNY/.exec(text);
  return usd && rate ? Math.round(Number(usd[1]) * Number(rate[1]) * 100) / 100 : undefined;
}

function analysisResult(step: ToolStep | undefined): AnalysisResult | undefined {
  const output = typeof step?.text === 'string' ? step.text : '';
  const line = output.split('\n').find((l) => l.trim().startsWith('{"category"'));
  try {
    return line ? (JSON.parse(line.trim()) as AnalysisResult) : undefined;
  } catch {
    return undefined;
  }
}

function chartCalls(result: AnalysisResult): NonNullable<Plan['toolCalls']> {
  const priceData = result.suppliers.flatMap((s) => [
    { category: s.supplier, value: s.erpPrice, group: 'ERP 目录价' },
    ...(s.webPrice !== null ? [{ category: s.supplier, value: s.webPrice, group: '官网报价' }] : []),
  ]);
  const calls: NonNullable<Plan['toolCalls']> = [
    {
      name: 'generate_visualization',
      args: {
        chart_type: 'column',
        chart_config: {
          data: priceData,
          group: true,
          title: `${result.category} ${result.model} 供应商报价对比`,
          axisXTitle: '供应商',
          axisYTitle: '单价（元）',
        },
      },
    },
  ];
  if (result.trend.length >= 2) {
    calls.push({
      name: 'generate_visualization',
      args: {
        chart_type: 'line',
        chart_config: {
          data: result.trend.map((t) => ({ time: t.month, value: t.avgPrice })),
          title: `${result.model} 近 12 个月平均采购单价`,
          axisXTitle: '月份',
          axisYTitle: '单价（元）',
        },
      },
    });
  } else {
    // Too little order history for a trend line: show how far each supplier's web price is from its list price.
    const deviations = result.suppliers.filter((s) => s.webVsErpPct !== null);
    calls.push({
      name: 'generate_visualization',
      args: {
        chart_type: 'column',
        chart_config: deviations.length
          ? {
              data: deviations.map((s) => ({ category: s.supplier, value: s.webVsErpPct })),
              title: `${result.model} 官网价相对 ERP 目录价（%）`,
              axisXTitle: '供应商',
              axisYTitle: '偏差（%）',
            }
          : {
              data: result.suppliers.map((s) => ({ category: s.supplier, value: s.moq })),
              title: `${result.model} 各供应商最小起订量`,
              axisXTitle: '供应商',
              axisYTitle: '数量',
            },
      },
    });
  }
  return calls;
}

function chartUrl(step: ToolStep): string | undefined {
  const result = step.result as { image_url?: string; url?: string } | undefined;
  return result?.image_url ?? result?.url ?? /https?:\/\/\S+\.(?:png|svg)/.exec(step.text ?? '')?.[0];
}

const yuan = (n: number | null | undefined) => (typeof n === 'number' ? `¥${n.toFixed(2)}` : '—');
const pct = (n: number | null | undefined) => (typeof n === 'number' ? `${n > 0 ? '+' : ''}${n.toFixed(1)}%` : '—');

function comparisonReport(r: AnalysisResult, charts: string[]): string {
  const rows = r.suppliers.map(
    (s) =>
      `| ${s.supplier} | ${s.code} | ${yuan(s.erpPrice)} | ${yuan(s.webPrice)} | ${pct(s.webVsErpPct)} | ${yuan(s.avgPaid)} | ${s.orderedQty} | ${s.moq} |`,
  );
  return [
    `# ${r.category}（${r.model}）供应商比价报告`,
    '',
    `生成时间：${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC · 数据来源：ERP（目录价、近 12 个月订单、价格检查、供应商评分）+ 供应商官网报价`,
    '',
    '## 结论',
    `- ERP 目录价最低：${r.cheapestErp ? `${r.cheapestErp.supplier} ${yuan(r.cheapestErp.erpPrice)}` : '—'}`,
    `- 官网报价最低：${r.cheapestWeb ? `${r.cheapestWeb.supplier} ${yuan(r.cheapestWeb.webPrice)}` : '—'}`,
    `- 供应商间价差：${r.priceSpreadPct.toFixed(1)}%`,
    ...(r.outliers.length
      ? [
          `- 官网价与 ERP 目录价偏差 ≥10%：${r.outliers.map((o) => `${o.supplier}（${pct(o.webVsErpPct)}）`).join('、')}，建议据此重新议价或更新目录价。`,
        ]
      : []),
    '',
    '## 明细',
    '| 供应商 | 料号 | ERP 目录价 | 官网报价 | 官网 vs ERP | 历史成交均价 | 近一年采购量 | MOQ |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
    ...anomalySection(r),
    ...scorecardSection(r),
    '## 价格趋势',
    ...r.trend.map((t) => `- ${t.month}：${yuan(t.avgPrice)}`),
    '',
    '## 图表',
    ...charts.map((url, i) => `![图表 ${i + 1}](${url})`),
    '',
    '## 建议',
    r.cheapestWeb && r.cheapestErp && r.cheapestWeb.supplier !== r.cheapestErp.supplier
      ? `- 以 ${r.cheapestWeb.supplier} 的官网价为基准，与 ${r.cheapestErp.supplier} 议价；大批量采购按阶梯价下单。`
      : `- 优先向 ${r.cheapestErp?.supplier ?? '最低价供应商'} 采购，并保留一家备选供应商以控制供货风险。`,
    ...reviewAdvice(r),
    '- 官网价格为网页公开数据，下单前请向供应商书面确认。',
    '',
  ].join('\n');
}

function comparisonSummary(r: AnalysisResult, charts: string[], reportPath: string, trendFirst: boolean): string {
  const trend = r.trend.length
    ? `- 价格趋势（历史成交均价）：${r.trend.map((t) => `${t.month} ${yuan(t.avgPrice)}`).join(' → ')}`
    : '- 价格趋势：订单历史中没有成交记录。/ No order history for this part.';
  return [
    `## ${r.category}（${r.model}）${trendFirst ? '价格趋势与' : ''}供应商比价结果`,
    ...(trendFirst ? [trend] : []),
    `- 比较了 ${r.suppliers.length} 家供应商：${r.suppliers.map((s) => s.supplier).join('、')}。`,
    `- ERP 目录价最低：${r.cheapestErp ? `${r.cheapestErp.supplier} ${yuan(r.cheapestErp.erpPrice)}` : '—'}；官网报价最低：${r.cheapestWeb ? `${r.cheapestWeb.supplier} ${yuan(r.cheapestWeb.webPrice)}` : '—'}。`,
    `- 供应商间价差 ${r.priceSpreadPct.toFixed(1)}%${r.outliers.length ? `；官网价明显偏离 ERP 的有：${r.outliers.map((o) => `${o.supplier} ${pct(o.webVsErpPct)}`).join('、')}` : ''}。`,
    ...(trendFirst ? [] : [trend]),
    ...reviewSummary(r),
    `- 报告：${reportPath}；分析数据：${ANALYST_PATHS.result}`,
    ...charts.map((url, i) => `- 图表 ${i + 1}：${url}`),
  ].join('\n');
}

function planInventory(view: ConversationView): Plan {
  if (!called(view, 'inventory_warning')) return { toolCalls: [{ name: 'inventory_warning', args: {} }] };
  const warnings = items<{
    code: string;
    name?: string;
    onHand: number;
    safetyStock: number;
    suggestedQuantity: number;
    supplier?: { name?: string } | string;
  }>(lastStep(view, 'inventory_warning'));
  if (!called(view, 'generate_visualization') && view.tools.has('generate_visualization') && warnings.length) {
    return {
      toolCalls: [
        {
          name: 'generate_visualization',
          args: {
            chart_type: 'column',
            chart_config: {
              data: warnings.flatMap((w) => [
                { category: w.code, value: w.onHand, group: '现有库存' },
                { category: w.code, value: w.safetyStock, group: '安全库存' },
              ]),
              group: true,
              title: '低于安全库存的零部件',
              axisXTitle: '料号',
              axisYTitle: '数量',
            },
          },
        },
      ],
    };
  }
  const chart = view.steps
    .filter((s) => s.name === 'generate_visualization')
    .map(chartUrl)
    .find(Boolean);
  const lines = warnings.map(
    (w) => `- ${w.code} ${w.name ?? ''}：现有 ${w.onHand}，安全库存 ${w.safetyStock}，建议补货 ${w.suggestedQuantity}`,
  );
  return {
    text: [
      `## 库存预警：${warnings.length} 个零部件低于安全库存`,
      ...lines,
      ...(chart ? [`- 图表：${chart}`] : []),
    ].join('\n'),
  };
}
