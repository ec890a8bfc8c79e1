import { cite, sourcesList } from '../../../protocol/index.ts';
import { isEnglish } from './asks.ts';
import { displayName, mostSupplied, type PartRef } from './catalogue.ts';
import type { ConversationView, Plan, ToolStep } from './conversation.ts';
import { type Facts, ground, offeredBy, type TaskTexts } from './grounding.ts';
import type { Reading } from './intent.ts';
import { severityText } from './price-review.ts';
import { SourceBook } from './provenance.ts';

/**
 * The analyst's answers to price questions that are not a comparison: is this price fair (against the ERP's own
 * 12-month history), and what does a budget buy. Both read only; neither drafts anything.
 */

const yuan = (n: number) => `¥${n.toFixed(2)}`;

/** The parts a question is about: the named supplier's offers of what it names (at most `limit`). */
function partsAsked(facts: Facts, limit: number): { parts: PartRef[] } | { text: string } {
  let parts = facts.parts;
  if (facts.suppliers.length && parts.length) {
    const offered = offeredBy(facts, parts);
    if (!offered.length) {
      const names = (en: boolean) => facts.suppliers.map((s) => displayName(s, en)).join(en ? ', ' : '、');
      return {
        text: `${names(false)} 没有「${facts.partWords}」这个零部件。/ ${names(true)} does not supply “${facts.partWords}”.`,
      };
    }
    parts = offered;
  }
  if (!parts.length) {
    return {
      text: facts.partWords
        ? `ERP 中没有找到「${facts.partWords}」相关的零部件。/ No part in the ERP matches “${facts.partWords}”.`
        : '请说明是哪个零部件（名称或型号）。/ Which part do you mean (name or model)?',
    };
  }
  return { parts: [...parts].sort((a, b) => a.unitPrice - b.unitPrice).slice(0, limit) };
}

interface Check {
  severity: string;
  deviationPct: number | null;
  median12m: number | null;
  minPrice12m: number | null;
  basis?: { lines: number };
  traceId?: string;
}

interface History {
  series: Array<{
    /** The supplier of a per-supplier series; null across suppliers. */
    supplierId?: number | null;
    label: string;
    months: Array<{ month: string; avgUnitPrice: number; lines: number; quantity: number }>;
    total: { avgUnitPrice: number | null; lines: number };
  }>;
  traceId?: string;
}

/** A change in percent as a direction: up, down, or flat within half a percent either way. */
export function directionOf(change: number, english: boolean): { way: 'up' | 'down' | 'flat'; text: string } {
  const way = change > 0.5 ? 'up' : change < -0.5 ? 'down' : 'flat';
  const size = Math.abs(change).toFixed(1);
  const text = english
    ? { up: `up ${size}%`, down: `down ${size}%`, flat: `flat (${change >= 0 ? '+' : '-'}${size}%)` }[way]
    : { up: `上涨 ${size}%`, down: `下降 ${size}%`, flat: `基本持平（${change >= 0 ? '+' : '-'}${size}%）` }[way];
  return { way, text };
}

/** The most calendar months the ERP's price history answers. */
const HISTORY_MAX_MONTHS = 36;

/** The months a price-history question looks back over, as the ERP counts them (calendar months up to this one). */
export interface HistoryWindow {
  months: number;
  /** The first and last month kept ("2026-01"), when the period said ends before this month or starts inside it. */
  from?: string;
  to?: string;
  zh: string;
  en: string;
}

/**
 * The window a price question is told over: the period it says ("最近半年" 6 months, "过去三个月" 3, "今年" January
 * to now, "去年下半年" those months), else the last 12 months.
 */
export function historyWindow(period: Reading['period'], today = new Date()): HistoryWindow {
  if (!period) return { months: 12, zh: '近 12 个月', en: 'the last 12 months' };
  if (period.months) {
    const n = Math.min(HISTORY_MAX_MONTHS, period.months);
    return { months: n, zh: `近 ${n} 个月`, en: `the last ${n} months` };
  }
  const start = new Date(`${period.from}T00:00:00Z`);
  const back = (today.getUTCFullYear() - start.getUTCFullYear()) * 12 + today.getUTCMonth() - start.getUTCMonth() + 1;
  return {
    months: Math.min(HISTORY_MAX_MONTHS, Math.max(1, back)),
    from: period.from.slice(0, 7),
    to: period.to.slice(0, 7),
    zh: `${period.label} `,
    en: period.label,
  };
}

/** The months of a price history inside the window. */
const inWindow = (w: HistoryWindow) => (m: { month: string }) =>
  (!w.from || m.month >= w.from) && (!w.to || m.month <= w.to);

