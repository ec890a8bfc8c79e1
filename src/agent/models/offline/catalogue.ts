import { pinyin } from 'pinyin-pro';
import type { Suggestion } from '../../../protocol/index.ts';
import type { Reading } from './intent.ts';
import {
  blankSpans,
  CJK,
  cjkRuns,
  escapeRegExp,
  findLatinPhrase,
  latinWords,
  normalize,
  sameWord,
  sharedRuns,
  singular,
} from './text.ts';

/**
 * Entities grounded in the live ERP: categories, suppliers and parts as the agents' own tools return them
 * (`category_list`, `supplier_query`, `part_search`, `part_query`). Nothing here knows a catalogue in advance.
 */

/** A part category as `category_list` returns it: its names and the trade words buyers use for it. */
export interface CategoryRef {
  code: string;
  nameZh: string;
  nameEn: string;
  synonymsZh: string[];
  synonymsEn: string[];
}

/** Every name and synonym of the categories: the trade words a company name may end in (正新轮胎). */
export const tradeWords = (categories: CategoryRef[]) =>
  categories.flatMap((c) => [c.nameZh, c.nameEn, ...c.synonymsZh, ...c.synonymsEn].map((w) => w.toLowerCase()));

export interface SupplierRef {
  id: number;
  name: string;
  nameEn?: string;
  /** Where the ERP places the supplier (`supplier_query`'s province and city), for a region filter. */
  city?: string;
}

export interface PartRef {
  id: number;
  code: string;
  model: string;
  name: string;
  nameEn?: string;
  category: string;
  unit?: string;
  unitPrice: number;
  moq: number;
  supplier: SupplierRef;
}

/** A supplier's or part's name in the answer's language: English when asked in English and the ERP gave it. */
export const displayName = (ref: { name: string; nameEn?: string }, en: boolean) =>
  en ? ref.nameEn || ref.name : ref.name;

/** Words that describe a company's legal form or line of business, not which company it is. */
const GENERIC_ZH =
  /(?:股份有限公司|有限责任公司|有限公司|股份|集团|公司|中国|汽车部件|汽车零部件|零部件|汽配|配件|科技|实业|贸易|制造|工业)$/;
const GENERIC_EN = new Set([
  'co',
  'ltd',
  'inc',
  'group',
  'auto',
  'parts',
  'the',
  'company',
  'corp',
  'gmbh',
  'china',
  'limited',
]);

/** A Chinese name without its legal form or a trade word at its end (正新轮胎 → 正新 when 轮胎 is a category). */
function stripGeneric(zh: string, trade: string[]): string | undefined {
  const bare = zh.replace(GENERIC_ZH, '');
  if (bare !== zh) return bare;
  const word = trade.find((w) => CJK.test(w) && zh.endsWith(w) && zh.length > w.length);
  return word ? zh.slice(0, -word.length) : undefined;
}

interface Alias {
  supplier: SupplierRef;
  zh?: string;
  en?: string[];
  /** Acronyms (NGK, DID) match only in capitals: "did" is an English word. */
  acronym?: string;
  /** A Chinese name as English text spells it (大同 → datong): matched as a whole word, without typo tolerance. */
  spelled?: string;
}

const spellings = new Map<string, string>();
/** The toneless pinyin of a Chinese name, as one lower-case word (大同 → datong). */
function spelledOut(zh: string): string {
  let spelled = spellings.get(zh);
  if (spelled === undefined) {
    spelled = pinyin(zh, { toneType: 'none', type: 'array', nonZh: 'removed' }).join('').toLowerCase();
    spellings.set(zh, spelled);
  }
  return spelled;
}

/**
 * Whether a supplier's city (the ERP's 江苏苏州, 上海) lies in the place a question names: a piece of it in Chinese
 * (江苏, 苏州), or its pinyin in English (Jiangsu, Suzhou, Shanghai).
 */
