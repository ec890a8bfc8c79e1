import { LINE_JOINERS, SPLIT_PHRASES } from '../lexicon/orders.ts';
import { plainNumber, readQuantity, type Span } from '../quantities.ts';
import { escapeRegExp } from '../text.ts';

/**
 * Reading: a request may carry several order lines ("A-100 两百个、B-200 五十个，都从博世订", "200 F7TC from Bosch and
 * 100 D8TC from Denso") and ask for its order to be split ("分三单下", "split into three orders"). Lines are the
 * request's clauses that each hold a quantity of their own; the count of orders to split into is never a quantity.
 */

/** One line of a request: its own words (a part, a quantity, maybe a supplier) and where they stand. */
export interface LineText extends Span {
  text: string;
  quantity: number;
}

const byLength = (words: readonly string[]) => [...words].sort((a, b) => b.length - a.length).map(escapeRegExp);
/** Chinese joiners stand between two clauses, English ones as words. */
const JOINER = new RegExp(
  `\\s*(?:${byLength(LINE_JOINERS.zh).join('|')})\\s*|\\s+(?:${byLength(LINE_JOINERS.en).join('|')})\\s+`,
  'gi',
);
/** Clause separators (the text is normalised: ，、 are commas). */
const SEPARATOR = /[,;；。\n]+/g;

/** The clauses between the separators, with where each stands. */
function clauses(text: string, separator: RegExp, from = 0): Span[] {
  const out: Span[] = [];
  let start = 0;
  for (const m of text.matchAll(separator)) {
    out.push({ start: from + start, end: from + m.index });
    start = m.index + m[0].length;
  }
  out.push({ start: from + start, end: from + text.length });
  return out;
}

/** Characters that carry the request, not a part: verbs, particles, measure words, a correction's words. */
const GRAMMAR_ZH = new Set([
  ...'的了是要订买采购下单给从向和跟再加也还都各请帮我们你个只件条套副块支根盒箱片台颗对不错改成为到共',
]);
/** English words of the request that name no part. */
const GRAMMAR_EN =
  /^(?:order|orders|buy|get|need|want|please|and|also|plus|from|all|the|of|more|another|then|each|pcs|pieces?|units?|sets?|make|it|instead|wait|no|not|with|for|to|us|we|me)$/i;

/** Whether a clause names something besides its quantity: a code, a Chinese name, an English word. */
function namesSomething(clause: string): boolean {
  if (/[A-Za-z]+[-/.]?\d|\d+[A-Za-z]{2,}/.test(clause)) return true;
  if ([...clause].filter((c) => /[\u3400-\u9fff]/.test(c) && !GRAMMAR_ZH.has(c)).length >= 2) return true;
  return (clause.match(/[A-Za-z]{3,}/g) ?? []).some((w) => !GRAMMAR_EN.test(w));
}

/**
 * The order lines of a request, when it holds two or more clauses each with a quantity of its own; undefined for a
 * single line (however many commas it has: "5盒，每盒50个" is one quantity). A clause joined by 和 / and is a line of
 * its own only when both sides hold a quantity ("F7TC 和 D8TC 各 100 个" stays one clause).
 */
export function readLines(text: string): LineText[] | undefined {
  const whole = readQuantity(text);
  // A quantity read across a separator (a pack size) makes the request one line.
  if (whole && /[,;；。\n]/.test(text.slice(whole.start, whole.end))) return undefined;
  const lines: LineText[] = [];
  for (const clause of clauses(text, SEPARATOR)) {
    const said = text.slice(clause.start, clause.end);
    const pieces = clauses(said, JOINER, clause.start);
    const split = pieces.length > 1 && pieces.every((p) => readQuantity(text.slice(p.start, p.end)));
    for (const p of split ? pieces : [clause]) {
      const words = text.slice(p.start, p.end).trim();
      const quantity = readQuantity(words);
      if (!quantity) continue;
      // "是400个" (a correction), "再加100个" name no part: the request is not several lines.
      if (!namesSomething(words.slice(0, quantity.start) + words.slice(quantity.end))) return undefined;
      lines.push({ text: words, quantity: quantity.value, start: p.start, end: p.end });
    }
  }
  return lines.length >= 2 ? lines : undefined;
}

const COUNT = '(\\d{1,2}|[一二两三四五六七八九十]|two|three|four|five|six|seven|eight|nine|ten)';
const SPLIT = [
  new RegExp(
    `(?:${byLength(SPLIT_PHRASES.zh.before).join('|')})\\s*${COUNT}\\s*(?:${byLength(SPLIT_PHRASES.zh.after).join('|')})(?:下|订|采购|买|来|发|送)?`,
  ),
  new RegExp(
    `\\b(?:${byLength(SPLIT_PHRASES.en.before).join('|')})\\s+${COUNT}\\s+(?:${byLength(SPLIT_PHRASES.en.after).join('|')})\\b`,
    'i',
  ),
];

/** "分三单下", "拆成两张订单", "split into three orders": how many orders to split into, and where it is said. */
export function readSplit(text: string): ({ count: number } & Span) | undefined {
  for (const pattern of SPLIT) {
    const m = pattern.exec(text);
    const count = m ? plainNumber(m[1]) : undefined;
    if (m && count && count >= 2) return { count, start: m.index, end: m.index + m[0].length };
  }
  return undefined;
}