const resultOf = <T>(step: ToolStep | undefined) =>
  step && (step.result as { success?: boolean } | undefined)?.success !== false ? (step.result as T) : undefined;

/**
 * "这个价合理吗？": each part's price (quoted, else its list price) against the ERP's 12-month paid prices. Asked only
 * what a supplier's part costs ("火炬的A7TC现在多少钱一只"), the same figures answer it under a price heading.
 */
export function planJudgement(view: ConversationView, texts: TaskTexts, asking: 'judge' | 'price' = 'judge'): Plan {
  const grounded = ground(view, texts);
  if ('plan' in grounded) return grounded.plan;
  const { facts } = grounded;
  const asked = partsAsked(facts, 4);
  if ('text' in asked) return asked;
  const quoted = facts.money;
  // The paid prices are told over the window said ("最近半年价格怎么样"); the ERP's check stays its 12-month median.
  const window = historyWindow(facts.current.reading.period);
  const checkOf = (p: PartRef) => view.steps.find((s) => s.name === 'price_check' && Number(s.args.partId) === p.id);
  const historyOf = (p: PartRef) =>
    view.steps.find((s) => s.name === 'part_price_history' && Number(s.args.partId) === p.id);
  const calls = asked.parts.flatMap((p) => [
    ...(checkOf(p) || !view.tools.has('price_check')
      ? []
      : [{ name: 'price_check', args: { partId: p.id, unitPrice: quoted ?? p.unitPrice, supplierId: p.supplier.id } }]),
    ...(p !== asked.parts.find((q) => q.model === p.model) || historyOf(p) || !view.tools.has('part_price_history')
      ? []
      : [{ name: 'part_price_history', args: { partId: p.id, months: window.months, by: 'product' } }]),
  ]);
  if (calls.length) return { toolCalls: calls };
  if (view.steps.some((s) => s.text === undefined)) return {};
  const english = isEnglish(texts.words);
  const lines: string[] = [
    asking === 'price'
      ? english
        ? '## Current price (ERP catalogue)'
        : '## 当前价格（ERP 目录）/ Current price'
      : english
        ? '## Is the price fair?'
        : '## 价格判断 / Is the price fair?',
  ];
  const traces = new Set<string>();
  for (const p of asked.parts) {
    const check = resultOf<Check>(checkOf(p));
    const price = quoted ?? p.unitPrice;
    const moq = asking === 'price' && !quoted ? (english ? ` (MOQ ${p.moq})` : `（起订 ${p.moq}）`) : '';
    const what = `${english ? (quoted ? 'quoted' : 'list price') : quoted ? '报价' : '目录价'}`;
    const offer = `${displayName(p.supplier, english)} ${p.code} ${displayName(p, english)}`;
    if (check?.traceId) traces.add(check.traceId);
    if (!check || check.median12m === null || check.deviationPct === null) {
      lines.push(
        english
          ? `- ${offer}: ${what} ${yuan(price)}${moq} — no paid orders in the last 12 months to judge it by.`
          : `- ${offer}：${what} ${yuan(price)}${moq}——近 12 个月没有成交记录，无法判断。`,
      );
      continue;
    }
    const d = check.deviationPct;
    const verdict = english
      ? d > 0
        ? `${d.toFixed(1)}% above`
        : d < 0
          ? `${Math.abs(d).toFixed(1)}% below`
          : 'equal to'
      : d > 0
        ? `高 ${d.toFixed(1)}%`
        : d < 0
          ? `低 ${Math.abs(d).toFixed(1)}%`
          : '持平';
    const grade = english
      ? ({ ok: 'reasonable', info: 'slightly high', warn: 'high', critical: 'far too high' }[check.severity] ??
        check.severity)
      : severityText(check.severity);
    lines.push(
      english
        ? `- ${offer}: ${what} ${yuan(price)}${moq} is ${verdict} the 12-month median paid price ${yuan(check.median12m)} (lowest ${yuan(check.minPrice12m ?? check.median12m)}, ${check.basis?.lines ?? 0} paid lines) — ${grade} (${check.severity}).`
        : `- ${offer}：${what} ${yuan(price)}${moq}，比近 12 个月成交中位价 ${yuan(check.median12m)} ${verdict}（最低 ${yuan(check.minPrice12m ?? check.median12m)}，${check.basis?.lines ?? 0} 行成交）——${grade}（${check.severity}）。`,
    );
  }
  for (const p of asked.parts) {
    const history = resultOf<History>(historyOf(p));
    const series = history?.series?.[0];
    const months = (series?.months ?? []).filter((m) => m.lines > 0).filter(inWindow(window));
    if (history?.traceId) traces.add(history.traceId);
    if (!series || months.length < 1) {
      if (series && window.months !== 12)
        lines.push(
          english ? `- ${p.model}: no paid orders over ${window.en}.` : `- ${p.model} ${window.zh}没有成交记录。`,
        );
      continue;
    }
    const first = months[0];
    const last = months[months.length - 1];
    const change = ((last.avgUnitPrice - first.avgUnitPrice) / first.avgUnitPrice) * 100;
    const direction = directionOf(change, english).text;
    // The ERP's total covers whole months back, which a dated window ("去年下半年") may cut: then the months kept are
    // summed the way the ERP sums them (quantity-weighted).
    const cut = Boolean(window.from || window.to);
    const quantity = months.reduce((sum, m) => sum + m.quantity, 0);
    const average = cut
      ? months.reduce((sum, m) => sum + m.avgUnitPrice * m.quantity, 0) / quantity
      : (series.total.avgUnitPrice ?? last.avgUnitPrice);
    const paidLines = cut ? months.reduce((sum, m) => sum + m.lines, 0) : series.total.lines;
    lines.push(
      english
        ? `- Paid prices of ${p.model} over ${window.en} (all suppliers, quantity-weighted): ${first.month} ${yuan(first.avgUnitPrice)} → ${last.month} ${yuan(last.avgUnitPrice)}, ${direction}; average ${yuan(average)} over ${paidLines} lines.`
        : `- ${p.model} ${window.zh}成交价（所有供应商，按数量加权）：${first.month} ${yuan(first.avgUnitPrice)} → ${last.month} ${yuan(last.avgUnitPrice)}，${direction}；全期均价 ${yuan(average)}（${paidLines} 行）。`,
    );
  }
  lines.push(
    english
      ? `Sources: the ERP's price_check and part_price_history (ordered and received orders only)${traces.size ? `, trace ${[...traces].join(', ')}` : ''}. No order was drafted.`
      : `来源：ERP 的 price_check 和 part_price_history（只计已下单/已收货订单）${traces.size ? `，trace ${[...traces].join('、')}` : ''}。未起草订单。`,
  );
  return { text: lines.join('\n') };
}

