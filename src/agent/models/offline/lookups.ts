import { cite, sourcesList } from '../../../protocol/index.ts';
import {
  type Extreme,
  type FieldBound,
  isEnglish,
  labelIn,
  readExtreme,
  readFieldBound,
  readPlace,
  type SupplierField,
  statusName,
  supplierFields,
} from './asks.ts';
import { codeTokens, displayName, inPlace, type PartRef, type SupplierRef, withoutCategory } from './catalogue.ts';
import { type ConversationView, items, type Plan, type ToolStep } from './conversation.ts';
import { type Facts, ground, type TaskTexts } from './grounding.ts';
import { SourceBook } from './provenance.ts';
import { inRegion, locationIn, regionLabel } from './reading/regions.ts';

/**
 * The analyst's answers to questions about the ERP's master data and records that are not an analysis: a supplier's
 * lead time, rating, terms and contact; who supplies a part and which models there are; what was spent. Each figure
 * cites the ERP request it comes from; none drafts anything.
 */

/** A supplier as `supplier_query` lists it. */
interface SupplierRow extends SupplierRef {
  city?: string;
  rating?: number;
  leadTimeDays?: number;
  paymentTerms?: string;
  contact?: string;
}

interface Scorecard {
  delivery: { received: number; onTime: number; onTimePct: number | null; avgDaysLate: number | null };
  price: { partsCompared: number; vsMarketMedianPct: number | null };
  volume: { orders: number; amount: number };
  cancellations: { count: number; pct: number | null };
}

const yuan = (n: number) => `¥${n.toFixed(2)}`;
const ok = (step: ToolStep | undefined) => step && (step.result as { success?: boolean })?.success !== false;

/** The fields asked about: the request's own, else those of the request it follows up ("那德尔福呢？"). */
function fieldsAsked(texts: TaskTexts): SupplierField[] {
  for (const text of [texts.words, ...[...texts.context].reverse()]) {
    const fields = supplierFields(text);
    if (fields.length) return fields;
  }
  return ['leadTime', 'rating', 'terms', 'contact'];
}

/** The suppliers a question is about: those named, else those carrying the parts named, else every supplier. */
function suppliersAsked(facts: Facts, all: SupplierRow[]): SupplierRow[] {
  const named = facts.current.suppliers.length ? facts.current.suppliers : facts.suppliers;
  if (named.length) return all.filter((s) => named.some((n) => n.id === s.id));
  if (facts.parts.length) return all.filter((s) => facts.parts.some((p) => p.supplier.id === s.id));
  return all;
}

/** The common Chinese payment terms said in English, the ERP's own words kept beside them: 月结30天 → net 30 days. */
const TERMS_EN: Array<[RegExp, (m: RegExpExecArray) => string]> = [
  [/^月结\s*(\d+)\s*天$/, (m) => `net ${m[1]} days, monthly statement`],
  [/^(?:款到发货|先款后货|预付全款|预付款)$/, () => 'payment before shipment'],
  [/^货到付款$/, () => 'cash on delivery'],
];

function termsInEnglish(terms: string): string {
  for (const [pattern, say] of TERMS_EN) {
    const m = pattern.exec(terms.trim());
    if (m) return `${say(m)} (${terms})`;
  }
  return terms;
}

const BOUND_COMPARE: Record<FieldBound['op'], (a: number, b: number) => boolean> = {
  '>=': (a, b) => a >= b,
  '>': (a, b) => a > b,
  '<=': (a, b) => a <= b,
  '<': (a, b) => a < b,
};

function withinBound(s: SupplierRow, bound: FieldBound): boolean {
  const value = bound.field === 'rating' ? s.rating : s.leadTimeDays;
  return value !== undefined && value !== null && BOUND_COMPARE[bound.op](Number(value), bound.value);
}

/** The bound as the answer states it: 评分 ≥ 4.5, lead time < 10 days. */
function boundText(bound: FieldBound, english: boolean): string {
  const op = { '>=': '≥', '>': '>', '<=': '≤', '<': '<' }[bound.op];
  return bound.field === 'rating'
    ? english
      ? `a rating ${op} ${bound.value}`
      : `评级 ${op} ${bound.value}`
    : english
      ? `a lead time ${op} ${bound.value} days`
      : `交期 ${op} ${bound.value} 天`;
}

