import { pinyin } from 'pinyin-pro';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TurnResult } from '../../bench/eval/local-stack.ts';
import { type StartedStack, stackHarness, startStack } from '../../bench/eval/stack.ts';
import { seededRandom } from '../../src/shared/index.ts';
import { passBar, testSeed } from '../evaluation.ts';
import {
  notEnglish,
  type Offer,
  offers as offersOf,
  scoreFresh,
  shortEn,
  shortZh,
  writeDraft,
} from '../fresh-requests.ts';

/**
 * Fresh phrasings of what buyers ask beside orders and analyses, generated from the suppliers, categories, parts,
 * periods and orders of the started stack's ERP, in Chinese and English, and judged strictly against that ERP:
 * a supplier's lead time, rating, terms and contact; who supplies a category and which models it has; what was
 * spent on a category in a period; orders awaiting approval; whether a day's orders arrived; cancelling an order
 * named by supplier and day; which way a price went over the window said; ordering from the cheapest offer (after an analysis: test/agent/asks.test.ts); refusing supplier master-data changes; suppliers
 * named in English by their pinyin and parts by a fragment of their model; the stock of a category or model, low or
 * not; suppliers within a rating or lead-time bound; a category's orders in a period; cancelling a supplier's newest
 * order.
 */
const SEED = testSeed(20261208);
const random = seededRandom(SEED);
const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)];
const int = (a: number, b: number) => a + Math.floor(random() * (b - a + 1));
/** Payment terms as an English answer says them: 月结30天 → net 30 days, monthly statement (月结30天). */
const termsInEnglish = (terms: string) => {
  const monthly = /^月结(\d+)天$/.exec(terms);
  if (monthly) return `net ${monthly[1]} days, monthly statement (${terms})`;
  return terms === '款到发货' ? `payment before shipment (${terms})` : terms;
};
/** One of the words a buyer says a category by in Chinese: its name or a trade synonym (机滤 for 机油滤清器). */
const chineseWordFor = (c: { name_zh: string; synonyms_zh: string }) =>
  pick([c.name_zh, ...(JSON.parse(c.synonyms_zh) as string[])]);

let stack: StartedStack;
beforeAll(async () => {
  stack = await startStack();
}, 120_000);
afterAll(() => stack?.close());

interface Fresh {
  cls: string;
  say: string | string[];
  judge: (turn: TurnResult) => Promise<string | undefined> | string | undefined;
}

const yuan = (n: number) => `¥${n.toFixed(2)}`;
const inEnglish = (say: string) => !/[\u3400-\u9fff]/.test(say);
const day = (d: Date) => d.toISOString().slice(0, 10);

