import type { ChoiceOption } from '../../../protocol/index.ts';
import { isEnglish, labelIn, refusalText } from './asks.ts';
import { categoryLabel, codeTokens, displayName, type PartRef, type SupplierRef, shortName } from './catalogue.ts';
import { optionId, partOptions, quantityOptions, restate, supplierOptions, type Understood } from './choices.ts';
import { type ConversationView, called, items, lastStep, type Plan, type ToolStep } from './conversation.ts';
import { askUser, chosen, type Facts, ground, offeredBy, type TaskTexts, taskIntent, taskTexts } from './grounding.ts';
import { ORDER_INTENTS } from './intent.ts';
import { categoryName } from './lookups.ts';
import { draftLines } from './policy/lines.ts';
import { severityText } from './price-review.ts';
import { type LineText, readLines } from './reading/lines.ts';
import { correctionSpans } from './repair/corrections.ts';
import { ordersMeant } from './repair/references.ts';
import { blankSpans, cjkRuns, normalize, sharedRuns } from './text.ts';
import { FILTERS_LABEL, orderRow, statusText } from './tracking/orders.ts';

interface OrderItem {
  id: number;
  orderNo: string;
  status: string;
  version: number;
  supplier: { id?: number; name: string; nameEn?: string };
  totalAmount: number;
  expectedDate?: string | null;
  createdBy?: string;
  createdAt?: string;
  updatedAt?: string;
  /** The ERP approval policy's decision on submission. */
  approval?: { rule: string; reason: string };
  /** What this user may do with the order, as the ERP judges it (roles, status, four eyes). */
  permissions?: { change: boolean; approve: boolean; reason: string | null };
  lines: Array<{
    partId?: number;
    code: string;
    name: string;
    nameEn?: string;
    quantity: number;
    unit: string;
    unitPrice: number;
    priceCheck?: { severity: string; reason: string };
  }>;
}

/** Asking for the quantity of the last order of the part ("按上次的数量再订一次", "数量按上次的", "same quantity as last time"). */
const LAST_QUANTITY =
  /上[次回]的?(?:数量|量)|(?:数量|量)(?:按|跟|和|同|照|与)上[次回]|(?:跟|和|同|照|按)上[次回](?:一样|相同)|上[次回]订了?多少|same (?:quantity|amount) as (?:last time|before)|as many as last time|last time's quantity/i;

/** The states an order can still be cancelled or changed in, as the ERP allows (an ordered one cancels, not changes). */
const OPEN_FOR: Record<'cancel' | 'update', ReadonlySet<string>> = {
  cancel: new Set(['draft', 'pending_approval', 'approved', 'ordered']),
  update: new Set(['draft', 'pending_approval', 'approved']),
};

/** The order agent: understand the operation, ground supplier and part in the ERP, ask for what is missing. */
export function planOrder(view: ConversationView): Plan {
  const texts = taskTexts(view, [answerText(view)]);
  const { intent: read, current } = taskIntent(texts);
  // "把还没审批的那张取消", "它是谁家的？" after a list: the rows the conversation resolved the reference to.
  const meant = current.orderNo ? undefined : ordersMeant(texts.context);
  if (meant) return planMeant(view, meant, read === 'cancel' || read === 'update' ? read : 'lookup', texts);
  // Only an order request drafts a write: a question, a budget or a refused write that reached this agent gets an
  // answer and no draft.
  if (current.intent && !ORDER_INTENTS.has(current.intent)) {
    const english = isEnglish(texts.words);
    if (current.refusal) return { text: refusalText(current.refusal, english) };
    return {
      text: english
        ? 'This is a question, not an order request: no order was drafted. Ask the analyst, or say what to order.'
        : '这是一个问题，不是下单请求：未起草订单。/ This is a question, not an order request: no order was drafted.',
    };
  }
  let intent = read ?? 'create';
  if (!ORDER_INTENTS.has(intent)) intent = 'create';
  const refersBack = (current.scores.anaphora ?? 0) > 0 || intent === 'update' || intent === 'cancel';
  const orderNo =
    current.orderNo ??
    (refersBack
      ? texts.context
          .map((t) => /PO-\d{6}-[A-Z]?\d+/i.exec(t)?.[0])
          .filter(Boolean)
          .at(-1)
      : undefined);
  if (orderNo && intent !== 'create') return planExistingOrder(view, orderNo.toUpperCase(), intent, texts);
  // Changing an order that was never written (rejected, or still a draft here) is drafting it again.
  if (intent === 'update' && texts.context.length) intent = 'create';
  if (intent === 'cancel' || intent === 'update') return planPickOrder(view, intent, texts);
  if (intent === 'lookup') return planLookup(view, texts);
  return planCreate(view, texts);
}

