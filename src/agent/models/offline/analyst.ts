import YAML from 'yaml';
import { cite, SOURCES_HEADING, type Source, sourcesList, sourcesSection } from '../../../protocol/index.ts';
import { FULL_RESULT_KEY } from '../../tool-results.ts';
import { asksCheapestItem, asksOnePrice } from './asks.ts';
import { capabilitiesText } from './capabilities.ts';
import {
  categoryLabel,
  displayName,
  mostSupplied,
  type PartRef,
  type SupplierRef,
  suggestRequests,
} from './catalogue.ts';
import {
  type ConversationView,
  called,
  items,
  lastStep,
  type Plan,
  stripLineNumbers,
  type ToolStep,
} from './conversation.ts';
import { askUser, chosen, ground, taskIntent, taskTexts } from './grounding.ts';
import { categoryName, planCatalogue, planSpend, planSupplierInfo } from './lookups.ts';
import { CAPABILITIES_GOAL } from './orchestrator.ts';
import {
  anomalySection,
  type CheckedPrice,
  type ReviewedOffer,
  type ReviewResult,
  reviewAdvice,
  reviewCalls,
  reviewResults,
  reviewSummary,
  scorecardSection,
} from './price-review.ts';
import { allFrom, citeAll, citeOf, type From, idsOf, SourceBook } from './provenance.ts';
import { directionOf, historyWindow, planBudget, planDirection, planJudgement } from './questions.ts';
import { inRegion, regionLabel } from './reading/regions.ts';
import { planStock } from './stock.ts';

/** Where the analyst's skill data and outputs live in the sandbox (seed: 5-stage workflow). */
export const ANALYST_PATHS = {
  skills: '/skills/procurement/',
  urlMapping: '/skills/procurement/supplier-price-urls/data/url_mapping.yaml',
  inputs: '/data/price_inputs.json',
  script: '/analysis/analyze.js',
  result: '/data/analysis_result.json',
  /** Named by when its analysis started (UTC, to the second): a later analysis in the session writes a report of its own. */
  report: (generatedAt: string) =>
    `/analysis/report_${generatedAt
      .slice(0, 19)
      .replace(/\D/g, '')
      .replace(/^(\d{8})/, '$1_')}.md`,
};

/** One series of the ERP's `part_price_history` answer: a supplier's, or the one across suppliers. */
interface PaidSeries {
  supplierId: number | null;
  label: string;
  months: Array<{ month: string; avgUnitPrice: number; lines: number; quantity: number }>;
  total: { avgUnitPrice: number | null; lines: number; quantity: number };
}

/** The price history asked for each comparison: per supplier and across suppliers, over the months the request says
 *  ("近三个月的价格走势"), 12 calendar months when it says none. */
const PAID_GROUPINGS = ['supplier', 'product'] as const;
const PAID_MONTHS = 12;

/**
 * The analysis script run in the sandbox: the ERP's list prices, price history, checks and scorecards and the
 * supplier web prices in, result JSON out. It carries each figure's sources (`from`) and gives a figure computed from
 * others the sources of all of them. The price history it reads whole from the workspace copy of the ERP's answer
 * (`fullResult`), so the model does not copy its months into the inputs; an answer without a copy is in the inputs.
 * It prints only what it computed (the rest the model wrote itself into the inputs) and where the whole result is:
 * each line of output goes back to the model with every later call.
 */
