import {
  type Ask,
  askSpans,
  CANCELLED_STATE,
  DELIVERY_QUESTION,
  directionSpans,
  isEnglish,
  type Refusal,
  readAmountFilter,
  readAsk,
  readPeriod,
  readStatuses,
  WHAT_IS_ZH,
} from './asks.ts';
import { readDate } from './dates.ts';
import { ASKS_LAST_TIME, questionsNeverWrite } from './policy/questions.ts';
import { quantitySpans, readMoney, readPriceCap, readQuantity, readSupplierCount } from './quantities.ts';
import { readSplit } from './reading/lines.ts';
import { type Region, readRegion } from './reading/regions.ts';
import { correctionSpans } from './repair/corrections.ts';
import { blankSpans, findLatinPhrase, latinWords, normalize } from './text.ts';

/** What a buyer can ask the offline model for. */
export type Intent =
  | 'greeting'
  | 'thanks'
  | 'help'
  | 'inventory'
  | 'compare'
  | 'trend'
  | 'create'
  | 'update'
  | 'cancel'
  | 'lookup'
  /** Which way did a part's price go? — the ERP's 12-month price history, first and last month, never an order. */
  | 'direction'
  /** Is this price fair? — judged against the ERP's 12-month history, never an order. */
  | 'judge'
  /** What does a budget buy? — a count and a total, never an order. */
  | 'budget'
  /** What does a term mean? — answered from the glossary skill. */
  | 'knowledge'
  /** A write Procura does not do from chat (payments, approvals, catalogue prices, bulk deletes): refused with why. */
  | 'refuse'
  /** A request for quotation: ask suppliers for prices, read their quotes, award or close it. */
  | 'rfq'
  /** A supplier's lead time, rating, payment terms or contact, as the ERP keeps them. */
  | 'supplierInfo'
  /** Who supplies a part, which models of it there are: the ERP's catalogue. */
  | 'catalogue'
  /** What the user's own account may do (order, approve): answered from the role, never by trying. */
  | 'permission'
  /** What was spent on a category, part or supplier in a period: ordered and received order lines. */
  | 'spend';

type Cue = 'orderNoun' | 'anaphora' | 'mine' | 'pending' | 'award' | 'close' | 'send' | 'proposal' | Intent;

/**
 * The cue lexicon: words and phrases that lean a request towards an intent, with a weight. Chinese cues match as
 * substrings; English cues match word by word, typo-tolerant and singular-insensitive.
 */