function planCreate(view: ConversationView, texts: TaskTexts): Plan {
  if (!view.tools.has('order_create')) {
    return {
      text: '当前账号是只读权限，不能创建采购订单。/ This account is read-only: it cannot create purchase orders.',
    };
  }
  const grounded = ground(view, texts);
  if ('plan' in grounded) return grounded.plan;
  const facts = grounded.facts;
  // "分三单下": how to split is asked, never guessed (nor 三 read as a quantity).
  if (facts.current.reading.splitInto) return askSplit(facts, texts);
  // "A-100 两百个、B-200 五十个", "200 F7TC from Bosch and 100 D8TC from Denso": one order per supplier, all its lines.
  // What a correction takes back ("不是 F7TC 200个，是 D8TC 200个") is no line of its own.
  const said = normalize(texts.words);
  const lines = readLines(blankSpans(said, correctionSpans(said)));
  if (lines) return planLines(view, texts, lines, facts);
  const asked = called(view, 'request_order_info');
  const info = infoAnswer(lastStep(view, 'request_order_info'));
  // A supplier or part picked from a card's options is the ERP's record with that id, whatever the words said.
  const picked = facts.supplierList.find((s) => s.id === optionId(info.answer.supplier, 'supplier'));
  if (picked) facts.suppliers = [picked];
  const askedPart = called(view, 'ask_user');
  const pick = optionId(chosen(view) ?? info.answer.part, 'part');
  let parts = facts.parts;
  if (pick !== undefined) {
    const part = facts.seen.get(pick);
    if (part) parts = [part];
  } else if (askedPart && !typedText(lastStep(view, 'ask_user'))) {
    return { text: '没有选定零部件，未创建订单。/ No part was chosen: no order was created.' };
  }
  const supplierNames = facts.suppliers.map((s) => shortName(s)).join('、');
  const english = isEnglish(texts.words);
  if (facts.suppliers.length && parts.length) {
    const offered = offeredBy(facts, parts);
    if (!offered.length) {
      return {
        text: `${supplierNames} 没有${categoryLabel(parts)}（${[...new Set(parts.map((p) => p.model))].slice(0, 4).join('、')}），未创建订单。供应它的有：${[
          ...new Set(parts.map((p) => p.supplier.name)),
        ].join('、')}。/ ${supplierNames} does not supply it: no order was created.`,
      };
    }
    parts = offered;
  }
  if (facts.maxUnitPrice !== undefined && parts.length) {
    const affordable = parts.filter((p) => p.unitPrice <= (facts.maxUnitPrice ?? 0));
    if (!affordable.length) {
      return {
        text: `没有单价不超过 ¥${facts.maxUnitPrice} 的${categoryLabel(parts)}（最低 ¥${Math.min(...parts.map((p) => p.unitPrice))}），未创建订单。/ Nothing at or under ¥${facts.maxUnitPrice}: no order was created.`,
      };
    }
    parts = affordable;
  }
  // "cheapest supplier" with none named: of one model's offers, the lowest ERP list price, said on the draft.
  const wantsCheapest = !facts.suppliers.length && facts.current.reading.cheapest === true;
  const cheapest = wantsCheapest ? cheapestOffer(parts) : undefined;
  if (cheapest) parts = [cheapest.part];
  // "300个机滤，哪家最便宜" over several models: each model's cheapest offer, for the buyer to pick the model.
  else if (wantsCheapest && parts.length > 1)
    parts = [...new Set(parts.map((p) => p.model))].map(
      (model) => [...parts].filter((p) => p.model === model).sort((a, b) => a.unitPrice - b.unitPrice)[0],
    );
  const offering = new Set(parts.map((p) => p.supplier.id));
  // Several kinds of part from several suppliers and none said: who supplies is asked first, among those that do.
  const needSupplier =
    !facts.suppliers.length && !wantsCheapest && offering.size > 1 && new Set(parts.map((p) => p.model)).size > 1;
  const supplier =
    facts.suppliers[0] ??
    (offering.size === 1 ? facts.supplierList.find((s) => s.id === parts[0].supplier.id) : undefined);
  const understood = { parts, supplier, quantity: facts.quantity, categories: facts.categories };
  const lastQuantity = facts.quantity === undefined && LAST_QUANTITY.test(texts.words);
  if (parts.length > 1 && !needSupplier) {
    if (askedPart) {
      return {
        text: `仍有 ${parts.length} 个零部件符合，未创建订单：${parts
          .slice(0, 8)
          .map((p) => p.code)
          .join('、')}。/ Several parts still match: no order was created.`,
      };
    }
    // The part and the quantity on one card when both are missing; the part alone otherwise.
    if (facts.quantity === undefined && !lastQuantity && !asked) {
      return orderInfo(understood, facts, ['part', 'quantity'], { part: partOptions(parts, english) });
    }
    return {
      toolCalls: [
        {
          name: 'ask_user',
          args: { question: restate(understood, ['part']), options: partOptions(parts, english), multiple: false },
        },
      ],
    };
  }
  // "按上次的数量": the quantity of the newest order of this part that was not cancelled, as the ERP lists it.
  if (parts.length === 1 && lastQuantity) {
    const only = parts[0];
    const prior = view.steps.find((s) => s.name === 'order_search_details' && Number(s.args.partId) === only.id);
    if (!prior) return { toolCalls: [{ name: 'order_search_details', args: { partId: only.id, size: 10 } }] };
    if (prior.text === undefined) return {};
    facts.quantity = items<OrderItem>(prior)
      .filter((o) => o.status !== 'cancelled')
      .flatMap((o) => o.lines)
      .find((l) => l.partId === only.id)?.quantity;
  }
  const missing = [
    ...(needSupplier || (!parts.length && !facts.suppliers.length) ? ['supplier'] : []),
    ...(parts.length ? [] : ['part']),
    ...(facts.quantity ? [] : ['quantity']),
  ];
  const part = parts.length === 1 ? parts[0] : undefined;
  const belowMoq = part && facts.quantity !== undefined && facts.quantity < part.moq;
  if ((missing.length || belowMoq) && !asked) {
    // A quantity below the minimum is asked again, not restated.
    return orderInfo(
      { ...understood, quantity: belowMoq ? undefined : facts.quantity },
      facts,
      belowMoq ? ['quantity'] : missing,
      {
        ...(needSupplier ? { supplier: supplierOptions(parts, english) } : {}),
        ...(part ? { quantity: quantityOptions(part) } : {}),
      },
    );
  }
  if (needSupplier) {
    return {
      text: `没有确定供应商，未创建订单。供应${categoryLabel(parts)}的有：${supplierOptions(parts)
        .map((o) => o.label.split(' · ')[0])
        .join('、')}。/ No supplier was settled: no order was created.`,
    };
  }
  if (missing.length || !part || !facts.quantity) {
    return {
      text: `缺少下单信息：${missing.join('、') || 'part'}，未创建订单。/ Missing ${missing.join(', ') || 'part'}: no order was created.`,
    };
  }
  if (facts.quantity < part.moq) {
    return {
      text: `数量 ${facts.quantity} 低于最小起订量 ${part.moq}，未创建订单。/ Below the minimum order quantity: no order was created.`,
    };
  }
  // The line's price against what the project paid over 12 months, as the ERP judges it, before the draft is shown.
  const check = view.steps.find((s) => s.name === 'price_check' && Number(s.args.partId) === part.id);
  if (!check && view.tools.has('price_check')) {
    return {
      toolCalls: [
        { name: 'price_check', args: { partId: part.id, unitPrice: part.unitPrice, supplierId: part.supplier.id } },
      ],
    };
  }
  if (check && check.text === undefined) return {};
  const checked = check && priceCheckText(check, part);
  const created = lastStep(view, 'order_create');
  if (!created) {
    const note = `Procura 起草 / drafted by Procura: ${texts.words.slice(0, 200)}${cheapest ? `\n${cheapest.why}` : ''}${facts.note ? `\n备注 / note: ${facts.note}` : ''}`;
    return {
      toolCalls: [
        {
          name: 'order_create',
          args: {
            supplierId: part.supplier.id,
            lines: [{ partId: part.id, quantity: facts.quantity }],
            ...(facts.expectedDate ? { expectedDate: facts.expectedDate } : {}),
            submit: true,
            note,
          },
        },
      ],
    };
  }
  const answer = `${confirmation(created, draftLine(part, facts))}${cheapest ? `\n${cheapest.why}` : ''}`;
  // Said last: a follow-up reads the first lines of this answer for the order it refers to.
  if (!checked) return { text: answer };
  // Said last (a follow-up reads the first lines of this answer for the order it refers to); the reason once.
  return {
    text: `${answer}\n${checked.line}${checked.reason && !answer.includes(checked.reason) ? `；${checked.reason}` : ''}`,
  };
}