export const ANALYSIS_SCRIPT = `// Procura 采购比价分析：读取 ${ANALYST_PATHS.inputs}，写出 ${ANALYST_PATHS.result}
const input = JSON.parse(await fs.readFile('${ANALYST_PATHS.inputs}'));
const round = (n) => Math.round(n * 100) / 100;
const ids = (...xs) => [...new Set(xs.flat().filter(Boolean))];
// Every number of a record from one source.
const cited = (row, id) => ({ ...row, from: Object.fromEntries(Object.keys(row).filter((k) => typeof row[k] === 'number').map((k) => [k, id])) });
// The ERP's price history (part_price_history): by=supplier and by=product, each with its source id.
const answer = async (h) => (h.file ? JSON.parse(await fs.readFile(h.file)) : h.answer);
const history = input.history && { bySupplier: await answer(input.history.bySupplier), byProduct: await answer(input.history.byProduct) };
const across = history ? history.byProduct.series[0] : undefined;
const own = (o) => (history ? history.bySupplier.series.find((s) => s.supplierId === o.supplierId) : undefined);
const monthsOf = (series, id) => series.months.map((m) => cited({ month: m.month, avgPrice: m.avgUnitPrice, lines: m.lines, quantity: m.quantity }, id));
const months = across ? monthsOf(across, input.history.byProduct.from) : [];
// Which way the price went: the last month with paid lines against the first, from the same answer.
const [firstMonth, lastMonth] = [months[0], months[months.length - 1]];
const turned = months.length >= 2;
// The ERP's like-for-like index (the same parts month to month): the trend's figure; the change of the plain average
// minus the index's is what buying from other suppliers did (the mix), named by the supplier whose share grew.
const change = history && history.byProduct.index ? history.byProduct.index.change : null;
const grew = change && change.grew;
const grewName = grew && (input.offers.find((o) => o.supplierId === grew.supplierId) || { supplier: grew.label }).supplier;
const priceIndex = change
  ? cited({ since: change.from, until: change.to, indexPct: change.indexPct, averagePct: change.averagePct, mixPct: change.mixPct,
      grew: grewName || null, ...(grew ? { fromSharePct: grew.fromSharePct, toSharePct: grew.toSharePct } : {}) }, input.history.byProduct.from)
  : null;
const bySupplier = input.offers.flatMap((o) => (own(o) ? [{ supplier: o.supplier, months: monthsOf(own(o), input.history.bySupplier.from) }] : []));
const suppliers = input.offers.map((o) => {
  const paid = own(o) && cited({ supplier: o.supplier, ...own(o).total }, input.history.bySupplier.from);
  const web = typeof o.webPrice === 'number' ? o.webPrice : null;
  const from = { erpPrice: o.from.erpPrice, moq: o.from.moq };
  if (web !== null) Object.assign(from, { webPrice: o.from.webPrice, webVsErpPct: ids(o.from.erpPrice, o.from.webPrice) });
  if (paid) Object.assign(from, { avgPaid: paid.from.avgUnitPrice, paidLines: paid.from.lines, orderedQty: paid.from.quantity });
  return {
    supplier: o.supplier, code: o.code, erpPrice: o.erpPrice, webPrice: web,
    webVsErpPct: web === null ? null : round(((web - o.erpPrice) / o.erpPrice) * 100),
    // What the project paid this supplier over 12 months, as the ERP sums it (null: no paid lines, or no history).
    avgPaid: paid ? paid.avgUnitPrice : null, paidLines: paid ? paid.lines : null,
    orderedQty: paid ? paid.quantity : null, moq: o.moq, from,
  };
});
const best = (key) => {
  const s = suppliers.filter((x) => typeof x[key] === 'number').sort((a, b) => a[key] - b[key])[0];
  return s ? { supplier: s.supplier, [key]: s[key], from: { [key]: s.from[key] } } : null;
};
const quoted = suppliers.map((s) => (s.webPrice !== null ? { price: s.webPrice, id: s.from.webPrice } : { price: s.erpPrice, id: s.from.erpPrice }));
const prices = quoted.map((q) => q.price);
// The ERP's price checks (12-month median per product) and supplier scorecards, as its tools answered them.
const priceChecks = input.priceChecks || [];
const anomalies = priceChecks
  .filter((c) => ['info', 'warn', 'critical'].includes(c.severity))
  .sort((a, b) => b.deviationPct - a.deviationPct);
const result = {
  category: input.category, model: input.model, generatedAt: input.generatedAt,
  suppliers, cheapestErp: best('erpPrice'), cheapestWeb: best('webPrice'),
  priceSpreadPct: round(((Math.max(...prices) - Math.min(...prices)) / Math.min(...prices)) * 100),
  trendBasis: across ? across.label + '：' + (history.byProduct.definition ?? '') : null, trend: months, supplierTrends: bySupplier,
  trendChangePct: turned ? round(((lastMonth.avgPrice - firstMonth.avgPrice) / firstMonth.avgPrice) * 100) : null,
  priceIndex,
  outliers: suppliers
    .filter((s) => s.webVsErpPct !== null && Math.abs(s.webVsErpPct) >= 10)
    .map((s) => ({ supplier: s.supplier, webVsErpPct: s.webVsErpPct, from: { webVsErpPct: s.from.webVsErpPct } })),
  priceChecks, anomalies, scorecards: input.scorecards || [],
  from: { priceSpreadPct: ids(quoted.map((q) => q.id)), ...(turned ? { trendChangePct: ids(firstMonth.from.avgPrice, lastMonth.from.avgPrice) } : {}) },
  sources: input.sources,
};
await fs.writeFile('${ANALYST_PATHS.result}', JSON.stringify(result, null, 2));
const { trendBasis, trend, supplierTrends, priceChecks: checked, scorecards, sources, ...computed } = result;
const key = (c) => ({ supplier: c.supplier, code: c.code, source: c.source, severity: c.severity, deviationPct: c.deviationPct });
console.log(JSON.stringify({ ...computed, anomalies: anomalies.map(key), file: '${ANALYST_PATHS.result}' }));
`;

export const ANALYSIS_COMMAND = `node ${ANALYST_PATHS.script}`;

/**
 * The analyst: scan skills → ERP data + supplier prices → the ERP's price checks and scorecards → analysis code →
 * 2–4 charts → report → summary.
 */
