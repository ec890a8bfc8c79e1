/**
 * Policy: a question never drafts a write, whatever verbs it holds. "上回买了几箱？", "这种垫片以前都找谁买？",
 * "do we usually order these from Bosch?" ask about orders already placed: they are looked up, never drafted.
 */

/** Buying and cancelling verbs, as a question about earlier orders says them. */
const VERB_ZH = '(?:买|订|采购|购买|进货|进(?!行|入|度|展|一步)|下单|下过单|取消)';
/** Said of orders already placed or of a habit: 上回, 以前, 一般, 都找谁. */
const PAST_ZH = '(?:上回|上次|以前|之前|过去|原来|往常|一般|通常|平时|平常|一直|历来|都是|都找|都从|都在)';
/** A question word or particle: who, how many, whether. */
const ASKED_ZH = /[吗么?？]|几|多少|谁|哪家|哪个|哪些|哪里|什么|啥|有没有|是不是|是否|没有/;
/** Asking the assistant to act ("能给博世下100个吗", "帮我再订一次"): a request, however it ends. */
const REQUEST_ZH = /帮|请|麻烦|给我|能不能|能否|可以|可不可以|再(?:订|买|来|下|要)|要不要|我要|我想/;

const PAST_QUESTION_ZH = new RegExp(
  `${PAST_ZH}[^，,。；;]{0,12}?${VERB_ZH}|${VERB_ZH}(?:过|了)(?:[^，,。；;]{0,8}?(?:几|多少))?`,
);

/** English questions about orders already placed or a habit: did we, have we, do we usually, who do we buy from. */
const PAST_QUESTION_EN =
  /\b(?:did|have|had|has) (?:we|i|you|they|us)\b(?: \w+){0,2} (?:buy|bought|order|ordered|purchase|purchased|get|got|cancel|cancell?ed|place|placed)\b|\b(?:do|does) (?:we|i)(?: (?:usually|normally|typically|generally|always|often|ever|still|mostly))? (?:buy|order|purchase|get|source)\b|\bhow (?:many|much)\b.{0,40}\b(?:did|have|do) (?:we|i)\b|\b(?:who|where|which \w+|what) (?:do|did|have) (?:we|i)(?: (?:usually|normally|typically|generally|always|often|ever|last))? (?:buy|bought|order|ordered|purchase|purchased|get|got|source)\b|\blast time\b.*\?\s*$/i;
/** Asking the assistant to act ("could you order…", "please buy…"): a request, even ending in "?". */
const REQUEST_EN = /\b(?:could|can|would|will) you\b|\bplease\b|\bi (?:need|want|would like)\b|\blet'?s\b|\bagain\b/i;

/** Whether the text asks about orders already placed or a buying habit, rather than asking for an order. */
export function asksAboutPastOrders(text: string): boolean {
  if (PAST_QUESTION_EN.test(text)) return !REQUEST_EN.test(text);
  return PAST_QUESTION_ZH.test(text) && ASKED_ZH.test(text) && !REQUEST_ZH.test(text);
}

/** "上回买了几箱", "how many did we buy last time": the newest order is the one asked about. */
export const ASKS_LAST_TIME = /上回|上次|上一次|\blast time\b|\blast order\b/i;

/** Intents that would put a write card on the screen. */
const WRITES = new Set(['create', 'update', 'cancel']);

/**
 * The intent a reading may act on: a write intent (or none) read from a question about earlier orders becomes a
 * look-up of those orders (who supplied them, how many, when), so the answer is a list and never an approval card.
 */
export function questionsNeverWrite<I extends string>(intent: I | undefined, text: string): I | 'lookup' | undefined {
  return (intent === undefined || WRITES.has(intent)) && asksAboutPastOrders(text) ? 'lookup' : intent;
}