/**
 * The drafts of a request of several lines, one order per supplier, each shown for approval on its own card in turn
 * (a rejected one never drops the next); then every draft's outcome.
 */
function planLines(view: ConversationView, texts: TaskTexts, lines: LineText[], facts: Facts): Plan {
  const answers = view.steps
    .filter((s) => s.name === 'ask_user' && s.text !== undefined)
    .map((s) => {
      const answer = (s.result as { answer?: unknown } | undefined)?.answer;
      const value = Array.isArray(answer) ? answer[0] : answer;
      return typeof value === 'string' ? value : '';
    });
  const drafted = draftLines(view, texts, lines, facts, answers);
  if ('plan' in drafted) return drafted.plan;
  const { drafts } = drafted;
  const created = view.steps.filter((s) => s.name === 'order_create');
  if (created.some((s) => s.text === undefined)) return {};
  const next = drafts[created.length];
  if (next) {
    const said = lines.map((l) => l.text).join('；');
    return {
      toolCalls: [
        {
          name: 'order_create',
          args: {
            supplierId: next.supplier.id,
            lines: next.lines.map((l) => ({ partId: l.part.id, quantity: l.quantity })),
            ...(facts.expectedDate ? { expectedDate: facts.expectedDate } : {}),
            submit: true,
            note: `Procura 起草 / drafted by Procura${drafts.length > 1 ? ` (${created.length + 1}/${drafts.length})` : ''}: ${said.slice(0, 200)}${facts.note ? `\n备注 / note: ${facts.note}` : ''}`,
          },
        },
      ],
    };
  }
  const english = isEnglish(texts.words);
  const outcomes = created.map((step) => confirmation(step, undefined, english));
  if (drafts.length === 1) return { text: outcomes[0] };
  return {
    text: [
      english
        ? `${drafts.length} orders, one per supplier, each approved on its own:`
        : `按供应商分为 ${drafts.length} 张订单，逐张审批：/ ${drafts.length} orders, one per supplier, each approved on its own:`,
      ...outcomes,
    ].join('\n\n'),
  };
}

/**
 * "F7TC 600个从博世订，分三单下": how to split is asked, nothing drafted. Buyers split an order by delivery date or by
 * supplier, and an even split guessed here would be three writes nobody asked for; splitting one purchase to pass
 * under an approval limit is also what approval policies watch for, so each order is said by the buyer.
 */