/** "博世的交期多久？", "How is Delphi rated?": the ERP's supplier record, and for quality its 12-month scorecard. */
export function planSupplierInfo(view: ConversationView, texts: TaskTexts): Plan {
  const grounded = ground(view, texts);
  if ('plan' in grounded) return grounded.plan;
  const { facts } = grounded;
  const english = isEnglish(texts.words);
  const list = view.steps.find((s) => s.name === 'supplier_query' && s.args.name === undefined) as ToolStep;
  const all = items<SupplierRow>(list);
  // "评分4.5以上的供应商": the suppliers whose rating or lead time is within the bound said, the field shown.
  const bound = readFieldBound(texts.words);
  // "华东的供应商有哪些", "suppliers in East China": the region's suppliers by the location the ERP reports, shown.
  const region = facts.current.reading.region;
  const said = supplierFields(texts.words).filter((f) => f !== 'city');
  const fields: SupplierField[] = region
    ? ['city', ...said]
    : bound && !fieldsAsked(texts).includes(bound.field)
      ? [bound.field, ...fieldsAsked(texts)]
      : fieldsAsked(texts);
  // "哪些供应商在江苏", "suppliers based in Shanghai": those whose city lies there, the city shown.
  const place = region ? regionLabel(region, english) : fields.includes('city') ? readPlace(texts.words) : undefined;
  const asked = suppliersAsked(facts, all).filter(
    (s) =>
      (!bound || withinBound(s, bound)) && (region ? inRegion(s.city, region) : !place || inPlace(s.city ?? '', place)),
  );
  const boundLabel = bound
    ? boundText(bound, english)
    : place && (english ? `located in ${place}` : `所在地：${place}`);
  if (!asked.length)
    return {
      text: place
        ? english
          ? `No supplier in the ERP is located in ${place}.`
          : `ERP 中没有位于「${place}」的供应商。/ No supplier in the ERP is located in ${region ? regionLabel(region, true) : place}.`
        : boundLabel && bound
          ? english
            ? `No supplier in the ERP has ${boundLabel}.`
            : `ERP 中没有${boundLabel}的供应商。/ No supplier in the ERP has ${boundText(bound, true)}.`
          : english
            ? 'No supplier in the ERP matches.'
            : 'ERP 中没有找到这个供应商。/ No supplier in the ERP matches.',
    };
  // "交期最短的是哪家": the one supplier (or the tied few) at the end of the ranking said, named first.
  const extreme = readExtreme(texts.words);
  // Quality is how a supplier has served the project: its scorecard, for the few suppliers named, or for every
  // supplier asked when they are ranked by on-time delivery.
  const scored =
    fields.includes('rating') &&
    (asked.length <= 4 || extreme?.by === 'onTime') &&
    view.tools.has('supplier_scorecard');
  const cardOf = (s: SupplierRow) =>
    view.steps.find((x) => x.name === 'supplier_scorecard' && Number(x.args.supplierId) === s.id);
  const wanted = scored ? asked.filter((s) => !cardOf(s)) : [];
  if (wanted.length)
    return { toolCalls: wanted.map((s) => ({ name: 'supplier_scorecard', args: { supplierId: s.id, months: 12 } })) };
  if (view.steps.some((s) => s.text === undefined)) return {};
  const book = new SourceBook();
  const at = cite([book.erp(list)]);
  const onTimeOf = (s: SupplierRow) => {
    const card = cardOf(s);
    const result = ok(card) ? (card?.result as Scorecard | undefined) : undefined;
    return result?.delivery.onTimePct ?? undefined;
  };
  const measure = (s: SupplierRow, by: Extreme['by']) =>
    by === 'onTime' ? onTimeOf(s) : by === 'rating' ? s.rating : s.leadTimeDays;
  // Many suppliers: sorted by the ranking said, else by the field asked (shortest lead time, best rating first).
  const rankBy: Extreme | undefined =
    extreme ??
    (fields[0] === 'leadTime'
      ? { by: 'leadTime', want: 'min', end: false }
      : fields[0] === 'rating'
        ? { by: 'rating', want: 'max', end: false }
        : undefined);
  const sorted = rankBy
    ? [...asked].sort((a, b) => {
        const [x, y] = [measure(a, rankBy.by), measure(b, rankBy.by)];
        // A supplier without the figure (no delivery yet) ranks last either way.
        if (x === undefined || y === undefined) return (x === undefined ? 1 : 0) - (y === undefined ? 1 : 0);
        return rankBy.want === 'min' ? x - y : y - x;
      })
    : asked;
  const top = extreme?.end ? measure(sorted[0], extreme.by) : undefined;
  const winners = top === undefined ? [] : sorted.filter((s) => measure(s, extreme!.by) === top);
  const value = (s: SupplierRow, f: SupplierField) =>
    ({
      leadTime: english ? `lead time ${s.leadTimeDays} days` : `交期 ${s.leadTimeDays} 天`,
      rating: english ? `rating ${s.rating} / 5` : `评级 ${s.rating} 分（满分 5）`,
      terms: english ? `payment terms ${termsInEnglish(s.paymentTerms ?? '')}` : `账期 ${s.paymentTerms}`,
      contact: english ? `contact ${s.contact}` : `联系人 ${s.contact}`,
      city: english ? `located in ${locationIn(s.city ?? '', true)}` : `所在地 ${s.city}`,
    })[f];
  const lines = sorted.map((s) => {
    const name = english ? (s.nameEn ?? s.name) : `${s.name}（${s.nameEn ?? ''}）`;
    const card = cardOf(s);
    const c = ok(card) ? (card?.result as Scorecard) : undefined;
    const cid = card && c ? cite([book.erp(card)]) : '';
    const quality = c
      ? english
        ? `; last 12 months: on time ${c.delivery.onTimePct ?? '—'}% (${c.delivery.onTime} of ${c.delivery.received} deliveries) ${cid}, cancelled ${c.cancellations.pct ?? 0}% of ${c.volume.orders} orders ${cid}, list prices ${c.price.vsMarketMedianPct ?? '—'}% against the market median ${cid}`
        : `；近 12 个月：准时交货率 ${c.delivery.onTimePct ?? '—'}%（${c.delivery.received} 次收货中 ${c.delivery.onTime} 次准时）${cid}，取消率 ${c.cancellations.pct ?? 0}%（共 ${c.volume.orders} 单）${cid}，目录价相对市场中位价 ${c.price.vsMarketMedianPct ?? '—'}% ${cid}`
      : '';
    return `- ${name}：${fields.map((f) => `${value(s, f)} ${at}`).join('；')}${quality}`.replace(
      '：',
      english ? ': ' : '：',
    );
  });
  return {
    text: [
      english ? '## Supplier details (from the ERP)' : '## 供应商信息（ERP 主数据）/ Supplier details',
      ...(extreme && winners.length
        ? [
            extremeText(
              extreme,
              winners,
              top as number,
              english,
              // An on-time rate is the scorecard's figure: the winners' scorecards are its source.
              extreme.by === 'onTime' ? cite(winners.map((w) => book.erp(cardOf(w) as ToolStep))) : at,
            ),
          ]
        : []),
      ...(boundLabel ? [english ? `Filter: ${boundLabel} ${at}` : `筛选 / filter：${boundLabel} ${at}`] : []),
      ...lines,
      english
        ? 'From the ERP supplier records (supplier_query)' +
          (scored ? ' and scorecards (supplier_scorecard).' : '.') +
          ' They are master data: changes are made in the ERP.'
        : `来源：ERP 供应商主数据（supplier_query）${scored ? '和供应商评分卡（supplier_scorecard）' : ''}；这些是主数据，修改请在 ERP 中进行。`,
      ...sourcesList(book.sources),
    ].join('\n'),
  };
}