const CUES: Array<[Cue, number, string[]]> = [
  [
    'greeting',
    3,
    ['你好', '您好', '嗨', '哈喽', '哈啰', '早上好', '早安', '上午好', '中午好', '下午好', '晚上好', '在吗'],
  ],
  ['greeting', 3, ['hi', 'hello', 'hey', 'good morning', 'good afternoon', 'good evening', 'morning', 'greetings']],
  ['thanks', 3, ['谢谢', '多谢', '感谢', '辛苦了', 'thanks', 'thank you', 'thx', 'cheers']],
  [
    'help',
    4,
    [
      '能做什么',
      '会做什么',
      '你会什么',
      '能干什么',
      '能干嘛',
      '可以做什么',
      '能帮我做什么',
      '能帮我什么',
      '有什么功能',
      '有哪些功能',
      '怎么用',
      '如何使用',
      '使用说明',
      '你是谁',
      '介绍一下你',
      'what can you do',
      'what do you do',
      'what can i ask',
      'how do i use',
      'how does this work',
      'who are you',
      'what are you',
      'capabilities',
    ],
  ],
  ['help', 2, ['帮助', 'help']],
  [
    'inventory',
    3,
    [
      '缺货',
      '断货',
      '安全库存',
      '库存预警',
      '补货建议',
      '快没了',
      '快用完',
      '不够用',
      'low stock',
      'running low',
      'run low',
      'out of stock',
      'running out',
      'shortage',
      'safety stock',
      'below safety',
      'stock warning',
      'restocking',
      'need restock',
      'needs restock',
      'replenishment',
      'short on',
      'running short',
      'run short',
    ],
  ],
  [
    'inventory',
    2,
    ['库存', '预警', '存货', '仓库', '需要补货', '该补货', '要补', '该补', 'inventory', 'stock', 'reorder', 'low on'],
  ],
  ['inventory', 1, ['补货', 'restock', 'replenish']],
  ['inventory', 3, ['没货', '快没货', '要没货', '缺不缺货', 'left in stock', 'how many left']],
  [
    'compare',
    3,
    [
      '比价',
      '哪家便宜',
      '哪家最便宜',
      '哪家更便宜',
      '价格对比',
      '报价对比',
      '采购建议',
      '供应商分析',
      '选哪家',
      'compare',
      'comparison',
      'cheapest',
      'best price',
      'which supplier',
      'benchmark',
    ],
  ],
  [
    'compare',
    2,
    [
      '对比',
      '比较',
      '比一比',
      '比一下',
      '最便宜',
      '分析',
      '评估',
      '行情',
      '价差',
      '性价比',
      '报告',
      'cheaper',
      'quotes',
      'analyse',
      'analyze',
      'analysis',
      'evaluate',
      'report',
      'versus',
      'vs',
    ],
  ],
  ['compare', 2, ['什么价', '啥价', '价位', '怎么卖', '卖多少', 'going rate']],
  ['compare', 1, ['报价', '价格', '多少钱', '便宜', '哪家', '划算', '建议', 'quote', 'price', 'prices', 'how much']],
  [
    'trend',
    4,
    [
      '趋势',
      '走势',
      '走向',
      '怎么走',
      '如何走',
      '价格变化',
      '价格变动',
      '怎么变',
      '变化情况',
      '历史价格',
      '价格历史',
      '波动',
      'trend',
      'trends',
      'price history',
      'over time',
      'price change',
      '涨了',
      '跌了',
      '涨还是跌',
      '涨了还是跌了',
      '降了',
      '是涨是跌',
      'gone up',
      'gone down',
      'up or down',
      'risen',
      'fallen',
    ],
  ],
  ['trend', 2, ['涨价', '降价', 'going up', 'went up', 'history']],
  ['create', 3, ['下单', '订购', '下个单', '下一单', '再订', '再买', '购买', 'buy', 'procure', 'place an order']],
  ['create', 2.5, ['再来', '再要', '进货', '进一批', '买', 'purchase', 'another']],
  ['create', 1.5, ['采购', '订', '下一个', 'order', 'get me', 'need']],
  ['create', 0.5, ['要', 'want', 'more', 'again']],
  [
    'cancel',
    4,
    ['取消', '撤销', '作废', '撤回', '撤了', '撤掉', '撤单', '不要了', 'cancel', 'void', 'withdraw', 'call off'],
  ],
  ['cancel', 2, ['删掉', '删除', '退掉', 'scrap']],
  [
    'update',
    3,
    [
      '再加',
      '追加',
      '多加',
      '加到',
      '修改',
      '改成',
      '改为',
      '改到',
      '改一下',
      '变更',
      '推迟',
      '延期',
      '延后',
      '换成',
      'change',
      'modify',
      'amend',
      'reschedule',
      'postpone',
      'make it',
    ],
  ],
  ['update', 2.5, ['调整', '更新', '提前', '加到', '减到', 'update', 'adjust', 'instead', 'switch to', 'push']],
  ['update', 1.5, ['改', 'increase', 'reduce', 'set']],
  ['lookup', 3, ['状态', '进度', '到哪了', '什么情况', 'status', 'open orders', 'where is', 'track']],
  [
    'lookup',
    2,
    [
      '查',
      '查询',
      '看看',
      '看一下',
      '列出',
      '列一下',
      '有哪些',
      '待审批',
      '审批中',
      'look up',
      'lookup',
      'show',
      'list',
      'check',
      'pending',
      'awaiting',
    ],
  ],
  ['lookup', 1, ['显示', '最近', '未完成', '情况', 'recent', 'latest', 'find']],
  [
    'rfq',
    4,
    [
      '询价',
      '询盘',
      '报价邀请',
      '邀请报价',
      '征询报价',
      '寻源',
      'rfq',
      'rfqs',
      'request for quotation',
      'requests for quotation',
      'request for quote',
      'request for quotes',
      'quotation request',
      'quote request',
      'sourcing',
    ],
  ],
  ['rfq', 2, ['招标', '要报价', '请报价', '征价', 'tender', 'ask for quotes', 'request quotes', 'solicit quotes']],
  // What is done with an RFQ: these only lean an RFQ request; on their own they are no intent (授给 is).
  ['award', 4, ['授标', '定标', '决标', '授给', '授予']],
  // English award words are typo-tolerant ("aware" is one letter away): they lean an RFQ request, never make one.
  ['award', 3, ['award']],
  ['award', 2, ['中标', '选定', '给到']],
  ['close', 2, ['截止', '关闭', '结束', '停止收', 'close', 'closed', 'end it', 'stop collecting']],
  ['send', 2, ['发出', '发送', '发出去', '寄出', 'send', 'send out', 'mail it', 'mail out']],
  ['proposal', 2, ['授标建议', '推荐', '排名', '谁最好', '回复', '收到', 'proposal', 'recommendation', 'recommend']],
  [
    'orderNoun',
    1,
    [
      '订单',
      '采购单',
      '单子',
      '这单',
      '那单',
      '这张单',
      '那张单',
      '下的单',
      '订的单',
      'po',
      'pos',
      'orders',
      'purchase order',
    ],
  ],
  [
    'anaphora',
    1,
    [
      '刚才',
      '刚刚',
      '上一个',
      '上一单',
      '上一笔',
      '上个',
      '那个',
      '这个',
      '那笔',
      '这笔',
      '同样',
      '一样的',
      '那家',
      '这家',
      '那一家',
      '上次',
      '照旧',
      '还是',
      'that one',
      'the last one',
      'last order',
      'that order',
      'previous',
      'same',
      'it',
    ],
  ],
  [
    'mine',
    1,
    [
      '我的',
      '我下的',
      '我下过',
      '我订的',
      '我订过',
      '我提交的',
      '我创建',
      'my',
      'mine',
      'i placed',
      'i created',
      'i made',
    ],
  ],
  [
    'pending',
    1,
    [
      '待审批',
      '审批中',
      '等待审批',
      '等审批',
      '未审批',
      '待审核',
      '待批',
      '还没批',
      'pending',
      'awaiting approval',
      'waiting for approval',
      'waiting on approval',
      'waiting approval',
      'need approval',
      'needs approval',
      'unapproved',
      'not approved',
    ],
  ],
];

