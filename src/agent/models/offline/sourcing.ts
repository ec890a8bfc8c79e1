import { isEnglish } from './asks.ts';
import { distinctSuppliers, findSuppliers, namesSomething, type PartRef, type SupplierRef } from './catalogue.ts';
import { partOptions } from './choices.ts';
import { type ConversationView, called, items, lastStep, type Plan, type ToolStep } from './conversation.ts';
import { readDate } from './dates.ts';
import { askUser, chosen, type Facts, ground, type TaskTexts, taskTexts } from './grounding.ts';
import { QUESTION, type Reading, RFQ_NO, readRequest } from './intent.ts';
import { blankSpans } from './text.ts';

/** An RFQ as `rfq_get` and the write tools return it (the fields this agent reads). */
interface RfqView {
  id: number;
  rfqNo: string;
  status: string;
  version: number;
  replyDeadline: string;
  lines: Array<{ lineNo: number; part: { code: string; model: string } | null; quantity: number; unit: string }>;
  invitations: Array<{ supplier: { id: number; nameZh: string; nameEn: string }; status: string }>;
  award: { supplierId: number; orderId: number; orderNo: string } | null;
}

interface RfqSummary {
  id: number;
  rfqNo: string;
  status: string;
  replyDeadline: string;
  invited: number;
  replied: number;
  createdAt: string;
}

interface Proposal {
  rfqNo: string;
  status: string;
  ranking: Array<{
    rank: number;
    supplier: { id: number; nameZh: string; nameEn: string };
    score: number;
    landedCostCny: number;
    lines: Array<{ unitPriceCny: number; leadTimeDays: number | null }>;
    why: string[];
  }>;
  recommended: { id: number; nameZh: string; nameEn: string } | null;
  excluded: Array<{ supplier: { nameZh: string; nameEn: string }; lineNo: number | null; reason: string }>;
}

interface OrderView {
  orderNo: string;
  status: string;
  totalAmount: number;
  supplier: { nameZh: string; nameEn: string };
}

/** Days from today to the required date when the request names none: time for quotes, an award and delivery. */
const DEFAULT_LEAD_DAYS = 30;
/** Hours suppliers have to reply when the request names no deadline. */
const DEFAULT_REPLY_HOURS = 72;
/** An RFQ is found by its number over at most this many pages of `rfq_list`. */
const LIST_PAGE = 50;
const LIST_MAX_PAGES = 5;
/** The words that put a date before them as the reply deadline, not the required date. */
const DEADLINE =
  /(?:报价)?截止(?:时间|日期)?(?:到|为|是|:|：)?|回复期限|(?:reply|respond|quotes?|answers?)\s+by|deadline(?:\s+(?:is|of|on))?/i;

const EXCLUSION: Record<string, string> = {
  no_reply: '未回复 / no reply',
  declined: '谢绝报价 / declined',
  unreadable: '报价无法确认 / could not be read with confidence',
  late: '逾期到达 / arrived late',
  expired: '报价已过期 / quote expired',
  moq: '最小起订量高于询价数量 / MOQ above the asked quantity',
  too_slow: '交期晚于需求日期 / lead time past the required date',
  no_rate: '缺少汇率 / no exchange rate for its currency',
  price_low: '单价为零或远低于成交中位价，须核实 / ¥0 or far below the median paid: to be checked',
};
const STATUS: Record<string, string> = {
  draft: '草稿 / draft',
  sent: '已发出 / sent',
  collecting: '收集报价中 / collecting',
  closed: '已截止 / closed',
  awarded: '已授标 / awarded',
  cancelled: '已取消 / cancelled',
};
const status = (s: string) => STATUS[s] ?? s;
const OPEN = new Set(['sent', 'collecting']);

/**
 * The sourcing agent: reads what is to be done with a request for quotation (draft and send one for a part, a
 * quantity and N or named suppliers; show its quotes and the award proposal; close; award), grounds parts and
 * suppliers in the ERP with its own tools, and makes each write a call that waits for the user's approval.
 */