/** The headline of a ranking question: who is at its end, with the figure ("**交期最短：电装（5 天）**"). */
function extremeText(extreme: Extreme, winners: SupplierRow[], value: number, english: boolean, at: string): string {
  const names = winners.map((s) => (english ? (s.nameEn ?? s.name) : s.name)).join(english ? ', ' : '、');
  const min = extreme.want === 'min';
  const [what, figure] = {
    leadTime: english
      ? [min ? 'Shortest lead time' : 'Longest lead time', `${value} days`]
      : [min ? '交期最短' : '交期最长', `${value} 天`],
    rating: english
      ? [min ? 'Lowest rating' : 'Highest rating', `${value} / 5`]
      : [min ? '评级最低' : '评级最高', `${value} 分`],
    onTime: english
      ? [min ? 'Lowest on-time delivery rate' : 'Highest on-time delivery rate', `${value}%, last 12 months`]
      : [min ? '准时交货率最低' : '准时交货率最高', `近 12 个月 ${value}%`],
  }[extreme.by];
  return english ? `**${what}: ${names} (${figure})** ${at}` : `**${what}：${names}（${figure}）** ${at}`;
}

/** "谁家供应火花塞？", "which models of tyres can we buy?": the parts the ERP lists, by model, with their suppliers. */
export function planCatalogue(view: ConversationView, texts: TaskTexts, cheapest = false): Plan {
  const grounded = ground(view, texts);
  if ('plan' in grounded) return grounded.plan;
  const { facts } = grounded;
  const english = isEnglish(texts.words);
  const supplier = facts.current.suppliers[0];
  // "博世有哪些型号？": everything the named supplier offers.
  if (supplier && !facts.current.parts.length) {
    const listed = view.steps.find((s) => s.name === 'part_by_supplier');
    if (!listed && view.tools.has('part_by_supplier'))
      return { toolCalls: [{ name: 'part_by_supplier', args: { supplierId: supplier.id } }] };
    if (listed && listed.text === undefined) return {};
    if (listed)
      return catalogueAnswer(
        [{ parts: items<PartRef>(listed), steps: [listed], what: displayName(supplier, english) }],
        english,
      );
  }
  let parts = facts.parts;
  // Categories named by their names or synonyms (机滤 is 机油滤清器; "空滤和机滤" names two): the ERP's whole listing
  // of each, not only the parts whose names hold the word (机油滤芯 is an oil filter too).
  const words = facts.partWords.toLowerCase();
  // Any search found the category (the best matches may favour the other category said).
  const found = new Set([...facts.seen.values()].map((p) => p.category));
  const named = codeTokens(words).length
    ? []
    : facts.categories.filter(
        (c) =>
          found.has(c.code) &&
          [c.nameZh, ...c.synonymsZh, c.nameEn, ...c.synonymsEn].some((w) => w && words.includes(w.toLowerCase())),
      );
  const listingOf = (code: string) => view.steps.find((s) => s.name === 'part_query' && s.args.category === code);
  const unlisted = named.filter((c) => !listingOf(c.code));
  if (unlisted.length && view.tools.has('part_query'))
    return { toolCalls: unlisted.map((c) => ({ name: 'part_query', args: { category: c.code, size: 50 } })) };
  if (named.some((c) => listingOf(c.code)?.text === undefined)) return {};
  const sections = named.flatMap((c) => {
    const listing = listingOf(c.code) as ToolStep;
    const listed = items<PartRef>(listing).filter((p) => !supplier || p.supplier.id === supplier.id);
    return listed.length ? [{ parts: listed, steps: [listing], what: english ? c.nameEn : c.nameZh }] : [];
  });
  if (sections.length) return catalogueAnswer(sections, english, cheapest);
  if (supplier) parts = parts.filter((p) => facts.current.suppliers.some((s) => s.id === p.supplier.id));
  if (!parts.length)
    return {
      text: facts.partWords
        ? english
          ? `No part in the ERP matches “${facts.partWords}”.`
          : `ERP 中没有找到「${facts.partWords}」相关的零部件。/ No part in the ERP matches “${facts.partWords}”.`
        : english
          ? 'Which part or category do you mean?'
          : '请说明是哪类零部件（名称或型号）。/ Which part or category do you mean?',
    };
  const ids = new Set(parts.map((p) => p.id));
  const searches = view.steps.filter((s) => s.name === 'part_search' && items<PartRef>(s).some((p) => ids.has(p.id)));
  const only = facts.categories.find((c) => parts.every((p) => p.category === c.code));
  const what = only ? (english ? only.nameEn : only.nameZh) : facts.partWords.replace(/[?？!！。.,，\s]+$/, '');
  return catalogueAnswer([{ parts, steps: searches, what }], english, cheapest);
}