function askSplit(facts: Facts, texts: TaskTexts): Plan {
  const english = isEnglish(texts.words);
  const count = facts.current.reading.splitInto ?? 0;
  const offered = facts.suppliers.length ? offeredBy(facts, facts.parts) : facts.parts;
  const part = new Set(offered.map((p) => p.model)).size === 1 ? offered[0] : undefined;
  const what = [
    part?.model ?? facts.partWords,
    facts.quantity ? `× ${facts.quantity}` : '',
    facts.suppliers[0]
      ? english
        ? `from ${displayName(facts.suppliers[0], true)}`
        : `（${facts.suppliers[0].name}）`
      : '',
  ]
    .filter(Boolean)
    .join(' ');
  const example = part?.model ?? 'F7TC';
  // The example's second supplier is one that offers the same model, when there is one.
  const others = [...facts.seen.values()].find(
    (p) => p.model === part?.model && p.supplier.id !== (facts.suppliers[0]?.id ?? part?.supplier.id),
  )?.supplier;
  const from = (x: SupplierRef | undefined) => (x ? (english ? ` from ${displayName(x, true)}` : `从${x.name}订`) : '');
  return {
    text: english
      ? `You asked for ${count} orders${what ? ` of ${what}` : ''}: nothing was drafted. Orders from different suppliers can be said in one message, each line with its quantity and supplier (“${example} 200${from(facts.suppliers[0])}, ${example} 200${from(others)}”); orders from one supplier due on different dates are sent one message each. Each order is drafted for your approval.`
      : `要分成 ${count} 单${what ? `：${what}` : ''}，尚未起草订单。不同供应商的可在一句话里逐行说明数量和供应商（如「${example} 200个${from(facts.suppliers[0])}，${example} 200个${from(others)}」）；同一供应商按不同到货日期分单，请每单发一条消息。每单都会单独请您审批。/ Say each order: lines for different suppliers in one message, orders from one supplier on different dates one message each; each is drafted for your approval.`,
  };
}

/** The cheapest offer of parts that are all one model, with why it was chosen (every offer's list price). */
function cheapestOffer(parts: PartRef[]): { part: PartRef; why: string } | undefined {
  if (parts.length < 2 || new Set(parts.map((p) => p.model)).size > 1) return undefined;
  const [part, ...others] = [...parts].sort((a, b) => a.unitPrice - b.unitPrice);
  const rest = others.map((p) => `${p.supplier.name} ¥${p.unitPrice}`).join('、');
  return {
    part,
    why: `按 ERP 目录价选最便宜的供应商：${part.supplier.name} ¥${part.unitPrice}（其余：${rest}）/ cheapest ERP list price: ${displayName(part.supplier, true)} ¥${part.unitPrice}`,
  };
}

/** What `price_check` said about the line's price, for the answer. */
function priceCheckText(step: ToolStep, part: PartRef): { line: string; reason: string } | undefined {
  const result = step.result as { success?: boolean; severity?: string; reason?: string } | undefined;
  if (!result?.severity || result.success === false) return undefined;
  return {
    reason: result.reason ?? '',
    line: `下单前价格检查 / price check before drafting：${part.code} ¥${part.unitPrice} — ${severityText(result.severity)}`,
  };
}

function draftLine(part: PartRef, facts: Facts): string {
  return `草稿 / draft：供应商 ${part.supplier.name} · ${part.code} ${part.name} × ${facts.quantity}${part.unit ?? ''}${facts.expectedDate ? ` · 到货 ${facts.expectedDate}` : ''}`;
}

/** Reads, changes or cancels the order the request names by number. */
function planExistingOrder(view: ConversationView, orderNo: string, intent: string, texts: TaskTexts): Plan {
  const search = view.steps.find((s) => s.name === 'order_search_details' && s.args.keyword === orderNo);
  if (!search) return { toolCalls: [{ name: 'order_search_details', args: { keyword: orderNo, size: 5 } }] };
  if (search.text === undefined) return {};
  const order = items<OrderItem>(search).find((o) => o.orderNo.toUpperCase() === orderNo);
  if (!order) return { text: `没有找到订单 ${orderNo}。/ Order ${orderNo} not found.` };
  return changeOrder(view, order, intent, texts);
}

function changeOrder(view: ConversationView, order: OrderItem, intent: string, texts: TaskTexts): Plan {
  const { current } = taskIntent(texts);
  const english = isEnglish(texts.words);
  // The ERP would refuse it (someone else's order under four eyes): say so instead of asking for an approval.
  const refusal = (intent === 'cancel' || intent === 'update') && refusedChange(order, intent);
  if (refusal) return { text: refusal };
  if (intent === 'cancel') {
    if (!view.tools.has('order_cancel'))
      return { text: '当前账号是只读权限，不能取消订单。/ This account is read-only: it cannot cancel orders.' };
    const cancelled = lastStep(view, 'order_cancel');
    if (cancelled) return { text: confirmation(cancelled, undefined, english) };
    if (!OPEN_FOR.cancel.has(order.status))
      return {
        text: `订单 ${order.orderNo} 状态为 ${order.status}，不能取消。/ An order in ${order.status} cannot be cancelled.`,
      };
    const reason = /(?:原因|理由|because|reason)\s*(?:是|为|:|：)?\s*(.+)$/i.exec(current.text)?.[1]?.slice(0, 200);
    return {
      toolCalls: [
        { name: 'order_cancel', args: { orderId: order.id, version: order.version, ...(reason ? { reason } : {}) } },
      ],
    };
  }
  if (intent === 'update') {
    if (!view.tools.has('order_update'))
      return { text: '当前账号是只读权限，不能修改订单。/ This account is read-only: it cannot change orders.' };
    const updated = lastStep(view, 'order_update');
    if (updated) return { text: confirmation(updated, undefined, english) };
    const change: Record<string, unknown> = {};
    if (current.quantity) {
      const line = namedLine(order, current.rest) ?? pickedLine(view, order);
      // Several lines and none named or picked: which one is asked, never guessed.
      if (!line) {
        if (askedLine(view))
          return { text: '没有选定要改的订单行，未做任何修改。/ No line was chosen: nothing changed.' };
        return askUser(
          view,
          `订单 ${order.orderNo} 有 ${order.lines.length} 行，要改哪一行？/ ${order.orderNo} has ${order.lines.length} lines — which one should change?`,
          order.lines.map((l) => ({
            label: `${l.code} ${l.name} × ${l.quantity}`.slice(0, 120),
            value: `part:${l.partId}`,
          })),
        );
      }
      // "再加100个" adds to the line; "改成300" and "加到300" set it.
      const quantity = ADD_MORE.test(current.text) ? line.quantity + current.quantity : current.quantity;
      change.lines = order.lines.map((l) => ({
        partId: l.partId,
        quantity: l === line ? quantity : l.quantity,
      }));
    }
    if (current.expectedDate) change.expectedDate = current.expectedDate;
    if (current.note) change.note = current.note;
    if (!Object.keys(change).length) {
      return {
        text: `要把订单 ${order.orderNo} 改成什么？可以改数量、到货日期或备注。/ What should change on ${order.orderNo}: quantity, date or note?`,
      };
    }
    return { toolCalls: [{ name: 'order_update', args: { orderId: order.id, version: order.version, ...change } }] };
  }
  return { text: describeOrder(order, english) };
}

