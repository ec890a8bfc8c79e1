import { isoDate } from './dates.ts';
import { chineseNumber, type Span } from './quantities.ts';

/**
 * What a request asks beyond the order flows, read before any cue is weighed: a write Procura refuses (and why),
 * a question about a price or a budget, a term to explain, and the filters of an order look-up. A question is never
 * read as an order, however many numbers it holds.
 */

/** The writes Procura refuses from chat, each with its own reason. */
export type Refusal = 'payment' | 'approve' | 'priceChange' | 'deleteAll' | 'delete' | 'readOnly' | 'masterData';

export type Ask =
  | 'refuse'
  | 'judge'
  | 'budget'
  | 'knowledge'
  | 'direction'
  | 'supplierInfo'
  | 'catalogue'
  | 'spend'
  | 'permission';

/** What the ERP keeps about a supplier that a buyer asks about: lead time, rating, payment terms, contact, place. */
export type SupplierField = 'leadTime' | 'rating' | 'terms' | 'contact' | 'city';

const FIELDS: Array<[SupplierField, RegExp]> = [
  [
    'leadTime',
    /交期|交货期|交货周期|交付周期|供货周期|货期|多久(?:能)?(?:到货|交货|发货|送到)|几天(?:能)?(?:到货|交货|发货|送到)|(?:交货|到货|发货|送货)(?:最快|最慢|快|慢)|(?:到货|交货|发货|送货)(?:要|需要|得)?(?:多少天|几天|多久|多长时间)|\blead[- ]?times?\b|\bdelivery times?\b|\bhow (?:long|fast|quickly)\b(?=.{0,30}\b(?:deliver|ship|take))/i,
  ],
  [
    'rating',
    /评级|评分卡|记分卡|评分|打分|绩效|准时(?:交货|交付|到货)?(?:率|情况|表现)|准不准时|(?:交货|到货|送货|发货)(?:准时|及时|按时)|准时吗|按时(?:交货|到货|送货)?吗|\bon[- ]time(?: delivery)?(?: rate)?\b|\bdelivery performance\b|星级|质量|靠不靠谱|靠谱吗|信誉|口碑|表现(?:怎么样|如何)|\bratings?\b|\brated\b|\bscores?\b|\bquality\b|\breliab|\bperform(?:s|ed|ance)?\b|\bscorecard\b/i,
  ],
  [
    'terms',
    /账期|付款条件|付款方式|付款周期|付款期限|结算方式|结算条件|结算周期|\bpayment terms?\b|\bterms of payment\b|\bcredit terms?\b|\bpayment conditions?\b/i,
  ],
  [
    'contact',
    /联系人|联系方式|联系电话|电话|手机|邮箱|对接人|\bcontacts?\b|\bphone\b|\be-?mail\b|\bwho (?:do|should) (?:i|we) (?:call|contact)\b/i,
  ],
  [
    'city',
    /所在地|地址|哪个城市|哪个省|在哪个?(?:城市|省)|(?:供应商|厂家|厂商|供货商)(?:都|是)?(?:在|位于|来自)(?=[\u4e00-\u9fff]{2,6}(?:省|市)?(?:的|吗|呢|\s*[?？]|$))|(?:在|位于|来自)[\u4e00-\u9fff]{2,6}?(?:省|市)?的(?:供应商|厂家|厂商|供货商)|\blocated\b|\bbased\b|\baddress\b|\bwhich city\b|\b(?:suppliers?|vendors?)\b.{0,20}\b(?:in|from|near)\s+(?!the\b)[A-Za-z]{3,}\s*\??$/i,
  ],
];

/** A field said last, as a noun phrase asks for it ("正新轮胎的联系方式", "Bosch的付款条件"). */
const FIELDS_AT_END = FIELDS.map(([, pattern]) => new RegExp(`(?:${pattern.source})$`, pattern.flags));
const endsWithField = (text: string) => {
  const trimmed = text.replace(/[\s?？!！。.]+$/, '');
  return FIELDS_AT_END.some((pattern) => pattern.test(trimmed));
};

/** The supplier fields a text names, in the order above. */
export const supplierFields = (text: string): SupplierField[] =>
  FIELDS.filter(([, pattern]) => pattern.test(text)).map(([field]) => field);

/** The place a supplier question narrows to ("哪些供应商在江苏", "suppliers based in Shanghai"), as said. */
export function readPlace(text: string): string | undefined {
  const zh =
    /(?:在|位于|来自)\s*([\u4e00-\u9fff]{2,6}?)(?:省|市)?(?:的(?:供应商|厂家|厂商|供货商)|吗|呢|有哪些|\s*[?？]|$)/.exec(
      text,
    );
  if (zh && !/哪|什么|那里|这里/.test(zh[1])) return zh[1];
  const en = /\b(?:in|from|near)\s+(?!the\b|which\b|what\b)([A-Za-z]{3,}(?:\s+[A-Za-z]{3,})?)\s*\??\s*$/i.exec(text);
  return en?.[1];
}

/** A bound on a supplier's rating or lead time ("评分4.5以上", "交期10天以内", "rated at least 4.5", "lead time under 10 days"). */
export interface FieldBound {
  field: 'rating' | 'leadTime';
  op: '>=' | '>' | '<=' | '<';
  value: number;
}

const BOUND_FIELD =
  '(评分|评级|打分|星级|rating|rated|scored?|交期|交货期|交货周期|供货周期|货期|lead[- ]?times?|delivery times?)';
const BOUND_NUMBER = '(\\d+(?:\\.\\d+)?)';
/** The comparison a word says, inclusive or not, as buyers use them (以上 includes the figure; 高于 does not). */
const BOUND_WORDS: Array<[RegExp, FieldBound['op']]> = [
  [/^(?:以上|及以上|或以上|不低于|至少|起|\+|at least|or (?:more|higher|better|above)|and (?:above|up))$/i, '>='],
  [/^(?:高于|大于|超过|above|over|more than|higher than|greater than|better than)$/i, '>'],
  [
    /^(?:以下|及以下|以内|之内|内|不超过|不高于|至多|最多|within|at most|or (?:less|fewer|below|under)|and below)$/i,
    '<=',
  ],
  [/^(?:低于|少于|小于|不到|under|below|less than|fewer than|lower than)$/i, '<'],
];
const BOUND_WORD =
  '(以上|及以上|或以上|不低于|至少|起|\\+|高于|大于|超过|以下|及以下|以内|之内|内|不超过|不高于|至多|最多|低于|少于|小于|不到|at least|or (?:more|higher|better|above|less|fewer|below|under)|and (?:above|up|below)|above|over|more than|higher than|greater than|better than|within|at most|under|below|less than|fewer than|lower than)';
const BOUND_AFTER = new RegExp(
  `${BOUND_FIELD}[^\\d]{0,8}?${BOUND_NUMBER}\\s*(?:分|天|days?|stars?)?\\s*${BOUND_WORD}`,
  'i',
);
const BOUND_BEFORE = new RegExp(`${BOUND_FIELD}\\s*(?:在|is|of)?\\s*${BOUND_WORD}\\s*${BOUND_NUMBER}`, 'i');