const CUE_TABLE = CUES.map(([cue, weight, words]) => ({
  cue,
  weight,
  zh: words.filter((w) => !/^[a-z ]+$/.test(w)),
  en: words.filter((w) => /^[a-z ]+$/.test(w)).map((w) => w.split(' ')),
}));

export const ORDER_NO = /PO-\d{6}-[A-Z]?\d+/i;
export const RFQ_NO = /RFQ-\d{6}-\d+/i;

/** What a request says, before any lookup: intent, the numbers, the dates, and where each fact stands. */
export interface Reading {
  text: string;
  intent?: Intent;
  scores: Partial<Record<Cue, number>>;
  orderNo?: string;
  /** The request for quotation the text names by number (RFQ-202612-000001). */
  rfqNo?: string;
  /** How many suppliers to ask ("问 5 家供应商"): a count of companies, never a quantity. */
  supplierCount?: number;
  quantity?: number;
  expectedDate?: string;
  maxUnitPrice?: number;
  note?: string;
  /** A sum of money (a budget, a quoted price, an amount): never read as a quantity. */
  money?: number;
  /** The question or refused write the request is, read before any cue. */
  ask?: Ask;
  refusal?: Refusal;
  /** A look-up's filters: the period, the order states and the amount bounds said. */
  period?: { from: string; to: string; label: string; months?: number };
  /** Asking whether orders arrived ("到货了没有"): their states are the answer, not a filter. */
  delivery?: boolean;
  /** Ordering from whichever supplier lists the part cheapest ("cheapest supplier", "哪家便宜就从哪家买"). */
  cheapest?: boolean;
  /** Pointing at the newest of the orders meant ("最近那张博世的单子", "the latest one"). */
  newest?: boolean;
  statuses?: { statuses: string[]; label: string };
  amount?: { min?: number; max?: number; label: string };
  /** A region or province said as a place (华东, 长三角, 江苏, "East China"): a filter on suppliers, never a name. */
  region?: Region;
  /** Asks for the order to be split into this many ("分三单下", "split into three orders"). */
  splitInto?: number;
  /** Takes back a value of the request before ("不是200个，是400个"): it corrects that request, never starts anew. */
  corrects?: boolean;
  /** The language the request is written in: the answer (and its report) speaks it, and only it. */
  language: 'zh' | 'en';
  /** The text with the facts above (and the cue words) blanked out: what is left to name parts and suppliers. */
  rest: string;
}