/** Whether the latest question asked which line of an order (its options are the lines' parts). */
const askedLine = (view: ConversationView) => {
  const options = lastStep(view, 'ask_user')?.args.options;
  return Array.isArray(options) && options.some((o) => String((o as ChoiceOption).value).startsWith('part:'));
};

/** The line picked from that question, or the only line. */
function pickedLine(view: ConversationView, order: OrderItem): OrderItem['lines'][number] | undefined {
  if (order.lines.length === 1) return order.lines[0];
  const picked = askedLine(view) ? optionId(chosen(view), 'part') : undefined;
  return order.lines.find((l) => l.partId === picked);
}

/** Adding to a line's quantity rather than setting it ("再加100个", "追加50", "add 100 more"). */
const ADD_MORE = /再加|追加|多加|另加|(?<!到)增加(?!到)|\badd\b|\b\d+ more\b/i;

/** The line a change names in a several-line order: by code, by model, else by the most of its name said. */
function namedLine(order: OrderItem, text: string): OrderItem['lines'][number] | undefined {
  const upper = text.toUpperCase().replace(/[-/.\s]/g, '');
  const bare = (code: string) => code.toUpperCase().replace(/[-/.\s]/g, '');
  const byCode = order.lines.find((l) => upper.includes(bare(l.code)));
  if (byCode || order.lines.length < 2) return byCode;
  // The model without the supplier's prefix (D8TC for NG-D8TC), when it names one line only.
  const byModel = order.lines.filter((l) => upper.includes(bare(l.code.replace(/^[A-Z]{2,3}-/, ''))));
  if (byModel.length === 1) return byModel[0];
  const runs = cjkRuns(text);
  const scored = order.lines
    .map((l) => ({ l, score: runs.reduce((n, r) => n + sharedRuns(r, l.name), 0) }))
    .sort((a, b) => b.score - a.score);
  return scored[0].score > 0 && scored[0].score > (scored[1]?.score ?? 0) ? scored[0].l : undefined;
}

/** Why the ERP will not let this user change or cancel the order, as the answer says it, or undefined. */
function refusedChange(order: OrderItem, intent: 'cancel' | 'update'): string | undefined {
  if (order.permissions?.change !== false || !order.permissions.reason?.startsWith('四眼')) return undefined;
  const [zh, en] = order.permissions.reason.split(' / ');
  return intent === 'cancel'
    ? `不能取消订单 ${order.orderNo}：${zh}。\nOrder ${order.orderNo} was not cancelled: ${en ?? ''}.`
    : `不能修改订单 ${order.orderNo}：${zh}。\nOrder ${order.orderNo} was not changed: ${en ?? ''}.`;
}

/**
 * Cancel or change without an order number: the user's open orders, newest first — of the supplier and the day the
 * request names ("取消昨天那张朝阳轮胎的单子"), if it names them — for the user to pick; the one such order itself.
 */
function planPickOrder(view: ConversationView, intent: 'cancel' | 'update', texts: TaskTexts): Plan {
  const grounded = ground(view, texts);
  if ('plan' in grounded) return grounded.plan;
  const { current } = grounded.facts;
  const supplier = current.suppliers[0];
  const period = current.reading.period;
  // "冠军那张待审批的单": the state said narrows the orders meant.
  const states = current.reading.statuses?.statuses;
  const search = lastStep(view, 'order_search_details');
  if (!search)
    return {
      toolCalls: [
        {
          name: 'order_search_details',
          args: {
            size: 20,
            ...(states?.length === 1 ? { status: states[0] } : {}),
            ...(supplier ? { supplierId: supplier.id } : {}),
            ...(period ? { dateFrom: period.from, dateTo: period.to } : {}),
          },
        },
      ],
    };
  const user = userId(view);
  const open = items<OrderItem>(search).filter(
    (o) =>
      OPEN_FOR[intent].has(o.status) &&
      (!states || states.includes(o.status)) &&
      (!user || !o.createdBy || o.createdBy === user),
  );
  const pick = chosen(view);
  const order = pick?.startsWith('order:') ? open.find((o) => String(o.id) === pick.slice(6)) : undefined;
  if (order) return changeOrder(view, order, intent, taskTexts(view));
  if (called(view, 'ask_user')) return { text: '没有选定订单，未做任何修改。/ No order was chosen: nothing changed.' };
  const english = isEnglish(texts.words);
  const stateLabel = current.reading.statuses && labelIn(current.reading.statuses.label, english);
  const named = [supplier && displayName(supplier, english), period?.label, stateLabel].filter(Boolean).join(' · ');
  if (!open.length && named) {
    const listed = items<OrderItem>(search);
    const others = listed.length
      ? english
        ? ` It has ${listed.map((o) => `${o.orderNo} (${o.status})`).join(', ')}, none of them yours and open.`
        : `（该条件下的订单：${listed.map((o) => `${o.orderNo} ${statusText(o.status)}`).join('、')}，都不是您的未完成订单）`
      : '';
    return {
      text: english
        ? `No open order of yours matches (${named}): nothing to ${intent === 'cancel' ? 'cancel' : 'change'}.${others}`
        : `没有找到符合条件（${named}）的您的未完成订单，未做任何${intent === 'cancel' ? '取消' : '修改'}${others}。/ No open order of yours matches: nothing changed.`,
    };
  }
  if (!open.length) return { text: '没有可以修改或取消的订单。/ There is no open order to change or cancel.' };
  // The one open order of the supplier and day named is the one meant, and so is the newest when that is said.
  if (named && open.length === 1) return changeOrder(view, open[0], intent, taskTexts(view));
  if (current.reading.newest) {
    return changeOrder(view, newestOf(open), intent, taskTexts(view));
  }
  return askWhichOrder(open, intent, english);
}

