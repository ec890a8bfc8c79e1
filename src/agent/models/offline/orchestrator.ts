import { isEnglish, permissionText, refusalText } from './asks.ts';
import {
  CONTEXT_LABEL,
  type ConversationView,
  lastStep,
  type Plan,
  stripLineNumbers,
  type Turn,
  taskContext,
  userWords,
} from './conversation.ts';
import { findTerm, GLOSSARY_PATH, parseGlossary, termAnswer, unknownTermAnswer } from './glossary.ts';
import { RESULT_PREFIX } from './grounding.ts';
import { ANALYSIS_INTENTS, CHEAPEST as ASKED_CHEAPEST, type Intent, ORDER_INTENTS, readRequest } from './intent.ts';
import { MEANT_LABEL, meantEntry, ORDINALS, POINTS_AT_ROW, rowsMeant } from './repair/references.ts';
import { trackAnswer } from './tracking/tracker.ts';

const ORDER_AGENT = 'procurement-order';
const ANALYST = 'procurement-analyst';
const SOURCING = 'procurement-sourcing';

/** The task goal that asks the analyst for what Procura can do, with examples from the user's catalogue. */
export const CAPABILITIES_GOAL = '介绍 Procura 能做什么，并用用户自己的目录给出三个示例请求';

const GREETING_REPLY =
  '您好！我是 Procura 采购助手。可以帮您做供应商比价分析、查看库存预警，或起草采购订单（写入 ERP 前会请您确认）。\nHello! I can compare suppliers, check stock warnings, or draft purchase orders (you approve before anything is written to the ERP).';
const THANKS_REPLY = '不客气！还有需要随时告诉我。/ You are welcome — just ask when you need anything else.';

/** Words that make a short message lean on the previous request ("再来100个", "那刹车片呢？", "what about…"). */
const FOLLOW_UP =
  /那家|这家|上次|最低|最便宜|再|还要|也要|另外|同样|一样|照旧|换成|改成|改为|呢\s*[?？]?\s*$|another|again|more|same|instead|what about|how about|and\s|\b(?:cheapest|lowest|cheaper)(?:-priced)? (?:one|of them)\b/i;

/** What may point into a list of orders just shown: a cancel, a change, a look-up, or a question about one of them. */
const REFERS_TO_LIST: ReadonlySet<Intent | undefined> = new Set([
  undefined,
  'cancel',
  'update',
  'lookup',
  'catalogue',
  'supplierInfo',
]);

/** Words pointing at the cheapest supplier of the analysis just shown. */
const CHEAPEST = /最低|最便宜|便宜的那|cheapest|lowest/i;
/** Words pointing at the one supplier an answer just named ("从那家订", "order from that one"). */
const THAT_ONE = /那家|这家|那个供应商|\bthat (?:one|supplier|vendor)\b|\bfrom them\b/i;

/** The product and the cheapest supplier an analysis summary names (its list price, or its web quote when asked). */
function cheapestOf(summary: string, request: string): string[] {
  const model = /^## .*?(?:（([^）]+)）|\(([^)]+)\):)/m.exec(summary)?.slice(1).find(Boolean);
  const web = /官网|网上|web|online/i.test(request);
  const supplier = (
    web ? /(?:官网报价最低：|lowest web quote: )(.+?) ¥/ : /(?:ERP 目录价最低：|Lowest ERP list price: )(.+?) ¥/
  ).exec(summary)?.[1];
  return model && supplier ? [`${RESULT_PREFIX}${model} ${supplier}`] : [];
}

/** Words pointing at the suggested quantities of the stock list just shown. */
const SUGGESTED = /建议(?:的)?(?:补货)?(?:数量|量)|按建议|照建议|suggested (?:quantity|quantities|amount)/i;

/** Pointing at the line of the stock list just shown with the least on hand ("给库存最少的那家下单"). */
const LEAST_STOCK = /库存最少|库存最低|最少的那|最缺的|\b(?:lowest|least) (?:stock|on hand)\b|\bfewest\b/i;

/**
 * The stock-list line a follow-up names — by code, by ordinal, the one with the least on hand, else the first — as
 * "code quantity个" at the quantity the list suggested, or as its code alone when the list suggested none.
 */
