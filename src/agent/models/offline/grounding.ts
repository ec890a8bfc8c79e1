import { isEnglish } from './asks.ts';
import {
  type CategoryRef,
  categoryLabel,
  displayName,
  distinctSuppliers,
  findSuppliers,
  matchParts,
  namesSomething,
  type PartRef,
  partQueries,
  partText,
  type SupplierRef,
  tradeWords,
  wholeCategory,
} from './catalogue.ts';
import { type ConversationView, items, lastStep, type Plan, taskContext, userWords } from './conversation.ts';
import { type Intent, type Reading, readRequest } from './intent.ts';
import { escapeRegExp } from './text.ts';

/** One text of a delegated task (an earlier request, the request, the user's answer) read and grounded. */
export interface Grounded {
  reading: Reading;
  suppliers: SupplierRef[];
  /** The best-matching parts the ERP returned for what the text names. */
  parts: PartRef[];
  /** The words left to name a part (after suppliers, numbers, dates and cue words). */
  partWords: string;
  namesPart: boolean;
}

/** The facts of a task, newest text first for each: what a follow-up leaves unchanged comes from before. */
export interface Facts {
  texts: Grounded[];
  current: Grounded;
  intent?: Intent;
  suppliers: SupplierRef[];
  parts: PartRef[];
  /** The text that named the parts (for messages). */
  partWords: string;
  quantity?: number;
  expectedDate?: string;
  maxUnitPrice?: number;
  /** A sum of money said (a budget, a quoted price), never a quantity. */
  money?: number;
  note?: string;
  orderNo?: string;
  /** Every part any search returned, by id (answers to `ask_user` refer to them). */
  seen: Map<number, PartRef>;
  /** The project's categories (`category_list`), when the agent has the tool. */
  categories: CategoryRef[];
  /** Every supplier the ERP lists (`supplier_query`): a supplier chosen by id is one of them. */
  supplierList: SupplierRef[];
}

/** Earlier results a follow-up carries start with this, so they lend facts (order, part) but never an intent. */
export const RESULT_PREFIX = '结果：';

/** The texts of a delegated task: earlier requests and results, the request, and the user's answers since. */
export interface TaskTexts {
  context: string[];
  words: string;
  answers: string[];
}

export function taskTexts(view: ConversationView, answers: string[] = []): TaskTexts {
  return { context: taskContext(view.request), words: userWords(view.request), answers: answers.filter(Boolean) };
}

/** The intent of a task before any lookup: the request's own, else the newest earlier request's. */
export function taskIntent(texts: TaskTexts, today = new Date()): { intent?: Intent; current: Reading } {
  const current = readRequest(texts.words, today);
  if (current.intent) return { intent: current.intent, current };
  for (const text of [...texts.context].reverse()) {
    if (text.startsWith(RESULT_PREFIX)) continue;
    const intent = readRequest(text, today).intent;
    if (intent) return { intent, current };
  }
  return { current };
}

/**
 * Grounds the texts in the ERP through the agent's own tools: the supplier list and the categories first (to know
 * which words are suppliers, and the trade words buyers use for a category), then one `part_search` per candidate
 * part word. Returns the next lookup to make, or the facts.
 */