export function planSourcing(view: ConversationView): Plan {
  const texts = taskTexts(view);
  const current = readRequest(texts.words);
  const action = rfqAction(current);
  if (action === 'create') return planCreate(view, texts);
  if (action === 'list') return planList(view, texts);
  // An RFQ named by number, else the one the conversation was about (an earlier result carries its number).
  const rfqNo =
    current.rfqNo ??
    texts.context
      .map((t) => RFQ_NO.exec(t)?.[0])
      .filter(Boolean)
      .at(-1)
      ?.toUpperCase();
  const found = findRfq(view, rfqNo, action);
  if ('plan' in found) return found.plan;
  if (action === 'close') return planClose(view, found.rfq);
  if (action === 'send') return planSend(view, found.rfq, texts);
  if (action === 'award') return planAward(view, found.rfq, texts);
  return planShow(view, found.rfq, texts);
}

/** What is done with a request for quotation. */
export type RfqAction = 'create' | 'send' | 'show' | 'award' | 'close' | 'list';

const score = (r: Reading, cue: keyof Reading['scores']) => r.scores[cue] ?? 0;

/**
 * What an RFQ request does: award (unless asked as a question) by its words; a new one when it gives a quantity or
 * a number of suppliers and names no RFQ; close, send (a draft) or show the quotes of the RFQ named by number or
 * meant by the conversation — unless the words name a part, which a new RFQ asks for ("报价截止周五，给火花塞发询价");
 * the user's RFQs when it asks which ones; else a new one.
 */
export function rfqAction(r: Reading): RfqAction {
  // "按推荐授标" awards (to the recommended supplier); "该授给谁？" asks for the proposal.
  if (score(r, 'award') >= 2 && !QUESTION.test(r.text)) return 'award';
  if (!r.rfqNo && (r.quantity !== undefined || r.supplierCount !== undefined)) return 'create';
  const existing = r.rfqNo !== undefined || score(r, 'anaphora') > 0 || !namesSomething(r.rest);
  if (existing && score(r, 'close') >= 2 && score(r, 'proposal') === 0) return 'close';
  if (existing && score(r, 'send') >= 2 && score(r, 'proposal') === 0) return 'send';
  if (r.rfqNo || score(r, 'anaphora') > 0 || (existing && (score(r, 'proposal') > 0 || score(r, 'compare') > 0)))
    return 'show';
  if (score(r, 'lookup') > 0 || score(r, 'mine') > 0 || QUESTION.test(r.text)) return 'list';
  return 'create';
}

const english = (texts: TaskTexts) => isEnglish(texts.words);
const supplierName = (s: { nameZh: string; nameEn: string }, en: boolean) => (en ? s.nameEn : s.nameZh);
const isoDay = (d: Date) => d.toISOString().slice(0, 10);

/** The option an `ask_user` call was answered with, if any. */
function answerOf(step: ToolStep): string | undefined {
  const answer = (step.result as { answer?: unknown } | undefined)?.answer;
  const value = Array.isArray(answer) ? answer[0] : answer;
  return typeof value === 'string' ? value : undefined;
}

/** What a write tool answered: its RFQ (and order), or why it did not run. */
function written(step: ToolStep): { rfq?: RfqView; order?: OrderView; error?: string } {
  const result = step.result as { success?: boolean; rfq?: RfqView; order?: OrderView; error?: string } | undefined;
  if (!result || result.success === false || !result.rfq) return { error: result?.error ?? step.text ?? '' };
  return { rfq: result.rfq, order: result.order };
}