function suggestionOf(summary: string, request: string): string | undefined {
  const lines = [...summary.matchAll(/^- (\S+) .*?(?:现有|on hand) (\d+).*$/gm)].map((m) => ({
    code: m[1],
    onHand: Number(m[2]),
    quantity: /(?:建议补货|suggested reorder) (\d+)/.exec(m[0])?.[1],
  }));
  if (!lines.length) return undefined;
  const upper = request.toUpperCase();
  const byCode = lines.find((l) => upper.includes(l.code.toUpperCase()));
  const ordinal = ORDINALS.find(([pattern]) => pattern.test(request))?.[1];
  const least = LEAST_STOCK.test(request) ? [...lines].sort((a, b) => a.onHand - b.onHand)[0] : undefined;
  const line = byCode ?? least ?? lines[ordinal ?? 0];
  if (!line) return undefined;
  return line.quantity ? `${RESULT_PREFIX}${line.code} ${line.quantity}个` : `${RESULT_PREFIX}${line.code}`;
}

interface Delegation {
  agent: string;
  words: string;
  context: string[];
  result: string;
}

/** The latest task this conversation delegated (skipping capability questions). */
function lastDelegation(turns: Turn[]): Delegation | undefined {
  for (const turn of [...turns].reverse()) {
    const task = [...turn.steps]
      .reverse()
      .find((s) => s.name === 'task' && !String(s.args.description ?? '').includes(CAPABILITIES_GOAL));
    if (!task) continue;
    const description = String(task.args.description ?? '');
    return {
      agent: String(task.args.subagent_type ?? ''),
      words: userWords(description),
      context: taskContext(description),
      result: task.text ?? turn.answer,
    };
  }
  return undefined;
}