/** Asks which of several orders to cancel or change, each named by number, supplier, lines and state. */
function askWhichOrder(open: OrderItem[], intent: 'cancel' | 'update', english: boolean): Plan {
  return {
    toolCalls: [
      {
        name: 'ask_user',
        args: {
          question: english
            ? `Which order should be ${intent === 'cancel' ? 'cancelled' : 'changed'}?`
            : `要${intent === 'cancel' ? '取消' : '修改'}哪一个订单？/ Which order do you mean?`,
          options: open.slice(0, 8).map((o) => ({
            label:
              `${o.orderNo} · ${displayName(o.supplier, english)} · ${o.lines.map((l) => `${l.code}×${l.quantity}`).join(', ')} · ${o.status}`.slice(
                0,
                120,
              ),
            value: `order:${o.id}`,
          })),
          multiple: false,
        },
      },
    ],
  };
}

/**
 * The orders a reference over the list just shown resolved to: one is looked up, cancelled or changed as named; of
 * several, a look-up describes each and a cancel or change asks which, with every candidate on the card; none says
 * so. Nothing is guessed.
 */
function planMeant(
  view: ConversationView,
  orderNos: string[],
  intent: 'cancel' | 'update' | 'lookup',
  texts: TaskTexts,
): Plan {
  const english = isEnglish(texts.words);
  if (!orderNos.length)
    return {
      text: english
        ? 'None of the orders just listed fits what you said: nothing was changed.'
        : '刚才列出的订单中没有符合的，未做任何修改。/ None of the orders just listed fits: nothing was changed.',
    };
  const searches = orderNos.map((no) => ({
    no,
    step: view.steps.find((s) => s.name === 'order_search_details' && s.args.keyword === no),
  }));
  const missing = searches.filter((s) => !s.step);
  if (missing.length)
    return {
      toolCalls: missing.map((s) => ({ name: 'order_search_details', args: { keyword: s.no, size: 5 } })),
    };
  if (searches.some((s) => s.step?.text === undefined)) return {};
  const orders = searches.flatMap(({ no, step }) =>
    items<OrderItem>(step).filter((o) => o.orderNo.toUpperCase() === no),
  );
  if (intent === 'lookup' || orders.length < 2) {
    if (orders.length === 1) return changeOrder(view, orders[0], intent, taskTexts(view));
    return { text: orders.map((o) => describeOrder(o, english)).join('\n\n') };
  }
  const open = orders.filter((o) => OPEN_FOR[intent].has(o.status));
  const pick = chosen(view);
  const picked = pick?.startsWith('order:') ? open.find((o) => String(o.id) === pick.slice(6)) : undefined;
  if (picked) return changeOrder(view, picked, intent, taskTexts(view));
  if (called(view, 'ask_user'))
    return {
      text: english
        ? 'No order was chosen: nothing changed.'
        : '没有选定订单，未做任何修改。/ No order was chosen: nothing changed.',
    };
  if (open.length === 1) return changeOrder(view, open[0], intent, taskTexts(view));
  if (!open.length)
    return {
      text: english
        ? `None of ${orders.map((o) => o.orderNo).join(', ')} can be ${intent === 'cancel' ? 'cancelled' : 'changed'} in its state.`
        : `${orders.map((o) => `${o.orderNo}（${statusText(o.status)}）`).join('、')} 都不能${intent === 'cancel' ? '取消' : '修改'}。/ None of them can be ${intent === 'cancel' ? 'cancelled' : 'changed'}.`,
    };
  return askWhichOrder(open, intent, english);
}

