/** Numbers as buyers write them: 200, 1,000, 1k, 1.5k, 2万, 两百, 二百五十, 一千五, two hundred. */

const DIGIT: Record<string, number> = {
  零: 0,
  〇: 0,
  一: 1,
  壹: 1,
  二: 2,
  两: 2,
  贰: 2,
  三: 3,
  叁: 3,
  四: 4,
  肆: 4,
  五: 5,
  伍: 5,
  六: 6,
  陆: 6,
  七: 7,
  柒: 7,
  八: 8,
  捌: 8,
  九: 9,
  玖: 9,
};
const POWER: Record<string, number> = { 十: 10, 拾: 10, 百: 100, 佰: 100, 千: 1000, 仟: 1000, 万: 10000 };

/** A Chinese numeral (两百, 二百五十, 一千五, 十二, 三万) as a number; undefined when it is not one. */
export function chineseNumber(text: string): number | undefined {
  if (!text || ![...text].every((c) => c in DIGIT || c in POWER)) return undefined;
  let total = 0;
  let section = 0;
  let digit: number | undefined;
  let lastPower = 0;
  for (const c of text) {
    if (c in DIGIT) {
      digit = DIGIT[c];
      // 两百零五: after a zero the next digit is units.
      if (digit === 0) lastPower = 1;
      continue;
    }
    const power = POWER[c];
    if (power === 10000) {
      total += (section + (digit ?? 0)) * 10000;
      section = 0;
      lastPower = 10000;
    } else {
      section += (digit ?? 1) * power;
      lastPower = power;
    }
    digit = undefined;
  }
  // 一千五 = 1500, 两百五 = 250: a trailing digit counts in the unit below the last power.
  if (digit !== undefined) section += lastPower >= 10 ? digit * (lastPower / 10) : digit;
  const value = total + section;
  return Number.isFinite(value) ? value : undefined;
}

const ENGLISH: Record<string, number> = {
  a: 1,
  zero: 0,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
};
const EN_WORD = `(?:${Object.keys(ENGLISH)
  .filter((w) => w !== 'a')
  .join('|')}|hundred|thousand)`;
/** An English number in words: two hundred, two hundred and fifty, twenty-five, one thousand five hundred. */
const EN_NUMBER = `\\b(?:a|${EN_WORD})(?:(?:\\s+and)?[\\s-]+${EN_WORD})*\\b`;
/** The same, with a hundred or a thousand in it: on its own (no unit, no cue) only such a number is a quantity. */
const EN_LARGE = `\\b(?:a|${EN_WORD})(?:(?:\\s+and)?[\\s-]+${EN_WORD})*?(?:\\s+and)?[\\s-]+(?:hundred|thousand)(?:(?:\\s+and)?[\\s-]+${EN_WORD})*\\b`;

/** Reads an English number in words; undefined when the text is not one. */
function englishNumber(text: string): number | undefined {
  if (!new RegExp(`^${EN_NUMBER}$`, 'i').test(text)) return undefined;
  let total = 0;
  let current = 0;
  for (const word of text.toLowerCase().split(/[\s-]+/)) {
    if (word === 'and') continue;
    if (word === 'hundred') current = (current || 1) * 100;
    else if (word === 'thousand') {
      total += (current || 1) * 1000;
      current = 0;
    } else current += ENGLISH[word] ?? 0;
  }
  return total + current;
}

/** Digits with suffixes (1,000 · 1k · 1.5k · 2万 · 3w) or English words (two hundred, a thousand), as a count. */
export function plainNumber(text: string): number | undefined {
  const value = plainAmount(text);
  return value === undefined ? undefined : Math.round(value);
}