/** The orchestrator: reads the user's preferences, delegates with the seed's task format, then answers. */
export function planOrchestration(view: ConversationView): Plan {
  const request = view.request.trim();
  const task = lastStep(view, 'task');
  if (task) {
    const summary = typeof task.text === 'string' ? task.text : '';
    return { text: summary || '子任务已完成。/ The sub-task is done.' };
  }
  const reading = readRequest(request);
  if (reading.intent === 'greeting') return { text: GREETING_REPLY };
  if (reading.intent === 'thanks') return { text: THANKS_REPLY };
  // Writes Procura or this role does not do are refused here, with the reason, before any agent could draft one.
  const english = isEnglish(request);
  const role = /角色:\s*([a-z]+)/.exec(view.system)?.[1];
  if (reading.intent === 'refuse' && reading.refusal) return { text: refusalText(reading.refusal, english, role) };
  if (reading.intent === 'permission') return { text: permissionText(english, role) };
  if (role === 'viewer' && (reading.intent === 'create' || reading.intent === 'update' || reading.intent === 'cancel'))
    return { text: refusalText('readOnly', english, role) };
  if (reading.intent === 'knowledge') return planKnowledge(view, request, english);

  const previous = lastDelegation(view.earlier);
  // "把还没审批的那张取消", "它是谁家的？" after a list of orders: rows of that list, resolved against its rows.
  const listed = previous?.agent === ORDER_AGENT ? trackAnswer(previous.result) : undefined;
  const meant =
    listed?.kind === 'orders' &&
    !reading.orderNo &&
    REFERS_TO_LIST.has(reading.intent) &&
    (reading.intent === 'cancel' || reading.intent === 'update' || POINTS_AT_ROW.test(reading.text))
      ? rowsMeant(listed, reading)
      : undefined;
  const followUp =
    previous !== undefined &&
    reading.intent !== 'help' &&
    (reading.intent === undefined ||
      (reading.scores.anaphora ?? 0) > 0 ||
      ((reading.intent === 'update' || reading.intent === 'cancel') && !reading.orderNo) ||
      // "这一年是涨了还是跌了？" after an analysis asks about the part analysed, unless it names another.
      (reading.intent === 'direction' && previous.agent === ANALYST) ||
      // "按推荐授标" after an RFQ was shown: the RFQ of that answer.
      (reading.intent === 'rfq' && previous.agent === SOURCING && !reading.rfqNo) ||
      FOLLOW_UP.test(reading.text) ||
      reading.corrects === true);
  // "第二个按建议数量下单" after a stock list: an order of the line it names, at the quantity the list suggested.
  const suggested =
    previous?.agent === ANALYST && (SUGGESTED.test(reading.text) || LEAST_STOCK.test(reading.text))
      ? suggestionOf(previous.result, reading.text)
      : undefined;
  const agent =
    suggested || meant
      ? ORDER_AGENT
      : reading.intent === 'rfq'
        ? SOURCING
        : reading.intent && ORDER_INTENTS.has(reading.intent)
          ? ORDER_AGENT
          : reading.intent && ANALYSIS_INTENTS.has(reading.intent)
            ? ANALYST
            : followUp
              ? previous?.agent
              : undefined;

  const preferencesPath = /\/memories\/[^\s,，。]+\/preferences\.md/.exec(view.system)?.[0];
  const preferences = view.steps.find((s) => s.name === 'read_file' && s.args.file_path === preferencesPath);
  if (preferencesPath && !preferences && view.tools.has('read_file')) {
    return { toolCalls: [{ name: 'read_file', args: { file_path: preferencesPath } }] };
  }
  const known =
    preferences?.text && !/not found|不存在|Error/i.test(preferences.text)
      ? stripLineNumbers(preferences.text).trim()
      : '';
  if (!agent) {
    // Outside the flows: the analyst reads the catalogue and answers with what it can do and three examples.
    return {
      toolCalls: [
        {
          name: 'task',
          args: {
            subagent_type: ANALYST,
            description: [
              `【任务目标】${CAPABILITIES_GOAL}`,
              `【用户偏好】${known || '暂无 / none recorded'}`,
              `【分析需求正文】用户原话：「${request}」。这不是标准流程内的请求：说明能做什么，并从 ERP 目录中举三个例子。`,
              '【输出要求】能力说明和三个可以直接发送的示例请求。',
            ].join('\n'),
          },
        },
      ],
    };
  }
  const context =
    (followUp || suggested || meant) && previous
      ? [
          // What an earlier reference resolved to is of its own turn.
          ...previous.context.filter((c) => !c.startsWith(MEANT_LABEL)),
          previous.words,
          // A list's rows are what a reference over it means, never its first row.
          ...(meant ? [meantEntry(meant)] : []),
          // An order's or an RFQ's result names the supplier, part and order or RFQ number the follow-up refers to.
          ...(!meant && (previous.agent === ORDER_AGENT || previous.agent === SOURCING)
            ? [`${RESULT_PREFIX}${previous.result.split('\n').slice(0, 3).join('；')}`]
            : []),
          // "就从报价最低的那家买": the analysis's cheapest offer, product and supplier, is what the order means.
          // "从那家订100个" after "哪家最便宜": that supplier is the cheapest the analysis found.
          ...(previous.agent === ANALYST &&
          (CHEAPEST.test(reading.text) || (THAT_ONE.test(reading.text) && ASKED_CHEAPEST.test(previous.words)))
            ? cheapestOf(previous.result, CHEAPEST.test(reading.text) ? reading.text : previous.words)
            : []),
          ...(suggested ? [suggested] : []),
        ]
          .map((s) =>
            s
              .replace(/\s*⟫\s*/g, ' ')
              .replace(/\n/g, '；')
              .slice(0, 400),
          )
          .filter(Boolean)
          .slice(-4)
      : [];
  const body =
    agent === ANALYST
      ? '请用 ERP 数据和供应商网站报价做对比，完成分析、图表和报告。'
      : agent === SOURCING
        ? '核对零部件和供应商；发出询价和授标前必须经用户审批。'
        : '核对供应商、零部件和数量；缺信息时向用户询问；写入 ERP 前必须经用户审批。';
  const description = [
    `【任务目标】${request}`,
    `【用户偏好】${known || '暂无 / none recorded'}`,
    `【分析需求正文】用户原话：「${request}」。${body}`,
    ...(context.length ? [`${CONTEXT_LABEL}${context.join(' ⟫ ')}`] : []),
    agent === ANALYST
      ? '【输出要求】结构化摘要：结论、关键数字、建议、报告路径、图表链接。'
      : agent === SOURCING
        ? '【输出要求】询价单号、状态、受邀供应商与报价或授标建议；授标时订单号和金额；未执行时说明原因。'
        : '【输出要求】订单号、供应商、明细、金额和状态；未创建时说明原因。',
  ].join('\n');
  return { toolCalls: [{ name: 'task', args: { subagent_type: agent, description } }] };
}

/** A knowledge question: the glossary skill pack's entry for the term, read from the sandbox like any skill file. */
function planKnowledge(view: ConversationView, request: string, english: boolean): Plan {
  const read = view.steps.find((s) => s.name === 'read_file' && s.args.file_path === GLOSSARY_PATH);
  if (!read && view.tools.has('read_file'))
    return { toolCalls: [{ name: 'read_file', args: { file_path: GLOSSARY_PATH, limit: 2000 } }] };
  if (read && read.text === undefined) return {};
  const entries = parseGlossary(stripLineNumbers(read?.text ?? ''));
  const entry = findTerm(entries, request);
  if (entry) return { text: termAnswer(entry, english) };
  return { text: unknownTermAnswer(entries, english) };
}