/** Look-ups: mine, pending, by supplier, by part, by period, state and amount — newest first, filters named. */
function planLookup(view: ConversationView, texts: TaskTexts): Plan {
  const grounded = ground(view, texts);
  if ('plan' in grounded) return grounded.plan;
  const { facts } = grounded;
  const reading = facts.current.reading;
  const pending = (reading.scores.pending ?? 0) > 0;
  const statuses = pending ? ['pending_approval'] : reading.statuses?.statuses;
  const supplier = facts.current.suppliers[0];
  const part = facts.current.parts.length === 1 ? facts.current.parts[0] : undefined;
  // Several parts named: a model said (F7TC) is searched as the lines' keyword, else their one category is the filter.
  const models = [...new Set(facts.current.parts.map((p) => p.model))];
  const categories = [...new Set(facts.current.parts.map((p) => p.category))];
  const model = !part && models.length === 1 && codeTokens(facts.current.partWords).length ? models[0] : undefined;
  const category = !part && !model && categories.length === 1 ? categories[0] : undefined;
  const named = category && categoryName(facts, category, isEnglish(texts.words));
  // "上周取消了哪些单子" asks when they were cancelled, not when they were placed: a cancelled order's last change.
  const byCancel = statuses?.length === 1 && statuses[0] === 'cancelled' && reading.period !== undefined;
  const args = {
    size: LOOKUP_PAGE,
    ...(statuses?.length === 1 ? { status: statuses[0] } : {}),
    ...(supplier ? { supplierId: supplier.id } : {}),
    ...(part ? { partId: part.id } : {}),
    ...(model ? { keyword: model } : {}),
    ...(category ? { category } : {}),
    ...(reading.period ? { dateFrom: reading.period.from, dateTo: reading.period.to } : {}),
    ...(byCancel ? { dateField: 'updated' } : {}),
  };
  const pages = view.steps.filter((s) => s.name === 'order_search_details' && s.text !== undefined);
  const user = userId(view);
  const mine = (reading.scores.mine ?? 0) > 0;
  const { min, max } = reading.amount ?? {};
  // What the ERP cannot filter on (several states, amounts, the user's own) is filtered here, over every page.
  const filteredHere = (statuses?.length ?? 0) > 1 || reading.amount !== undefined || mine;
  const last = pages.at(-1);
  const total = (last?.result as { total?: number } | undefined)?.total ?? 0;
  const fetched = pages.reduce((n, p) => n + items(p).length, 0);
  if (!last || (filteredHere && fetched < total && pages.length < LOOKUP_MAX_PAGES)) {
    return { toolCalls: [{ name: 'order_search_details', args: { ...args, page: pages.length + 1 } }] };
  }
  const matching = pages
    .flatMap((p) => items<OrderItem>(p))
    .filter(
      (o) =>
        (!mine || !user || o.createdBy === user) &&
        (!statuses || statuses.includes(o.status)) &&
        (min === undefined || o.totalAmount > min) &&
        (max === undefined || o.totalAmount < max),
    );
  // "朝阳轮胎最近的单子到货了吗": the newest of them, alone.
  const orders = reading.newest && matching.length ? [newestOf(matching)] : matching;
  const english = isEnglish(texts.words);
  const filters = [
    mine ? (english ? 'mine' : '我的') : '',
    pending
      ? english
        ? 'pending approval'
        : '待审批'
      : reading.statuses
        ? labelIn(reading.statuses.label, english)
        : '',
    supplier ? displayName(supplier, english) : '',
    part ? part.code : '',
    model ?? named ?? '',
    reading.period
      ? byCancel
        ? `${english ? 'cancelled' : '取消于'} ${reading.period.label}`
        : reading.period.label
      : '',
    reading.amount ? labelIn(reading.amount.label, english) : '',
    reading.newest ? (english ? 'newest' : '最新一张') : '',
  ].filter(Boolean);
  const applied = filters.length ? filters.join(' · ') : english ? 'none (newest orders)' : '无（最近的订单）';
  if (!orders.length)
    return {
      text: english
        ? `No orders match (filters: ${applied}).`
        : `没有找到符合条件的订单（筛选：${applied}）。/ No matching orders.`,
    };
  const count = filteredHere || reading.newest ? orders.length : Math.max(total, orders.length);
  const shown = orders.slice(0, 10);
  // "到货了没有": how many of the orders found were received, and the states of the rest.
  const arrived = orders.filter((o) => o.status === 'received').length;
  const waiting = [...new Set(orders.filter((o) => o.status !== 'received').map((o) => o.status))]
    .map((st) => `${statusText(st)} ${orders.filter((o) => o.status === st).length}`)
    .join('，');
  const delivery = reading.delivery
    ? [
        english
          ? `Delivery: ${arrived} of ${orders.length} received${waiting ? `; not received: ${waiting}` : ''}.`
          : `到货情况：${orders.length} 个中已收货 ${arrived} 个${waiting ? `；未收货：${waiting}` : ''}。/ ${arrived} of ${orders.length} received.`,
      ]
    : [];
  return {
    text: [
      english
        ? `## Purchase orders — ${count} found${count > shown.length ? `, newest ${shown.length} shown` : ''}`
        : `## 采购订单：共 ${count} 个${count > shown.length ? `，显示最近 ${shown.length} 个` : ''} / Orders`,
      `${FILTERS_LABEL[english ? 'en' : 'zh']}${applied}`,
      ...delivery,
      ...shown.map((o) =>
        orderRow({ orderNo: o.orderNo, status: o.status, supplier: displayName(o.supplier, english) }, [
          o.lines.map((l) => `${l.code} × ${l.quantity}`).join(english ? ', ' : '，'),
          `¥${o.totalAmount.toFixed(2)}${dated(o)}`,
        ]),
      ),
    ].join('\n'),
  };
}

/** A listed order's date: when it was placed, and for a cancelled one also when it was cancelled. */
function dated(o: OrderItem): string {
  const placed = o.createdAt ? ` · ${o.createdAt.slice(0, 10)}` : '';
  const cancelled = o.status === 'cancelled' && o.updatedAt ? ` · 取消于 / cancelled ${o.updatedAt.slice(0, 10)}` : '';
  return placed + cancelled;
}

/** A look-up reads at most this many pages of this size when it filters what the ERP cannot. */
const LOOKUP_PAGE = 50;
const LOOKUP_MAX_PAGES = 6;

const userId = (view: ConversationView) => /user_id:\s*([^\s，,。]+)/.exec(view.system)?.[1];