/** Drafts the RFQ for the part, quantity and suppliers the request names, then sends it: two approved writes. */
function planCreate(view: ConversationView, texts: TaskTexts): Plan {
  const en = english(texts);
  if (!view.tools.has('rfq_create'))
    return {
      text: '当前账号是只读权限，不能创建或发出询价单。/ This account is read-only: it cannot create or send RFQs.',
    };
  const sent = lastStep(view, 'rfq_send');
  const created = lastStep(view, 'rfq_create');
  if (sent) return { text: sentText(sent, en, created && written(created).rfq) };
  if (created) {
    const { rfq, error } = written(created);
    if (!rfq) return { text: `询价单未创建：${error}\nThe RFQ was not created.` };
    return { toolCalls: [{ name: 'rfq_send', args: { rfqId: rfq.id, version: rfq.version } }] };
  }
  if (called(view, 'rfq_create')) return {};
  const grounded = ground(view, texts);
  if ('plan' in grounded) return grounded.plan;
  const facts = grounded.facts;
  // The user's answers so far (the part, then the quantity, may each have been asked).
  const asked = view.steps.filter((s) => s.name === 'ask_user');
  if (asked.some((s) => s.text !== undefined && !answerOf(s)))
    return { text: '没有做出选择，未创建询价单。/ Nothing was chosen: no RFQ was created.' };
  const picks = asked.map(answerOf);
  const pickedPart = picks.find((p) => p?.startsWith('part:'));
  const pickedQuantity = picks.find((p) => p?.startsWith('quantity:'));
  let parts = facts.parts;
  if (pickedPart) {
    const part = facts.seen.get(Number(pickedPart.slice(5)));
    if (part) parts = [part];
  }
  // One line asks for one product: several models are the user's choice; one model's offers are its suppliers.
  const models = [...new Map(parts.map((p) => [p.model, p])).values()];
  if (!models.length) {
    return {
      text: facts.partWords
        ? `ERP 中没有找到「${facts.partWords}」，请给出零部件名称或型号。/ No part matches “${facts.partWords}”: name the part or its model.`
        : '要询价的零部件是什么？请给出名称或型号和数量。/ Which part should the RFQ ask for? Name it (or its model) and the quantity.',
    };
  }
  if (models.length > 1)
    return askUser(
      view,
      `有 ${models.length} 个零部件符合「${facts.partWords}」，要询价哪一个？/ Several parts match — which one?`,
      partOptions(models, en),
    );
  const part = models[0];
  if (!facts.quantity) {
    // Multiples of the minimum order quantity to choose from; another quantity is a new request that says it.
    const options = [1, 2, 5, 10].map((k) => part.moq * k).map((q) => ({ label: `${q}`, value: `quantity:${q}` }));
    if (!pickedQuantity)
      return askUser(
        view,
        `要询价多少 ${part.code}？（最小起订量 ${part.moq}；其他数量请直接说）/ How many ${part.code} should the RFQ ask for?`,
        options,
      );
    facts.quantity = Number(pickedQuantity.slice(9));
  }
  const invited = invitees(facts, part);
  if (!invited.suppliers.length)
    return { text: `没有供应「${part.model}」的供应商，未创建询价单。/ No supplier offers ${part.model}: no RFQ.` };
  const { requiredDate, replyDeadline } = rfqDates(texts.words, facts);
  if (replyDeadline >= `${requiredDate}T00:00:00Z`)
    return {
      text: `报价截止时间须早于需求日期 ${requiredDate}，未创建询价单。/ The reply deadline must come before the required date ${requiredDate}.`,
    };
  return {
    toolCalls: [
      {
        name: 'rfq_create',
        args: {
          title: `${part.model} × ${facts.quantity}${part.unit ?? ''}`,
          lines: [{ partId: part.id, quantity: facts.quantity, requiredDate }],
          supplierIds: invited.suppliers.map((s) => s.id),
          replyDeadline,
          note: `Procura 起草 / drafted by Procura: ${texts.words.slice(0, 200)}${invited.short ? `\n${invited.short}` : ''}`,
        },
      },
    ],
  };
}

/**
 * Who is asked: the suppliers the request names; else those that offer the part's model, lowest list price first,
 * as many as the request asks for (all of them when it says no number).
 */
function invitees(facts: Facts, part: PartRef): { suppliers: SupplierRef[]; short?: string } {
  if (facts.suppliers.length) return { suppliers: facts.suppliers.slice(0, 20) };
  const offers = [...facts.seen.values()]
    .filter((p) => p.model === part.model)
    .sort((a, b) => a.unitPrice - b.unitPrice || a.supplier.id - b.supplier.id);
  const offering = [...new Map(offers.map((p) => [p.supplier.id, p.supplier])).values()];
  const wanted =
    facts.current.reading.supplierCount ?? facts.texts.find((t) => t.reading.supplierCount)?.reading.supplierCount;
  const suppliers = offering.slice(0, Math.min(wanted ?? 20, 20));
  const short =
    wanted && offering.length < wanted
      ? `只有 ${offering.length} 家供应商供应 ${part.model}（要求 ${wanted} 家）/ only ${offering.length} suppliers offer it (${wanted} asked)`
      : undefined;
  return { suppliers, short };
}