export function planAnalysis(view: ConversationView): Plan {
  if (view.request.includes(CAPABILITIES_GOAL)) return planCapabilities(view);
  const texts = taskTexts(view);
  const { intent, current } = taskIntent(texts);
  // One language per answer and report: the request's.
  const en = current.language === 'en';
  if (intent === 'inventory' && view.tools.has('inventory_warning'))
    return planStock(view, texts) ?? planInventory(view, en);
  if (intent === 'judge') return planJudgement(view, texts);
  if (intent === 'direction') return planDirection(view, texts);
  if (intent === 'budget') return planBudget(view, texts);
  if (intent === 'supplierInfo') return planSupplierInfo(view, texts);
  if (intent === 'catalogue') return planCatalogue(view, texts);
  if (intent === 'spend') return planSpend(view, texts);
  // "What's the cheapest tyre we can buy?": the catalogue's lowest list price across the kind, not one model compared.
  if (intent === 'compare' && asksCheapestItem(texts.words)) return planCatalogue(view, texts, true);
  // 1. skills + ERP data: the supplier list, then the parts the request names
  const grounded = ground(view, texts);
  if ('plan' in grounded) {
    const calls = grounded.plan.toolCalls ?? [];
    return called(view, 'ls')
      ? grounded.plan
      : { toolCalls: [{ name: 'ls', args: { path: ANALYST_PATHS.skills } }, ...calls] };
  }
  const { facts } = grounded;
  // "火炬的A7TC现在多少钱一只": one supplier's price, with how it sits against the paid prices — not a comparison.
  if (intent === 'compare' && asksOnePrice(texts.words) && facts.current.suppliers.length === 1 && facts.parts.length)
    return planJudgement(view, texts, 'price');
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
  // "compare suppliers in East China": only the offers of suppliers the ERP places in the region said.
  const region = current.region;
  const inScope = (list: PartRef[]) =>
    region ? list.filter((p) => inRegion(facts.supplierList.find((s) => s.id === p.supplier.id)?.city, region)) : list;
  const parts = inScope(items<PartRef>(listing));
  const named = new Set(facts.parts.filter((p) => p.category === category).map((p) => p.model));
  const model =
    mostSupplied(named.size ? parts.filter((p) => named.has(p.model)) : parts)?.model ?? mostSupplied(parts)?.model;
  let offers = parts.filter((p) => p.model === model);
  if (facts.suppliers.length >= 2) {
    const chosenOffers = offers.filter((p) => facts.suppliers.some((s) => s.id === p.supplier.id));
    if (chosenOffers.length >= 2) offers = chosenOffers;
  }
  if (!model || offers.length < 2) {
    const where = region ? regionLabel(region, en) : undefined;
    return {
      text: en
        ? `Only ${offers.length} supplier${where ? ` in ${where}` : ''} offers ${model ?? category} in the ERP: there is nothing to compare.`
        : `${model ?? category} 在 ERP 中${where ? `位于${where}的` : '只有 '}${where ? `供应商只有 ${offers.length} 家` : `${offers.length} 家供应商`}，无法做供应商比价。/ Only ${offers.length} supplier${region ? ` in ${regionLabel(region, true)}` : ''} offers ${model ?? category}: there is nothing to compare.`,
    };
  }
  // In English the category's own English name (category_list): its parts' everyday name is Chinese.
  const label = en ? categoryName(facts, category, true) : categoryLabel(parts);
  // 2. quote URLs, and what the project paid for the product as the ERP sums it: per supplier and across suppliers
  // The lookup returns the product's rows only; without it the whole table is read.
  const lookup = view.tools.has('supplier_quote_urls');
  const urlStep = view.steps.find((s) =>
    lookup ? s.name === 'supplier_quote_urls' : s.name === 'read_file' && s.args.file_path === ANALYST_PATHS.urlMapping,
  );
  if (!urlStep) {
    return {
      toolCalls: [
        lookup
          ? { name: 'supplier_quote_urls', args: { model } }
          : { name: 'read_file', args: { file_path: ANALYST_PATHS.urlMapping, limit: 2000 } },
        ...(view.tools.has('part_price_history')
          ? PAID_GROUPINGS.map((by) => ({
              name: 'part_price_history',
              args: { partId: offers[0].id, months: historyWindow(current.period).months, by },
            }))
          : []),
      ],
    };
  }
  // 3. supplier web prices
  const mapping = quoteUrls(urlStep, model);
  if (!called(view, 'fetch_url') && mapping.length > 0) {
    return { toolCalls: mapping.slice(0, 8).map((m) => ({ name: 'fetch_url', args: { url: m.url } })) };
  }
  // Every figure from here on keeps its source: the ERP request that answered it, or the page it was read from.
  const book = new SourceBook();
  const listed = book.erp(listing);
  const paid = paidHistory(view, (step) => book.erp(step));
  const webPrices = new Map<string, { price: number; id: string }>();
  for (const step of view.steps.filter((s) => s.name === 'fetch_url')) {
    const entry = mapping.find((m) => m.url === step.args.url);
    const price = pagePrice(step.result);
    if (entry && price !== undefined) webPrices.set(entry.code, { price, id: book.web(step) });
  }
  // 4. the ERP's judgement: each list price and web quote against 12 months of paid prices, each supplier's scorecard
  const reviewed: ReviewedOffer[] = offers.map((p) => {
    const web = webPrices.get(p.code);
    return {
      partId: p.id,
      supplierId: p.supplier.id,
      supplier: displayName(p.supplier, en),
      code: p.code,
      erpPrice: p.unitPrice,
      webPrice: web?.price ?? null,
      from: { erpPrice: listed, ...(web ? { webPrice: web.id } : {}) },
    };
  });
  const review = reviewCalls(view, reviewed);
  if (review) return review;
  // 5. analysis code in the sandbox
  if (!called(view, 'execute')) {
    if (!called(view, 'write_file')) {
      const checked = reviewResults(view, reviewed, book);
      const inputs: AnalysisInputs = {
        category: label,
        model,
        generatedAt: new Date().toISOString(),
        offers: reviewed.map((o) => {
          const part = offers.find((p) => p.id === o.partId) as PartRef;
          return {
            supplier: o.supplier,
            supplierId: o.supplierId,
            code: o.code,
            erpPrice: o.erpPrice,
            webPrice: o.webPrice,
            moq: part.moq,
            from: { ...o.from, moq: listed },
          };
        }),
        history: paid ? { bySupplier: historyInput(paid.bySupplier), byProduct: historyInput(paid.across) } : null,
        ...checked,
        sources: book.sources,
      };
      return {
        toolCalls: [
          // Without indentation: the inputs go back to the model with every later call.
          { name: 'write_file', args: { file_path: ANALYST_PATHS.inputs, content: JSON.stringify(inputs) } },
          { name: 'write_file', args: { file_path: ANALYST_PATHS.script, content: ANALYSIS_SCRIPT } },
        ],
      };
    }
    return { toolCalls: [{ name: 'execute', args: { command: ANALYSIS_COMMAND } }] };
  }
  const result = analysisResult(view);
  if (!result)
    return { text: `分析脚本执行失败：${lastStep(view, 'execute')?.text ?? ''}\nThe analysis script failed.` };
  // 6. charts, then the report
  if (!called(view, 'generate_visualization') && view.tools.has('generate_visualization')) {
    return { toolCalls: chartCalls(result, en) };
  }
  const chartSteps = view.steps.filter((s) => s.name === 'generate_visualization');
  // A chart that failed (a busy renderer) is drawn once more before the report is written.
  const failed = chartSteps.filter((s) => s.text !== undefined && !chartUrl(s));
  if (failed.length && chartSteps.length <= chartCalls(result, en).length) {
    return { toolCalls: failed.map((s) => ({ name: s.name, args: s.args })) };
  }
  const charts = drawnCharts(view, result, en);
  const reportPath = ANALYST_PATHS.report(result.generatedAt);
  if (!view.steps.some((s) => s.name === 'write_file' && s.args.file_path === reportPath)) {
    return {
      toolCalls: [
        { name: 'write_file', args: { file_path: reportPath, content: comparisonReport(result, charts, en) } },
      ],
    };
  }
  const summary = comparisonSummary(result, charts, reportPath, intent === 'trend', en);
  if (!region) return { text: summary };
  // The region filter is said under the headline: the suppliers compared are those the ERP places there.
  const [headline, ...rest] = summary.split('\n');
  const filter = en
    ? `Filter: suppliers in ${regionLabel(region, true)}, by the locations the ERP reports`
    : `筛选 / filter：位于${regionLabel(region, false)}的供应商（按 ERP 记录的所在地）`;
  return { text: [headline, filter, ...rest].join('\n') };
}

/** An answer of the ERP's `part_price_history`, with the source id it is cited by. */
interface PaidAnswer {
  step: ToolStep;
  answer: { definition?: string; series: PaidSeries[] };
  id: string;
}