/** The bound a question puts on a supplier's rating or lead time, if any. */
export function readFieldBound(text: string): FieldBound | undefined {
  const after = BOUND_AFTER.exec(text);
  const before = after ? undefined : BOUND_BEFORE.exec(text);
  const m = after ?? before;
  if (!m) return undefined;
  const [word, value] = after ? [m[3], m[2]] : [m[2], m[3]];
  const op = BOUND_WORDS.find(([pattern]) => pattern.test(word.trim()))?.[1];
  if (!op) return undefined;
  const field = /评|打分|星级|rat|scor/i.test(m[1]) ? 'rating' : 'leadTime';
  return { field, op, value: Number(value) };
}

/** What a supplier question ranks by ("按准时率排个名", "交期最短的是哪家", "who is rated highest"). */
export interface Extreme {
  by: 'rating' | 'leadTime' | 'onTime';
  /** The lowest value wins (shortest lead time, lowest rating) or the highest. */
  want: 'min' | 'max';
  /** Asking for the one at the end of the ranking (最高, shortest), not for the whole ranking. */
  end: boolean;
}

const HIGH = /最高|最好|最棒|最强|最靠谱|最长|最慢|最久|\b(?:highest|best|top|longest|slowest)\b|\bmost reliable\b/i;
const LOW = /最低|最差|最短|最快|最不靠谱|\b(?:lowest|worst|shortest|fastest|quickest)\b|\bleast reliable\b/i;
const ON_TIME = /准时|按时|\bon[- ]time\b|\bdelivery performance\b/i;
const RANK = /排名|排行|排个名|排一下|排序|\brank(?:s|ed|ing)?\b|\bsort(?:ed)?\b/i;

/**
 * The best or worst supplier a question asks for, by the field it names: "哪家供应商的评分最高" wants the highest rating;
 * "交期最短/最快" the shortest lead time; "准时交货率最高" the best on-time rate; "best lead time" the shortest.
 */
export function readExtreme(text: string): Extreme | undefined {
  const high = HIGH.test(text);
  const low = LOW.test(text);
  // "按准时交货率排名", "rank suppliers by rating": the whole ranking, best first.
  const ranked = RANK.test(text);
  if (high === low && !ranked) return undefined;
  const end = high !== low;
  const fields = supplierFields(text);
  if (ON_TIME.test(text)) return { by: 'onTime', want: low ? 'min' : 'max', end };
  if (fields[0] === 'leadTime') {
    // A lead time is best short: "best", "fastest" and "shortest" all want the fewest days.
    const longest = /最长|最慢|最久|\b(?:longest|slowest)\b/i.test(text);
    return { by: 'leadTime', want: longest ? 'max' : 'min', end };
  }
  if (fields[0] === 'rating') return { by: 'rating', want: low ? 'min' : 'max', end };
  return undefined;
}

/** Changing a supplier's master data ("把博世的评级改成5分", "change Bosch's rating to 3"). */
const CHANGE =
  /改成|改为|改到|改一下|修改|调成|调到|调整为|调整成|调高|调低|提高到|降低到|设为|设置为|设成|更新为|更新成|换成|\b(?:change|changed|update|updated|set|modify|edit|raise|lower|increase|reduce|make)\b/i;
/** An order's delivery date (交期改到下周五) is an order change: a supplier's lead time is a number of days. */
const LEAD_DAYS =
  /\d+\s*(?:个)?(?:天|日|工作日|周|\s*(?:days?|weeks?))(?!\s*(?:内|后|之内|以内|之后))|[一二两三四五六七八九十]+\s*(?:个)?(?:天|工作日|周)(?!\s*(?:内|后|之内|以内|之后))/i;