export function inPlace(city: string, place: string): boolean {
  const wanted = place.trim().toLowerCase().replace(/\s+/g, '');
  if (!wanted || !city) return false;
  if (/[\u4e00-\u9fff]/.test(wanted)) return city.includes(wanted) || wanted.includes(city);
  const chars = [...city];
  for (let start = 0; start < chars.length; start++)
    for (let length = 2; length <= 3 && start + length <= chars.length; length++)
      if (spelledOut(chars.slice(start, start + length).join('')) === wanted) return true;
  return false;
}

/**
 * The names and short forms a buyer uses for a supplier, derived from the names the ERP gives; `trade` (the
 * categories' words) is what a name may end in besides its legal form.
 */
export function supplierAliases(s: SupplierRef, trade: string[] = []): Alias[] {
  const aliases: Alias[] = [];
  const names = [s.name, s.nameEn ?? ''].map(normalize);
  for (const piece of names.flatMap((n) => n.split(/[\s()（）·,/]+/)).filter(Boolean)) {
    if (CJK.test(piece)) {
      aliases.push({ supplier: s, zh: piece });
      for (let zh = stripGeneric(piece, trade); zh !== undefined; zh = stripGeneric(zh, trade)) {
        if ([...zh].length >= 2) aliases.push({ supplier: s, zh });
      }
    }
  }
  // English requests name Chinese suppliers in pinyin ("from Datong"): long enough not to be an English word.
  for (const a of [...aliases]) {
    const spelled = a.zh && /^[\u3400-\u9fff]+$/.test(a.zh) ? spelledOut(a.zh) : '';
    if (spelled.length >= 5 && /^[a-z]+$/.test(spelled)) aliases.push({ supplier: s, spelled });
  }
  for (const name of names) {
    const words = latinWords(name).map((w) => w.word);
    if (words.length === 0) continue;
    aliases.push({ supplier: s, en: words });
    const first = words[0];
    const original = /[A-Za-z][A-Za-z'-]*/.exec(name)?.[0] ?? '';
    if (original.length <= 3 && original === original.toUpperCase()) aliases.push({ supplier: s, acronym: original });
    else if (!GENERIC_EN.has(first) && !trade.includes(first) && first.length >= 4)
      aliases.push({ supplier: s, en: [first] });
  }
  return aliases;
}

/** A supplier's shortest Chinese name (博世 for 博世(Bosch)汽车部件有限公司), else its name. */
export function shortName(s: SupplierRef, trade: string[] = []): string {
  const zh = supplierAliases(s, trade)
    .map((a) => a.zh)
    .filter((z): z is string => Boolean(z))
    .sort((a, b) => a.length - b.length);
  return zh[0] ?? s.name;
}

export interface SupplierMention {
  supplier: SupplierRef;
  start: number;
  end: number;
}

/** Suppliers named in a text (any alias, Latin words typo-tolerant), longest names first, never overlapping. */
export function findSuppliers(text: string, suppliers: SupplierRef[], trade: string[] = []): SupplierMention[] {
  const found: SupplierMention[] = [];
  const lower = text.toLowerCase();
  const words = latinWords(text);
  for (const s of suppliers) {
    for (const a of supplierAliases(s, trade)) {
      if (a.zh) {
        for (let at = lower.indexOf(a.zh); at >= 0; at = lower.indexOf(a.zh, at + 1))
          found.push({ supplier: s, start: at, end: at + a.zh.length });
      } else if (a.acronym) {
        for (const m of text.matchAll(new RegExp(`(?<![A-Za-z])${a.acronym}(?![A-Za-z])`, 'g')))
          found.push({ supplier: s, start: m.index, end: m.index + a.acronym.length });
      } else if (a.spelled) {
        for (const w of words)
          if (w.word === a.spelled) found.push({ supplier: s, start: w.index, end: w.index + w.word.length });
      } else if (a.en) {
        const span = findLatinPhrase(words, a.en);
        if (span) found.push({ supplier: s, ...span });
      }
    }
  }
  found.sort((a, b) => b.end - b.start - (a.end - a.start) || a.start - b.start);
  const kept: SupplierMention[] = [];
  for (const f of found) if (!kept.some((k) => f.start < k.end && k.start < f.end)) kept.push(f);
  return kept.sort((a, b) => a.start - b.start);
}

/** Distinct suppliers in mention order. */
export const distinctSuppliers = (mentions: SupplierMention[]) =>
  mentions.map((m) => m.supplier).filter((s, i, all) => all.findIndex((o) => o.id === s.id) === i);

/** Common English part words: a typo in one of these is corrected before the catalogue is searched. */
const PART_WORDS_EN = [
  'spark',
  'plug',
  'brake',
  'pad',
  'oil',
  'air',
  'filter',
  'chain',
  'tyre',
  'battery',
  'ignition',
  'coil',
  'motorcycle',
  'scooter',
  'car',
  'front',
  'rear',
  'timing',
  'cartridge',
  'iridium',
  'tubeless',
  'bearing',
  'clutch',
  'piston',
  'gasket',
  'sprocket',
  'cable',
  'lamp',
  'bulb',
];

/** Words that never name a part. */
const STOP_EN = new Set(
  (
    'please pls the a an of for from to me i we my our some any with and or by at on in is are be can could you ' +
    'would like want wanted pcs pc piece pieces unit units what about how which do does us this that those these ' +
    "all each per yuan rmb cny supplier suppliers vendor vendors let lets let's go kindly also just now asap " +
    'urgent urgently quickly few new set sets pair pairs ea its their there here them they he she it his her one ' +
    'two three four five six seven eight nine ten hundred thousand qty quantity price prices cost costs unit ' +
    // The auxiliaries a question opens with ("Has it gone up?", "Did it go down?") name no part.
    'has have had did was were will shall should over'
  ).split(' '),
);

/** Characters that are grammar, not names: a bigram made of them is never searched. */
const STOP_ZH = new Set([...'的了吗呢吧啊呀我们你您请帮给向从跟把被要想个些哪谁么什和与及或也都还就让是这那再对做在']);
/** Words about the request, never in a part's name. */
const FILLER_ZH = /供应商|厂家|厂商|各家|几家|哪些|哪个|哪家|什么|多少|一下|零部件|零件|配件/g;

export interface PartQuery {
  /** What to send to `part_search`. */
  query: string;
  kind: 'code' | 'zh' | 'en';
}

/**
 * The text a request has left once suppliers are blanked out, with the categories' synonyms written by the
 * category's name (机滤 → 机油滤清器, tire → tyre). Names and synonyms are matched longest first, so a name that
 * contains a synonym (蓄电池 holds 电池) stays as it is.
 */
export function partText(reading: Reading, mentions: SupplierMention[], categories: CategoryRef[] = []): string {
  // The 的 left behind a blanked supplier (德尔福的机油滤清器) belongs to no part, nor to the words quoted back.
  const text = blankSpans(reading.rest, mentions)
    .replace(FILLER_ZH, ' ')
    .replace(/^[\s的之|?？!！。，,.]+|[\s的之|?？!！。，,.]+$/g, '');
  const formal = new Map<string, string>();
  for (const c of categories) {
    for (const w of [c.nameZh, ...c.synonymsZh]) formal.set(w, c.nameZh);
    for (const w of [c.nameEn, ...c.synonymsEn]) formal.set(w.toLowerCase(), c.nameEn.toLowerCase());
  }
  if (!formal.size) return text;
  const words = [...formal.keys()].filter(Boolean).sort((a, b) => b.length - a.length);
  // Latin words only as whole words: "tire" in "tired" is no tyre.
  const pattern = words.map((w) => (CJK.test(w) ? escapeRegExp(w) : `\\b${escapeRegExp(w)}\\b`)).join('|');
  return text.replace(new RegExp(pattern, 'gi'), (m) => formal.get(m.toLowerCase()) ?? m);
}

/** Code-like tokens: F7TC, BS-F7TC, BP-125F, 90/90-18, 2.75-18, 428H-118L. */
export function codeTokens(text: string): string[] {
  return [...text.matchAll(/[A-Za-z0-9]+(?:[-/.][A-Za-z0-9]+)*/g)]
    .map((m) => m[0])
    .filter((t) => /\d/.test(t) && (/[A-Za-z]/.test(t) || /[-/.]/.test(t)) && t.length >= 3);
}

/** English content words, singular, typo-corrected against common part words. */
export function contentWords(text: string): string[] {
  const out: string[] = [];
  for (const { word } of latinWords(
    text.replace(/[A-Za-z0-9]+(?:[-/.][A-Za-z0-9]+)*/g, (t) => (/\d/.test(t) ? ' ' : t)),
  )) {
    const w = singular(word);
    if (STOP_EN.has(word) || STOP_EN.has(w) || w.length < 2) continue;
    const fixed = PART_WORDS_EN.find((p) => sameWord(w, p)) ?? w;
    out.push(...fixed.split(' '));
  }
  return [...new Set(out)];
}

/** Chinese phrases of a text: CJK runs cut at grammar characters ("帮我对摩托车火花塞做" → 摩托车火花塞). */
function phrases(text: string): string[] {
  const out = new Set<string>();
  for (const run of cjkRuns(text)) {
    for (const piece of [...run]
      .map((c) => (STOP_ZH.has(c) ? ' ' : c))
      .join('')
      .split(' ')) {
      if ([...piece].length >= 2) out.add(piece);
    }
  }
  return [...out];
}

/** Neighbouring letter and digit runs of a separator-less code: BP150R → BP150, 150R; YTX7LBS → YTX7, 7LBS. */
const codePieces = (code: string) => {
  if (/[-/.]/.test(code)) return [];
  const runs = code.match(/[A-Za-z]+|\d+/g) ?? [];
  return runs
    .slice(0, -1)
    .map((r, i) => r + runs[i + 1])
    .filter((p) => p.length >= 3);
};

const bigrams = (phrase: string) => {
  const chars = [...phrase];
  return chars.slice(0, -1).map((c, i) => c + chars[i + 1]);
};

/** A number of three or four digits standing alone: the start of a model ("the 520 chains"), once quantities are read. */
const BARE_NUMBER = /(?<![\w./-])\d{3,4}(?![\w./-])/g;

/**
 * The searches that find every part a text could mean: codes, English words, and each Chinese phrase whole —
 * then, for a phrase the catalogue does not contain as such ("摩托车用的刹车片"), its character pairs.
 */
export function partQueries(text: string, searched?: Map<string, PartRef[]>): PartQuery[] {
  const zh = phrases(text).flatMap((p) =>
    searched?.get(p)?.length === 0 && [...p].length > 2 ? [p, ...bigrams(p)] : [p],
  );
  // A code typed without its separators (BP150R for BP-150R) is not found as such: its letter and digit pieces are.
  const codes = codeTokens(text).flatMap((c) => (searched?.get(c)?.length === 0 ? [c, ...codePieces(c)] : [c]));
  const english = contentWords(text);
  // Nothing else left but a model's leading number ("恒久链传动: 300 pcs 520"): that number is what to search.
  const numbers = codes.length || zh.length || english.length ? [] : (text.match(BARE_NUMBER) ?? []);
  return [
    ...[...new Set([...codes, ...numbers])].map((query) => ({ query, kind: 'code' as const })),
    ...[...new Set(zh)].map((query) => ({ query, kind: 'zh' as const })),
    ...english.map((query) => ({ query, kind: 'en' as const })),
  ];
}

/** Whether a text names anything that could be a part (so "not found" is a fact, not a missing field). */
export const namesSomething = (text: string) => partQueries(text).length > 0;

/** A code as buyers type it, with or without its separators: BP150R, bp-150r and BP-150R are one code. */
const bareCode = (code: string) => code.toUpperCase().replace(/[-/.\s]/g, '');

export interface PartMatch {
  part: PartRef;
  score: number;
}

/**
 * Scores every part the searches returned against the text: an exact code or model wins outright; otherwise the
 * longest Chinese run shared with the part's name and the number of English words whose search found it.
 * Returns the best-scoring parts (ties kept: several matches are the user's choice, not ours).
 */
export function matchParts(text: string, results: Map<string, PartRef[]>): PartRef[] {
  const queries = partQueries(text, results);
  const parts = new Map<number, PartRef>();
  for (const q of queries) for (const p of results.get(q.query) ?? []) parts.set(p.id, p);
  const codes = codeTokens(text).map(bareCode);
  // A model said that no part found has (L2-400 where the project buys no L2-400) names none of them: another model
  // of the same words (batteries) is not what was asked for.
  const known = (c: string) =>
    [...parts.values()].some((p) => [p.code, p.model, p.name].some((field) => bareCode(field).includes(c)));
  // Only a token shaped like a model decides it: a letter before a digit (L2-400, F7TC) or figures joined by a
  // separator (90/90-18); 300pcs and 125cc are a count and a size.
  const models = codeTokens(text)
    .filter((c) => /[A-Z].*\d/i.test(c) || /\d[-/.]\d/.test(c))
    .map(bareCode);
  if (models.length && !models.some(known)) return [];
  // A bare number left over ("the 520 chains") is the start of a model, never a quantity (that was read already).
  const numbers = text.match(BARE_NUMBER) ?? [];
  const runs = cjkRuns(text);
  const english = queries.filter((q) => q.kind === 'en');
  const scored: PartMatch[] = [...parts.values()].map((part) => {
    let score = 0;
    for (const c of codes) {
      if (c === bareCode(part.code)) score += 1000;
      else if (c === bareCode(part.model)) score += 500;
      else if (c.length >= 3 && bareCode(part.model).includes(c)) score += 100;
    }
    // A piece of the model starting with it (BP-125F for "125") is a weaker match than the model's start.
    for (const n of numbers) {
      if (bareCode(part.model).startsWith(n)) score += 100;
      else if (part.model.split(/[-/.]/).some((piece) => piece.startsWith(n))) score += 50;
    }
    for (const run of runs) {
      score += sharedRuns(run, part.name) * 10;
    }
    for (const q of english) if ((results.get(q.query) ?? []).some((p) => p.id === part.id)) score += 10;
    return { part, score };
  });
  const best = Math.max(0, ...scored.map((s) => s.score));
  return best > 0 ? scored.filter((s) => s.score === best).map((s) => s.part) : [];
}

/**
 * A text that names a category as such ("帮我订一些机滤", "order some brake pads") means all of it: every part of
 * that category the searches found, not only those whose names share the most with the words (机油滤清器 would
 * leave out 机油滤芯). A text that says more (a model, 摩托车, 铱金) keeps its best matches.
 */
/**
 * What a text says besides a category's names and synonyms, when it says one of them and nothing else that names a
 * part ("在机油滤清器上" leaves "在 上"); undefined when it names no name of the category or more than it.
 */
export function withoutCategory(text: string, category: CategoryRef): string | undefined {
  const names = [category.nameZh, ...category.synonymsZh].filter(Boolean).sort((a, b) => b.length - a.length);
  const english = [category.nameEn, ...category.synonymsEn].filter(Boolean);
  let rest = text;
  for (const name of names) rest = rest.split(name).join(' ');
  for (const name of english) rest = rest.replace(new RegExp(`\\b${escapeRegExp(name)}(?:e?s)?\\b`, 'gi'), ' ');
  return rest === text || namesSomething(rest) ? undefined : rest;
}

export function wholeCategory(
  text: string,
  best: PartRef[],
  results: Map<string, PartRef[]>,
  categories: CategoryRef[],
): PartRef[] {
  const codes = new Set(best.map((p) => p.category));
  const category = codes.size === 1 ? categories.find((c) => codes.has(c.code)) : undefined;
  if (!category) return best;
  const rest = withoutCategory(text, category);
  if (rest === undefined) return best;
  // "520链条": the number left beside the category's name is the start of the model matched, not the whole category;
  // "前刹车片": a word left beside it that the names matched hold (前) narrows the category to them.
  const leading = rest.match(BARE_NUMBER) ?? [];
  if (leading.some((n) => best.some((p) => bareCode(p.model).startsWith(n)))) return best;
  const all = new Map<number, PartRef>();
  for (const list of results.values()) for (const p of list) if (p.category === category.code) all.set(p.id, p);
  const parts = [...all.values()];
  const narrows = (run: string) =>
    best.length < parts.length && best.some((p) => p.name.includes(run)) && !parts.every((p) => p.name.includes(run));
  if (cjkRuns(rest).some(narrows)) return best;
  return [...all.values()];
}

/** A category's everyday name: the longest ending its part names share (火花塞), else its most common name. */
export function categoryLabel(parts: PartRef[]): string {
  const bare = (name: string) => name.replace(/\s+\S*\d\S*$/, '').trim();
  const names = [...new Set(parts.map((p) => bare(p.name)))];
  let suffix = names[0] ?? '';
  for (const n of names) {
    while (suffix && !n.endsWith(suffix)) suffix = suffix.slice(1);
  }
  if ([...suffix].length >= 2) return suffix;
  const common = mostSupplied(parts);
  return common ? bare(common.name) : (parts[0]?.category ?? '');
}

/** The part (first offer) of the model most suppliers carry: the fairest like-for-like comparison. */
export function mostSupplied(parts: PartRef[]): PartRef | undefined {
  const bySuppliers = new Map<string, Set<number>>();
  for (const p of parts) bySuppliers.set(p.model, (bySuppliers.get(p.model) ?? new Set()).add(p.supplier.id));
  const model = [...bySuppliers.entries()].sort((a, b) => b[1].size - a[1].size)[0]?.[0];
  return parts.find((p) => p.model === model);
}

/**
 * Three requests built from the user's own catalogue: a supplier comparison for the category most suppliers
 * carry, an order for a part of another category, and a price trend for a third.
 */
export function suggestRequests(parts: PartRef[], suppliers: SupplierRef[]): Suggestion[] {
  const byCategory = new Map<string, PartRef[]>();
  for (const p of parts) byCategory.set(p.category, [...(byCategory.get(p.category) ?? []), p]);
  const ranked = [...byCategory.values()].sort(
    (a, b) => new Set(b.map((p) => p.supplier.id)).size - new Set(a.map((p) => p.supplier.id)).size,
  );
  const out: Suggestion[] = [];
  const english = (parts: PartRef[]) => parts[0].category.replace(/_/g, ' ');
  const [compare, order, trend] = [ranked[0], ranked[1] ?? ranked[0], ranked[2] ?? ranked[1] ?? ranked[0]];
  if (compare && new Set(compare.map((p) => p.supplier.id)).size >= 2) {
    out.push({
      flow: 'analysis',
      text: `帮我对${categoryLabel(compare)}做供应商比价分析`,
      textEn: `Compare suppliers for ${english(compare)}s and write a report`,
    });
  }
  const orderPart = order && mostSupplied(order);
  if (orderPart) {
    const supplier = suppliers.find((s) => s.id === orderPart.supplier.id) ?? orderPart.supplier;
    out.push({
      flow: 'order',
      text: `给${shortName(supplier)}下 ${orderPart.moq} ${orderPart.unit ?? '个'} ${orderPart.model} ${categoryLabel(order)}的采购单`,
      textEn: `Order ${orderPart.moq} ${orderPart.model} ${english(order)}s from ${displayName(supplier, true)}`,
    });
  }
  if (trend) {
    out.push({
      flow: 'trend',
      text: `看看${categoryLabel(trend)}最近的价格趋势`,
      textEn: `Show the price trend of ${english(trend)}s`,
    });
  }
  return out;
}