/** `request_order_info` for the fields still missing: the request restated, the ERP's options per field. */
function orderInfo(
  understood: Understood,
  facts: Facts,
  fields: string[],
  options: Partial<Record<'supplier' | 'part' | 'quantity', ChoiceOption[]>>,
): Plan {
  const part = understood.parts.length === 1 ? understood.parts[0] : undefined;
  const belowMoq = part && facts.quantity !== undefined && facts.quantity < part.moq;
  const reason = belowMoq
    ? `数量 ${facts.quantity} 低于 ${part.code} 的最小起订量 ${part.moq} / below the minimum order quantity ${part.moq}`
    : facts.partWords && !understood.parts.length
      ? 'ERP 中没有找到符合的零部件，请填写名称或型号 / no part in the ERP matches: give its name or model'
      : undefined;
  // Each option names its field: one flat list, the tool groups them per field.
  const asked = Object.entries(options).flatMap(([field, list]) =>
    fields.includes(field) ? (list ?? []).map((o) => ({ field, ...o })) : [],
  );
  return {
    toolCalls: [
      {
        name: 'request_order_info',
        args: {
          missing_fields: fields,
          question: restate(understood, fields),
          ...(asked.length ? { options: asked } : {}),
          known: {
            ...(understood.supplier ? { supplier: understood.supplier.name } : {}),
            ...(part ? { part: `${part.code} ${part.name}`, moq: part.moq } : {}),
            ...(facts.quantity ? { quantity: facts.quantity } : {}),
            ...(facts.expectedDate ? { expectedDate: facts.expectedDate } : {}),
          },
          ...(reason ? { reason } : {}),
        },
      },
    ],
  };
}

/** The `request_order_info` answer: chosen options and plain values, and what was typed in place of an option. */
function infoAnswer(step: ToolStep | undefined): { answer: Record<string, unknown>; typed: Record<string, string> } {
  const result = step?.result as { answer?: unknown; free_text?: unknown } | undefined;
  const record = (v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  const typed = Object.fromEntries(
    Object.entries(record(result?.free_text)).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );
  return { answer: record(result?.answer), typed };
}

/** What the user typed in place of an `ask_user` option, if anything. */
function typedText(step: ToolStep | undefined): string {
  const typed = (step?.result as { free_text?: unknown } | undefined)?.free_text;
  return typeof typed === 'string' ? typed : '';
}

/**
 * The user's answers as a text the understanding layer reads like any other: what was typed (a supplier's name, a
 * part, a quantity in words) and the plain values. Options picked by id are taken by id, not read as words.
 */
function answerText(view: ConversationView): string {
  const { answer, typed } = infoAnswer(lastStep(view, 'request_order_info'));
  const a: Record<string, unknown> = { ...answer, ...typed };
  const words = (v: unknown) => (typeof v === 'string' && !/^(?:supplier|part):\d+$/.test(v) ? v : '');
  const quantity = Number(a.quantity);
  const parts = [
    words(a.supplier),
    words(a.part),
    quantity > 0 ? `${quantity}个` : words(a.quantity),
    words(a.expectedDate),
    typeof a.note === 'string' ? `备注：${a.note}` : '',
    typedText(lastStep(view, 'ask_user')),
  ];
  return parts.filter(Boolean).join('，');
}

/** The newest of some orders (a non-empty list), by when each was placed. */
const newestOf = (orders: OrderItem[]) =>
  [...orders].sort((a, b) => String(b.createdAt).localeCompare(String(a.createdAt)))[0];

function confirmation(step: ToolStep, draft?: string, english = false): string {
  const result = step.result as { success?: boolean; order?: OrderItem; error?: string } | undefined;
  if (!result || result.success === false || !result.order) {
    const why = result?.error ?? step.text ?? '';
    if (english) return `The order was not written to the ERP: ${englishOf(why)}`;
    return [`订单未写入 ERP：${why}`, ...(draft ? [draft] : []), 'The order was not written to the ERP.'].join('\n');
  }
  return describeOrder(result.order, english);
}

/**
 * The English of an ERP reason written "中文 / English", one or several joined by "; " (the approval policy's reasons,
 * each bilingual): the English of each.
 */
const englishOf = (reason: string) =>
  reason
    .split('; ')
    .map((r) => r.split(/\s*\/\s+/).at(-1))
    .join('; ');

/** One order as an answer states it: number, state, supplier, amount, lines and the ERP's approval decision. */
function describeOrder(o: OrderItem, english = false): string {
  const flagged = (l: OrderItem['lines'][number]) => l.priceCheck && l.priceCheck.severity !== 'ok';
  if (english)
    return [
      `Order ${o.orderNo} (${o.status.replace(/_/g, ' ')}), supplier ${displayName(o.supplier, true)}, amount ¥${o.totalAmount.toFixed(2)}, version ${o.version}${o.expectedDate ? `, delivery ${o.expectedDate}` : ''}.`,
      ...o.lines.map(
        (l) =>
          `- ${l.code}${l.nameEn ? ` ${l.nameEn}` : ''} × ${l.quantity} @ ¥${l.unitPrice}${flagged(l) ? ` (price check: ${englishOf(l.priceCheck?.reason ?? '')})` : ''}`,
      ),
      ...(o.approval ? [`Approval: ${englishOf(o.approval.reason)}`] : []),
    ].join('\n');
  return [
    `订单 ${o.orderNo}（${statusText(o.status)}），供应商 ${o.supplier.name}，金额 ¥${o.totalAmount.toFixed(2)}，版本 ${o.version}${o.expectedDate ? `，到货日期 ${o.expectedDate}` : ''}。`,
    ...o.lines.map(
      (l) =>
        `- ${l.code} ${l.name} × ${l.quantity}${l.unit ?? ''} @ ¥${l.unitPrice}${flagged(l) ? `（价格检查 / price check: ${l.priceCheck?.reason}）` : ''}`,
    ),
    ...(o.approval ? [`审批 / approval: ${o.approval.reason}`] : []),
  ].join('\n');
}
