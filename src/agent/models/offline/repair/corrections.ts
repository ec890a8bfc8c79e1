/**
 * Repair: a correction replaces the slot it names. In "不是电装，是博世", "不对，不要200个，要300个", "not Denso, Bosch"
 * the negated value is no longer meant: its words are taken out before the request is read, so the value said after
 * it fills the slot alone — and the rest of the earlier request (part, quantity, supplier) carries over as any
 * follow-up's does — instead of the two names competing.
 */

/** The frame that opens a correction ("不对，", "错了，", "no wait,"): it names nothing. */
const FRAME = /(?:^|[，,。\s])(?:不对|错了|搞错了|说错了)[，,。!！\s]*|\b(?:no|nope|oops)[,\s]+wait\b[,!\s]*/gi;
/** "不是X，是Y" / "不要X，要Y" / "别用X，用Y": the negated value X, up to the value said instead. */
const NEGATED_ZH =
  /(?<!是)(?:不是|不要(?!超过|高于|低于|了)|别用|不用)\s*[^，,。；;！!？?\s了][^，,。；;！!？?]{0,23}?\s*[，,；;]?\s*(?=(?:而|应该|应)?是|要|换成|改成|改为|用)/g;
/** "not X, Y" / "not X but Y": the negated value X. */
const NEGATED_EN =
  /\bnot\s+(?!yet\b|approved\b|more\b|over\b|above\b|below\b|under\b|later\b)[^,.;!?]{1,30}?\s*(?:,|;|\bbut\b)\s*(?:but\s+)?/gi;

/** The spans of a request that a correction takes back: its frame and the values it negates. */
export function correctionSpans(text: string): Array<{ start: number; end: number }> {
  const negated = [...text.matchAll(NEGATED_ZH), ...text.matchAll(NEGATED_EN)];
  if (!negated.length) return [];
  return [...text.matchAll(FRAME), ...negated].map((m) => ({ start: m.index, end: m.index + m[0].length }));
}