/** The required date (said, else in {@link DEFAULT_LEAD_DAYS} days) and the reply deadline (said, else in 72 hours). */
export function rfqDates(
  words: string,
  facts: Pick<Facts, 'expectedDate'>,
  now = new Date(),
): { requiredDate: string; replyDeadline: string } {
  const keyword = DEADLINE.exec(words);
  const after = keyword ? words.slice(keyword.index + keyword[0].length) : '';
  const following = keyword ? readDate(after, now) : undefined;
  // A date right before the deadline words ("下周五截止", "周三前截止") is the deadline as well.
  const before = keyword && !following ? readDate(words.slice(0, keyword.index), now) : undefined;
  const leading =
    before && /^\s*(?:前|之前|为)?\s*$/.test(words.slice(before.end, keyword?.index)) ? before : undefined;
  const said = leading ?? following;
  // A date beside the deadline words is the deadline (end of that day, China time); any other is the required date.
  const deadlineSpan =
    said &&
    keyword &&
    (leading
      ? { start: leading.start, end: keyword.index + keyword[0].length }
      : { start: keyword.index, end: keyword.index + keyword[0].length + said.end });
  const required = deadlineSpan
    ? readDate(blankSpans(words, [deadlineSpan]), now)?.value
    : (readDate(words, now)?.value ?? facts.expectedDate);
  const requiredDate = required ?? isoDay(new Date(now.getTime() + DEFAULT_LEAD_DAYS * 86_400_000));
  const replyDeadline = said
    ? new Date(`${said.value}T18:00:00+08:00`).toISOString()
    : new Date(
        Math.min(now.getTime() + DEFAULT_REPLY_HOURS * 3_600_000, Date.parse(`${requiredDate}T00:00:00Z`) - 86_400_000),
      ).toISOString();
  return { requiredDate, replyDeadline };
}

function sentText(step: ToolStep, en: boolean, draft?: RfqView): string {
  const { rfq, error } = written(step);
  // A rejected send leaves the draft in the ERP: say which, so it can be sent or changed later.
  if (!rfq)
    return draft
      ? `询价单 ${draft.rfqNo} 已保存为草稿，询价邮件未发出：${error}\nRFQ ${draft.rfqNo} is a draft; no mail was sent.`
      : `询价邮件未发出：${error}\nThe RFQ was not sent.`;
  const line = rfq.lines[0];
  const names = rfq.invitations.map((i) => supplierName(i.supplier, en)).join(en ? ', ' : '、');
  const asked = line ? `- ${line.part?.code ?? ''} × ${line.quantity} ${line.unit}` : '';
  // The first line names the RFQ: a follow-up ("award it to …") reads its number there.
  if (en)
    return [
      `RFQ ${rfq.rfqNo} (${rfq.status}) was mailed to ${rfq.invitations.length} suppliers: ${names}.`,
      asked,
      `Reply deadline ${rfq.replyDeadline}. Replies are collected as they arrive; say “show the quotes for ${rfq.rfqNo}” for the award proposal.`,
    ]
      .filter(Boolean)
      .join('\n');
  return [
    `询价单 ${rfq.rfqNo}（${status(rfq.status)}）已向 ${rfq.invitations.length} 家供应商发出询价邮件：${names}。`,
    asked,
    `报价截止 / reply deadline：${rfq.replyDeadline}。供应商的回复会自动收集；说「看看 ${rfq.rfqNo} 的报价」即可查看授标建议。`,
    `RFQ ${rfq.rfqNo} was mailed to ${rfq.invitations.length} suppliers; replies are collected as they arrive.`,
  ]
    .filter(Boolean)
    .join('\n');
}

/**
 * The RFQ a request means: by number (paging `rfq_list`), else the one open RFQ that fits the action, else the
 * user's choice among them.
 */