/** The parts of one category (or supplier, or search) a catalogue answer lists, and the ERP calls they came from. */
interface CatalogueSection {
  parts: PartRef[];
  steps: ToolStep[];
  what: string;
}

/**
 * One section per category asked, by model with every supplier's price, and one list of sources; asked for the
 * cheapest ("What's the cheapest tyre we can buy?"), the lowest list price of them all first.
 */
function catalogueAnswer(sections: CatalogueSection[], english: boolean, cheapest = false): Plan {
  const book = new SourceBook();
  const lines = sections.flatMap((section) => catalogueLines(section, english, book));
  const offers = sections.flatMap((section) => section.parts.map((part) => ({ part, steps: section.steps })));
  const low = Math.min(...offers.map((o) => o.part.unitPrice));
  const lowest = offers.filter((o) => o.part.unitPrice === low);
  const headline = lowest.map(({ part, steps }) => {
    const at = cite(steps.map((s) => book.erp(s)));
    const name = `${displayName(part.supplier, english)} ${part.code} ${displayName(part, english)} ${yuan(part.unitPrice)}`;
    return english ? `**Cheapest: ${name} (MOQ ${part.moq})** ${at}` : `**最便宜：${name}（起订 ${part.moq}）** ${at}`;
  });
  return {
    text: [
      ...(cheapest && offers.length ? headline : []),
      ...lines,
      english
        ? 'List prices and minimum order quantities are the ERP catalogue’s; say e.g. “order N … from …” to order.'
        : '单价和起订量为 ERP 目录数据；要下单可以说“给某供应商下 N 个…”。',
      ...sourcesList(book.sources),
    ].join('\n'),
  };
}