/** The same as {@link plainNumber}, keeping cents: a price of 13.5 is 13.5, not 14. */
export function plainAmount(text: string): number | undefined {
  const t = text.trim().toLowerCase();
  const digits = /^(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s*(k|千|w|万|hundred|thousand)?$/.exec(t);
  if (digits) {
    const base = Number(digits[1].replace(/,/g, ''));
    const factor = { k: 1000, 千: 1000, thousand: 1000, hundred: 100, w: 10000, 万: 10000 }[digits[2] ?? ''] ?? 1;
    return Math.round(base * factor * 100) / 100;
  }
  const english = englishNumber(t);
  if (english !== undefined) return english;
  return chineseNumber(t);
}

/** A number in digits or Chinese numerals (never in English words, where "a" is one). */
const FIGURE = `(?:\\d{1,3}(?:,\\d{3})+|\\d+(?:\\.\\d+)?)(?:\\s+(?:hundred|thousand)\\b|\\s*(?:k|千|w|万)?(?![\\d.]))|[零〇一二两三四五六七八九十百千万壹贰叁肆伍陆柒捌玖拾佰仟]+`;
const NUMBER = `${FIGURE}|${EN_NUMBER}`;
const UNIT = '(?:个|只|件|条|套|副|块|支|根|盒|箱|片|台|颗|pcs?\\b|pieces?\\b|units?\\b|sets?\\b|pairs?\\b|ea\\b)';

export interface Span {
  start: number;
  end: number;
}

/** Containers a pack size names: 5盒，每盒50个 · 3 boxes of 100. */
const PACK_ZH = '(?:盒|箱|包|袋|卷|捆|板)';
const PACK_EN = '(?:boxes|box|packs?|cases?|cartons?|bags?|packets?)';

/**
 * A count of packs times the pieces in each (5盒，每盒50个 = 250; 每箱100只，订3箱 = 300; 3 boxes of 100 = 300). The
 * words between the two figures (20盒CR7HIX，每盒10支) may name the part: `keep` is that stretch, left unread.
 */
function readPacks(text: string): ({ value: number; keep?: Span } & Span) | undefined {
  // Each pattern: which groups hold the count of packs and the pieces in each, and the group of the words between.
  const patterns: Array<[RegExp, packs: number, each: number, between?: number]> = [
    [
      new RegExp(`(${NUMBER})\\s*(${PACK_ZH})([^每]{0,30}?)(?:每|一)\\s*${PACK_ZH}?\\s*(${NUMBER})\\s*${UNIT}?`, 'id'),
      1,
      4,
      3,
    ],
    [new RegExp(`(?:每|一)\\s*(${PACK_ZH})\\s*(${NUMBER})\\s*${UNIT}?([^每]{0,30}?)(${NUMBER})\\s*\\1`, 'id'), 4, 2, 3],
    // 20 boxes of CR7HIX, 10 per box · 20 boxes, 10 pieces in each box
    [
      new RegExp(
        `(${NUMBER})\\s*${PACK_EN}\\b(.{0,40}?)\\b(${NUMBER})\\s*(?:[a-z]+\\s+)?(?:per|in each|in every|each|a|\\/)\\s*${PACK_EN}`,
        'id',
      ),
      1,
      3,
      2,
    ],
    // 3 boxes of 100 (not 4 boxes of 90/90-18 tyres: a size is no count)
    [new RegExp(`(${NUMBER})\\s*${PACK_EN}\\s*(?:of|x|×|\\*)\\s*(${NUMBER})(?![\\d./-])`, 'id'), 1, 2],
  ];
  for (const [pattern, packsGroup, eachGroup, between] of patterns) {
    const m = pattern.exec(text);
    if (!m) continue;
    const packs = plainNumber(m[packsGroup]);
    const each = plainNumber(m[eachGroup]);
    const middle = between === undefined ? undefined : m.indices?.[between];
    if (packs && each)
      return {
        value: packs * each,
        start: m.index,
        end: m.index + m[0].length,
        ...(middle && middle[1] > middle[0] ? { keep: { start: middle[0], end: middle[1] } } : {}),
      };
  }
  return undefined;
}

/** The spans a quantity was read from, less any words between its figures that it leaves to name the part. */
export function quantitySpans(q: { keep?: Span } & Span): Span[] {
  return q.keep
    ? [
        { start: q.start, end: q.keep.start },
        { start: q.keep.end, end: q.end },
      ]
    : [q];
}

/** What money is written as: ¥8000, 8000元, 八千块钱, 8k yuan, RMB 8000, $20. */
const CURRENCY_BEFORE = '(?:¥|￥|rmb\\s*|cny\\s*|\\$)';
/** "一个", "每只", "/副" after a price: the piece the price is for, part of the price, never a quantity. */
const PIECE = '(?:个|只|件|副|条|套|支|块|根|片|盒|箱)';
const PER_PIECE = `(?:\\s*(?:一|每|\\/)\\s*${PIECE})?`;
// 块 is money only as 块钱 or before a per-piece price (12块一个, 35块一副, 12块/个); 30块 alone is thirty pieces (块 is a unit).
const CURRENCY_AFTER = `(?:元|块钱|块(?=\\s*(?:一${PIECE}|每|\\/))|rmb\\b|yuan\\b|cny\\b)`;

const jiaoDigit = (d: string) => (/\d/.test(d) ? Number(d) : '〇一二三四五六七八九'.indexOf(d));
const JIAO = new RegExp(
  `(${FIGURE})\\s*块\\s*([1-9一二三四五六七八九])\\s*毛?(?![\\d.]|\\s*(?:个|只|件|条|套|副|支|根|片|盒|箱|块))${PER_PIECE}`,
);

/**
 * A sum of money in a text and where it stands: never an order quantity, whatever else the text says. In a budget
 * question (`budget`) a sum said in 块 ("我手上有六千块") is money too: what a budget buys is never counted in 块; in a
 * price judgement (`judge`) so is a figure after "at".
 */
export function readMoney(text: string, asked?: 'budget' | 'judge'): ({ value: number } & Span) | undefined {
  const patterns = [
    ...(asked === 'budget' ? [new RegExp(`(${FIGURE})\\s*块(?!\\s*(?:一${PIECE}|每|\\/))`, 'i')] : []),
    // A price being judged, said after "at" ("is Bosch's F7TC at 14.5 cheap?").
    ...(asked === 'judge' ? [/\bat\s+(?:¥|￥|\$)?(\d+(?:\.\d+)?)(?![\d.])/i] : []),
    new RegExp(`${CURRENCY_BEFORE}\\s*(${NUMBER})${PER_PIECE}`, 'i'),
    new RegExp(`(${NUMBER})\\s*${CURRENCY_AFTER}${PER_PIECE}`, 'i'),
    new RegExp(`(?:预算|budget(?:\\s+of|\\s+is)?|花|spend|总价|总额|金额)\\s*(?:是|为|有|:|：)?\\s*(${NUMBER})`, 'i'),
    // The amount before the word (1.5万预算, 8000 的预算, a 3k budget).
    new RegExp(`(${FIGURE})\\s*(?:的|块钱的|元的)?\\s*(?:预算|budget\\b)`, 'i'),
    // A price per piece said without its currency (16.2 per F7TC, 18.5 each, 12.5/个): money, not a quantity.
    /(?<![\w.-])(\d+(?:\.\d+)?)\s*(?:\/\s*(?:个|只|件|副|条|套|块|pcs?\b|piece\b|unit\b)|per\b(?!\s*(?:box|pack|case|carton|bag|month|week|day|year))|each\b|apiece\b|a piece\b)/i,
    // A price per piece said in Chinese without its currency (33.95 一副, 12每个): money, unless a count follows the
    // piece word (200 每箱 20 个 is a pack size).
    new RegExp(`(?<![\\w.-])(\\d+(?:\\.\\d+)?)\\s*(?:一|每)\\s*${PIECE}(?!\\s*[\\d零〇一二两三四五六七八九十百千万])`),
    // A price a supplier said, in English without its currency ("MAHLE quoted 26 for HF204", "asking 16 each").
    /\b(?:quoted|quoting|asking|priced at|charges?|charging|wants)\s+(?:us\s+)?(?:¥|￥|rmb\s*|cny\s*|\$)?(\d+(?:\.\d+)?)(?![\d.]|\s*(?:pcs|pieces|units|sets|boxes|x\b|%))/i,
    // A price said without its currency (单价 18, 开价 18.5): money, not a quantity.
    new RegExp(
      `(?:单价|价格|报价|开价|要价|售价|卖)\\s*(?:是|为|:|：)?\\s*(\\d+(?:\\.\\d+)?)(?![\\d.]|\\s*(?:个|只|件|条|套|盒|箱|pcs))${PER_PIECE}`,
      'i',
    ),
  ];
  let best: ({ value: number } & Span) | undefined;
  for (const p of patterns) {
    const m = p.exec(text);
    const value = m ? plainAmount(m[1]) : undefined;
    if (m && value !== undefined && value > 0 && (!best || m.index < best.start))
      best = { value, start: m.index, end: m.index + m[0].length };
  }
  // 9块5 (一只) is nine yuan and five jiao: the digit after 块 is tenths, not a count.
  const jiao = JIAO.exec(text);
  const yuan = jiao ? plainAmount(jiao[1]) : undefined;
  if (jiao && yuan !== undefined && (!best || jiao.index < best.end)) {
    const start = best ? Math.min(best.start, jiao.index) : jiao.index;
    best = { value: yuan + jiaoDigit(jiao[2]) / 10, start, end: jiao.index + jiao[0].length };
  }
  return best;
}

/** The order quantity in a text and where it stands; a number with a unit wins over a bare number. */
export function readQuantity(text: string): ({ value: number; keep?: Span } & Span) | undefined {
  const packs = readPacks(text);
  if (packs) return packs;
  // 第二个 is an ordinal (the second one), not two pieces.
  const withUnit = new RegExp(`(?<!第)(${NUMBER})\\s*${UNIT}`, 'gi');
  for (const m of text.matchAll(withUnit)) {
    const raw = m[1];
    // 一个/一张 before the order word is an article ("下一个采购单"), not a quantity of parts.
    if (/^[一壹]$/.test(raw)) continue;
    if (/^a$/i.test(raw.trim())) continue;
    const value = plainNumber(raw);
    if (value && value > 0) return { value, start: m.index, end: m.index + m[0].length };
  }
  // "×200", "x 200", "数量 200", "qty 200", "改成300", "to 300", "再来100", "order 300 …"
  const cued = new RegExp(
    `(?:[×x*]\\s*|数量\\s*[:：为是]?\\s*|qty\\s*:?\\s*|quantity\\s*(?:of|to|:)?\\s*|改成|改为|改到|调整为|调到|变成|再来|再要|再订|再买|再下|订购|采购|订|买|来|要|to\\s+|make it\\s+|order\\s+|buy\\s+|purchase\\s+|procure\\s+|need\\s+|get\\s+|another\\s+)(\\d{1,3}(?:,\\d{3})+|\\d+(?:\\.\\d+)?(?:\\s+(?:hundred|thousand)\\b|\\s*(?:k|千|w|万))?|[零〇一二两三四五六七八九十百千万]{2,}|${EN_LARGE})(?![\\d./:-]|[A-Za-z]|\\s*(?:元|块钱|rmb|yuan|cny|月|日|号|天|周|days?|weeks?|号前))`,
    'gi',
  );
  for (const m of text.matchAll(cued)) {
    const value = plainNumber(m[1]);
    // Only the number is the quantity: the cue before it (改成, 再来) still says what to do with it.
    const end = m.index + m[0].length;
    if (value && value > 0) return { value, start: end - m[1].length, end };
  }
  // A bare number that is not part of a code, date, price or order number.
  const bare =
    /(?<![\w./-])(\d+(?:\.\d+)?\s+(?:hundred|thousand)\b|\d+(?:\.\d+)?\s*[kK千万](?![A-Za-z])|\d{1,3}(?:,\d{3})+|\d{1,7})(?![\w./:-]|\s*(?:元|块钱|rmb|yuan|cny|月|日|号|天|周|%|days?|weeks?))/gi;
  for (const m of text.matchAll(bare)) {
    const value = plainNumber(m[1]);
    if (value && value > 0) return { value, start: m.index, end: m.index + m[0].length };
  }
  // A number in words on its own counts only with a hundred or a thousand in it ("that one" is no quantity).
  for (const m of text.matchAll(new RegExp(`${EN_LARGE}(?!\\s*(?:元|块钱|rmb|yuan|cny))`, 'gi'))) {
    const value = plainNumber(m[0]);
    if (value && value > 0) return { value, start: m.index, end: m.index + m[0].length };
  }
  return undefined;
}

/** A unit-price ceiling: 单价不超过15元, 15元以内, 低于15块, under ¥15, at most 15 yuan each. */
export function readPriceCap(text: string): ({ value: number } & Span) | undefined {
  const amount = '(\\d+(?:\\.\\d+)?)';
  const money = '(?:¥|￥|rmb\\s*|cny\\s*|\\$)?';
  const patterns = [
    new RegExp(
      `(?:单价|价格|价钱|每[个只件条套副块])?\\s*(?:不超过|不高于|不要超过|最多|最高|低于|小于|少于|控制在)\\s*${money}${amount}\\s*(?:元|块钱|块|rmb|yuan)?\\s*(?:以内|以下|之内)?`,
      'i',
    ),
    new RegExp(`(?:单价|价格)?\\s*${money}${amount}\\s*(?:元|块钱|块)\\s*(?:以内|以下|之内)`, 'i'),
    new RegExp(`(?:单价|价格)\\s*[≤<]=?\\s*${money}${amount}`, 'i'),
    new RegExp(
      `(?:under|below|at most|no more than|not more than|max(?:imum)?(?: price)?(?: of)?|less than|cheaper than|up to)\\s*${money}${amount}\\s*(?:yuan|rmb|cny|元)?`,
      'i',
    ),
  ];
  for (const p of patterns) {
    const m = p.exec(text);
    if (
      m &&
      (/单价|价|¥|￥|元|块|yuan|rmb|cny|\$|price/i.test(m[0]) || /each|apiece|per (?:unit|piece)|单价/i.test(text))
    ) {
      return { value: Number(m[1]), start: m.index, end: m.index + m[0].length };
    }
  }
  return undefined;
}

/**
 * How many suppliers a request for quotation asks ("问 5 家供应商", "五家厂商", "to 3 suppliers"): a count of
 * companies, never a quantity of parts. A bare "三家的" (comparing the three named) is no count to invite.
 */
export function readSupplierCount(text: string): ({ value: number } & Span) | undefined {
  const patterns = [
    new RegExp(`(${NUMBER})\\s*家\\s*(?:供应商|供货商|厂商|厂家|公司)`, 'i'),
    new RegExp(`(?:问|找|邀请|请|发给|询|向|给)\\s*(${NUMBER})\\s*家`, 'i'),
    new RegExp(`(${NUMBER})\\s+(?:different\\s+|more\\s+)?(?:suppliers|vendors|supplier|vendor)\\b`, 'i'),
  ];
  for (const pattern of patterns) {
    const m = pattern.exec(text);
    const value = m && plainNumber(m[1].trim());
    if (m && value && value > 0 && value <= 20) {
      const start = m.index + m[0].indexOf(m[1]);
      return { value, start, end: m.index + m[0].length };
    }
  }
  return undefined;
}