function findRfq(
  view: ConversationView,
  rfqNo: string | undefined,
  action: RfqAction,
): { plan: Plan } | { rfq: RfqSummary } {
  const pick = chosen(view);
  const pages = view.steps.filter((s) => s.name === 'rfq_list');
  const done = pages.filter((s) => s.text !== undefined);
  if (pages.length > done.length) return { plan: {} };
  const listed = done.flatMap((p) => items<RfqSummary>(p));
  const picked = pick?.startsWith('rfq:') ? listed.find((r) => `rfq:${r.id}` === pick) : undefined;
  if (picked) return { rfq: picked };
  if (called(view, 'ask_user'))
    return { plan: { text: '没有选定询价单，未做任何操作。/ No RFQ was chosen: nothing was done.' } };
  const total = (done.at(-1)?.result as { total?: number } | undefined)?.total ?? 0;
  const byNo = rfqNo ? listed.find((r) => r.rfqNo.toUpperCase() === rfqNo) : undefined;
  if (byNo) return { rfq: byNo };
  if (!done.length || (rfqNo && listed.length < total && done.length < LIST_MAX_PAGES))
    return { plan: { toolCalls: [{ name: 'rfq_list', args: { page: done.length + 1, size: LIST_PAGE } }] } };
  if (rfqNo) return { plan: { text: `没有找到询价单 ${rfqNo}。/ RFQ ${rfqNo} not found.` } };
  const fits = (r: RfqSummary) =>
    action === 'close'
      ? OPEN.has(r.status)
      : action === 'award'
        ? OPEN.has(r.status) || r.status === 'closed'
        : action === 'send'
          ? r.status === 'draft'
          : r.status !== 'cancelled';
  const candidates = listed.filter(fits).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  if (candidates.length === 1) return { rfq: candidates[0] };
  if (!candidates.length) return { plan: { text: '没有可操作的询价单。/ There is no RFQ this applies to.' } };
  return {
    plan: askUser(
      view,
      '是哪一张询价单？/ Which RFQ do you mean?',
      candidates.slice(0, 8).map((r) => ({
        label: `${r.rfqNo} · ${status(r.status)} · 回复 ${r.replied}/${r.invited}`.slice(0, 120),
        value: `rfq:${r.id}`,
      })),
    ),
  };
}

/** The RFQ as it stands (`rfq_get`), asked once; undefined while the call runs. */
function current(view: ConversationView, id: number): { plan: Plan } | { rfq: RfqView } {
  const got = view.steps.find((s) => s.name === 'rfq_get' && Number(s.args.rfqId) === id);
  if (!got) return { plan: { toolCalls: [{ name: 'rfq_get', args: { rfqId: id } }] } };
  if (got.text === undefined) return { plan: {} };
  const rfq = (got.result as { rfq?: RfqView } | undefined)?.rfq;
  return rfq ? { rfq } : { plan: { text: `询价单读取失败：${got.text.slice(0, 300)}\nThe RFQ could not be read.` } };
}

/** Its quotes and the ERP's award proposal: who ranks where and why, and every quote left out with its reason. */
function planShow(view: ConversationView, summary: RfqSummary, texts: TaskTexts): Plan {
  const got = view.steps.find((s) => s.name === 'rfq_get' && Number(s.args.rfqId) === summary.id);
  const proposed = view.steps.find((s) => s.name === 'rfq_proposal' && Number(s.args.rfqId) === summary.id);
  const wanted = [
    ...(got ? [] : [{ name: 'rfq_get', args: { rfqId: summary.id } }]),
    ...(proposed ? [] : [{ name: 'rfq_proposal', args: { rfqId: summary.id } }]),
  ];
  if (wanted.length) return { toolCalls: wanted };
  if (got?.text === undefined || proposed?.text === undefined) return {};
  const rfq = (got.result as { rfq?: RfqView } | undefined)?.rfq;
  const proposal = (proposed.result as { proposal?: Proposal } | undefined)?.proposal;
  if (!rfq || !proposal) return { text: `询价单读取失败 / the RFQ could not be read: ${proposed.text.slice(0, 300)}` };
  return { text: proposalText(rfq, proposal, english(texts)) };
}