function catalogueLines({ parts, steps, what }: CatalogueSection, english: boolean, book: SourceBook): string[] {
  const at = cite(steps.map((s) => book.erp(s)));
  const models = [...new Set(parts.map((p) => p.model))];
  const suppliers = [...new Set(parts.map((p) => displayName(p.supplier, english)))];
  const lines = models.map((model) => {
    const offers = parts.filter((p) => p.model === model).sort((a, b) => a.unitPrice - b.unitPrice);
    const name = displayName(offers[0], english);
    const list = offers
      .map(
        (p) =>
          `${displayName(p.supplier, english)} ${p.code} ${yuan(p.unitPrice)}${english ? ` (MOQ ${p.moq})` : `（起订 ${p.moq}）`}`,
      )
      .join(english ? ', ' : '、');
    return english
      ? `- ${model} ${name}: ${offers.length} supplier${offers.length > 1 ? 's' : ''} — ${list} ${at}`
      : `- ${model} ${name}：${offers.length} 家 —— ${list} ${at}`;
  });
  return [
    english
      ? `## ${what}: ${models.length} model${models.length > 1 ? 's' : ''} from ${suppliers.length} supplier${suppliers.length > 1 ? 's' : ''}`
      : `## ${what}：${models.length} 个型号，${suppliers.length} 家供应商`,
    english ? `Suppliers: ${suppliers.join(', ')} ${at}` : `供应商：${suppliers.join('、')} ${at}`,
    ...lines,
  ];
}

interface SpendOrder {
  orderNo: string;
  status: string;
  supplier: SupplierRef;
  lines: Array<{ partId: number; code: string; quantity: number; amount: number }>;
}

/** The states whose orders count as spent: ordered and received (as the ERP's price history counts them). */
const SPENT = ['ordered', 'received'] as const;
const SPEND_PAGE = 50;
const SPEND_MAX_PAGES = 10;