/** Reads one request: cues → intent, plus order number, quantity, delivery date, price ceiling and note. */
export function readRequest(raw: string, today = new Date()): Reading {
  const text = normalize(raw);
  // Addressing the assistant by name ("Hello Procura", "Procura，帮我…") says nothing about the request; unread,
  // the name passes for a typo of "procure".
  const spans: Array<{ start: number; end: number }> = [...text.matchAll(/\bprocura\b/gi)].map((m) => ({
    start: m.index,
    end: m.index + m[0].length,
  }));
  // "不是电装，是博世", "not 200, 300": the value a correction takes back is read no more.
  const corrected = correctionSpans(text);
  spans.push(...corrected);
  const orderNoMatch = ORDER_NO.exec(text);
  if (orderNoMatch) spans.push({ start: orderNoMatch.index, end: orderNoMatch.index + orderNoMatch[0].length });
  const rfqNoMatch = RFQ_NO.exec(text);
  if (rfqNoMatch) spans.push({ start: rfqNoMatch.index, end: rfqNoMatch.index + rfqNoMatch[0].length });
  const noteMatch =
    /(?:备注|注明|留言|note|remark)(?:\s*(?:改成|改为|写上|写|to|:|：|是|为))*\s*[「"]?([^」"\n]{1,200}?)[」"]?\s*$/i.exec(
      text,
    );
  if (noteMatch) spans.push({ start: noteMatch.index, end: text.length });
  const asked = readAsk(text);
  // "最近半年是涨了还是跌了": the look-back is the window the direction is told over (12 months when none is said).
  const lookback = asked?.ask === 'direction' ? readPeriod(text, today) : undefined;
  if (lookback) spans.push(lookback);
  // "这一年是涨了还是跌了" names no part: its direction words and look-back are not left to name one.
  if (asked?.ask === 'direction') spans.push(...directionSpans(text));
  // "谁家供应火花塞" names the part only: the question's words are not left to name one.
  spans.push(...askSpans(text, asked?.ask));
  // "华东的供应商", "suppliers in East China": where suppliers are, never a supplier's or part's name.
  const region = readRegion(text);
  if (region) spans.push(region);
  let working = blankSpans(text, spans);
  // "分三单下", "split into three orders": a count of orders, never a quantity or a date.
  const split = readSplit(working);
  if (split) working = blankSpans(working, [split]);
  const delivery = DELIVERY_QUESTION.test(working);
  const statuses = delivery ? undefined : readStatuses(working);
  // "还没到货的订单总金额是多少": the state the total is of names no part.
  if (statuses && asked?.ask === 'spend') working = blankSpans(working, [statuses]);
  else if (statuses?.statuses.includes('cancelled'))
    working = blankSpans(
      working,
      [...working.matchAll(CANCELLED_STATE)].map((m) => ({ start: m.index, end: m.index + m[0].length })),
    );
  // A unit-price ceiling (单价不超过15元) before an order amount bound (超过5000元的订单): both say 不超过.
  const price = readPriceCap(working);
  if (price) working = blankSpans(working, [price]);
  const amount = readAmountFilter(working);
  if (amount) working = blankSpans(working, [amount]);
  const money = readMoney(working, asked?.ask === 'budget' || asked?.ask === 'judge' ? asked.ask : undefined);
  if (money) working = blankSpans(working, [money]);
  // A past period ("3月份", "last month") is a look-up's filter; it is not a delivery date.
  const period = lookback ?? readPeriod(working, today);
  if (period && !lookback) working = blankSpans(working, [period]);
  const date = readDate(working, today);
  if (date) working = blankSpans(working, [date]);
  const supplierCount = readSupplierCount(working);
  if (supplierCount) working = blankSpans(working, [supplierCount]);
  const quantity = readQuantity(working);
  if (quantity) working = blankSpans(working, quantitySpans(quantity));

  const scores: Partial<Record<Cue, number>> = {};
  const lower = working.toLowerCase();
  const words = latinWords(working);
  // Chinese cues, longest first and never overlapping: 订单 is an order noun, not 订 (to order) plus 单.
  const found: Array<{ cue: Cue; weight: number; start: number; end: number }> = [];
  for (const { cue, weight, zh } of CUE_TABLE) {
    for (const w of zh) {
      for (let at = lower.indexOf(w); at >= 0; at = lower.indexOf(w, at + 1)) {
        found.push({ cue, weight, start: at, end: at + w.length });
      }
    }
  }
  found.sort((a, b) => b.end - b.start - (a.end - a.start) || a.start - b.start);
  const taken: Array<{ cue: Cue; weight: number; start: number; end: number }> = [];
  // The same word may be two cues at once (待审批: look up, and the pending status); a longer word hides shorter ones.
  const hides = (t: { start: number; end: number }, f: { start: number; end: number }) =>
    f.start < t.end && t.start < f.end && !(f.start === t.start && f.end === t.end);
  for (const f of found) if (!taken.some((t) => hides(t, f))) taken.push(f);
  for (const { cue, weight, en } of CUE_TABLE) {
    for (const phrase of en) {
      const span = findLatinPhrase(words, phrase, false);
      if (span) taken.push({ cue, weight, ...span });
    }
  }
  for (const t of taken) scores[t.cue] = (scores[t.cue] ?? 0) + t.weight;
  // "我上周提交的订单": the user's own, with the period said between 我 and the verb.
  if (!scores.mine && MINE_AROUND.test(text)) scores.mine = 1;
  // "F7TC还有多少": what is left of a part, said last and of no order, is its stock.
  if (STOCK_LEFT.test(text) && !scores.orderNoun) scores.inventory = (scores.inventory ?? 0) + 2;

  const reading: Reading = {
    text,
    scores,
    orderNo: orderNoMatch?.[0].toUpperCase(),
    rfqNo: rfqNoMatch?.[0].toUpperCase(),
    supplierCount: supplierCount?.value,
    quantity: quantity?.value,
    expectedDate: date?.value,
    maxUnitPrice: price?.value,
    note: noteMatch?.[1].trim(),
    money: money?.value ?? amount?.min ?? amount?.max,
    ask: asked?.ask,
    refusal: asked?.refusal,
    period: period && { from: period.from, to: period.to, label: period.label, months: period.months },
    statuses: statuses && { statuses: statuses.statuses, label: statuses.label },
    delivery: delivery || undefined,
    cheapest: CHEAPEST.test(text) || undefined,
    newest: NEWEST.test(text) || undefined,
    amount: amount && { min: amount.min, max: amount.max, label: amount.label },
    region: region?.region,
    splitInto: split?.count,
    corrects: corrected.length > 0 || undefined,
    language: isEnglish(text) ? 'en' : 'zh',
    rest: blankSpans(working, taken),
  };
  const decided = decide(reading);
  // Policy before anything acts on the reading: a question about earlier orders looks them up, never drafts one.
  reading.intent = questionsNeverWrite(decided, text);
  if (reading.intent !== decided && ASKS_LAST_TIME.test(text)) reading.newest = true;
  // "不超过1000元的订单" bounds an order's amount, not a unit price.
  if (
    reading.intent === 'lookup' &&
    reading.maxUnitPrice !== undefined &&
    !reading.amount &&
    !/单价|each|per |apiece/i.test(text)
  ) {
    const max = reading.maxUnitPrice;
    reading.amount = { max, label: `金额 < ¥${max} / amount under ¥${max}` };
    reading.maxUnitPrice = undefined;
  }
  return reading;
}