/**
 * "这一年是涨了还是跌了？", "最近半年涨了还是跌了？": which way the price of the part asked about (or the one the
 * conversation analysed) went over the window asked (12 months when none is said) of the ERP's paid prices across
 * suppliers: the first and the last month with paid lines, the change in percent, each figure cited with the ERP
 * request that gave it.
 */
export function planDirection(view: ConversationView, texts: TaskTexts): Plan {
  const grounded = ground(view, texts);
  if ('plan' in grounded) return grounded.plan;
  const { facts } = grounded;
  const english = isEnglish(texts.words);
  // A part named now but not in the ERP is not answered with the part of an earlier turn.
  if (facts.current.namesPart && !facts.current.parts.length && facts.current.partWords)
    return {
      text: english
        ? `No part in the ERP matches “${facts.current.partWords}”.`
        : `ERP 中没有找到「${facts.current.partWords}」相关的零部件。/ No part in the ERP matches “${facts.current.partWords}”.`,
    };
  const asked = partsAsked(facts, 50);
  if ('text' in asked) return asked;
  const window = historyWindow(facts.current.reading.period);
  // The model the ERP lists first among the best supplied, as an analysis of the same words picks it.
  const part = mostSupplied(facts.parts.filter((p) => asked.parts.includes(p))) ?? asked.parts[0];
  // "瓦尔塔的电瓶涨价了吗" asks about what that supplier was paid, not the product across suppliers.
  const supplier =
    facts.suppliers.length === 1 && facts.suppliers[0].id === part.supplier.id ? facts.suppliers[0] : undefined;
  const by = supplier ? 'supplier' : 'product';
  const step = view.steps.find(
    (s) => s.name === 'part_price_history' && Number(s.args.partId) === part.id && s.args.by === by,
  );
  if (!step) {
    if (!view.tools.has('part_price_history'))
      return {
        text: english
          ? 'The ERP offers no price history (part_price_history): which way the price went cannot be told.'
          : 'ERP 没有提供价格历史（part_price_history），无法判断涨跌。/ The ERP offers no price history.',
      };
    return {
      toolCalls: [{ name: 'part_price_history', args: { partId: part.id, months: window.months, by } }],
    };
  }
  if (step.text === undefined) return {};
  const book = new SourceBook();
  const id = book.erp(step);
  const answered = resultOf<History>(step)?.series ?? [];
  const series = supplier ? answered.find((s) => s.supplierId === supplier.id) : answered[0];
  const kept = (series?.months ?? []).filter(inWindow(window));
  const months = kept.filter((m) => m.lines > 0);
  const whose = supplier ? `${displayName(supplier, english)} ` : '';
  const name = english ? `${whose}${displayName(part, true)} (${part.model})` : `${whose}${part.name}（${part.model}）`;
  if (!series || months.length < 2) {
    return {
      text: [
        english
          ? `${name}: fewer than two months with paid orders in ${window.en} ${cite([id])}, so no direction can be told. No order was drafted.`
          : `${name}：${window.zh}有成交的月份不足两个 ${cite([id])}，无法判断涨跌。未起草订单。`,
        ...sourcesList(book.sources),
      ].join('\n'),
    };
  }
  const first = months[0];
  const last = months[months.length - 1];
  const change = ((last.avgUnitPrice - first.avgUnitPrice) / first.avgUnitPrice) * 100;
  const { way, text } = directionOf(change, english);
  const at = cite([id]);
  const verdict = english
    ? { up: 'Up', down: 'Down', flat: 'Flat' }[way]
    : { up: '涨了', down: '跌了', flat: '基本持平' }[way];
  // The ERP's average is over every month it answered; a window that keeps fewer months has no such figure.
  const whole = kept.length === series.months.length;
  const average = whole
    ? english
      ? `, average ${yuan(series.total.avgUnitPrice ?? last.avgUnitPrice)} over ${series.total.lines} lines`
      : `，全期均价 ${yuan(series.total.avgUnitPrice ?? last.avgUnitPrice)}（${series.total.lines} 行）`
    : '';
  return {
    text: [
      english ? `## ${name}: ${verdict} over ${window.en}` : `## ${name}：${window.zh}价格${verdict}`,
      english
        ? `- ${first.month} ${yuan(first.avgUnitPrice)} ${at} → ${last.month} ${yuan(last.avgUnitPrice)} ${at}: ${text} ${at}`
        : `- ${first.month} ${yuan(first.avgUnitPrice)} ${at} → ${last.month} ${yuan(last.avgUnitPrice)} ${at}：${text} ${at}`,
      english
        ? `- Paid prices of ${supplier ? displayName(supplier, true) : 'all suppliers'}, quantity-weighted monthly averages of ordered and received order lines; ${months.length} months with paid lines${average} ${at}.`
        : `- ${supplier ? supplier.name : '所有供应商'}的成交价（已下单/已收货订单行按数量加权的月均价）；${months.length} 个月有成交${average}${at}。`,
      english ? 'No order was drafted.' : '未起草订单。',
      ...sourcesList(book.sources),
    ].join('\n'),
  };
}