export function ground(view: ConversationView, task: TaskTexts, today = new Date()): { plan: Plan } | { facts: Facts } {
  const texts = [...task.context, task.words, ...task.answers];
  const currentIndex = task.context.length;
  const list = view.steps.find((s) => s.name === 'supplier_query' && s.args.name === undefined);
  const categoryStep = view.steps.find((s) => s.name === 'category_list');
  const wanted = [
    ...(list ? [] : [{ name: 'supplier_query', args: {} }]),
    ...(categoryStep || !view.tools.has('category_list') ? [] : [{ name: 'category_list', args: {} }]),
  ];
  if (wanted.length) return { plan: { toolCalls: wanted } };
  if (list?.text === undefined || (categoryStep && categoryStep.text === undefined)) return { plan: {} };
  const suppliers = items<SupplierRef>(list);
  const categories = items<CategoryRef>(categoryStep);
  const trade = tradeWords(categories);
  const readings = texts.map((t) => readRequest(t, today));
  const words = readings.map((r) => partText(r, findSuppliers(r.rest, suppliers, trade), categories));
  const searched = new Map<string, PartRef[]>();
  for (const s of view.steps.filter((s) => s.name === 'part_search' && s.text !== undefined)) {
    searched.set(String(s.args.name), items<PartRef>(s));
  }
  const pending = [...new Set(words.flatMap((w) => partQueries(w, searched).map((q) => q.query)))].filter(
    (q) => !searched.has(q),
  );
  if (pending.length) {
    return {
      plan: { toolCalls: pending.slice(0, 16).map((name) => ({ name: 'part_search', args: { name, limit: 50 } })) },
    };
  }
  const texts2: Grounded[] = readings.map((reading, i) => ({
    reading,
    suppliers: distinctSuppliers(findSuppliers(reading.rest, suppliers, trade)),
    parts: wholeCategory(words[i], matchParts(words[i], searched), searched, categories),
    partWords: words[i].replace(/[|]/g, ' ').replace(/\s+/g, ' ').trim(),
    namesPart: namesSomething(words[i]),
  }));
  const newest = <T>(pick: (g: Grounded) => T | undefined) => {
    for (const g of [...texts2].reverse()) {
      const value = pick(g);
      if (value !== undefined) return value;
    }
    return undefined;
  };
  const named = newest((g) => (g.parts.length ? g : undefined));
  const seen = new Map<number, PartRef>();
  for (const list of searched.values()) for (const p of list) seen.set(p.id, p);
  const current = texts2[currentIndex];
  // A supplier said that the ERP does not have ("米其林的轮胎", "order tyres from Michelin") is said so, never dropped
  // for an answer about every supplier.
  // A word the catalogue knows (holding a category or trade word, or a piece of a part's name) is no supplier's name
  // ("给火花塞发询价" sends an RFQ for spark plugs).
  const known = (word: string) =>
    trade.some((t) => [...t].length >= 2 && word.toLowerCase().includes(t)) ||
    [...seen.values()].some((p) => p.name.includes(word));
  const stranger = current.suppliers.length
    ? undefined
    : unknownSupplier(task.words, words[currentIndex], searched, current.parts.length > 0, known);
  if (stranger) return { plan: { text: unknownSupplierText(stranger, current.parts, isEnglish(task.words)) } };
  return {
    facts: {
      texts: texts2,
      current,
      intent: taskIntent(task, today).intent,
      suppliers: newest((g) => (g.suppliers.length ? g.suppliers : undefined)) ?? [],
      parts: named?.parts ?? [],
      partWords: named?.partWords ?? newest((g) => (g.namesPart ? g.partWords : undefined)) ?? '',
      quantity: newest((g) => g.reading.quantity),
      expectedDate: newest((g) => g.reading.expectedDate),
      maxUnitPrice: newest((g) => g.reading.maxUnitPrice),
      money: newest((g) => g.reading.money),
      note: current.reading.note,
      orderNo: newest((g) => g.reading.orderNo),
      seen,
      categories,
      supplierList: suppliers,
    },
  };
}

/** The latest answer to `ask_user`, as the option value chosen. */
export function chosen(view: ConversationView): string | undefined {
  const answer = (lastStep(view, 'ask_user')?.result as { answer?: unknown } | undefined)?.answer;
  const value = Array.isArray(answer) ? answer[0] : answer;
  return typeof value === 'string' ? value : undefined;
}

/** Puts a choice to the user: with `ask_user` when this agent has it, else as a question in the answer. */
export function askUser(
  view: ConversationView,
  question: string,
  options: Array<{ label: string; value: string }>,
): Plan {
  if (view.tools.has('ask_user'))
    return { toolCalls: [{ name: 'ask_user', args: { question, options, multiple: false } }] };
  return { text: [question, ...options.map((o, i) => `${i + 1}. ${o.label}`)].join('\n') };
}