function proposalText(rfq: RfqView, proposal: Proposal, en: boolean): string {
  const replied = rfq.invitations.filter((i) => i.status !== 'invited').length;
  const best = proposal.ranking[0];
  return [
    `## 询价单 ${rfq.rfqNo} 的报价与授标建议 / Quotes and award proposal（${status(rfq.status)}，已回复 ${replied}/${rfq.invitations.length}）`,
    best
      ? `推荐 / recommended：${supplierName(best.supplier, en)}，到岸总价 ¥${best.landedCostCny.toFixed(2)}，得分 ${best.score.toFixed(2)}`
      : '暂时没有可以授标的报价。/ No quote can be awarded yet.',
    ...proposal.ranking.map(
      (r) =>
        `${r.rank}. ${supplierName(r.supplier, en)} · ¥${r.landedCostCny.toFixed(2)}（${r.lines.map((l) => `¥${l.unitPriceCny}${l.leadTimeDays !== null ? ` · ${l.leadTimeDays} 天` : ''}`).join('；')}）· 得分 ${r.score.toFixed(2)} — ${r.why.join('；')}`,
    ),
    ...(proposal.excluded.length
      ? [
          '排除 / excluded：',
          ...proposal.excluded.map(
            (e) =>
              `- ${supplierName(e.supplier, en)}${e.lineNo ? `（第 ${e.lineNo} 行）` : ''}：${EXCLUSION[e.reason] ?? e.reason}`,
          ),
        ]
      : []),
    ...(best
      ? [
          `授标请说「把 ${rfq.rfqNo} 授标给${supplierName(best.supplier, false)}」/ say “award ${rfq.rfqNo} to ${best.supplier.nameEn}”.`,
        ]
      : []),
  ].join('\n');
}

/** Mails a draft RFQ to its suppliers (an approved write). */
function planSend(view: ConversationView, summary: RfqSummary, texts: TaskTexts): Plan {
  if (!view.tools.has('rfq_send'))
    return { text: '当前账号是只读权限，不能发出询价单。/ This account is read-only: it cannot send RFQs.' };
  const sent = lastStep(view, 'rfq_send');
  if (sent) return { text: sentText(sent, english(texts)) };
  const got = current(view, summary.id);
  if ('plan' in got) return got.plan;
  if (got.rfq.status !== 'draft')
    return {
      text: `询价单 ${got.rfq.rfqNo} 状态为 ${status(got.rfq.status)}，已经发出过，不再重复发送。/ RFQ ${got.rfq.rfqNo} was already sent.`,
    };
  return { toolCalls: [{ name: 'rfq_send', args: { rfqId: got.rfq.id, version: got.rfq.version } }] };
}

/** Closes an open RFQ (an approved write). */
function planClose(view: ConversationView, summary: RfqSummary): Plan {
  if (!view.tools.has('rfq_close'))
    return { text: '当前账号是只读权限，不能截止询价单。/ This account is read-only: it cannot close RFQs.' };
  const closed = lastStep(view, 'rfq_close');
  if (closed) {
    const { rfq, error } = written(closed);
    return {
      text: rfq
        ? `询价单 ${rfq.rfqNo} 已截止（${status(rfq.status)}）；之后到达的报价仍保存并标为逾期。/ RFQ ${rfq.rfqNo} is closed.`
        : `询价单未截止：${error}\nThe RFQ was not closed.`,
    };
  }
  const got = current(view, summary.id);
  if ('plan' in got) return got.plan;
  if (!OPEN.has(got.rfq.status))
    return {
      text: `询价单 ${got.rfq.rfqNo} 状态为 ${status(got.rfq.status)}，不能截止。/ An RFQ in ${got.rfq.status} cannot be closed.`,
    };
  return { toolCalls: [{ name: 'rfq_close', args: { rfqId: got.rfq.id, version: got.rfq.version } }] };
}

/**
 * Awards the RFQ to the supplier the request names, else to the one the proposal recommends: an open RFQ is closed
 * by the same write (one approval for both); the award drafts exactly one purchase order.
 */