/** A question rather than a command, for a supplier's fields. */
const ASKED =
  /多少|有没有|多久|多长|几天|几分|怎么样|如何|怎样|是什么|是啥|啥|是谁|是多少|哪个|哪家|哪些|吗|呢|[?？]|查一?下|看一?下|看看|查查|告诉我|发我|发给我|给我|说一?下|提供一?下|排名|排行|排个名|排序|\b(?:what|what's|whats|how|who|which|tell me|show|list|give me|check|rank|sort)\b/i;

/** "谁家供应火花塞？", "which models of tyres can I buy?": who carries a part, which models there are. */
const CATALOGUE_ZH =
  /目录里有(?:哪些|什么)|(?:都)?(?:卖|供应|供货|经营)(?:些)?(?:哪些|什么|啥)(?:东西|产品|零件|零部件|货)?|有(?:哪些|什么)(?:产品|东西|货)|(?:有)?几家(?:供应商|厂家)?(?:在|能|可以)?(?:供货|供应|在卖|卖|做|有货)|谁家(?:有|在)?(?:供应|供货|供|卖|做|能供)?|谁(?:供应|供货|在供|能供|在卖|卖|家有)|(?:哪些|哪几|哪)家?(?:供应商|供货商|厂家|厂商)?(?:能|可以|在)?(?:供应|供货|提供|在卖|卖)|(?:哪些|哪几家|哪家)(?:供应商|供货商|厂家|厂商)(?:能|可以|在)?(?:有|做)|有(?:哪些|什么|几种|几个|哪几种|哪几个)(?:型号|规格|款式|款|种类|品种)|(?:哪些|哪几种|哪几个|什么)(?:型号|规格|款式)|型号有哪些|(?:可以|能)(?:买|订|采购)(?:哪些|什么|哪几种)/;
/** "邓禄普的轮胎有吗", "F7TC有没有": whether the catalogue carries something (not stock, not orders). */
const CATALOGUE_HAS = /^(?![^，,。]*(?:还有|库存|存货|单|货|预算))[^，,。]{2,24}?有(?:吗|么|没有)\s*[?？]?\s*$/;
/** "which air filters do we have in the catalogue?": the words around the part, never the part itself. */
const CATALOGUE_HAVE =
  /\b(?:which|what)\b(?!.*\b(?:orders?|pos?)\b).{1,40}\b(?:do we have|are there|are available|in (?:the|our) catalog(?:ue)?)\b/i;
const CATALOGUE_HAVE_WORDS = /\b(?:which|what|do we have|are there|are available|in (?:the|our) catalog(?:ue)?)\b/i;
const CATALOGUE_EN =
  /\bwhat (?:does|do|can)\b(?=.{1,30}\b(?:sell|supply|offer|carry|make|stock)\b)|\b(?:any|which|what) (?:suppliers?|vendors?) (?:for|of)\b|\bwho (?:supplies|sells|carries|makes|stocks|offers|provides|has)\b|\bwhich (?:suppliers?|vendors?|companies) (?:supply|supplies|sell|sells|carry|carries|stock|stocks|offer|offers|provide|provides|have|has|can supply|make)\b|\b(?:what|which) (?:models?|types?|kinds?|sizes?|variants?) (?:of|do|does|are|can)\b|\bwhere can (?:i|we) (?:buy|get|source|order)\b|\bcan (?:i|we) (?:buy|order|get)\??$/i;

/** Every match of the patterns in a text. */
function spansOf(text: string, patterns: RegExp[]): Span[] {
  const spans: Span[] = [];
  for (const pattern of patterns) {
    const global = new RegExp(pattern.source, `${pattern.flags.replace('g', '')}g`);
    for (const m of text.matchAll(global)) spans.push({ start: m.index, end: m.index + m[0].length });
  }
  return spans;
}

/** How much was spent ("去年下半年在轮胎上花了多少钱", "how much did we spend on batteries"). */
const SPEND =
  /花了多少(?:钱)?|花费(?:了)?多少(?:钱)?|花多少钱|一共花|总共花|共花了|开销|支出(?:了|是|有)?多少|采购(?:总)?(?:额|金额|总额)(?:是|有)?多少|(?:买|下|订|采购)了多少钱|多少钱的(?:单|订单|采购单|货)|(?<=单|单子)的?(?:总)?金额(?:是|有|一共|总共|合计)?多少|(?:总金额|合计金额|总价值)(?:是|有|一共)?多少|(?<=单|单子)[^，,。]{0,8}?(?:总共|一共|合计|总计|加起来)(?:是|有)?多少钱|\btotal (?:value|amount|worth)\b|\bhow much (?:are|is|were|was)\b(?=.{0,60}\b(?:worth|in total|altogether)\b)|\badd up to\b|\bhow much (?:did|have|do) (?:we|i) (?:spend|spent|pay|paid)\b|\bwhat (?:did|have|do) (?:we|i) (?:pay|paid|spend|spent)\b|\bwhat (?:have|had) (?:we|i) (?:paid|spent)\b|\bwhat (?:price|prices) (?:did|have|do) (?:we|i) (?:pay|paid|get|got)\b|最常买|买得最多|买的最多|买最多|采购最多|\bbuy (?:the )?most\b|\bmost often\b|\b(?:spend|spent|spending|expenditure)\b/i;

const PAYMENT =
  /付款|付钱|打款|打(?:一)?笔款|汇(?:一)?笔款|支付|转账|汇款|结款|结账|付清|付尾款|货款|付一下|结一下|\bpay(?:ing|ment|ments)?\b|\bwire\b.*\b(?:money|funds)\b|\bremit|\bsettle\b.*\binvoice/i;
const APPROVE =
  /(?:批准|审批通过|通过审批|审批掉|审批一下|审批了|批一下|批了(?!吗)|同意(?:这|那|所有|全部)|(?:都|全部|全都|一起)通过|(?:帮我|帮忙|请|麻烦|给我|你来|替我|去)\s*(?:把\s*\S{0,24}\s*)?(?:审批|审核)(?![中的人流])|(?:审批|审核)\s*(?=PO-\d)|\bapprove\b|\bsign off\b)/i;
const APPROVE_QUESTION =
  /(?:待审批|审批中|等待审批|还没批|未审批).{0,6}(?:有哪些|哪些|多少|吗|列出|看看)|approved\?|\bwhich\b|\bany\b.*\bapproval/i;
const PRICE_CHANGE =
  /(?:目录价|标价|牌价|价目表|报价单|list price|catalogue price|catalog price|(?:零部件|零件|配件|part)(?:的)?(?:单价|价格))|(?:把|将).{0,20}(?:单价|价格).{0,6}(?:改成|改为|调到|调整为|降到|涨到|降为|改)|(?:单价|价格|价钱)\s*(?:改成|改为|调到|调成|调整为|降到|涨到|降为)|(?:change|set|update|lower|raise|cut)\b.{0,30}\bprice\b.{0,20}\bto\b/i;
const DELETE_ALL =
  /(?:删除|删掉|清空|清除|删光|抹掉)(?:掉)?(?:所有|全部|一切)|(?:单|订单|采购单|数据|记录)[^，,。]{0,4}(?:都|全|全部|统统)(?:给我)?(?:删|清空)|(?:所有|全部|一切)(?:的)?(?:订单|数据|记录|东西|供应商)?.{0,4}(?:都)?(?:删除|删掉|清空|删了)|\bdelete\b.*\b(?:all|everything)\b|\bwipe\b|\bdrop\b.*\b(?:table|database)\b|\berase\b.*\b(?:all|everything)\b/i;
const DELETE_ONE =
  /(?:把|将)[^，,。]{1,24}?(?:删除|删掉|删了|删去|去掉|移除|抹掉)|(?:删除|删掉|移除)[^，,。]{1,16}?(?:这个|这家|那家|那个)?(?:供应商|零部件|零件|物料)|(?:删除|删掉|移除)(?:这个|那个|掉)?(?:供应商|零部件|零件|物料|记录|历史)|\b(?:delete|remove|erase)\b.{0,40}\b(?:supplier|vendor|part|record|history|entry)\b/i;
/**
 * Which way a price went ("这一年是涨了还是跌了？", "has the price gone up?"): a question about the ERP's price history,
 * never an order, however it names the rise. English asks it as a question (a "?" or a leading auxiliary), so
 * "prices went up, order 200 from Denso" stays an order.
 */
const DIRECTION_ZH =
  /(?:涨|跌|降|升)(?:价)?了?(?:还是|或是|或者)(?:涨|跌|降|升)(?:价)?|是涨是跌|是升是降|涨跌|(?:涨|跌|降|上涨|下跌|下降|升高|上升)了?(?:吗|没有|没|多少)|有没有(?:涨|跌|降|上涨|下跌|下降)|(?:涨价|降价)了?(?:吗|没有|没)|是否(?:涨|跌|降|上涨|下跌|下降)|(?:变贵|变便宜|贵了还是便宜|便宜了还是贵)|越来越(?:贵|便宜|高|低)|(?:价格|价钱|报价)?(?:稳定吗|稳不稳定|稳不稳|平稳吗)|波动大(?:吗|不大)|(?:有|有没有)(?:什么|啥)?(?:变化|变动|波动)(?:吗|没有|么)?|变化大(?:吗|不大)|变了(?:吗|没有|没)|(?:贵|便宜)了(?:不少|很多|一些|点)(?:吗|没有)/;
const DIRECTION_EN =
  /\b(?:gone|go|went|going|moved?|trending|headed|heading)\s+(?:up|down|higher|lower)(?:\s+or\s+(?:up|down|higher|lower))?\b|\bup or down\b|\b(?:risen|rise|rose|rising|fallen|fall|fell|falling|dropped|drop|dropping|increased|increase|decreased|decrease|climbed|declined)\b|\b(?:more|less) expensive\b|\bcheaper or (?:more )?expensive\b|\b(?:getting|got|become|became) (?:pricier|cheaper|dearer|costlier)\b|\bprices?\b.{0,40}\bchanged?\b|\bchanged?\b.{0,20}\bprices?\b/i;
const ASKED_EN = /\?|^\s*(?:has|have|had|did|do|does|is|are|was|were|which way|whether)\b|\bwhether\b/i;

/** The span a direction question looks back over ("这一年", "lately"): the ERP's 12 months answer it, not a period. */
const LOOKBACK =
  /这一年来?|近一年|过去一年|一年来|这半年|近半年|近几个月|最近|近期|这段时间|\b(?:this|the past|the last|past|last) (?:year|12 months|twelve months)\b|\bover the (?:past |last )?year\b|\brecently\b|\blately\b/gi;

/** What a direction question says that names no part: the direction words and the look-back. */
export function directionSpans(text: string): Span[] {
  const spans: Span[] = [];
  for (const pattern of [DIRECTION_ZH, DIRECTION_EN, LOOKBACK]) {
    const global = new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`);
    for (const m of text.matchAll(global)) spans.push({ start: m.index, end: m.index + m[0].length });
  }
  return spans;
}

const JUDGE =
  /(?:这个|这|那个)价(?:格|钱|位)?(?:怎么样|如何|行不行|可以吗|能接受吗)|^\s*(?:is|are|was|would|isn't)\b(?=[^?!]*\b(?:expensive|cheap|pricey|steep)\b)|合理吗|合不合理|合理不|合适吗|合不合适|算便宜吗|便宜吗|贵不贵|贵吗|贵了|高不高|偏高吗|偏贵|太贵|划算吗|划不划算|值不值|公道|靠谱吗|正常吗|是不是(?:太)?贵|价格(?:怎么样|如何)|报价(?:怎么样|如何)|\breasonable\b|\bfair\b|\btoo (?:expensive|high|much)\b|\boverpriced\b|\bover-?priced\b|\ba good price\b|\brip-?off\b|\bworth it\b|\bsounds? (?:right|ok|okay|fair)\b|\bpricey\b|\bis that (?:ok|okay|normal)\b/i;
const BUDGET =
  /预算|能买多少|可以买多少|能买几|可以买几|够买多少|够买几|买得起多少|能订多少|可以订多少|\bbudget\b|how many (?:can|could)|how many\b.{1,60}\b(?:can|could) (?:i|we) (?:buy|get|order|afford)\b|how many\b.{1,40}\b(?:will|would)\b.{1,30}\bget\b|how many\b.{1,60}\b(?:can|could|will|would)\b.{1,30}\bbuy\b|what can i (?:get|buy) for|\bafford\b/i;
/** The Chinese words that ask what a term means (什么是, 什么叫, 何谓, …): every definition cue starts from them. */
export const WHAT_IS_ZH = '什么是|什么叫|啥叫|何为|何谓|是什么意思|什么意思';
const KNOWLEDGE = new RegExp(
  String.raw`${WHAT_IS_ZH}|(?:[A-Za-z\u3400-\u9fff]{2,})\s*是(?:什么|啥)\s*[?？]?\s*$|是指什么|指的是什么|是什么东西|啥是|啥意思|解释一下|科普一下|含义|定义是|有什么区别|和.{1,12}的区别|\bwhat(?:'s| is| are| does)\b.{1,40}\b(?:mean|stand for)\b|\bwhat(?:'s| is| are) (?:a |an |the )?(?:[a-z-]+\s?){1,4}\??$|\bexplain\b|\bdefine\b|\bdefinition of\b|\bmeaning of\b|\bdifference between\b|\bhow (?:is|does|do|are) .{1,50}\bdiffer\b`,
  'i',
);

/** Words that make a question about a supplier's field one about what the field's term means. */
const DEFINITION_WORDS = new RegExp(
  String.raw`${WHAT_IS_ZH}|解释|科普|含义|定义|\bwhat (?:is|are) (?:a|an)\b|\bmean\b|\bexplain\b|\bdefin`,
  'i',
);

/** Asking what a term is ("什么是三单匹配", "交货周期是什么？", "what is a blanket PO?"), not about one's own records. */
const DEFINING = new RegExp(
  String.raw`${WHAT_IS_ZH}|^[^的]{2,30}是(?:什么|啥)\s*[?？]?\s*$|\bwhat(?:'s| is| are) (?:a|an)\b|\bwhat does\b.{1,40}\bmean\b`,
  'i',
);

/**
 * The words of a question that name no part or supplier ("谁家供应", "交货周期是多少", "花了多少钱"): blanked before the
 * rest is searched in the catalogue.
 */
export function askSpans(text: string, ask: Ask | undefined): Span[] {
  if (ask === 'catalogue')
    return spansOf(text, [
      CATALOGUE_ZH,
      CATALOGUE_EN,
      CATALOGUE_HAVE_WORDS,
      /\bcan (?:i|we) (?:buy|order|get)\b/i,
      /\b(?:sell|supply|offer|carry|make|stock)\b\s*\??\s*$/i,
    ]);
  if (ask === 'supplierInfo')
    return spansOf(text, [
      ...FIELDS.map(([, p]) => p),
      ASKED,
      // The place a question narrows to ("在江苏", "in Shanghai") names no part.
      /(?:在|位于|来自)\s*[\u4e00-\u9fff]{2,6}?(?:省|市)?(?=的|吗|呢|有哪些|\s*[?？]|$)/,
      /\b(?:in|from|near)\s+(?!the\b)[A-Za-z]{3,}(?:\s+[A-Za-z]{3,})?(?=\s*\??\s*$)/i,
    ]);
  if (ask === 'spend')
    return spansOf(text, [
      SPEND,
      /一共|总共|合计|\bin total\b|\bworth\b|\baltogether\b/i,
      // "这个月到现在": the period runs to today, which the period read already says.
      /到现在|至今|到目前为止|截至目前|截止目前|\bso far\b|\bto date\b/i,
      // "一共下了几张单": how many orders is part of the answer, not a part's name.
      /(?:下|订|买|采购)?了?(?:几|多少)(?:张|个|笔|份)(?:单子?|订单|采购单)?|\bhow many orders\b/i,
    ]);
  // "德尔福的机油滤清器报价高不高": the judgement and the price words name no part.
  // A price word with its figure after it (单价 53) is left for the money it cues.
  if (ask === 'judge')
    return spansOf(text, [
      JUDGE,
      /\b(?:expensive|cheap|pricey|steep)\b/i,
      /(?:这个价|报价|开价|要价|售价|单价|价格|\bprice\b|\bquote[ds]?\b)(?!\s*(?:是|为|:|：|of|us)?\s*[¥$￥]?\s*\d)/i,
    ]);
  return [];
}

/**
 * Asking what one's own account may do ("我是只读账号能下单吗", "我有权限审批吗", "can I approve orders?"): answered
 * from the role, never by trying the write. A request with the thing to order ("我能给博世下100个F7TC吗") is an order.
 */
const PERMISSION =
  /(?:我|我们|本账号|这个账号|当前账号|我的账号|我这个账号)[^。？?]{0,14}?(?:能不能|可不可以|能否|可否|能|可以|有没有权限|有权限?|有没有权)(?:去)?(?:下单|审批|批准|审核|取消订单|取消|改单|修改订单|修改|订货|采购|删除|删单)(?:订单|采购单|单子)?(?:吗|么|不|呢)?\s*[?？]?\s*$|(?:我|我的|当前)(?:账号|账户)?(?:的)?(?:权限|角色)(?:是什么|是啥|有哪些|有什么|是哪个|是多少)?\s*[?？]?\s*$|有(?:没有)?(?:下单|审批|取消|修改)(?:的)?权限|\b(?:can|may|could) i\b\s+(?:place|create|make|approve|cancel|change|edit|submit|raise)\s+(?:an?\s+|any\s+)?(?:orders?|pos?|purchase orders?)\s*\??\s*$|\b(?:am i|are we) allowed to\b|\bdo i have (?:the )?(?:permission|rights?|access)\b|\bwhat(?:'s| is) my role\b|\bmy (?:permissions|role)\b/i;

/** "What is payment terms?", "what are lead times": a question of nothing but a field's term (no supplier, no part). */
function bareTerm(text: string): boolean {
  if (!/^\s*what(?:'s| is| are)\b/i.test(text)) return false;
  let rest = text.replace(/^\s*what(?:'s| is| are)\b/i, ' ');
  for (const [, pattern] of FIELDS)
    rest = rest.replace(new RegExp(pattern.source, `${pattern.flags.replace('g', '')}g`), ' ');
  // "What is the lead time?" may ask the suppliers' own, and "what is Bosch's lead time" or "what is Delphi rating"
  // one supplier's: only a term said bare, with a/an, or with one lower-case word of its own ("filtration rating";
  // a company is a capitalised name) is defined.
  const left = rest
    .replace(/^[\s?？.!]*(?:(?:a|an)\b)?/, '')
    .replace(/[\s?？.!]+$/, '')
    .trim();
  return (
    left === '' || (/^[a-z][a-z-]*$/.test(left) && !/^(?:the|our|my|your|their|its|this|that|his|her)$/.test(left))
  );
}

/** Asking what one thing costs ("德尔福的高压包多少钱一个", "what's Torch's price for A7TC?"), not comparing offers. */
const PRICE_OF =
  /多少钱|什么价|啥价|几块钱|价格是多少|价钱|单价(?:是)?多少|怎么卖|卖多少|\bhow much (?:is|are|does|do)\b|\bprice (?:of|for)\b|\bwhat(?:'s| is| does)\b.{0,40}\b(?:price|cost|charge)s?\b/i;
/** Words that weigh several offers (比价, 哪家, cheapest): a price question with them is a comparison. */
const ACROSS_OFFERS =
  /比价|对比|比较|比一比|哪家|谁家|最便宜|最低|分析|报告|趋势|划算|\bcompar|\bcheapest\b|\banaly[sz]|\breport\b|\btrend\b|\bwhich\b/i;

/** A price question about one supplier's part: answered with that price and how it sits, never a whole comparison. */
export const asksOnePrice = (words: string) => PRICE_OF.test(words) && !ACROSS_OFFERS.test(words);

/** Asking for the cheapest item of a kind ("最便宜的轮胎是哪款", "cheapest tyre we can buy"), not the cheapest supplier. */
const CHEAPEST_ITEM =
  /最便宜的[^，,。？?]{0,10}?(?:是)?(?:哪个|哪款|哪种|哪一款|哪一种)|(?:哪个|哪款|哪种|哪一款|哪一种)(?:型号)?(?:最便宜|价格最低)|能买到的最便宜|\bcheapest\b.{0,40}\b(?:we|i) can (?:buy|get|order)\b|\bwhich (?:model|one|type|kind)\b.{0,30}\bcheapest\b/i;
export const asksCheapestItem = (words: string) => CHEAPEST_ITEM.test(words);

/** The refusal or question a request is, if any; read in this order, so "帮我给博世付款 200 元" is a payment. */
export function readAsk(text: string): { ask: Ask; refusal?: Refusal } | undefined {
  // A supplier's fields first: 付款条件 is a supplier's terms, not a payment; changing them is master data.
  const fields = /PO-\d/i.test(text) ? [] : supplierFields(text);
  if (fields.length && CHANGE.test(text) && (fields[0] !== 'leadTime' || LEAD_DAYS.test(text)))
    return { ask: 'refuse', refusal: 'masterData' };
  if (
    fields.length &&
    (ASKED.test(text) || readFieldBound(text) || endsWithField(text)) &&
    !DEFINITION_WORDS.test(text) &&
    // "What is payment terms?" names nothing but the term: it asks what the term means.
    !bareTerm(text) &&
    // "交货周期是什么？" asks what the term is; "博世的交货周期是什么" asks a supplier's.
    !/^[^的]{2,30}是(?:什么|啥)\s*[?？]?\s*$/.test(text)
  )
    return { ask: 'supplierInfo' };
  // "Payment terms 是什么" asks what words mean, before any write they name is refused.
  if (DEFINING.test(text) || (fields.length && (bareTerm(text) || DEFINITION_WORDS.test(text))))
    return { ask: 'knowledge' };
  // "刚下的那张单可以取消吗" asks about an order of the conversation: a follow-up, not the account's rights.
  if (PERMISSION.test(text) && !/刚|那张|这张|那个|这个|上一|那单|这单|\b(?:it|this|that)\b/i.test(text))
    return { ask: 'permission' };
  // "What did we pay for CR7HIX" asks what was spent, not for a payment.
  if (PAYMENT.test(text) && !SPEND.test(text)) return { ask: 'refuse', refusal: 'payment' };
  if (DELETE_ALL.test(text)) return { ask: 'refuse', refusal: 'deleteAll' };
  // Deleting one supplier, part or record ("把德尔福删掉"); an order ("把那张单删掉") is cancelled instead.
  if (DELETE_ONE.test(text) && !/PO-\d|单|\border/i.test(text)) return { ask: 'refuse', refusal: 'delete' };
  if (APPROVE.test(text) && !APPROVE_QUESTION.test(text)) return { ask: 'refuse', refusal: 'approve' };
  if (DIRECTION_ZH.test(text) || (DIRECTION_EN.test(text) && ASKED_EN.test(text))) return { ask: 'direction' };
  if (JUDGE.test(text)) return { ask: 'judge' };
  if (BUDGET.test(text)) return { ask: 'budget' };
  if (SPEND.test(text)) return { ask: 'spend' };
  // "which vendor has the cheapest ignition coils" asks for a comparison, not for the catalogue.
  if (
    (CATALOGUE_ZH.test(text) || CATALOGUE_EN.test(text) || CATALOGUE_HAVE.test(text) || CATALOGUE_HAS.test(text)) &&
    !/便宜|最低|价|贵|cheap|lowest|pric|expensive/i.test(text)
  )
    return { ask: 'catalogue' };
  if (PRICE_CHANGE.test(text) && !/PO-\d/i.test(text) && /改|调|降|涨|change|set|update|lower|raise|cut/i.test(text))
    return { ask: 'refuse', refusal: 'priceChange' };
  // "what is our stock of tyres?" asks about the company's own records, not what a term means.
  if (KNOWLEDGE.test(text) && !/\b(?:our|my|we|us)\b|我们|我的|咱们/i.test(text)) return { ask: 'knowledge' };
  return undefined;
}

/** Order states a look-up can ask for, by the words buyers use for them. */
const STATUS_WORDS: Array<[RegExp, string[], string]> = [
  [
    /还没审批|还未审批|没审批|未审批|尚未审批|还没批|待审批|待审核|等(?:待)?审批|审批中|not (?:yet )?approved|not approved yet|unapproved|awaiting approval|waiting (?:for|on) approval|pending/i,
    ['pending_approval'],
    '待审批 / pending approval',
  ],
  [
    /还没到货|还未到货|没到货|未到货|尚未到货|在途|还没收到|没收到|未收货|还没收货|还未收货|没收货|尚未收货|等(?:待)?到货|waiting for delivery|not (?:yet )?(?:delivered|received|arrived)|in transit|on order|outstanding/i,
    ['approved', 'ordered'],
    '未到货 / not yet delivered',
  ],
  [
    /已取消|取消了|被取消|作废了|(?:取消|作废|撤销)的(?:订单|采购单|单子|单)|cancell?ed/i,
    ['cancelled'],
    '已取消 / cancelled',
  ],
  [
    /已经?到货|已经?收货|已经?收到|到货了|收到了|(?:收货|到货|收到)的(?:订单|采购单|单子|单)|received|delivered/i,
    ['received'],
    '已收货 / received',
  ],
  [/草稿|draft/i, ['draft'], '草稿 / draft'],
  [/已审批|审批通过的|(?<!not (?:yet )?)approved\b/i, ['approved'], '已审批 / approved'],
];

const STATUS_ZH: Record<string, string> = {
  draft: '草稿',
  pending_approval: '待审批',
  approved: '已审批',
  ordered: '已下单',
  received: '已收货',
  cancelled: '已取消',
};

/** A bilingual filter label ("未到货 / not yet delivered") in the answer's language. */
export const labelIn = (label: string, english: boolean) => label.split(' / ')[english ? 1 : 0] ?? label;

/** An order state as the user reads it: 待审批 in Chinese, "pending approval" in English. */
export const statusName = (status: string, english: boolean) =>
  english ? status.replace(/_/g, ' ') : (STATUS_ZH[status] ?? status);

/** Asking whether orders have arrived ("上周五下的单到货了没有", "has the Bosch order arrived?"): their states answer. */
export const DELIVERY_QUESTION =
  /(?:到货|到|收到|收货|送到|送达|交货)了?(?:没有|没|吗|了吗|了没)|有没有(?:到货|到|收到|送到)|是否(?:已经?)?(?:到货|收到|送达)|\b(?:has|have|did|is|are)\b.{0,60}\b(?:arrived?|been delivered|been received|come in|delivered|received)\b|\b(?:arrived|delivered|received) yet\b/i;

/** Cancelled orders named by their state ("已取消的订单", "作废的单子"): the words say which orders, not to cancel. */
export const CANCELLED_STATE = /已取消|被取消|(?:取消|作废|撤销)(?:掉)?的(?=订单|采购单|单子|单)/g;

/** The states a look-up asks for ("还没到货的", "cancelled"), with the filter's label and where it was said. */
export function readStatuses(text: string): ({ statuses: string[]; label: string } & Span) | undefined {
  for (const [pattern, statuses, label] of STATUS_WORDS) {
    const m = pattern.exec(text);
    if (m) return { statuses, label, start: m.index, end: m.index + m[0].length };
  }
  return undefined;
}

/** A look-up's order amount bounds: 超过5000元, 5000元以上, over ¥5,000, 不到1000元. */
export function readAmountFilter(text: string): ({ min?: number; max?: number; label: string } & Span) | undefined {
  const n = '(\\d{1,3}(?:,\\d{3})+|\\d+(?:\\.\\d+)?\\s*[kK万千w]?|[零一二两三四五六七八九十百千万]+)';
  const money = '(?:¥|￥|rmb\\s*|cny\\s*|\\$)?';
  const unit = '\\s*(?:元|块钱|块|rmb|yuan|cny)?';
  const value = (raw: string) => {
    const t = raw.replace(/,/g, '').trim();
    const m = /^(\d+(?:\.\d+)?)\s*([kK千万w])?$/.exec(t);
    if (m) return Number(m[1]) * ({ k: 1000, K: 1000, 千: 1000, 万: 10000, w: 10000 }[m[2] ?? ''] ?? 1);
    return chineseNumber(t);
  };
  // A range ("金额在一万到两万之间", "between 5000 and 10000 yuan"): both bounds, money by its word or its currency.
  const range =
    new RegExp(
      `(?:金额|总额|总价)\\s*(?:在|是)?\\s*${money}${n}${unit}\\s*(?:到|至|-|~|～|—)\\s*${money}${n}${unit}(?:\\s*之间)?`,
      'i',
    ).exec(text) ??
    new RegExp(
      `${money}${n}${unit}\\s*(?:到|至|-|~|～|—)\\s*${money}${n}\\s*(?:元|块钱|块|rmb|yuan|cny)?\\s*之间`,
      'i',
    ).exec(text) ??
    new RegExp(`\\bbetween\\s+${money}${n}${unit}\\s+and\\s+${money}${n}${unit}`, 'i').exec(text);
  const low = range ? value(range[1]) : undefined;
  const high = range ? value(range[2]) : undefined;
  if (range && low !== undefined && high !== undefined && low > 0 && high > low)
    return {
      min: low,
      max: high,
      label: `金额 ¥${low} – ¥${high} / amount ¥${low} – ¥${high}`,
      start: range.index,
      end: range.index + range[0].length,
    };
  const rules: Array<[RegExp, 'min' | 'max']> = [
    [
      new RegExp(
        `(?:超过|高于|大于|多于|不低于|至少|over|above|more than|greater than|exceeding|at least)\\s*${money}${n}${unit}`,
        'i',
      ),
      'min',
    ],
    [new RegExp(`${money}${n}${unit}\\s*(?:以上|及以上|或以上|or more|and above|plus)`, 'i'), 'min'],
    [new RegExp(`(?:低于|少于|小于|不到|不超过|below|under|less than)\\s*${money}${n}${unit}`, 'i'), 'max'],
    [new RegExp(`${money}${n}${unit}\\s*(?:以下|以内|or less)`, 'i'), 'max'],
  ];
  for (const [pattern, bound] of rules) {
    const m = pattern.exec(text);
    const v = m ? value(m[1]) : undefined;
    if (!m || v === undefined || !(v > 0)) continue;
    return {
      [bound]: v,
      label: bound === 'min' ? `金额 > ¥${v} / amount over ¥${v}` : `金额 < ¥${v} / amount under ¥${v}`,
      start: m.index,
      end: m.index + m[0].length,
    };
  }
  return undefined;
}

const MONTHS_EN = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** A past period a look-up names: 3月份, 上个月, last month, 上周, 本月, this year, in March. */
export function readPeriod(
  text: string,
  today = new Date(),
): ({ from: string; to: string; label: string; months?: number } & Span) | undefined {
  const y = today.getUTCFullYear();
  const m0 = today.getUTCMonth();
  const monthOf = (year: number, month: number) => ({
    from: isoDate(new Date(Date.UTC(year, month, 1))),
    to: isoDate(new Date(Date.UTC(year, month + 1, 0))),
  });
  // A month later than this one is last year's (in December "3月" is this year's March; in February it is last year's).
  const named = (month: number) => monthOf(month > m0 ? y - 1 : y, month);
  const weekStart = (weeksBack: number) => {
    const d = new Date(Date.UTC(y, m0, today.getUTCDate()));
    const monday = (d.getUTCDay() + 6) % 7;
    d.setUTCDate(d.getUTCDate() - monday - 7 * weeksBack);
    const end = new Date(d);
    end.setUTCDate(d.getUTCDate() + 6);
    return { from: isoDate(d), to: isoDate(end) };
  };
  const dayOf = (back: number) => {
    const d = isoDate(new Date(Date.UTC(y, m0, today.getUTCDate() - back)));
    return { from: d, to: d };
  };
  const yearOf = (word: string | undefined) => (word && /去年|上一年|last/i.test(word) ? y - 1 : y);
  const half = (year: number, second: boolean) =>
    second ? { from: `${year}-07-01`, to: `${year}-12-31` } : { from: `${year}-01-01`, to: `${year}-06-30` };
  const quarter = (year: number, q: number) => ({
    from: isoDate(new Date(Date.UTC(year, 3 * (q - 1), 1))),
    to: isoDate(new Date(Date.UTC(year, 3 * q, 0))),
  });
  // The last n months up to today ("最近半年", "past 3 months"): a rolling window, not calendar months.
  const lastMonths = (n: number) =>
    n >= 1 && n <= 36
      ? { from: isoDate(new Date(Date.UTC(y, m0 - n, today.getUTCDate()))), to: isoDate(today), months: n }
      : undefined;
  // The last n days up to today ("最近一周" 7 days, "过去10天", "last 14 days"): a rolling window.
  const lastDays = (n: number) =>
    n >= 1 && n <= 366
      ? { from: isoDate(new Date(Date.UTC(y, m0, today.getUTCDate() - n + 1))), to: isoDate(today) }
      : undefined;
  const WEEKDAYS = '一二三四五六日天';
  const DAYS_EN = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
  const count = (raw: string) => (/\d/.test(raw) ? Number(raw) : (chineseNumber(raw) ?? 0));
  const rules: Array<[RegExp, (m: RegExpExecArray) => { from: string; to: string; months?: number } | undefined]> = [
    // A day of a month the orders were placed on (10月20号下的单): that one day, last year's when it is still to come.
    [
      /(\d{1,2})\s*月\s*(\d{1,2})\s*[号日](?=[^，,。.？?！!]{0,12}?(?:下的|订的|创建的|提交的|那张|那个|那笔|的单|的订单|的采购单))/,
      (m) => {
        const month = Number(m[1]) - 1;
        const date = Number(m[2]);
        if (month > 11 || date < 1 || date > 31) return undefined;
        const thisYear = new Date(Date.UTC(y, month, date));
        const d = thisYear > today ? new Date(Date.UTC(y - 1, month, date)) : thisYear;
        return { from: isoDate(d), to: isoDate(d) };
      },
    ],
    // A day of last week (上周五): that one day.
    [
      /上个?(?:周|星期|礼拜)([一二三四五六日天])/,
      (m) => {
        const { from } = weekStart(1);
        const d = new Date(`${from}T00:00:00Z`);
        d.setUTCDate(d.getUTCDate() + Math.min(6, WEEKDAYS.indexOf(m[1])));
        return { from: isoDate(d), to: isoDate(d) };
      },
    ],
    [
      /(?:本|这个?)(?:周|星期|礼拜)([一二三四五六日天])(?=\s*(?:下的|订的|创建的|的单|的订单|的采购单|那张|那个))/,
      (m) => {
        const { from } = weekStart(0);
        const d = new Date(`${from}T00:00:00Z`);
        d.setUTCDate(d.getUTCDate() + Math.min(6, WEEKDAYS.indexOf(m[1])));
        return { from: isoDate(d), to: isoDate(d) };
      },
    ],
    [
      /\blast (mon|tue|wed|thu|fri|sat|sun)[a-z]*day\b/i,
      (m) => {
        const d = new Date(Date.UTC(y, m0, today.getUTCDate()));
        const target = DAYS_EN.indexOf(m[1].toLowerCase());
        d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 6 - target) % 7 || 7));
        return { from: isoDate(d), to: isoDate(d) };
      },
    ],
    [/前天|\bday before yesterday\b/i, () => dayOf(2)],
    // Today as the day orders were placed ("今天那张博世的单子", "今天给博世下的那个单"); 今天到货 stays a delivery date.
    [
      /今天(?=[^，,。.？?！!]{0,12}?(?:下的|订的|创建的|那张|那个|那笔|的单|的订单|的采购单))|\btoday's\b|\b(?:placed|created|made) today\b/i,
      () => dayOf(0),
    ],
    [/昨天|昨日|\byesterday\b/i, () => dayOf(1)],
    [/(去年|今年|上一年)?\s*(上|下)半年/, (m) => half(yearOf(m[1]), m[2] === '下')],
    [/\b(first|second|1st|2nd) half of (this|last) year\b/i, (m) => half(yearOf(m[2]), /second|2nd/i.test(m[1]))],
    [/(去年|今年)?\s*第?([一二三四1-4])季度/, (m) => quarter(yearOf(m[1]), count(m[2]))],
    [/上个?季度|\blast quarter\b/i, () => (m0 < 3 ? quarter(y - 1, 4) : quarter(y, Math.floor(m0 / 3)))],
    [/(?:这个?|本|当前)\s*季度|\bthis quarter\b/i, () => quarter(y, Math.floor(m0 / 3) + 1)],
    [/(去年|今年)?\s*(?<![A-Za-z])Q([1-4])\b/i, (m) => quarter(yearOf(m[1]), Number(m[2]))],
    [
      /(?:最近|近|过去|这)\s*半年|\b(?:the )?(?:last|past) (?:six|6) months\b|\b(?:the )?(?:last|past) half[- ]year\b/i,
      () => lastMonths(6),
    ],
    [/(?:最近|近|过去)\s*(\d{1,2}|[一二两三四五六七八九十]{1,3})\s*个月/, (m) => lastMonths(count(m[1]))],
    [
      /\b(?:the )?(?:last|past) (\d{1,2}|two|three|four|five|six|nine|twelve) months\b/i,
      (m) =>
        lastMonths(
          /\d/.test(m[1])
            ? Number(m[1])
            : ['', 'one', 'two', 'three', 'four', 'five', 'six', '', '', 'nine', '', '', 'twelve'].indexOf(
                m[1].toLowerCase(),
              ),
        ),
    ],
    [/(?:最近|近|过去)\s*(\d{1,3}|[一二两三四五六七八九十]{1,3})\s*(?:天|日)/, (m) => lastDays(count(m[1]))],
    [
      /(?:最近|近|过去)\s*(\d{1,2}|[一二两三四五六七八九十]{1,3})\s*(?:周|个?星期|个?礼拜)/,
      (m) => lastDays(7 * count(m[1])),
    ],
    [
      /\b(?:the )?(?:last|past) (\d{1,3}|seven|ten|fourteen|thirty) days\b|\b(?:the )?past (week|two weeks)\b|\b(?:the )?last (two weeks)\b/i,
      (m) =>
        lastDays(
          (m[2] ?? m[3])
            ? (m[2] ?? m[3]).toLowerCase() === 'week'
              ? 7
              : 14
            : /\d/.test(m[1])
              ? Number(m[1])
              : ({ seven: 7, ten: 10, fourteen: 14, thirty: 30 }[m[1].toLowerCase()] ?? 0),
        ),
    ],
    [/上上个?月/, () => monthOf(y, m0 - 2)],
    [/上个?月|\blast month\b|\bprevious month\b/i, () => monthOf(y, m0 - 1)],
    [/(?:本月|这个月|当月|\bthis month\b)(?!\s*\d{1,2}\s*[日号])/i, () => monthOf(y, m0)],
    [/上周|上个?星期|上个?礼拜|\blast week\b/i, () => weekStart(1)],
    [/本周|这周|这个?星期|\bthis week\b/i, () => weekStart(0)],
    // A month of a named year (去年12月, 今年3月份, December last year): that month, not the whole year.
    [
      /(去年|今年|前年|上一年)\s*的?\s*(\d{1,2}|[一二三四五六七八九十]{1,3})\s*月份?(?![\d一二三四五六七八九十]{1,3}\s*[日号])/,
      (m) => {
        const month = count(m[2]);
        return month >= 1 && month <= 12 ? monthOf(m[1] === '前年' ? y - 2 : yearOf(m[1]), month - 1) : undefined;
      },
    ],
    [
      /\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\s+(?:of\s+)?(last|this)\s+year\b/i,
      (m) => monthOf(yearOf(m[2]), MONTHS_EN.indexOf(m[1].toLowerCase())),
    ],
    [/今年|\bthis year\b/i, () => ({ from: `${y}-01-01`, to: `${y}-12-31` })],
    [/去年|\blast year\b/i, () => ({ from: `${y - 1}-01-01`, to: `${y - 1}-12-31` })],
    [
      /(\d{1,2}|[一二三四五六七八九十]{1,3})\s*月份?(?![\d一二三四五六七八九十]{1,3}\s*[日号])/,
      (m) => {
        const month = (/\d/.test(m[1]) ? Number(m[1]) : chineseNumber(m[1])) ?? 0;
        return month >= 1 && month <= 12 ? named(month - 1) : undefined;
      },
    ],
    [
      /\b(?:in|during|for|from|of)\s+(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b(?!\s+\d)/i,
      (m) => named(MONTHS_EN.indexOf(m[1].toLowerCase())),
    ],
    // A month spelled out ("October orders"); "may" alone is a verb, so only its preposition above names it.
    [
      /\b(january|february|march|april|june|july|august|september|october|november|december)\b(?!\s+\d)/i,
      (m) => named(MONTHS_EN.indexOf(m[1].slice(0, 3).toLowerCase())),
    ],
  ];
  for (const [pattern, range] of rules) {
    const m = pattern.exec(text);
    const r = m && range(m);
    if (m && r)
      return {
        ...r,
        label: r.from === r.to ? r.from : `${r.from} – ${r.to}`,
        start: m.index,
        end: m.index + m[0].length,
      };
  }
  return undefined;
}

/** Whether a text is English (no Chinese in it): the answer then speaks English. */
export const isEnglish = (text: string) => !/[\u3400-\u9fff]/.test(text) && /[A-Za-z]/.test(text);

/** What an account of this role may do in Procura, and what not: the answer to a permission question. */
export function permissionText(english: boolean, role?: string): string {
  const [zh, en] =
    role === 'viewer'
      ? [
          '你的账号是访客（只读）：可以查询订单、供应商和库存，做比价和价格分析；不能创建、修改或取消采购订单，也不能审批。需要下单请联系采购员或管理员。',
          'Your account is a viewer (read-only): you can look up orders, suppliers and stock and run price analyses; you cannot create, change or cancel purchase orders, nor approve them. Ask a buyer or an admin to order.',
        ]
      : role === 'admin'
        ? [
            '你的账号是管理员：可以查询和分析，起草、修改、取消采购订单（每次写入前由你确认），并在「待审批」面板中审批订单（四眼原则：不能审批自己创建或修改的订单）。',
            'Your account is an admin: you can look up and analyse, draft, change and cancel purchase orders (you confirm each write first), and approve orders in the Approvals panel (four eyes: never an order you created or changed).',
          ]
        : [
            '你的账号是采购员：可以查询和分析，起草、修改、取消采购订单（每次写入前由你确认），也可以发起询价；订单的审批由管理员在「待审批」面板中完成，采购员不能审批。',
            'Your account is a buyer: you can look up and analyse, draft, change and cancel purchase orders (you confirm each write first) and send requests for quotation; orders are approved by an admin in the Approvals panel, not by buyers.',
          ];
  return english ? en : `${zh}\n${en}`;
}

/** Why Procura does not do a refused write, in the user's language. */
export function refusalText(refusal: Refusal, english: boolean, role?: string): string {
  const reasons: Record<Refusal, [string, string]> = {
    payment: [
      '付款不在 Procura 的范围内：Procura 只处理采购订单（起草、修改、取消、查询），不做付款或转账。付款请走财务系统的付款流程。',
      'Payments are outside Procura: it handles purchase orders (draft, change, cancel, look up), never payments or transfers. Please pay through your finance system.',
    ],
    approve:
      role === 'admin'
        ? [
            '聊天中不审批订单：请在「待审批」面板中逐个审批（批准/退回），由 ERP 按角色和审批策略判断。',
            'Orders are not approved from chat: approve or return each one in the Approvals panel, where the ERP applies its roles and approval policy.',
          ]
        : [
            `${role === 'viewer' ? '访客（只读）' : '采购员'}不能审批订单：审批只能由管理员在「待审批」面板中完成，且四眼原则下不能审批自己创建或修改的订单。`,
            `A ${role === 'viewer' ? 'viewer (read-only)' : 'buyer'} cannot approve orders: only an admin approves, in the Approvals panel, and never an order they created or changed (four eyes).`,
          ],
    priceChange: [
      '目录价不能在聊天中修改：零部件价格由 ERP 的主数据维护，Procura 只读取它。要核对一个报价是否合理，可以问“这个价合理吗？”。',
      'Catalogue prices are not changed from chat: they are master data kept in the ERP, which Procura only reads. To check whether a quote is fair, ask “is this price reasonable?”.',
    ],
    deleteAll: [
      'Procura 不做批量删除：订单只能逐个取消（并经审批），供应商、零部件和历史记录不会从聊天中删除。',
      'Procura does not delete in bulk: orders are cancelled one at a time (with approval), and suppliers, parts and history are never deleted from chat.',
    ],
    delete: [
      'Procura 不在聊天中删除数据：供应商、零部件和历史记录由 ERP 维护，Procura 只读取；订单可以逐个取消（并经审批）。',
      'Procura does not delete from chat: suppliers, parts and history are kept in the ERP, which Procura only reads; an order can be cancelled (with approval).',
    ],
    masterData: [
      '供应商主数据（评级、交期、账期、联系人）不能在聊天中修改：它们由 ERP 的主数据维护，Procura 只读取。要查看当前值，可以问“博世的交期是多少？”。',
      'Supplier master data (rating, lead time, payment terms, contact) is not changed from chat: it is kept in the ERP, which Procura only reads. To see the current values, ask e.g. “what is Bosch’s lead time?”.',
    ],
    readOnly: [
      '当前账号是访客（只读）权限：可以查询和分析，不能创建、修改或取消采购订单。需要下单请联系采购员或管理员。',
      'This account is a viewer (read-only): it can look up and analyse, but cannot create, change or cancel purchase orders. Ask a buyer or an admin to order.',
    ],
  };
  const [zh, en] = reasons[refusal];
  return english ? en : `${zh}\n${en}`;
}