const s = (r: Reading, cue: Cue) => r.scores[cue] ?? 0;

/** Asking what a kind of thing is ("what is a blanket PO", "什么是框架订单"), not about one of the user's own. */
const DEFINITION = new RegExp(
  String.raw`${WHAT_IS_ZH}|是(?:什么|啥)\s*[?？]?\s*$|有什么区别|的区别|解释一下|解释下|科普一下|\bwhat(?:'s| is| are) (?:a|an)\b|\bexplain\b|\bdefine\b|\bmeaning of\b|\bdifference between\b|\bwhat does\b.{1,40}\b(?:mean|stand for)\b|^\s*what(?:'s| is| are)\s+(?:an?\s+)?(?!the\b|my\b|our\b)[a-z][a-z\s-]{1,40}\??\s*$`,
  'i',
);

/** A question rather than a command: which, how many, whether. */
export const QUESTION =
  /哪些|哪几|哪个|多少|几[张个笔单次家条]|有没有|是否|吗|了没|[?？]|\b(?:which|what|any|how many|list|show)\b/i;

/** Pointing at the cheapest offer ("cheapest supplier", "哪家便宜就从哪家买", "从最便宜的那家订"). */
export const CHEAPEST =
  /最便宜|最低价|价格最低|报价最低|目录价最低|哪家便宜|谁家便宜|便宜的那家|\bcheapest\b|\blowest[- ]priced\b|\blowest (?:list )?price\b/i;