interface PaidHistory {
  across: PaidAnswer;
  bySupplier: PaidAnswer;
}

/**
 * The ERP's price history of the product, per supplier and across suppliers, each answer with the source id it is
 * cited by (`idOf`); undefined when the ERP offers no price history, either request failed or no order was paid.
 */
function paidHistory(view: ConversationView, idOf: (step: ToolStep) => string): PaidHistory | undefined {
  const answers = view.steps.filter((s) => {
    const result = s.result as { success?: boolean; series?: unknown } | undefined;
    return s.name === 'part_price_history' && result?.success !== false && Array.isArray(result?.series);
  });
  const by = (grouping: (typeof PAID_GROUPINGS)[number]) => answers.find((s) => s.args.by === grouping);
  const perSupplier = by('supplier');
  const across = by('product');
  if (!perSupplier || !across) return undefined;
  const paid = (step: ToolStep) => ({ step, answer: step.result as PaidAnswer['answer'], id: idOf(step) });
  const history = { bySupplier: paid(perSupplier), across: paid(across) };
  return history.across.answer.series[0] ? history : undefined;
}

/**
 * The price history as the analysis script reads it: the workspace file that holds the ERP's answer whole (its
 * `fullResult`), or, when the answer came whole, the answer itself.
 */
function historyInput({ step, answer, id }: PaidAnswer): HistoryInput {
  const file = (step.result as Record<string, unknown>)[FULL_RESULT_KEY];
  if (typeof file === 'string') return { from: id, file };
  return { from: id, answer: { definition: answer.definition, series: answer.series } };
}

/**
 * The trend figures of the result, as the analysis script computes them from the price history: the months across
 * suppliers, and each offered supplier's months, every figure citing the answer it came from.
 */