describe(`questions, filters, choices and names judged against the ERP (seed ${SEED})`, () => {
  it('answers from the ERP what buyers ask about suppliers, the catalogue, spend and orders', async () => {
    const db = stack.erp.database.db;
    const offers = await offersOf(db);
    const headers = { authorization: `Bearer ${stack.tokens.laoxiao}`, 'content-type': 'application/json' };
    const suppliers = await db.selectFrom('suppliers').selectAll().where('project_id', '=', 'P001').execute();
    const carried = suppliers.filter((s) => offers.some((o) => o.supplierId === s.id));
    const categories = (
      await db.selectFrom('categories').selectAll().where('project_id', '=', 'P001').execute()
    ).filter((c) => offers.some((o) => o.category === c.code));
    const orderCount = async () =>
      Number((await db.selectFrom('orders').select(db.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    const noWrite = (turn: TurnResult) => (writeDraft(turn) ? `drafted ${String(writeDraft(turn)?.value.tool)}` : '');

    // One order of today, placed through the ERP's API: "取消今天那张…的单子" means it.
    const todays = pick(offers);
    const created = await fetch(`${stack.erpUrl}/orders/create`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        supplierId: todays.supplierId,
        lines: [{ partId: todays.partId, quantity: todays.moq }],
        status: 'draft',
      }),
    });
    expect(created.status, await created.clone().text()).toBeLessThan(300);
    const todaysOrder = ((await created.json()) as { id: number }).id;

    const list: Fresh[] = [];
    // 1. A supplier's fields: the values the ERP keeps, cited, and no draft.
    for (let i = 0; i < 4; i++) {
      const s = pick(carried);
      const zh = shortZh(s.name_zh);
      const en = shortEn(s.name_en);
      const field = pick([
        {
          want: [`${s.lead_time_days} 天`, `${s.lead_time_days} days`],
          zh: [`${zh}的交货周期是多少天？`, `${zh}交期一般多久`, `${zh}几天能到货？`],
          en: [`What is ${en}'s lead time?`, `how long does ${en} take to deliver?`],
        },
        {
          want: [`${s.rating}`],
          zh: [`${zh}的评分怎么样`, `${zh}质量靠谱吗`, `${zh}的评级是多少`, `${zh}交货准时吗`],
          en: [`How is ${en} rated?`, `what's the quality score of ${en}?`],
        },
        {
          want: [s.payment_terms],
          // In English the common terms are said in English, the ERP's words beside them.
          wantEn: [termsInEnglish(s.payment_terms)],
          zh: [`${zh}的账期是多久`, `${zh}的付款条件是什么`],
          en: [`What are ${en}'s payment terms?`],
        },
        {
          want: [s.contact_phone],
          zh: [`${zh}的联系人是谁，电话多少`, `怎么联系${zh}？联系方式给我`, `${zh}的联系电话发我一下`],
          en: [`Who is the contact at ${en}?`, `give me ${en}'s phone number`],
        },
      ]);
      const english = random() < 0.4;
      list.push({
        cls: 'supplier-field',
        say: pick(english ? field.en : field.zh),
        judge: (turn) =>
          noWrite(turn) ||
          (((english && 'wantEn' in field ? field.wantEn : undefined) ?? field.want).some((w) =>
            turn.answer.includes(w),
          )
            ? undefined
            : `no ${field.want[0]}: ${turn.answer.slice(0, 160)}`) ||
          (/\[E\d+\][\s\S]*supplier_query/.test(turn.answer) ? undefined : 'not cited with supplier_query'),
      });
    }
    // Who supplies a category (or two), which models it has: every supplier and model of it the ERP lists.
    for (let i = 0; i < 4; i++) {
      const c = pick(categories);
      const zh = chineseWordFor(c);
      const en = c.name_en.toLowerCase();
      const other = i === 3 ? pick(categories.filter((x) => x.code !== c.code)) : undefined;
      const inCategory = offers.filter((o) => o.category === c.code || o.category === other?.code);
      const say = other
        ? pick([
            `${zh}和${chineseWordFor(other)}分别有哪些供应商`,
            `谁家供应${zh}和${chineseWordFor(other)}？`,
            `who supplies ${en}s and ${other.name_en.toLowerCase()}s?`,
          ])
        : pick([
            `谁家供应${zh}？`,
            `哪些供应商能供应${zh}`,
            `${zh}有哪些型号`,
            `${zh}有几家在供货`,
            `who supplies ${en}s?`,
            `which suppliers carry ${en}s?`,
            `What models of ${en}s can we buy?`,
            `which ${en}s do we have in the catalogue?`,
          ]);
      // Asked in English, the suppliers go by their English names.
      const english = inEnglish(say);
      list.push({
        cls: 'catalogue',
        say,
        judge: (turn) => {
          const names = inCategory.map((o) => (english ? o.supplierEn : o.supplierZh));
          const missing = [...new Set([...names, ...inCategory.map((o) => o.model)])].filter(
            (w) => !turn.answer.includes(w),
          );
          return (
            noWrite(turn) ||
            (missing.length ? `missing ${missing.join(', ')}: ${turn.answer.slice(0, 120)}` : undefined) ||
            (english ? notEnglish(turn.answer) : undefined)
          );
        },
      });
    }
    // The best or worst supplier by rating or lead time, of all or of a category's suppliers: the ERP's winners (ties
    // included) named first with the figure, no other supplier beside them.
    for (let i = 0; i < 3; i++) {
      const c = random() < 0.5 ? pick(categories) : undefined;
      const pool = c
        ? carried.filter((s) => offers.some((o) => o.category === c.code && o.supplierId === s.id))
        : carried;
      const zh = c ? `${chineseWordFor(c)}的供应商里` : '';
      const en = c ? `${c.name_en.toLowerCase()} ` : '';
      const ask = pick([
        {
          by: 'rating' as const,
          want: 'max' as const,
          say: [`${zh}哪家供应商的评分最高`, `${zh}谁的评级最高？`, `which ${en}supplier is rated highest?`],
        },
        {
          by: 'rating' as const,
          want: 'min' as const,
          say: [`${zh}评分最低的是哪家`, `which ${en}supplier has the lowest rating?`],
        },
        {
          by: 'lead_time_days' as const,
          want: 'min' as const,
          say: [`${zh}哪家交期最短`, `${zh}哪家交货最快？`, `Which ${en}supplier has the shortest lead time?`],
        },
        {
          by: 'lead_time_days' as const,
          want: 'max' as const,
          say: [`${zh}交期最长的是哪家`, `which ${en}supplier has the longest lead time?`],
        },
      ]);
      const values = pool.map((s) => Number(s[ask.by]));
      const end = ask.want === 'max' ? Math.max(...values) : Math.min(...values);
      const winners = pool.filter((s) => Number(s[ask.by]) === end);
      const say = pick(ask.say);
      const english = inEnglish(say);
      list.push({
        cls: 'supplier-extreme',
        say,
        judge: (turn) => {
          const headline = turn.answer.split('\n').find((l) => l.startsWith('**')) ?? '';
          const name = (s: (typeof carried)[number]) => (english ? s.name_en : s.name_zh);
          const others = carried.filter((s) => !winners.includes(s) && headline.includes(name(s)));
          return (
            noWrite(turn) ||
            (winners.every((s) => headline.includes(name(s))) && headline.includes(String(end)) && !others.length
              ? undefined
              : `expected ${winners.map(name).join(', ')} (${end}) first: ${turn.answer.slice(0, 200)}`)
          );
        },
      });
    }
    // The best on-time delivery rate: every supplier's 12-month scorecard from the ERP, the best (ties included) first.
    {
      const rates = await Promise.all(
        carried.map(async (s) => {
          const res = await fetch(`${stack.erpUrl}/suppliers/${s.id}/scorecard?months=12`, { headers });
          const card = (await res.json()) as { delivery: { onTimePct: number | null } };
          return { s, pct: card.delivery.onTimePct };
        }),
      );
      const best = Math.max(...rates.flatMap((r) => (r.pct === null ? [] : [r.pct])));
      const winners = rates.filter((r) => r.pct === best).map((r) => r.s);
      const say = pick(['哪家供应商准时交货率最高', 'which supplier has the best on-time delivery rate?']);
      const english = inEnglish(say);
      list.push({
        cls: 'supplier-on-time',
        say,
        judge: (turn) => {
          const headline = turn.answer.split('\n').find((l) => l.startsWith('**')) ?? '';
          const name = (s: (typeof carried)[number]) => (english ? s.name_en : s.name_zh);
          const others = carried.filter((s) => !winners.includes(s) && headline.includes(name(s)));
          return (
            noWrite(turn) ||
            (winners.every((s) => headline.includes(name(s))) && headline.includes(`${best}%`) && !others.length
              ? undefined
              : `expected ${winners.map(name).join(', ')} (${best}%) first: ${turn.answer.slice(0, 200)}`)
          );
        },
      });
    }
    // 2. Orders awaiting approval: exactly the ERP's pending ones.
    const pending = await db
      .selectFrom('orders')
      .select('order_no')
      .where('project_id', '=', 'P001')
      .where('status', '=', 'pending_approval')
      .orderBy('created_at', 'desc')
      .execute();
    list.push({
      cls: 'pending',
      say: pick([
        '列出所有还没审批的订单',
        '未审批的单子有哪些',
        'show me orders not yet approved',
        'which POs are awaiting approval?',
      ]),
      judge: (turn) =>
        noWrite(turn) ||
        (turn.answer.includes(`共 ${pending.length} 个`) || turn.answer.includes(`${pending.length} found`)
          ? pending.slice(0, 10).some((o) => !turn.answer.includes(o.order_no))
            ? 'an order awaiting approval missing'
            : undefined
          : `not ${pending.length} orders: ${turn.answer.slice(0, 160)}`),
    });
    // Did a day's orders arrive: the orders placed that day and how many of them were received.
    const now = new Date();
    const monday = new Date(
      Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - ((now.getUTCDay() + 6) % 7) - 7),
    );
    const weekday = int(0, 4);
    const lastWeek = new Date(monday.getTime() + weekday * 86_400_000);
    const placed = await db
      .selectFrom('orders')
      .select(['order_no', 'status'])
      .where('project_id', '=', 'P001')
      .where('created_at', '>=', day(lastWeek))
      .where('created_at', '<', `${day(lastWeek)}T99`)
      .execute();
    const wd = '一二三四五'[weekday];
    list.push({
      cls: 'delivered',
      say: pick([`上周${wd}下的单到货了没有`, `上周${wd}的订单到了吗？`, `上星期${wd}订的单子收到了没`]),
      judge: (turn) => {
        if (noWrite(turn)) return noWrite(turn);
        if (!placed.length)
          return /没有找到/.test(turn.answer) ? undefined : `listed orders of an empty day ${day(lastWeek)}`;
        const received = placed.filter((o) => o.status === 'received').length;
        if (!turn.answer.includes(`${placed.length} 个中已收货 ${received} 个`))
          return `not ${received} of ${placed.length} received: ${turn.answer.slice(0, 160)}`;
        const absent = placed.slice(0, 10).filter((o) => !turn.answer.includes(o.order_no));
        return absent.length ? `missing ${absent.map((o) => o.order_no).join(', ')}` : undefined;
      },
    });
    // What was spent on a category in a period: the ERP's ordered and received lines of it, summed.
    const y = now.getUTCFullYear();
    const m = now.getUTCMonth();
    const periods = [
      { zh: '去年下半年', en: 'in the second half of last year', from: `${y - 1}-07-01`, to: `${y - 1}-12-31` },
      { zh: '今年上半年', en: 'in the first half of this year', from: `${y}-01-01`, to: `${y}-06-30` },
      { zh: '今年', en: 'this year', from: `${y}-01-01`, to: `${y}-12-31` },
      {
        zh: '上个月',
        en: 'last month',
        from: day(new Date(Date.UTC(y, m - 1, 1))),
        to: day(new Date(Date.UTC(y, m, 0))),
      },
      {
        zh: '上个季度',
        en: 'last quarter',
        from: day(new Date(Date.UTC(y, 3 * Math.floor(m / 3) - 3, 1))),
        to: day(new Date(Date.UTC(y, 3 * Math.floor(m / 3), 0))),
      },
    ];
    for (let i = 0; i < 3; i++) {
      const c = pick(categories);
      const p = pick(periods);
      const zh = chineseWordFor(c);
      const rows = await db
        .selectFrom('order_lines')
        .innerJoin('orders', 'orders.id', 'order_lines.order_id')
        .innerJoin('parts', 'parts.id', 'order_lines.part_id')
        .select(['order_lines.quantity', 'order_lines.unit_price_e4', 'orders.id'])
        .where('orders.project_id', '=', 'P001')
        .where('orders.status', 'in', ['ordered', 'received'])
        .where('parts.category', '=', c.code)
        .where('orders.created_at', '>=', p.from)
        .where('orders.created_at', '<', `${p.to}T99`)
        .execute();
      const total = Math.round(rows.reduce((n, r) => n + (r.quantity * r.unit_price_e4) / 10_000, 0) * 100) / 100;
      const count = new Set(rows.map((r) => r.id)).size;
      const spend = pick([
        `${p.zh}我们在${zh}上花了多少钱？`,
        `${p.zh}${zh}一共花了多少`,
        `${p.zh}${zh}的采购金额是多少`,
        `How much did we spend on ${c.name_en.toLowerCase()}s ${p.en}?`,
      ]);
      list.push({
        cls: 'spend',
        say: spend,
        judge: (turn) =>
          noWrite(turn) ||
          (inEnglish(spend) ? notEnglish(turn.answer) : undefined) ||
          (turn.answer.includes(yuan(total))
            ? undefined
            : `no total ${yuan(total)} (${p.from}–${p.to}): ${turn.answer.slice(0, 160)}`) ||
          (turn.answer.includes(`${count} 个订单`) || turn.answer.includes(`${count} orders`)
            ? undefined
            : `not ${count} orders`),
      });
    }
    // The total of the orders in a state said (awaiting approval, not yet delivered, cancelled), of one supplier or all:
    // those states' order lines, never the ordered and received spend.
    type Status = 'pending_approval' | 'approved' | 'ordered' | 'cancelled';
    for (let i = 0; i < 2; i++) {
      const state = pick<{ statuses: Status[]; zh: string[]; en: string[] }>([
        {
          statuses: ['pending_approval'],
          zh: ['待审批的订单', '还没审批的单子', '等审批的采购单'],
          en: ['orders awaiting approval', 'pending orders', 'unapproved orders'],
        },
        {
          statuses: ['approved', 'ordered'],
          zh: ['还没到货的订单', '未到货的单子', '在途的订单'],
          en: ['orders not yet delivered', 'outstanding orders', 'orders in transit'],
        },
        { statuses: ['cancelled'], zh: ['已取消的订单', '作废的单子'], en: ['cancelled orders'] },
      ]);
      const s = random() < 0.5 ? pick(carried) : undefined;
      let query = db
        .selectFrom('order_lines')
        .innerJoin('orders', 'orders.id', 'order_lines.order_id')
        .select(['order_lines.quantity', 'order_lines.unit_price_e4', 'orders.id'])
        .where('orders.project_id', '=', 'P001')
        .where('orders.status', 'in', state.statuses);
      if (s) query = query.where('orders.supplier_id', '=', s.id);
      const rows = await query.execute();
      const total = Math.round(rows.reduce((n, r) => n + (r.quantity * r.unit_price_e4) / 10_000, 0) * 100) / 100;
      const count = new Set(rows.map((r) => r.id)).size;
      const zh = `${s ? shortZh(s.name_zh) : ''}${pick(state.zh)}`;
      const en = `${s ? `${shortEn(s.name_en)}'s ` : ''}${pick(state.en)}`;
      const say = pick([
        `${zh}金额一共多少`,
        `${zh}总共多少钱`,
        `${zh}总金额是多少？`,
        `How much are the ${en} worth in total?`,
        `What's the total value of ${en}?`,
      ]);
      list.push({
        cls: 'total-by-state',
        say,
        judge: (turn) =>
          noWrite(turn) ||
          (inEnglish(say) ? notEnglish(turn.answer) : undefined) ||
          (turn.answer.includes(yuan(total)) ? undefined : `no total ${yuan(total)}: ${turn.answer.slice(0, 160)}`) ||
          (turn.answer.includes(`${count} 个订单`) || turn.answer.includes(`${count} orders`)
            ? undefined
            : `not ${count} orders`),
      });
    }
    // What was paid for one model this year ("What did we pay for CR7HIX?"): its spend and its average paid price,
    // amount ÷ quantity of its ordered and received lines.
    {
      const o = pick(offers);
      const rows = await db
        .selectFrom('order_lines')
        .innerJoin('orders', 'orders.id', 'order_lines.order_id')
        .innerJoin('parts', 'parts.id', 'order_lines.part_id')
        .select(['order_lines.quantity', 'order_lines.unit_price_e4'])
        .where('orders.project_id', '=', 'P001')
        .where('orders.status', 'in', ['ordered', 'received'])
        .where('parts.model', '=', o.model)
        .where('orders.created_at', '>=', `${y}-01-01`)
        .where('orders.created_at', '<', `${y}-12-31T99`)
        .execute();
      const amount = Math.round(rows.reduce((n, r) => n + (r.quantity * r.unit_price_e4) / 10_000, 0) * 100) / 100;
      const quantity = rows.reduce((n, r) => n + r.quantity, 0);
      const say = pick([`What did we pay for ${o.model} this year?`, `今年${o.model}一共花了多少钱`]);
      list.push({
        cls: 'paid-for-model',
        say,
        judge: (turn) =>
          noWrite(turn) ||
          (!quantity || turn.answer.includes(yuan(amount / quantity))
            ? undefined
            : `no average ${yuan(amount / quantity)} of ${o.model}: ${turn.answer.slice(0, 200)}`),
      });
    }
    // Cancelling an order named by supplier and day: today's order itself; a day without one is said so.
    list.push({
      cls: 'cancel-by-day',
      say: pick([
        `取消今天那张${shortZh(todays.supplierZh)}的单子`,
        `把今天下的${shortZh(todays.supplierZh)}订单取消掉`,
        `把今天给${shortZh(todays.supplierZh)}下的那个单撤了`,
        `cancel today's ${shortEn(todays.supplierEn)} order`,
      ]),
      judge: (turn) => {
        const draft = writeDraft(turn)?.value;
        return draft?.tool === 'order_cancel' && (draft.args as { orderId: number }).orderId === todaysOrder
          ? undefined
          : `expected a cancel of order ${todaysOrder}, got ${JSON.stringify(draft?.args ?? turn.answer.slice(0, 160))}`;
      },
    });
    // 3. "cheapest supplier": the lowest ERP list price of the model, said with the price.
    const multi = [...new Set(offers.map((o) => o.model))].filter(
      (model) => new Set(offers.filter((o) => o.model === model).map((o) => o.supplierId)).size >= 2,
    );
    const cheapestOf = (model: string) => offers.filter((o) => o.model === model).sort((a, b) => a.price - b.price)[0];
    const orderedFrom = (o: Offer, q: number) => (turn: TurnResult) => {
      const args = writeDraft(turn)?.value.args as
        | { supplierId: number; lines: Array<{ partId: number; quantity: number }>; note?: string }
        | undefined;
      const line = args?.lines?.[0];
      return args?.supplierId === o.supplierId && line?.partId === o.partId && line.quantity === q
        ? undefined
        : `expected ${o.supplierZh} ${o.code} × ${q}, got ${JSON.stringify(args ?? turn.answer.slice(0, 160))}`;
    };
    for (let i = 0; i < 3; i++) {
      const model = pick(multi);
      const o = cheapestOf(model);
      const q = Math.max(o.moq, int(2, 12) * 50);
      list.push({
        cls: 'cheapest-order',
        say: pick([
          `I need ${q} ${model}, cheapest supplier`,
          `要${q}个${model}，哪家便宜就从哪家买`,
          `${model} 订 ${q} 个，找最便宜的供应商`,
          `buy ${q} pcs of ${model} from whoever is cheapest`,
          `来${q}个${model}，挑最便宜的供应商`,
        ]),
        judge: (turn) =>
          orderedFrom(o, q)(turn) ??
          (JSON.stringify(writeDraft(turn)?.value.args).includes(`¥${o.price}`) ? undefined : 'price not stated'),
      });
    }
    // Which way a price went over the window said ("最近半年", "past 3 months"): the ERP's price history of that many
    // months, its first and last paid month, and the window named in the answer.
    for (let i = 0; i < 2; i++) {
      const o = pick(offers);
      const n = pick([3, 6]);
      const say = pick(
        n === 6
          ? [`${o.model}最近半年价格涨了还是跌了？`, `has the price of ${o.model} gone up over the last six months?`]
          : [`${o.model}过去三个月价格是涨是跌`, `did ${o.model} prices rise over the past 3 months?`],
      );
      list.push({
        cls: 'direction-window',
        say,
        judge: async (turn) => {
          const res = await fetch(`${stack.erpUrl}/parts/${o.partId}/price-history?months=${n}&by=product`, {
            headers,
          });
          const history = (await res.json()) as {
            series: Array<{ months: Array<{ month: string; avgUnitPrice: number; lines: number }> }>;
          };
          const paid = (history.series[0]?.months ?? []).filter((m) => m.lines > 0);
          const named = turn.answer.includes(`近 ${n} 个月`) || turn.answer.includes(`last ${n} months`);
          if (noWrite(turn) || !named)
            return noWrite(turn) || `window of ${n} months not named: ${turn.answer.slice(0, 160)}`;
          if (paid.length < 2)
            return /不足两个|fewer than two/.test(turn.answer) ? undefined : 'no "too little history"';
          const [first, last] = [paid[0], paid[paid.length - 1]];
          return [first, last].every((m) => turn.answer.includes(`${m.month} ${yuan(m.avgUnitPrice)}`))
            ? undefined
            : `expected ${first.month} → ${last.month}: ${turn.answer.slice(0, 160)}`;
        },
      });
    }
    // 4. A supplier's master data is refused with the reason: nothing drafted, nothing written.
    const before = await orderCount();
    for (let i = 0; i < 3; i++) {
      const s = pick(carried);
      const zh = shortZh(s.name_zh);
      const en = shortEn(s.name_en);
      list.push({
        cls: 'master-data',
        say: pick([
          `帮我把${zh}的评级改成${int(1, 5)}分`,
          `把${zh}的交期改成${int(3, 30)}天`,
          `${zh}的账期改为月结${pick([30, 60, 90])}天`,
          `把${zh}的联系人改成张三`,
          `change ${en}'s rating to ${int(1, 5)}`,
          `set ${en}'s lead time to ${int(3, 30)} days`,
          `update ${en}'s payment terms to net ${pick([30, 60, 90])}`,
        ]),
        judge: async (turn) =>
          noWrite(turn) ||
          (/主数据|master data/.test(turn.answer)
            ? undefined
            : `no master-data reason: ${turn.answer.slice(0, 120)}`) ||
          ((await orderCount()) >= before ? undefined : 'orders changed'),
      });
    }
    // 5. English: a Chinese supplier by its pinyin, a part by a fragment of its model.
    const spelled = (name: string) =>
      pinyin(shortZh(name), { toneType: 'none', type: 'array', nonZh: 'removed' }).join('');
    for (let i = 0; i < 3; i++) {
      const o = pick(
        offers.filter((x) => /^[\u3400-\u9fff]{2,}$/.test(shortZh(x.supplierZh)) && spelled(x.supplierZh).length >= 5),
      );
      const name = spelled(o.supplierZh);
      // A fragment of the model: a code-like piece (428H, HF204), or its leading number (the 520 chains).
      const piece =
        o.model.split(/[-/]/).find((p) => (/\d/.test(p) && /[A-Z]/i.test(p) && p.length >= 3) || /^\d{3,4}$/.test(p)) ??
        o.model;
      const q = Math.max(o.moq, int(2, 12) * 50);
      const word = o.category.replace(/_/g, ' ');
      const Name = name[0].toUpperCase() + name.slice(1);
      const say = pick([
        `order ${q} of the ${piece} ${word}s from ${Name} please`,
        `${Name}: ${q} pcs ${piece}`,
        `please get ${q} ${piece} ${word}s from ${Name}`,
      ]);
      list.push({
        cls: 'english-names',
        say,
        judge: (turn) => {
          // Several models of the kind said may share the fragment at this supplier: then asking which one is right
          // too (125 at Bosch is an air filter, a brake pad and a coil; "125 air filters" is one of them).
          const same = offers.filter(
            (x) =>
              x.supplierId === o.supplierId &&
              (x.category === o.category || !say.includes(word)) &&
              x.model.includes(piece),
          );
          if (same.length > 1)
            return turn.interrupts.some((x) => x.value.kind === 'ask_user') ? undefined : 'did not ask';
          return orderedFrom(o, q)(turn);
        },
      });
    }

    // 6. Stock of a category or a model, low or not: every part of it with what the ERP holds and has on order.
    const stock = await db
      .selectFrom('inventory')
      .innerJoin('parts', 'parts.id', 'inventory.part_id')
      .select(['parts.code', 'parts.model', 'parts.category', 'inventory.on_hand'])
      .where('inventory.project_id', '=', 'P001')
      .execute();
    for (let i = 0; i < 2; i++) {
      const c = pick(categories.filter((x) => stock.some((r) => r.category === x.code)));
      const byModel = random() < 0.5;
      const model = pick(stock.filter((r) => r.category === c.code)).model;
      const zh = byModel ? model : chineseWordFor(c);
      const en = byModel ? model : `${c.name_en.toLowerCase()}s`;
      const held = stock.filter((r) => r.category === c.code && (!byModel || r.model === model));
      list.push({
        cls: 'stock',
        say: pick([
          `${zh}的库存还有多少？`,
          `${zh}还剩多少库存`,
          `仓库里${zh}有多少`,
          `how many ${en} do we have in stock?`,
          `what is our stock of ${en}?`,
        ]),
        judge: (turn) => {
          const absent = held.filter(
            (r) => !new RegExp(`${r.code}[^\\n]*(?:现有|on hand) ${r.on_hand}\\b`).test(turn.answer),
          );
          return (
            noWrite(turn) ||
            (absent.length
              ? `no stock of ${absent.map((r) => r.code).join(', ')}: ${turn.answer.slice(0, 160)}`
              : undefined)
          );
        },
      });
    }
    // Suppliers within a rating or lead-time bound: exactly the ERP's suppliers within it, the filter said.
    {
      const byRating = random() < 0.5;
      const bound = byRating ? pick([4.3, 4.5, 4.6, 4.7]) : pick([7, 10, 14]);
      const within = suppliers.filter((s) => (byRating ? s.rating >= bound : s.lead_time_days <= bound));
      const outside = suppliers.filter((s) => !within.includes(s));
      list.push({
        cls: 'supplier-bound',
        say: byRating
          ? pick([
              `评分${bound}以上的供应商有哪些`,
              `评级不低于${bound}的供应商`,
              `which suppliers are rated at least ${bound}?`,
            ])
          : pick([
              `交期${bound}天以内的供应商有哪些`,
              `哪些供应商交货期在${bound}天以内`,
              `suppliers with a lead time within ${bound} days`,
            ]),
        judge: (turn) => {
          const listed = (s: (typeof suppliers)[number]) =>
            turn.answer.includes(s.name_zh) || turn.answer.includes(s.name_en);
          const missing = within.filter((s) => !listed(s));
          const extra = outside.filter(listed);
          return (
            noWrite(turn) ||
            (missing.length || extra.length
              ? `missing ${missing.map((s) => s.name_zh).join(', ')}; extra ${extra.map((s) => s.name_zh).join(', ')}`
              : undefined)
          );
        },
      });
    }
    // Orders of a category in a period: the ERP's orders with a line of it, counted, the category named as a filter.
    {
      const c = pick(categories);
      const p = pick(periods);
      const zh = chineseWordFor(c);
      const ids = await db
        .selectFrom('orders')
        .innerJoin('order_lines', 'order_lines.order_id', 'orders.id')
        .innerJoin('parts', 'parts.id', 'order_lines.part_id')
        .select('orders.id')
        .distinct()
        .where('orders.project_id', '=', 'P001')
        .where('parts.category', '=', c.code)
        .where('orders.created_at', '>=', p.from)
        .where('orders.created_at', '<', `${p.to}T99`)
        .execute();
      list.push({
        cls: 'lookup-category',
        say: pick([
          `${p.zh}${zh}的订单有哪些`,
          `${p.zh}下过${zh}的单吗`,
          `show me the ${c.name_en.toLowerCase()} orders ${p.en}`,
        ]),
        judge: (turn) =>
          noWrite(turn) ||
          (ids.length
            ? turn.answer.includes(`共 ${ids.length} 个`) || turn.answer.includes(`${ids.length} found`)
              ? undefined
              : `not ${ids.length} orders: ${turn.answer.slice(0, 160)}`
            : /没有找到|No orders/.test(turn.answer)
              ? undefined
              : `listed orders of none: ${turn.answer.slice(0, 160)}`),
      });
    }
    // The newest order of a supplier ("最近那张…的单子"): today's order is it.
    list.push({
      cls: 'cancel-newest',
      say: pick([
        `把最近那张${shortZh(todays.supplierZh)}的单子取消掉`,
        `取消${shortZh(todays.supplierZh)}最新的一单`,
        `cancel my latest ${shortEn(todays.supplierEn)} order`,
      ]),
      judge: (turn) => {
        const draft = writeDraft(turn)?.value;
        return draft?.tool === 'order_cancel' && (draft.args as { orderId: number }).orderId === todaysOrder
          ? undefined
          : `expected a cancel of order ${todaysOrder}, got ${JSON.stringify(draft?.args ?? turn.answer.slice(0, 160))}`;
      },
    });

    // Suppliers in a province or city ("哪些供应商在江苏", "suppliers based in Shanghai"): exactly the ERP's suppliers there.
    {
      const s = pick(suppliers);
      const byProvince = random() < 0.5;
      const zh = byProvince ? s.province : s.city;
      const en = pinyin(zh, { toneType: 'none', type: 'array' })
        .join('')
        .replace(/^./, (c) => c.toUpperCase());
      const there = suppliers.filter((x) => (byProvince ? x.province === zh : x.city === zh));
      const say = pick([`哪些供应商在${zh}`, `有没有在${zh}的供应商？`, `Which suppliers are based in ${en}?`]);
      const english = inEnglish(say);
      list.push({
        cls: 'supplier-place',
        say,
        judge: (turn) => {
          const name = (x: (typeof suppliers)[number]) => (english ? x.name_en : x.name_zh);
          const listed = suppliers.filter((x) => turn.answer.includes(`- ${name(x)}`));
          return (
            noWrite(turn) ||
            (JSON.stringify(listed.map((x) => x.id).sort()) === JSON.stringify(there.map((x) => x.id).sort())
              ? undefined
              : `expected ${there.map(name).join(', ')} in ${zh}: ${turn.answer.slice(0, 200)}`)
          );
        },
      });
    }
    // The cheapest item of a kind: the lowest ERP list price across every model of the category, named first.
    {
      const c = pick(categories);
      const low = Math.min(...offers.filter((o) => o.category === c.code).map((o) => o.price));
      const lowest = offers.filter((o) => o.category === c.code && o.price === low);
      const say = pick([
        `最便宜的${chineseWordFor(c)}是哪款？`,
        `What's the cheapest ${c.name_en.toLowerCase()} we can buy?`,
        `${chineseWordFor(c)}哪个型号最便宜`,
      ]);
      list.push({
        cls: 'cheapest-item',
        say,
        judge: (turn) => {
          const headline = turn.answer.split('\n')[0] ?? '';
          return (
            noWrite(turn) ||
            (lowest.every((o) => headline.includes(o.code)) && headline.includes(yuan(low))
              ? undefined
              : `expected ${lowest.map((o) => o.code).join(', ')} at ${yuan(low)} first: ${turn.answer.slice(0, 200)}`)
          );
        },
      });
    }
    // An order from "whichever is cheapest" of a kind with several models: the choice of models, each at its cheapest
    // offer — never the choice of suppliers.
    {
      const c = pick(
        categories.filter((x) => new Set(offers.filter((o) => o.category === x.code).map((o) => o.model)).size > 1),
      );
      const models = [...new Set(offers.filter((o) => o.category === c.code).map((o) => o.model))];
      const cheapestIds = models.map((m) => cheapestOf(m).partId).sort((a, b) => a - b);
      const q = int(2, 10) * 100;
      list.push({
        cls: 'cheapest-of-kind',
        say: pick([
          `我想要${q}个${chineseWordFor(c)}，哪家最便宜`,
          `${chineseWordFor(c)}要${q}个，找最便宜的`,
          `I need ${q} ${c.name_en.toLowerCase()}s, cheapest supplier`,
        ]),
        judge: (turn) => {
          const options = (turn.interrupts[0]?.value.options ?? []) as Array<{ value: string }>;
          const offered = options.map((o) => Number(o.value.replace('part:', ''))).sort((a, b) => a - b);
          return JSON.stringify(offered) === JSON.stringify(cheapestIds)
            ? undefined
            : `expected the cheapest offer of each of ${models.join(', ')}, got ${JSON.stringify(turn.interrupts[0]?.value ?? turn.answer.slice(0, 160))}`;
        },
      });
    }
    // What one supplier sells ("布雷博都卖哪些东西", "what does Brembo sell?"): every model the ERP lists for it.
    {
      const s = pick(carried);
      const say = pick([
        `${shortZh(s.name_zh)}都卖哪些东西`,
        `${shortZh(s.name_zh)}有什么产品`,
        `what does ${shortEn(s.name_en)} sell?`,
      ]);
      const models = [...new Set(offers.filter((o) => o.supplierId === s.id).map((o) => o.model))];
      list.push({
        cls: 'supplier-catalogue',
        say,
        judge: (turn) => {
          const missing = models.filter((m) => !turn.answer.includes(m));
          return (
            noWrite(turn) ||
            (missing.length ? `missing ${missing.join(', ')}: ${turn.answer.slice(0, 160)}` : undefined)
          );
        },
      });
    }
    // What one supplier's part costs: its ERP list price and MOQ, set against the paid prices — not a comparison.
    for (let i = 0; i < 2; i++) {
      const o = pick(offers);
      const say = pick([
        `${shortZh(o.supplierZh)}的${o.model}多少钱一个`,
        `${shortZh(o.supplierZh)}的${o.model}现在什么价？`,
        `what's ${shortEn(o.supplierEn)}'s price for ${o.model}?`,
        `how much is ${o.model} from ${shortEn(o.supplierEn)}?`,
      ]);
      list.push({
        cls: 'supplier-price',
        say,
        judge: (turn) =>
          noWrite(turn) ||
          (turn.answer.includes(o.code) &&
          turn.answer.includes(yuan(o.price)) &&
          (turn.answer.includes(`起订 ${o.moq}`) || turn.answer.includes(`MOQ ${o.moq}`)) &&
          !turn.toolCalls.some((t) => /运行分析代码|run analysis code/.test(t))
            ? undefined
            : `expected ${o.code} at ${yuan(o.price)} (MOQ ${o.moq}) alone: ${turn.answer.slice(0, 160)}`),
      });
    }
    // Cancelling a supplier's order named by its state ("把冠军那张待审批的单取消掉"): that order itself, or the choice of
    // exactly the supplier's orders in that state — never a list of them instead of the cancel.
    // An ordered order (not yet delivered) cancels too, as the ERP allows.
    const undelivered = random() < 0.5;
    const inState = await db
      .selectFrom('orders')
      .innerJoin('suppliers', 'suppliers.id', 'orders.supplier_id')
      .select(['orders.id', 'suppliers.name_zh', 'suppliers.name_en'])
      .where('orders.project_id', '=', 'P001')
      .where('orders.status', 'in', undelivered ? ['approved', 'ordered'] : ['pending_approval'])
      .where('orders.created_by', 'in', db.selectFrom('users').select('id').where('username', '=', 'laoxiao'))
      .execute();
    const withPending = pick(inState);
    const theirs = inState.filter((o) => o.name_zh === withPending.name_zh).map((o) => o.id);
    list.push({
      cls: 'cancel-by-state',
      say: undelivered
        ? pick([
            `把${shortZh(withPending.name_zh)}还没到货的那张单撤了`,
            `${shortZh(withPending.name_zh)}未到货的订单取消掉`,
            `cancel the ${shortEn(withPending.name_en)} order that is not yet delivered`,
          ])
        : pick([
            `帮我把${shortZh(withPending.name_zh)}那张待审批的单取消掉`,
            `${shortZh(withPending.name_zh)}还没审批的订单撤了吧`,
            `cancel the pending ${shortEn(withPending.name_en)} order`,
          ]),
      judge: (turn) => {
        const draft = writeDraft(turn)?.value;
        if (theirs.length === 1)
          return draft?.tool === 'order_cancel' && (draft.args as { orderId: number }).orderId === theirs[0]
            ? undefined
            : `expected a cancel of order ${theirs[0]}, got ${JSON.stringify(draft?.args ?? turn.answer.slice(0, 160))}`;
        const options = (turn.interrupts[0]?.value.options ?? []) as Array<{ value: string }>;
        const offered = options.map((o) => Number(o.value.replace('order:', ''))).sort((a, b) => a - b);
        return JSON.stringify(offered) === JSON.stringify([...theirs].sort((a, b) => a - b))
          ? undefined
          : `expected the choice of ${theirs.join(', ')}, got ${JSON.stringify(offered)}: ${turn.answer.slice(0, 160)}`;
      },
    });

    const h = stackHarness(stack);
    const { right, misses } = await scoreFresh(
      { name: 'questions', seed: SEED, bar: passBar(0.9) },
      list,
      async (c, i) => {
        const session = `questions-${SEED}-${i}`;
        let turn: TurnResult | undefined;
        for (const say of [c.say].flat()) turn = await h.send(h.contextFor('laoxiao', session), say);
        const why = await c.judge(turn as TurnResult);
        return why && `[${c.cls}] ${[c.say].flat().join(' ⟫ ')} — ${why}`;
      },
      2,
    );
    expect(right / list.length, misses.join('\n')).toBeGreaterThanOrEqual(passBar(0.9));
  }, 900_000);
});