const STOCK_LEFT =
  /(?:还有|还剩|剩下?)多少\s*(?:个|只|件|条|套|副|块|支)?\s*[?？。]?\s*$|\bhow many (?:\S+ ){0,2}(?:are |do we have )?left\b/i;
/** 我 … 下的 / 提交的 / 订的 with a period or supplier between them: the user's own orders. */
const MINE_AROUND = /我[^，,。.？?！!]{1,12}?(?:下|订|提交|创建|建)的/;
/** The newest of the orders meant: 最近那张, 最近下的那张, 最新的一单, 刚下的那个, 上一张, the latest one, my last order. */
const NEWEST =
  /最近的(?:那|这)?(?:张|个|笔)?(?:单子|订单|单)(?=[^，,。]{0,4}(?:到货|收到|到了|送到|状态|进度|怎么样))|最近(?:一次)?(?:(?:下|订|建|提交|买)了?的)?(?:那|这|一)(?:张|个|笔|单)|最近(?:一次)?(?:下|订|建|提交|买)了?的(?:张|个|笔)?(?:单|订单)|最新(?:的)?(?:那|这|一)?(?:张|个|笔|单)|最后(?:的)?(?:那|一)(?:张|个|笔|单)|刚(?:才|刚)?(?:下|订|建|提交)的(?:那|这)?(?:张|个|笔|单)?|上一(?:张|笔|单)|\b(?:latest|most recent|newest|last)\s+(?!(?:week|month|year|quarter|time|day)s?\b)(?:[\w-]+\s+){0,3}?(?:one|order|po|purchase order)\b/i;
/** Asking which suppliers there are (in a region said beside it). */
const SUPPLIERS_ASKED = /供应商|供货商|厂家|厂商|\b(?:suppliers?|vendors?)\b/i;
/** Asking for a comparison itself, not for an order from its winner. */
const COMPARING = /比价|对比|比较|比一比|比一下|分析|报告|趋势|\bcompar|\banaly[sz]|\bbenchmark|\breport\b|\btrend/i;