/** "预算 N 元能买多少个？": how many of each part the budget buys at its list price, and the total. */
export function planBudget(view: ConversationView, texts: TaskTexts): Plan {
  const grounded = ground(view, texts);
  if ('plan' in grounded) return grounded.plan;
  const { facts } = grounded;
  const english = isEnglish(texts.words);
  const budget = facts.money;
  if (!budget) {
    return {
      text: english
        ? 'How much is the budget? Say it with its currency, e.g. “a budget of 8000 yuan”.'
        : '预算是多少？请说明金额，例如“预算 8000 元”。/ How much is the budget?',
    };
  }
  const asked = partsAsked(facts, 6);
  if ('text' in asked) return asked;
  const lines = [
    english ? `## What a budget of ${yuan(budget)} buys` : `## 预算 ${yuan(budget)} 能买多少 / What the budget buys`,
  ];
  for (const p of asked.parts) {
    const count = Math.floor(budget / p.unitPrice + 1e-9);
    const total = Math.round(count * p.unitPrice * 100) / 100;
    const moq =
      count < p.moq ? (english ? ` — below the minimum order quantity ${p.moq}` : `——不足最小起订量 ${p.moq}`) : '';
    lines.push(
      english
        ? `- ${displayName(p.supplier, true)} ${p.code} ${displayName(p, true)} at ${yuan(p.unitPrice)}: ${count} units, total ${yuan(total)} (left ${yuan(budget - total)})${moq}`
        : `- ${p.supplier.name} ${p.code} ${p.name}，单价 ${yuan(p.unitPrice)}：可买 ${count}${p.unit ?? ''}，合计 ${yuan(total)}（剩余 ${yuan(budget - total)}）${moq}`,
    );
  }
  lines.push(
    english
      ? 'List prices from the ERP (part_search). No order was drafted; to order, say e.g. “order N … from …”.'
      : '单价为 ERP 目录价（part_search）。未起草订单；要下单请直接说“给某供应商下 N 个…”。',
  );
  return { text: lines.join('\n') };
}