function planAward(view: ConversationView, summary: RfqSummary, texts: TaskTexts): Plan {
  const en = english(texts);
  if (!view.tools.has('rfq_award'))
    return { text: '当前账号是只读权限，不能授标。/ This account is read-only: it cannot award RFQs.' };
  const awarded = lastStep(view, 'rfq_award');
  if (awarded) return { text: awardText(awarded, en) };
  if (called(view, 'rfq_award')) return {};
  const got = current(view, summary.id);
  if ('plan' in got) return got.plan;
  const rfq = got.rfq;
  if (rfq.award)
    return {
      text: `询价单 ${rfq.rfqNo} 已授标，订单 ${rfq.award.orderNo}；不能再次授标。/ RFQ ${rfq.rfqNo} was already awarded (order ${rfq.award.orderNo}).`,
    };
  // The supplier: one of the invited, named in the request, else the proposal's recommendation.
  const invited = rfq.invitations.map((i) => ({
    id: i.supplier.id,
    name: i.supplier.nameZh,
    nameEn: i.supplier.nameEn,
  }));
  const named = distinctSuppliers(findSuppliers(readRequest(texts.words).rest, invited));
  let supplier = named[0];
  if (!supplier) {
    const proposed = view.steps.find((s) => s.name === 'rfq_proposal' && Number(s.args.rfqId) === rfq.id);
    if (!proposed) return { toolCalls: [{ name: 'rfq_proposal', args: { rfqId: rfq.id } }] };
    if (proposed.text === undefined) return {};
    const recommended = (proposed.result as { proposal?: Proposal } | undefined)?.proposal?.recommended;
    if (!recommended)
      return {
        text: `询价单 ${rfq.rfqNo} 还没有可以授标的报价，未授标。/ RFQ ${rfq.rfqNo} has no quote that can be awarded: nothing was done.`,
      };
    supplier = { id: recommended.id, name: recommended.nameZh, nameEn: recommended.nameEn };
  }
  // An RFQ still taking replies is closed by the award itself: one decision, whose card shows both steps.
  const closes = OPEN.has(rfq.status);
  if (!closes && rfq.status !== 'closed')
    return {
      text: `询价单 ${rfq.rfqNo} 状态为 ${status(rfq.status)}，不能授标。/ An RFQ in ${rfq.status} cannot be awarded.`,
    };
  return {
    toolCalls: [
      {
        name: 'rfq_award',
        args: {
          rfqId: rfq.id,
          version: rfq.version,
          supplierId: supplier.id,
          submit: true,
          ...(closes ? { close: true } : {}),
          note: `Procura 授标 / awarded by Procura: ${texts.words.slice(0, 200)}`,
        },
      },
    ],
  };
}

function awardText(step: ToolStep, en: boolean): string {
  const { rfq, order, error } = written(step);
  if (!rfq || !order) return `未授标：${error}\nThe RFQ was not awarded.`;
  if (en)
    return `RFQ ${rfq.rfqNo} awarded to ${supplierName(order.supplier, en)}: purchase order ${order.orderNo} (${order.status}), ¥${order.totalAmount.toFixed(2)}.`;
  return [
    `询价单 ${rfq.rfqNo} 已授标给 ${supplierName(order.supplier, en)}，生成采购订单 ${order.orderNo}（${order.status}），金额 ¥${order.totalAmount.toFixed(2)}。`,
    `RFQ ${rfq.rfqNo} awarded: purchase order ${order.orderNo} (${order.status}), ¥${order.totalAmount.toFixed(2)}.`,
  ].join('\n');
}

/** Words that ask only for the RFQs still out with suppliers. */
const OPEN_ONLY = /进行中|未截止|(?:still\s+)?open\b|still out/i;

/**
 * The user's RFQs, newest first, with their state and replies; asked for the open ones (a digest), those still out
 * (sent or collecting), the earliest deadline first.
 */
function planList(view: ConversationView, texts: TaskTexts): Plan {
  const openOnly = OPEN_ONLY.test(texts.words);
  const listed = lastStep(view, 'rfq_list');
  if (!listed) return { toolCalls: [{ name: 'rfq_list', args: { page: 1, size: openOnly ? 50 : 20 } }] };
  const all = items<RfqSummary>(listed);
  const rfqs = openOnly
    ? all.filter((r) => OPEN.has(r.status)).sort((a, b) => a.replyDeadline.localeCompare(b.replyDeadline))
    : all;
  const en = english(texts);
  if (!rfqs.length)
    return {
      text: openOnly ? '没有进行中的询价单。/ No RFQ is open.' : '还没有询价单。/ There are no RFQs yet.',
    };
  return {
    text: [
      openOnly
        ? en
          ? `## Open RFQs — ${rfqs.length}`
          : `## 进行中的询价单：共 ${rfqs.length} 张 / open RFQs`
        : en
          ? `## RFQs — ${rfqs.length}`
          : `## 询价单：共 ${rfqs.length} 张 / RFQs`,
      ...rfqs.map(
        (r) =>
          `- ${r.rfqNo} · ${status(r.status)} · 回复 / replied ${r.replied}/${r.invited} · 截止 / deadline ${r.replyDeadline.slice(0, 16)}`,
      ),
    ].join('\n'),
  };
}