/** The intent the cues add up to; undefined when the request names none (a follow-up, or off-topic). */
function decide(r: Reading): Intent | undefined {
  const hasQty = r.quantity !== undefined;
  const orderish = s(r, 'orderNoun') > 0 || s(r, 'anaphora') > 0 || r.orderNo !== undefined;
  // Refused writes, price judgements and budget questions first: however many numbers or order words they hold,
  // they are never an order.
  if (r.ask === 'refuse') return 'refuse';
  if (r.ask === 'permission' && !hasQty && !r.orderNo) return 'permission';
  if (r.ask === 'judge' || r.ask === 'budget') return r.ask;
  if (r.ask === 'direction' && !r.orderNo) return 'direction';
  // "华东的供应商有哪些", "list the suppliers in East China": the suppliers there, unless the request compares them.
  if (
    r.region &&
    !hasQty &&
    !r.orderNo &&
    SUPPLIERS_ASKED.test(r.text) &&
    Math.max(s(r, 'compare'), s(r, 'trend'), s(r, 'inventory')) < 2
  )
    return 'supplierInfo';
  // Questions about suppliers, the catalogue and spend are answered from the ERP: never an order.
  if (r.ask === 'supplierInfo' && !hasQty && !r.orderNo) return 'supplierInfo';
  if (r.ask === 'catalogue' && !hasQty && !r.orderNo) return 'catalogue';
  if (r.ask === 'spend' && !r.orderNo) return 'spend';
  const question = QUESTION.test(r.text);
  // A question about orders in a state, a period or an amount ("上周取消了哪些单子") looks them up.
  const filtered = r.statuses !== undefined || r.period !== undefined || r.amount !== undefined || r.delivery === true;
  const analysisCue = Math.max(s(r, 'compare'), s(r, 'trend'), s(r, 'inventory'));
  const asksOrders =
    question || s(r, 'lookup') > 0 || (s(r, 'orderNoun') > 0 && s(r, 'cancel') === 0 && s(r, 'update') === 0);
  const rfqish = r.rfqNo !== undefined || s(r, 'rfq') >= 2;
  // "帮我把冠军那张待审批的单取消掉": the state says which order to cancel; the request is the cancel.
  const cancelling = s(r, 'cancel') >= 3 && !question && !r.statuses?.statuses.includes('cancelled');
  if (filtered && !r.orderNo && !rfqish && !hasQty && analysisCue < 2 && asksOrders && !cancelling) return 'lookup';
  if (
    r.ask === 'knowledge' &&
    !r.orderNo &&
    !r.rfqNo &&
    !hasQty &&
    (s(r, 'orderNoun') === 0 || DEFINITION.test(r.text)) &&
    // "什么是安全库存" asks what the words mean, however strongly they cue a flow of their own.
    (DEFINITION.test(r.text) ||
      Math.max(s(r, 'compare'), s(r, 'trend'), s(r, 'inventory'), s(r, 'lookup'), s(r, 'cancel'), s(r, 'update')) < 3)
  )
    return 'knowledge';
  // A request for quotation by its number or its words, or an award (which only an RFQ has), however many numbers
  // it holds: asking suppliers for prices is never an order (what an RFQ is, is a knowledge question above).
  if (rfqish || (s(r, 'award') >= 4 && !r.orderNo)) return 'rfq';
  // Quotes for a quantity from a number of suppliers ("get quotes from 4 vendors for 1,000 filters") are asked for,
  // not compared: an analysis needs neither number.
  if (r.supplierCount !== undefined && r.quantity !== undefined && s(r, 'compare') < 3) return 'rfq';
  if (s(r, 'cancel') >= 3 || (s(r, 'cancel') >= 2 && orderish)) return 'cancel';
  if (r.orderNo) {
    if (r.note || (s(r, 'update') >= 1.5 && (hasQty || r.expectedDate || s(r, 'update') >= 2.5))) return 'update';
    return 'lookup';
  }
  const analysis = Math.max(s(r, 'compare'), s(r, 'trend'));
  // "I need 250 brake pads, cheapest supplier": an order from the cheapest offer, not a comparison.
  if (hasQty && r.cheapest && (s(r, 'create') >= 0.5 || !QUESTION.test(r.text)) && !COMPARING.test(r.text))
    return 'create';
  // "给库存最少的那家下单" names the stock it picks by, but orders.
  const ordersByStock = !question && s(r, 'create') >= 3;
  if (s(r, 'inventory') >= 2 && !hasQty && s(r, 'inventory') >= analysis && !ordersByStock) return 'inventory';
  if (s(r, 'update') >= 2.5 && (orderish || hasQty || r.expectedDate || r.note) && s(r, 'create') < 2.5)
    return 'update';
  // A note on its own ("加个备注：尽快发货") is a change to an order, not a new one.
  if (r.note && !hasQty && s(r, 'create') < 2.5) return 'update';
  if (
    s(r, 'lookup') >= 1 &&
    (s(r, 'orderNoun') > 0 || s(r, 'mine') > 0 || s(r, 'pending') > 0) &&
    !hasQty &&
    // "order … again, same quantity as last time" orders ("last" is no typo of "list" here).
    !(s(r, 'create') >= 2 && s(r, 'anaphora') > 0)
  )
    return 'lookup';
  if (s(r, 'mine') > 0 && s(r, 'orderNoun') > 0 && !hasQty && s(r, 'create') < 2.5) return 'lookup';
  if (analysis >= 2 && analysis >= s(r, 'create')) return s(r, 'trend') >= s(r, 'compare') ? 'trend' : 'compare';
  if (s(r, 'create') >= 1.5 || hasQty) return 'create';
  if (s(r, 'inventory') >= 1 && s(r, 'inventory') >= analysis) return 'inventory';
  if (analysis >= 1) return s(r, 'trend') > s(r, 'compare') ? 'trend' : 'compare';
  if (s(r, 'orderNoun') > 0 && !hasQty) return 'lookup';
  if (s(r, 'help') > 0) return 'help';
  if (s(r, 'thanks') > 0) return 'thanks';
  if (s(r, 'greeting') > 0) return 'greeting';
  return undefined;
}

export const ORDER_INTENTS: ReadonlySet<Intent> = new Set(['create', 'update', 'cancel', 'lookup']);
export const ANALYSIS_INTENTS: ReadonlySet<Intent> = new Set([
  'supplierInfo',
  'catalogue',
  'spend',
  'compare',
  'trend',
  'inventory',
  'judge',
  'budget',
  'direction',
]);