/**
 * "去年下半年在轮胎上花了多少钱？": the sum of ordered and received order lines of what is named, in the period; the
 * states said instead when the question names them ("待审批的订单金额一共多少").
 */
export function planSpend(view: ConversationView, texts: TaskTexts): Plan {
  const grounded = ground(view, texts);
  if ('plan' in grounded) return grounded.plan;
  const { facts } = grounded;
  const english = isEnglish(texts.words);
  const reading = facts.current.reading;
  const period = reading.period;
  const states: readonly string[] = reading.statuses?.statuses ?? SPENT;
  const supplier = facts.current.suppliers[0];
  const parts = facts.current.parts.length ? facts.current.parts : [];
  if (facts.current.namesPart && facts.current.partWords && !parts.length && !supplier)
    return {
      text: english
        ? `No part in the ERP matches “${facts.current.partWords}”.`
        : `ERP 中没有找到「${facts.current.partWords}」相关的零部件。/ No part in the ERP matches “${facts.current.partWords}”.`,
    };
  const categories = [...new Set(parts.map((p) => p.category))];
  const models = [...new Set(parts.map((p) => p.model))];
  const seen = [...facts.seen.values()];
  // A model named (F7TC, or a name only one model has): that model's lines; else the lines of the categories named.
  // The category's own name ("在机油滤清器上花了多少") is the category, even when only one model's name holds it.
  const namedCategory = parts.length ? facts.categories.find((c) => c.code === parts[0].category) : undefined;
  const saysCategory =
    namedCategory !== undefined && withoutCategory(facts.current.partWords, namedCategory) !== undefined;
  const byModel =
    models.length === 1 &&
    !saysCategory &&
    (codeTokens(facts.current.partWords).length > 0 ||
      seen.some((p) => p.category === parts[0].category && p.model !== models[0]));
  const category = categories.length === 1 ? categories[0] : undefined;
  const kept = byModel
    ? new Set(seen.filter((p) => p.model === models[0]).map((p) => p.id))
    : categories.length > 1
      ? new Set(seen.filter((p) => categories.includes(p.category)).map((p) => p.id))
      : undefined;
  const args = (status: string) => ({
    status,
    size: SPEND_PAGE,
    ...(category ? { category } : {}),
    ...(supplier ? { supplierId: supplier.id } : {}),
    ...(period ? { dateFrom: period.from, dateTo: period.to } : {}),
  });
  const pages = (status: string) =>
    view.steps.filter((s) => s.name === 'order_search_details' && s.args.status === status);
  const next = states.flatMap((status) => {
    const done = pages(status);
    const last = done.at(-1);
    if (!last) return [{ name: 'order_search_details', args: { ...args(status), page: 1 } }];
    if (last.text === undefined) return [];
    const total = (last.result as { total?: number } | undefined)?.total ?? 0;
    const fetched = done.reduce((n, p) => n + items(p).length, 0);
    return fetched < total && done.length < SPEND_MAX_PAGES && items(last).length
      ? [{ name: 'order_search_details', args: { ...args(status), page: done.length + 1 } }]
      : [];
  });
  if (next.length) return { toolCalls: next };
  if (view.steps.some((s) => s.text === undefined)) return {};
  const book = new SourceBook();
  const rows = states.map((status) => {
    const steps = pages(status).filter((s) => ok(s));
    const ids = steps.map((s) => book.erp(s));
    const orders = steps
      .flatMap((s) => items<SpendOrder>(s))
      .map((o) => ({ ...o, lines: o.lines.filter((l) => !kept || kept.has(l.partId)) }))
      .filter((o) => o.lines.length);
    const lines = orders.flatMap((o) => o.lines);
    return {
      status,
      ids,
      orders,
      amount: Math.round(lines.reduce((n, l) => n + l.amount, 0) * 100) / 100,
      quantity: lines.reduce((n, l) => n + l.quantity, 0),
      lines: lines.length,
    };
  });
  const all = cite(rows.flatMap((r) => r.ids));
  const total = Math.round(rows.reduce((n, r) => n + r.amount, 0) * 100) / 100;
  const orders = rows.reduce((n, r) => n + r.orders.length, 0);
  const lines = rows.reduce((n, r) => n + r.lines, 0);
  const quantity = rows.reduce((n, r) => n + r.quantity, 0);
  const what = [
    byModel
      ? models[0]
      : category
        ? categoryName(facts, category, english)
        : parts.length
          ? facts.current.partWords
          : '',
    supplier ? displayName(supplier, english) : '',
  ]
    .filter(Boolean)
    .join(' · ');
  const when = period ? period.label : english ? 'all recorded orders' : '全部记录';
  const bySupplier = new Map<string, number>();
  for (const r of rows)
    for (const o of r.orders) {
      const name = displayName(o.supplier, english);
      bySupplier.set(name, (bySupplier.get(name) ?? 0) + o.lines.reduce((n, l) => n + l.amount, 0));
    }
  const top = [...bySupplier].sort((a, b) => b[1] - a[1]).slice(0, 6);
  const status = (s: string) => statusName(s, english);
  // The states as the question said them (未到货 is approved and ordered); the rows below give each state.
  const said = reading.statuses && labelIn(reading.statuses.label, english);
  return {
    text: [
      said
        ? english
          ? `## Orders ${said}${what ? ` · ${what}` : ''}, ${when}: ${yuan(total)} ${all}`
          : `## ${what ? `「${what}」` : ''}${said}订单金额（${when}）：${yuan(total)} ${all}`
        : english
          ? `## Spend${what ? ` on ${what}` : ''}, ${when}: ${yuan(total)} ${all}`
          : `## ${when}${what ? `「${what}」` : ''}采购支出：${yuan(total)} ${all}`,
      english
        ? `- ${orders} orders, ${lines} lines, quantity ${quantity} ${all}`
        : `- ${orders} 个订单、${lines} 行、数量 ${quantity} ${all}`,
      // One model: what was paid per piece on average ("what did we pay for CR7HIX").
      ...(byModel && quantity > 0
        ? [
            english
              ? `- Average paid price of ${models[0]}: ${yuan(total / quantity)} per piece (amount ÷ quantity) ${all}`
              : `- ${models[0]} 平均成交单价：${yuan(total / quantity)}（金额 ÷ 数量）${all}`,
          ]
        : []),
      english
        ? `- By state: ${rows.map((r) => `${status(r.status)} ${yuan(r.amount)} (${r.orders.length} orders) ${cite(r.ids)}`).join('; ')}`
        : `- 按状态：${rows.map((r) => `${status(r.status)} ${yuan(r.amount)}（${r.orders.length} 单）${cite(r.ids)}`).join('；')}`,
      ...(top.length
        ? [
            english
              ? `- By supplier: ${top.map(([n, a]) => `${n} ${yuan(a)}`).join(', ')} ${all}`
              : `- 按供应商：${top.map(([n, a]) => `${n} ${yuan(a)}`).join('、')} ${all}`,
          ]
        : []),
      said
        ? english
          ? `Rule: the amounts of the order lines${what ? ` of ${what}` : ''} on orders ${said} (${states.map(status).join(', ')}), by order date${period ? ` (${period.label})` : ''}.`
          : `口径：${said}（${states.map(status).join('、')}）订单中${what ? `「${what}」的` : ''}订单行金额之和，按下单日期${period ? `（${period.label}）` : ''}。`
        : english
          ? `Rule: the amounts of the order lines${what ? ` of ${what}` : ''} on ordered and received orders, by order date${period ? ` (${period.label})` : ''}; drafts, orders awaiting approval, approved and cancelled orders are not counted.`
          : `口径：已下单和已收货订单中${what ? `「${what}」的` : ''}订单行金额之和，按下单日期${period ? `（${period.label}）` : ''}；草稿、待审批、已审批和已取消的订单不计。`,
      ...sourcesList(book.sources),
    ].join('\n'),
  };
}

/** A category's name as the ERP's category list gives it, in the answer's language. */
export function categoryName(facts: Facts, code: string | undefined, english: boolean): string {
  const c = facts.categories.find((x) => x.code === code);
  return c ? (english ? c.nameEn : c.nameZh) : (code ?? '');
}