function trendFigures(
  history: PaidHistory | undefined,
  offers: AnalysisInputs['offers'],
): Pick<AnalysisResult, 'trendBasis' | 'trend' | 'supplierTrends'> {
  if (!history) return { trendBasis: null, trend: [], supplierTrends: [] };
  const monthsOf = (series: PaidSeries, id: string): PaidMonth[] =>
    series.months.map((m) => {
      const row = { month: m.month, avgPrice: m.avgUnitPrice, lines: m.lines, quantity: m.quantity };
      return { ...row, from: allFrom(row, id) };
    });
  const [all] = history.across.answer.series;
  return {
    trendBasis: `${all.label}：${history.across.answer.definition ?? ''}`,
    trend: monthsOf(all, history.across.id),
    supplierTrends: offers.flatMap((o) => {
      const own = history.bySupplier.answer.series.find((s) => s.supplierId === o.supplierId);
      return own ? [{ supplier: o.supplier, months: monthsOf(own, history.bySupplier.id) }] : [];
    }),
  };
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

/** A month of the price history, as the analysis keeps it. */
interface PaidMonth {
  month: string;
  avgPrice: number;
  lines: number;
  quantity: number;
  from: From;
}

/** Where the script reads one price-history answer: a workspace file, or the answer itself; `from` cites it. */
type HistoryInput =
  | { from: string; file: string }
  | { from: string; answer: { definition?: string; series: PaidSeries[] } };

/** `/data/price_inputs.json`: what the model gives the analysis script. */
interface AnalysisInputs extends ReviewResult {
  category: string;
  model: string;
  generatedAt: string;
  offers: Array<{
    supplier: string;
    supplierId: number;
    code: string;
    erpPrice: number;
    webPrice: number | null;
    moq: number;
    from: From;
  }>;
  /** Null when the ERP gave no price history. */
  history: { bySupplier: HistoryInput; byProduct: HistoryInput } | null;
  sources: Source[];
}

/** `/data/analysis_result.json`: every number sits in a record whose `from` names its sources (listed in `sources`). */
interface AnalysisResult extends ReviewResult {
  category: string;
  model: string;
  generatedAt: string;
  suppliers: Array<{
    supplier: string;
    code: string;
    erpPrice: number;
    webPrice: number | null;
    webVsErpPct: number | null;
    avgPaid: number | null;
    paidLines: number | null;
    orderedQty: number | null;
    moq: number;
    from: From;
  }>;
  cheapestErp: { supplier: string; erpPrice: number; from: From } | null;
  cheapestWeb: { supplier: string; webPrice: number; from: From } | null;
  priceSpreadPct: number;
  /** The change in percent from the first to the last month of `trend`; null with fewer than two months. */
  trendChangePct: number | null;
  /** The ERP's like-for-like price index from its first month to its last, the plain average's change and the mix
   *  effect apart; null without a price history or with fewer than two months with an index (absent in a result
   *  written before the ERP gave one). */
  priceIndex?: {
    since: string;
    until: string;
    indexPct: number;
    averagePct: number;
    mixPct: number;
    /** The supplier whose share of the quantity grew most, with its shares (percent) in the two months. */
    grew: string | null;
    fromSharePct?: number;
    toSharePct?: number;
    from: From;
  } | null;
  /** How the trend is computed, as the ERP defines it; null without a price history. */
  trendBasis: string | null;
  /** The calendar months of paid prices the price history covers. */
  paidMonths: number;
  /** Across suppliers. */
  trend: PaidMonth[];
  supplierTrends: Array<{ supplier: string; months: PaidMonth[] }>;
  outliers: Array<{ supplier: string; webVsErpPct: number; from: From }>;
  from: From;
  sources: Source[];
}

function quoteUrls(step: ToolStep | undefined, model: string): Array<{ code: string; url: string }> {
  if (!step?.text) return [];
  try {
    const doc = (step.name === 'read_file' ? YAML.parse(stripLineNumbers(step.text)) : step.result) as {
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

/**
 * The analysis as the model knows it: what the script printed (the figures it computed, anomalies by their keys) with
 * what the model itself wrote into the inputs (price history, checks, scorecards, sources) — together the contents of
 * `/data/analysis_result.json`.
 */
function analysisResult(view: ConversationView): AnalysisResult | undefined {
  const output = lastStep(view, 'execute')?.text ?? '';
  const line = output.split('\n').find((l) => l.trim().startsWith('{"category"'));
  const written = view.steps.find((s) => s.name === 'write_file' && s.args.file_path === ANALYST_PATHS.inputs);
  try {
    if (!line || typeof written?.args.content !== 'string') return undefined;
    const printed = JSON.parse(line.trim()) as Omit<AnalysisResult, 'anomalies'> & {
      anomalies: Array<Pick<CheckedPrice, 'supplier' | 'code' | 'source'>>;
    };
    const inputs = JSON.parse(written.args.content) as AnalysisInputs;
    // The price history the script read: the answers the inputs name, cited as they cite them.
    const cited = inputs.history;
    const history = cited
      ? paidHistory(view, (step) => (step.args.by === 'supplier' ? cited.bySupplier.from : cited.byProduct.from))
      : undefined;
    const { file: _file, ...computed } = printed as typeof printed & { file?: string };
    const priceChecks = inputs.priceChecks ?? [];
    const anomalies = computed.anomalies.flatMap(
      (a) => priceChecks.find((c) => c.supplier === a.supplier && c.code === a.code && c.source === a.source) ?? [],
    );
    return {
      ...computed,
      generatedAt: inputs.generatedAt,
      paidMonths: Number(history?.across.step.args.months ?? PAID_MONTHS),
      ...trendFigures(history, inputs.offers),
      priceChecks,
      anomalies,
      scorecards: inputs.scorecards ?? [],
      sources: inputs.sources,
    };
  } catch {
    return undefined;
  }
}

type ToolCall = NonNullable<Plan['toolCalls']>[number];

/** The words of a comparison's charts, in the language of its request. */
const CHART_WORDS = {
  zh: {
    erpPrice: 'ERP 目录价',
    webPrice: '官网报价',
    quotes: '供应商报价对比',
    supplier: '供应商',
    unitPrice: '单价（元）',
    allSuppliers: '所有供应商',
    paid: (months: number) => `近 ${months} 个月已下单/已收货加权均价`,
    month: '月份',
    webVsErp: '官网价相对 ERP 目录价（%）',
    deviation: '偏差（%）',
    moq: '各供应商最小起订量',
    quantity: '数量',
  },
  en: {
    erpPrice: 'ERP list price',
    webPrice: 'Web quote',
    quotes: 'supplier quotes',
    supplier: 'Supplier',
    unitPrice: 'Unit price (CNY)',
    allSuppliers: 'all suppliers',
    paid: (months: number) => `weighted average paid price (ordered/received), last ${months} months`,
    month: 'Month',
    webVsErp: 'web price vs ERP list price (%)',
    deviation: 'Deviation (%)',
    moq: 'minimum order quantity per supplier',
    quantity: 'Quantity',
  },
};

/** The charts of a comparison, each with the sources of the figures it draws. */
function chartSpecs(result: AnalysisResult, en: boolean): Array<{ call: ToolCall; from: string[] }> {
  const words = CHART_WORDS[en ? 'en' : 'zh'];
  const chart = (chart_type: string, chart_config: Record<string, unknown>, from: string[]) => ({
    call: { name: 'generate_visualization', args: { chart_type, chart_config } },
    from,
  });
  const priceData = result.suppliers.flatMap((s) => [
    { category: s.supplier, value: s.erpPrice, group: words.erpPrice },
    ...(s.webPrice !== null ? [{ category: s.supplier, value: s.webPrice, group: words.webPrice }] : []),
  ]);
  const specs = [
    chart(
      'column',
      {
        data: priceData,
        group: true,
        title: `${result.category} ${result.model} ${words.quotes}`,
        axisXTitle: words.supplier,
        axisYTitle: words.unitPrice,
      },
      idsOf(...result.suppliers.flatMap((s) => [s.from.erpPrice, s.from.webPrice])),
    ),
  ];
  if (result.trend.length >= 2) {
    // Across suppliers, then each supplier with at least two paid months: the ERP's monthly paid averages.
    const lines = [
      { name: words.allSuppliers, months: result.trend },
      ...result.supplierTrends.filter((t) => t.months.length >= 2).map((t) => ({ name: t.supplier, months: t.months })),
    ];
    specs.push(
      chart(
        'line',
        {
          data: lines.flatMap((l) => l.months.map((m) => ({ time: m.month, value: m.avgPrice, group: l.name }))),
          title: `${result.model} ${words.paid(result.paidMonths)}`,
          axisXTitle: words.month,
          axisYTitle: words.unitPrice,
        },
        idsOf(...lines.flatMap((l) => l.months.map((m) => m.from.avgPrice))),
      ),
    );
  } else {
    // Too little paid history for a trend line: show how far each supplier's web price is from its list price.
    const deviations = result.suppliers.filter((s) => s.webVsErpPct !== null);
    specs.push(
      deviations.length
        ? chart(
            'column',
            {
              data: deviations.map((s) => ({ category: s.supplier, value: s.webVsErpPct })),
              title: `${result.model} ${words.webVsErp}`,
              axisXTitle: words.supplier,
              axisYTitle: words.deviation,
            },
            idsOf(...deviations.map((s) => s.from.webVsErpPct)),
          )
        : chart(
            'column',
            {
              data: result.suppliers.map((s) => ({ category: s.supplier, value: s.moq })),
              title: `${result.model} ${words.moq}`,
              axisXTitle: words.supplier,
              axisYTitle: words.quantity,
            },
            idsOf(...result.suppliers.map((s) => s.from.moq)),
          ),
    );
  }
  return specs;
}

const chartCalls = (result: AnalysisResult, en: boolean) => chartSpecs(result, en).map((s) => s.call);

/** The charts drawn, each with its address and the sources of its figures. */
function drawnCharts(view: ConversationView, result: AnalysisResult, en: boolean): Chart[] {
  const specs = chartSpecs(result, en);
  const titleOf = (args: Record<string, unknown>) => (args.chart_config as { title?: unknown } | undefined)?.title;
  return view.steps.flatMap((step) => {
    const url = step.name === 'generate_visualization' ? chartUrl(step) : undefined;
    const spec = specs.find((s) => titleOf(s.call.args) === titleOf(step.args));
    const alt = (step.result as { alt?: unknown } | undefined)?.alt;
    // What the chart shows, as the chart tool described it: the image's alt text (no brackets or breaks in it).
    return url
      ? [{ url, from: spec?.from ?? [], alt: typeof alt === 'string' ? alt.replace(/[[\]\r\n]+/g, ' ') : undefined }]
      : [];
  });
}

function chartUrl(step: ToolStep): string | undefined {
  const result = step.result as { image_url?: string; url?: string } | undefined;
  return result?.image_url ?? result?.url ?? /https?:\/\/\S+\.(?:png|svg)/.exec(step.text ?? '')?.[0];
}

const yuan = (n: number | null | undefined) => (typeof n === 'number' ? `¥${n.toFixed(2)}` : '—');
const pct = (n: number | null | undefined) => (typeof n === 'number' ? `${n > 0 ? '+' : ''}${n.toFixed(1)}%` : '—');

type Chart = { url: string; from: string[]; alt?: string };

/** The price history as a table: a month per row, across suppliers then each supplier, the requests cited per row. */
function trendTable(r: AnalysisResult, en: boolean): string[] {
  if (!r.trend.length) return [];
  const months = [...new Set([r.trend, ...r.supplierTrends.map((t) => t.months)].flat().map((m) => m.month))].sort();
  const columns = [
    { name: en ? 'all suppliers' : '所有供应商 / all suppliers', months: r.trend },
    ...r.supplierTrends.map((t) => ({ name: t.supplier, months: t.months })),
  ];
  return [
    `| ${en ? 'Month' : '月份'} | ${columns.map((c) => c.name).join(' | ')} | ${en ? 'Sources' : '来源'} |`,
    `| --- | ${columns.map(() => '---').join(' | ')} | --- |`,
    ...months.map((month) => {
      const cells = columns.map((c) => c.months.find((m) => m.month === month));
      const from = idsOf(...cells.map((m) => m?.from.avgPrice));
      return `| ${month} | ${cells.map((m) => yuan(m?.avgPrice)).join(' | ')} | ${cite(from)} |`;
    }),
  ];
}

/** A line of the summary: the trend across suppliers, month by month, with its source. */
function trendLine(r: AnalysisResult, en: boolean): string {
  if (r.trendBasis === null)
    return en
      ? '- Price trend: the ERP offers no price history (part_price_history): no trend.'
      : '- 价格趋势：ERP 没有提供价格历史（part_price_history），未计算趋势。/ The ERP offers no price history: no trend.';
  if (!r.trend.length)
    return en
      ? `- Price trend: nothing was ordered or received for this product in ${r.paidMonths} months.`
      : `- 价格趋势：近 ${r.paidMonths} 个月没有已下单/已收货的成交记录。/ Nothing was paid for this product in ${r.paidMonths} months.`;
  const cited = cite(idsOf(...r.trend.map((t) => t.from.avgPrice)));
  const months = `${r.trend.map((t) => `${t.month} ${yuan(t.avgPrice)}`).join(' → ')} ${cited}`;
  // Which way it went: the like-for-like index when the ERP gives one, else the plain average, first month to last.
  const first = r.trend[0];
  const last = r.trend[r.trend.length - 1];
  const change = r.trendChangePct;
  const way = r.priceIndex
    ? indexHeadline(r.priceIndex, en)
    : change !== null && change !== undefined
      ? `${en ? `${first.month} to ${last.month}: average ` : `${first.month} 至 ${last.month}：均价`}${DIRECTION_WORDS[en ? 'en' : 'zh'][directionOf(change, en).way]}${en ? ` (${pct(change)})` : `（${pct(change)}）`} ${citeOf(r.from, 'trendChangePct')}`
      : undefined;
  return en
    ? `- Price trend over the last ${r.paidMonths} months (all suppliers, quantity-weighted monthly average of ordered/received order lines): ${months}${way ? `; ${way}` : ''}`
    : `- 近 ${r.paidMonths} 个月价格趋势（所有供应商，已下单/已收货订单行按数量加权的月均价）：${months}${way ? `；${way}` : ''}`;
}

const DIRECTION_WORDS = {
  zh: { up: '上涨', down: '下降', flat: '持平' },
  en: { up: 'up', down: 'down', flat: 'flat' },
};

/**
 * The trend's headline: which way the same parts' prices went (the ERP's chained index), and apart from it what the
 * plain average did and how much of that the supplier mix made, naming the supplier bought from more.
 */
function indexHeadline(index: NonNullable<AnalysisResult['priceIndex']>, en: boolean): string {
  const at = (field: string) => citeOf(index.from, field);
  const way = DIRECTION_WORDS[en ? 'en' : 'zh'][directionOf(index.indexPct, en).way];
  const head = en
    ? `${index.since} to ${index.until}: like-for-like prices ${way} (price index ${pct(index.indexPct)}) ${at('indexPct')}`
    : `${index.since} 至 ${index.until}：同口径价格${way}（价格指数 ${pct(index.indexPct)}）${at('indexPct')}`;
  const average = en
    ? `the average paid price ${pct(index.averagePct)} ${at('averagePct')}`
    : `均价 ${pct(index.averagePct)} ${at('averagePct')}`;
  // Within half a point the mix made no difference worth a clause.
  if (Math.abs(index.mixPct) < 0.5) return en ? `${head}; ${average}` : `${head}；${average}`;
  const shares =
    index.fromSharePct !== undefined && index.toSharePct !== undefined
      ? en
        ? ` (share of quantity ${pct(index.fromSharePct).replace('+', '')} → ${pct(index.toSharePct).replace('+', '')}) ${at('toSharePct')}`
        : `（数量份额 ${pct(index.fromSharePct).replace('+', '')} → ${pct(index.toSharePct).replace('+', '')}）${at('toSharePct')}`
      : '';
  const mix = en
    ? `mix effect ${pct(index.mixPct)} ${at('mixPct')}`
    : `供应商结构影响 ${pct(index.mixPct)} ${at('mixPct')}`;
  return en
    ? `${head}, but ${index.grew ? `more was bought from ${index.grew}${shares}, ` : 'the supplier mix changed: '}${average}, of which ${mix}`
    : `${head}，但${index.grew ? `更多从 ${index.grew} 采购${shares}，` : '供应商构成有变，'}${average}，其中${mix}`;
}

/** A line of the summary: what the project paid each supplier over the months of the history, with its source. */
function paidLine(r: AnalysisResult, en: boolean): string[] {
  const paid = r.suppliers.filter((s) => s.avgPaid !== null);
  if (!paid.length) return [];
  const cited = cite(idsOf(...paid.map((s) => s.from.avgPaid)));
  return [
    en
      ? `- Average paid price per supplier over ${r.paidMonths} months (ordered/received, quantity-weighted): ${paid.map((s) => `${s.supplier} ${yuan(s.avgPaid)} (${s.orderedQty} units)`).join(', ')} ${cited}`
      : `- 近 ${r.paidMonths} 个月各供应商成交均价（已下单/已收货，按数量加权）：${paid.map((s) => `${s.supplier} ${yuan(s.avgPaid)}（${s.orderedQty} 件）`).join('、')} ${cited}`,
  ];
}

function comparisonReport(r: AnalysisResult, charts: Chart[], en: boolean): string {
  if (en) return comparisonReportEn(r, charts);
  const rows = r.suppliers.map(
    (s) =>
      `| ${s.supplier} | ${s.code} | ${yuan(s.erpPrice)} | ${yuan(s.webPrice)} | ${pct(s.webVsErpPct)} | ${yuan(s.avgPaid)} | ${s.paidLines ?? '—'} | ${s.orderedQty ?? '—'} | ${s.moq} | ${citeAll(s.from)} |`,
  );
  return [
    `# ${r.category}（${r.model}）供应商比价报告`,
    '',
    `生成时间：${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC · 数据来源：ERP（目录价、价格历史、价格检查、供应商评分）+ 供应商官网报价；每个数字后的 [E…]/[W…] 指文末「${SOURCES_HEADING}」中的 ERP 请求或网页`,
    '',
    '## 结论',
    `- ERP 目录价最低：${r.cheapestErp ? `${r.cheapestErp.supplier} ${yuan(r.cheapestErp.erpPrice)} ${citeAll(r.cheapestErp.from)}` : '—'}`,
    `- 官网报价最低：${r.cheapestWeb ? `${r.cheapestWeb.supplier} ${yuan(r.cheapestWeb.webPrice)} ${citeAll(r.cheapestWeb.from)}` : '—'}`,
    `- 供应商间价差：${r.priceSpreadPct.toFixed(1)}% ${citeOf(r.from, 'priceSpreadPct')}`,
    ...(r.outliers.length
      ? [
          `- 官网价与 ERP 目录价偏差 ≥10%：${r.outliers.map((o) => `${o.supplier}（${pct(o.webVsErpPct)}）${citeAll(o.from)}`).join('、')}，建议据此重新议价或更新目录价。`,
        ]
      : []),
    '',
    '## 明细',
    `| 供应商 | 料号 | ERP 目录价 | 官网报价 | 官网 vs ERP | 近 ${r.paidMonths} 个月成交均价 | 成交行数 | 近 ${r.paidMonths} 个月采购量 | MOQ | 来源 |`,
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
    ...anomalySection(r),
    ...scorecardSection(r),
    '## 价格趋势',
    r.trendBasis ?? 'ERP 没有提供价格历史（part_price_history），未计算趋势。',
    ...(r.priceIndex ? ['', `${indexHeadline(r.priceIndex, false)}。`] : []),
    '',
    ...trendTable(r, false),
    '',
    '## 图表',
    ...charts.flatMap((c, i) => [
      `![${c.alt ?? `图表 ${i + 1}`}](${c.url})`,
      '',
      `图表 ${i + 1} 的数据 ${cite(c.from)}`,
      '',
    ]),
    '## 建议',
    r.cheapestWeb && r.cheapestErp && r.cheapestWeb.supplier !== r.cheapestErp.supplier
      ? `- 以 ${r.cheapestWeb.supplier} 的官网价为基准，与 ${r.cheapestErp.supplier} 议价；大批量采购按阶梯价下单。`
      : `- 优先向 ${r.cheapestErp?.supplier ?? '最低价供应商'} 采购，并保留一家备选供应商以控制供货风险。`,
    ...reviewAdvice(r),
    '- 官网价格为网页公开数据，下单前请向供应商书面确认。',
    '',
    ...sourcesSection(r.sources),
  ].join('\n');
}

/** The report of an English request: the same sections and figures, in English. */
function comparisonReportEn(r: AnalysisResult, charts: Chart[]): string {
  const rows = r.suppliers.map(
    (s) =>
      `| ${s.supplier} | ${s.code} | ${yuan(s.erpPrice)} | ${yuan(s.webPrice)} | ${pct(s.webVsErpPct)} | ${yuan(s.avgPaid)} | ${s.paidLines ?? '—'} | ${s.orderedQty ?? '—'} | ${s.moq} | ${citeAll(s.from)} |`,
  );
  return [
    `# ${r.category} (${r.model}) supplier comparison report`,
    '',
    `Generated ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC · Data: the ERP (list prices, price history, price checks, supplier scorecards) and the suppliers' web quotes; each [E…]/[W…] after a figure names the ERP request or page in “${SOURCES_HEADING}” at the end`,
    '',
    '## Conclusions',
    `- Lowest ERP list price: ${r.cheapestErp ? `${r.cheapestErp.supplier} ${yuan(r.cheapestErp.erpPrice)} ${citeAll(r.cheapestErp.from)}` : '—'}`,
    `- Lowest web quote: ${r.cheapestWeb ? `${r.cheapestWeb.supplier} ${yuan(r.cheapestWeb.webPrice)} ${citeAll(r.cheapestWeb.from)}` : '—'}`,
    `- Price spread between suppliers: ${r.priceSpreadPct.toFixed(1)}% ${citeOf(r.from, 'priceSpreadPct')}`,
    ...(r.outliers.length
      ? [
          `- Web price 10% or more off the ERP list price: ${r.outliers.map((o) => `${o.supplier} (${pct(o.webVsErpPct)}) ${citeAll(o.from)}`).join(', ')}; renegotiate or update the list price.`,
        ]
      : []),
    '',
    '## Details',
    `| Supplier | Code | ERP list price | Web quote | Web vs ERP | ${r.paidMonths}-month avg paid | Paid lines | ${r.paidMonths}-month quantity | MOQ | Sources |`,
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
    ...anomalySection(r, true),
    ...scorecardSection(r, true),
    '## Price trend',
    r.trendBasis === null
      ? 'The ERP offers no price history (part_price_history): no trend.'
      : 'Quantity-weighted monthly average of ordered and received order lines, as the ERP computes it (part_price_history), with its chained like-for-like price index.',
    ...(r.priceIndex ? ['', `${indexHeadline(r.priceIndex, true)}.`] : []),
    '',
    ...trendTable(r, true),
    '',
    '## Charts',
    ...charts.flatMap((c, i) => [
      // The chart tool's alt text is Chinese first: an English report keeps its numbered alt until it has an English form.
      `![Chart ${i + 1}](${c.url})`,
      '',
      `Data of chart ${i + 1} ${cite(c.from)}`,
      '',
    ]),
    '## Advice',
    r.cheapestWeb && r.cheapestErp && r.cheapestWeb.supplier !== r.cheapestErp.supplier
      ? `- Negotiate with ${r.cheapestErp.supplier} using ${r.cheapestWeb.supplier}'s web price as the benchmark; order large quantities at tier prices.`
      : `- Prefer ${r.cheapestErp?.supplier ?? 'the cheapest supplier'}, and keep a second supplier to limit supply risk.`,
    ...reviewAdvice(r, true),
    '- Web prices are public page data: confirm them with the supplier in writing before ordering.',
    '',
    ...sourcesSection(r.sources),
  ].join('\n');
}

function comparisonSummary(
  r: AnalysisResult,
  charts: Chart[],
  reportPath: string,
  trendFirst: boolean,
  en: boolean,
): string {
  const trend = [trendLine(r, en), ...paidLine(r, en)];
  const erp = r.cheapestErp
    ? `${r.cheapestErp.supplier} ${yuan(r.cheapestErp.erpPrice)} ${citeAll(r.cheapestErp.from)}`
    : '—';
  const web = r.cheapestWeb
    ? `${r.cheapestWeb.supplier} ${yuan(r.cheapestWeb.webPrice)} ${citeAll(r.cheapestWeb.from)}`
    : '—';
  const spread = `${r.priceSpreadPct.toFixed(1)}% ${citeOf(r.from, 'priceSpreadPct')}`;
  if (en)
    return [
      `## ${r.category} (${r.model}): ${trendFirst ? 'price trend and ' : ''}supplier comparison`,
      ...(trendFirst ? trend : []),
      `- Compared ${r.suppliers.length} suppliers: ${r.suppliers.map((s) => s.supplier).join(', ')}.`,
      `- Lowest ERP list price: ${erp}; lowest web quote: ${web}.`,
      `- Price spread between suppliers ${spread}${r.outliers.length ? `; web prices well off the ERP: ${r.outliers.map((o) => `${o.supplier} ${pct(o.webVsErpPct)} ${citeAll(o.from)}`).join(', ')}` : ''}.`,
      ...(trendFirst ? [] : trend),
      ...reviewSummary(r, true),
      `- Report: ${reportPath}; analysis data: ${ANALYST_PATHS.result}`,
      ...charts.map((c, i) => `- Chart ${i + 1}: ${c.url} ${cite(c.from)}`),
      ...sourcesList(r.sources),
    ].join('\n');
  return [
    `## ${r.category}（${r.model}）${trendFirst ? '价格趋势与' : ''}供应商比价结果`,
    ...(trendFirst ? trend : []),
    `- 比较了 ${r.suppliers.length} 家供应商：${r.suppliers.map((s) => s.supplier).join('、')}。`,
    `- ERP 目录价最低：${erp}；官网报价最低：${web}。`,
    `- 供应商间价差 ${spread}${r.outliers.length ? `；官网价明显偏离 ERP 的有：${r.outliers.map((o) => `${o.supplier} ${pct(o.webVsErpPct)} ${citeAll(o.from)}`).join('、')}` : ''}。`,
    ...(trendFirst ? [] : trend),
    ...reviewSummary(r),
    `- 报告：${reportPath}；分析数据：${ANALYST_PATHS.result}`,
    ...charts.map((c, i) => `- 图表 ${i + 1}：${c.url} ${cite(c.from)}`),
    ...sourcesList(r.sources),
  ].join('\n');
}

function planInventory(view: ConversationView, en: boolean): Plan {
  if (!called(view, 'inventory_warning')) return { toolCalls: [{ name: 'inventory_warning', args: {} }] };
  const warnings = items<{
    code: string;
    name: string;
    nameEn?: string;
    onHand: number;
    safetyStock: number;
    suggestedQuantity: number;
    onOrder?: number;
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
  // A chart that failed (a busy or restarting renderer) is drawn once more, as an analysis's charts are.
  const drawn = view.steps.filter((s) => s.name === 'generate_visualization');
  const failed = drawn.filter((s) => s.text !== undefined && !chartUrl(s));
  if (drawn.length === 1 && failed.length) return { toolCalls: failed.map((s) => ({ name: s.name, args: s.args })) };
  const chart = drawn.map(chartUrl).find(Boolean);
  // Every quantity is the ERP's answer to that one request: each line cites it.
  const book = new SourceBook();
  const source = cite([book.erp(lastStep(view, 'inventory_warning') as ToolStep)]);
  const lines = warnings.map((w) => {
    const name = displayName(w, en);
    return en
      ? `- ${w.code} ${name}: on hand ${w.onHand}, on order ${w.onOrder ?? 0}, safety stock ${w.safetyStock}, suggested reorder ${w.suggestedQuantity} ${source}`
      : `- ${w.code} ${name}：现有 ${w.onHand}，在途 ${w.onOrder ?? 0}，安全库存 ${w.safetyStock}，建议补货 ${w.suggestedQuantity} ${source}`;
  });
  return {
    text: [
      en
        ? `## Stock warnings: ${warnings.length} parts below safety stock`
        : `## 库存预警：${warnings.length} 个零部件低于安全库存`,
      ...lines,
      ...(chart ? [en ? `- Chart: ${chart} ${source}` : `- 图表：${chart} ${source}`] : []),
      ...sourcesList(book.sources),
    ].join('\n'),
  };
}