/**
 * The named suppliers' offers among the parts a request names; when they carry none of those, the same models from
 * them (the supplier the user switched to: "换成博世" after an order with Denso). Empty: they supply none of it.
 */
export function offeredBy(facts: Facts, parts: PartRef[]): PartRef[] {
  const bySupplier = (list: PartRef[]) => list.filter((p) => facts.suppliers.some((s) => s.id === p.supplier.id));
  const models = new Set(parts.map((p) => p.model));
  const own = bySupplier(parts);
  return own.length ? own : bySupplier([...facts.seen.values()].filter((p) => models.has(p.model)));
}

/** Words that stand where a supplier's name does but name none: the user, a pronoun, a supplier already meant. */
const NOT_A_NAME =
  /^(?:我|我们|咱们|你|你们|他|他们|她|它|这|那|哪|本|该|其他|别的|另|同|原|上次|之前|最便宜|便宜|最贵|供应商|厂家|厂商|商家|公司|卖家)|(?:那家|这家|哪家|那边|这边|供应商|厂家|公司)$/;
const NOT_A_NAME_EN =
  /^(?:us|me|them|him|her|it|the|a|an|that|this|which|another|other|our|their|last|same|cheapest|supplier|vendor)$/i;

/**
 * A name the request puts where a supplier goes (给/从/向/找 X, X的…, 在 X 上花, from X, X's, the X <part>) that the
 * ERP knows as neither supplier nor part: its part search found nothing.
 */
export function unknownSupplier(
  raw: string,
  partWords: string,
  searched: Map<string, PartRef[]>,
  namesKnownPart: boolean,
  known: (word: string) => boolean = () => false,
): string | undefined {
  // "X的" alone may be a part the ERP lacks ("火星塞的价格"): it names a supplier beside a part the ERP has, or before
  // what only a supplier has (its orders, quotes, contact).
  const owner = namesKnownPart ? '' : '(?=单|订单|采购单|货|报价|联系|付款|交期|评分)';
  for (const query of partQueries(partWords, searched).map((q) => q.query)) {
    if (searched.get(query)?.length !== 0) continue;
    const zh = /^(?:给|从|向|找|跟|在|和|与)?([\u3400-\u9fff]{2,8}?)(?:那边|那里|家)?(?:下|订|买|采购|上|的)?$/.exec(
      query,
    )?.[1];
    if (zh && !NOT_A_NAME.test(zh) && !known(zh)) {
      const slot = new RegExp(
        `(?:给|从|向|找|跟|和|与)\\s*${zh}|在\\s*${zh}\\s*(?:上|身上)|(?:^|[，,。\\s])${zh}(?:家)?的${owner}`,
      );
      if (slot.test(raw)) return zh;
    }
    const word = escapeRegExp(query);
    const en = new RegExp(`(?:\\b(?:from|with|at|by)\\s+|\\bthe\\s+)(${word})\\b|\\b(${word})'s\\b`, 'i').exec(raw);
    const name = en?.[1] ?? en?.[2];
    // An English name is a capitalised word: "the tyre" is no supplier, nor is a model code; "the Michelin tyre" is.
    if (name && /^[A-Z][a-z]+$/.test(name) && !NOT_A_NAME_EN.test(name) && !known(name)) return name;
  }
  return undefined;
}

/** That the ERP has no such supplier, and who supplies the parts the request names, if it names any. */
function unknownSupplierText(name: string, parts: PartRef[], english: boolean): string {
  const offering = [...new Map(parts.map((p) => [p.supplier.id, p.supplier])).values()];
  const who = offering.map((s) => displayName(s, english)).join(english ? ', ' : '、');
  if (english)
    return `The ERP has no supplier “${name}”: nothing was answered or drafted for it.${who ? ` The parts asked about come from: ${who}.` : ''}`;
  return `ERP 中没有供应商「${name}」，未按它作答或起草。${who ? `供应${categoryLabel(parts)}的有：${who}。` : ''}\nThe ERP has no supplier “${name}”.`;
}
