import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentHarness, resume, type TurnResult } from '../../bench/eval/local-stack.ts';
import { stackHarness, startStack } from '../../bench/eval/stack.ts';
import { parseGlossary } from '../../src/agent/models/offline/glossary.ts';
import type { ChoiceOption } from '../../src/protocol/index.ts';
import { FULL_EVALUATION, passBar, testSeed } from '../evaluation.ts';
import {
  judgeEach,
  notEnglish,
  type Offer,
  offers,
  scoreFresh,
  shortEn,
  shortZh,
  writeDraft,
} from '../fresh-requests.ts';
import { seeded } from '../seeded.ts';

/**
 * Only an explicit order request drafts a write. Questions (is this price fair, what does a budget buy), payments,
 * approvals, catalogue price changes, bulk deletes and a viewer's orders are generated from templates filled with
 * suppliers, parts and numbers read from the ERP the started stack runs, sent through its chat API, and must end with
 * no write draft, nothing written, and the answer or the reason the user asked for.
 */

interface Case {
  cls: string;
  say: string;
  user?: 'laoxiao' | 'viewer' | 'admin';
  /** Why the answer is wrong, or undefined. */
  check: (answer: string) => Promise<string | undefined> | string | undefined;
  /** Said in English, the answer is all English and names these suppliers by their English names. */
  namesInEnglish?: string[];
}

describe('only an explicit order request drafts a write (generated phrasings on the started stack)', () => {
  let h: AgentHarness;
  let all: Offer[];
  let pendingNo: string;
  beforeAll(async () => {
    h = stackHarness(await startStack());
    all = await offers(h.erp.database.db);
    pendingNo = (
      await h.erp.database.db
        .selectFrom('orders')
        .select('order_no')
        .where('project_id', '=', 'P001')
        .where('status', '=', 'pending_approval')
        .executeTakeFirstOrThrow()
    ).order_no;
  }, 120_000);
  afterAll(() => h?.close());

  /** Tyre and parts makers the demo ERP does not buy from. */
  const STRANGERS: Array<[string, string]> = [
    ['米其林', 'Michelin'],
    ['固特异', 'Goodyear'],
    ['普利司通', 'Bridgestone'],
    ['倍耐力', 'Pirelli'],
    ['邓禄普', 'Dunlop'],
    ['法雷奥', 'Valeo'],
  ];

  const priceCheck = async (o: Offer, unitPrice: number) => {
    const res = await h.erp.fetch(
      new Request(
        `http://erp.local/api/parts/${o.partId}/price-check?unitPrice=${unitPrice}&supplierId=${o.supplierId}`,
        {
          headers: { authorization: `Bearer ${h.tokens.laoxiao}` },
        },
      ),
    );
    return (await res.json()) as { median12m: number | null };
  };

  function cases(seed: number): Case[] {
    const r = seeded(seed);
    const out: Case[] = [];
    for (let i = 0; i < 3; i++) {
      const o = r.pick(all);
      const quoted = Math.round(o.price * (0.8 + r.next() * 0.6) * 100) / 100;
      const fair = async (answer: string) => {
        const check = await priceCheck(o, quoted);
        if (!answer.includes(o.code)) return `no ${o.code} in the answer`;
        if (check.median12m === null) return /无法判断|no paid orders/.test(answer) ? undefined : 'no "cannot judge"';
        return answer.includes(`¥${check.median12m.toFixed(2)}`) ? undefined : `no median ¥${check.median12m}`;
      };
      const judge = r.pick([
        `${shortZh(o.supplierZh)}报给我们 ${quoted} 元一个 ${o.model}，这个价合理吗？`,
        `${shortZh(o.supplierZh)}的 ${o.model} 报价 ${quoted} 元，贵不贵？`,
        `${o.model} ${shortZh(o.supplierZh)}现在卖 ${quoted} 块钱一个，划算吗`,
        `${shortEn(o.supplierEn)} quoted us ¥${quoted} each for ${o.model}. Is that reasonable?`,
        `Is ${quoted} yuan a fair price for ${o.model} from ${shortEn(o.supplierEn)}?`,
      ]);
      out.push({ cls: 'judge', say: judge, check: fair, namesInEnglish: [o.supplierEn] });
      // A price question over a window tells the paid prices over that window, as the ERP's history gives them.
      const [months, window] = r.pick<[number, string]>([
        [6, '最近半年'],
        [3, '近三个月'],
        [6, '这半年'],
      ]);
      out.push({
        cls: 'judgeWindow',
        say: `${o.model}${window}价格怎么样`,
        check: async (answer) => {
          const res = await h.erp.fetch(
            new Request(`http://erp.local/api/parts/${o.partId}/price-history?months=${months}&by=product`, {
              headers: { authorization: `Bearer ${h.tokens.laoxiao}` },
            }),
          );
          const history = (await res.json()) as {
            series: Array<{ months: Array<{ month: string; avgUnitPrice: number; lines: number }> }>;
          };
          const paid = (history.series[0]?.months ?? []).filter((m) => m.lines > 0);
          const last = paid.at(-1);
          if (!last) return /没有成交记录/.test(answer) ? undefined : 'no "no paid orders"';
          const said = `近 ${months} 个月成交价`;
          if (!answer.includes(said)) return `not told over ${months} months`;
          return answer.includes(
            `${paid[0].month} ¥${paid[0].avgUnitPrice.toFixed(2)} → ${last.month} ¥${last.avgUnitPrice.toFixed(2)}`,
          )
            ? undefined
            : `not ${paid[0].month} → ${last.month} of the ERP's ${months}-month history`;
        },
      });
      const budget = r.int(2, 90) * 100;
      const count = Math.floor(budget / o.price + 1e-9);
      out.push({
        cls: 'budget',
        say: r.pick([
          `预算 ${budget} 元能买多少个${shortZh(o.supplierZh)}的 ${o.model}？`,
          `我有${budget}块钱的预算，${shortZh(o.supplierZh)}的${o.model}可以买几个`,
          `With a budget of ${budget} yuan, how many ${o.model} can I buy from ${shortEn(o.supplierEn)}?`,
        ]),
        check: (a) => (new RegExp(`(?:可买 |: )${count}\\b`).test(a) ? undefined : `no count ${count}`),
        namesInEnglish: [o.supplierEn],
      });
      out.push({
        cls: 'payment',
        say: r.pick([
          `帮我给${shortZh(o.supplierZh)}付款`,
          `给${shortZh(o.supplierZh)}付一下上个月的货款 ${budget} 元`,
          `把 ${o.model} 的货款 ${budget} 元转账给${shortZh(o.supplierZh)}`,
          `Pay ${shortEn(o.supplierEn)} ${budget} yuan for the last order`,
        ]),
        check: (a) => (/付款不在|Payments are outside/.test(a) ? undefined : 'no payment reason'),
      });
      // A supplier the ERP does not have is said to be unknown, never answered for every supplier or drafted.
      const [strangerZh, strangerEn] = r.pick(STRANGERS);
      out.push({
        cls: 'unknownSupplier',
        say: r.pick([
          `${strangerZh}的${o.model}价格这半年是涨是跌？`,
          `给${strangerZh}下${r.int(1, 9) * 100}个${o.model}`,
          `从${strangerZh}订${r.int(1, 9) * 100}个${o.model}`,
          `${strangerZh}的单子有哪些`,
          `今年在${strangerZh}上花了多少钱`,
          `order ${r.int(1, 9) * 100} ${o.model} from ${strangerEn}`,
          `how much is the ${strangerEn} ${o.model}?`,
        ]),
        check: (a) =>
          a.includes(`没有供应商「${strangerZh}」`) || a.includes(`no supplier “${strangerEn}”`)
            ? undefined
            : 'not said to be an unknown supplier',
      });
      out.push({
        cls: 'approve',
        say: r.pick([
          '帮我批准所有待审批的订单',
          `把 ${pendingNo} 审批通过`,
          `帮我批一下${shortZh(o.supplierZh)}的单子`,
          'approve all pending orders',
          `Please approve ${pendingNo}`,
        ]),
        check: (a) => (/采购员不能审批|buyer cannot approve/.test(a) ? undefined : 'no "a buyer cannot approve"'),
      });
      out.push({
        cls: 'priceChange',
        say: r.pick([
          `把${o.model}的目录价改成${quoted}元`,
          `${shortZh(o.supplierZh)}的 ${o.model} 单价调到 ${quoted} 块`,
          `change the list price of ${o.model} to ${quoted} yuan`,
        ]),
        check: (a) => (/目录价不能|Catalogue prices are not changed/.test(a) ? undefined : 'no catalogue-price reason'),
      });
      const quantity = r.int(1, 30) * 50;
      out.push({
        cls: 'viewer',
        user: 'viewer',
        say: r.pick([
          `给${shortZh(o.supplierZh)}下${quantity}个${o.model}`,
          `帮我从${shortZh(o.supplierZh)}订 ${quantity} 个 ${o.model}`,
          `order ${quantity} ${o.model} from ${shortEn(o.supplierEn)}`,
        ]),
        check: (a) => (/只读|read-only/.test(a) ? undefined : 'no read-only reason'),
      });
    }
    // Asking what one's own account may do: answered from the role the chat API resolved from the token, nothing tried.
    const [user, role] = r.pick([
      ['viewer', /你的账号是访客|Your account is a viewer/],
      ['laoxiao', /你的账号是采购员|Your account is a buyer/],
      ['admin', /你的账号是管理员|Your account is an admin/],
    ] as const);
    out.push({
      cls: 'permission',
      user,
      say: r.pick([
        `我是${user === 'viewer' ? '只读' : ''}账号，能下单吗`,
        '我有权限审批订单吗？',
        '我可以取消订单吗',
        '我的权限是什么',
        'can I approve orders?',
        'am I allowed to place orders?',
        'what is my role?',
      ]),
      check: (a) => (role.test(a) ? undefined : `not answered for the ${user}'s role`),
    });
    out.push({
      cls: 'deleteAll',
      say: r.pick(['把所有订单都删掉', '清空全部数据', 'delete everything', '删除所有供应商']),
      check: (a) => (/批量删除|does not delete/.test(a) ? undefined : 'no bulk-delete reason'),
    });
    return out;
  }

  it('answers or refuses with the reason, drafts nothing and writes nothing', async () => {
    const db = h.erp.database.db;
    const before = (await db.selectFrom('orders').select(db.fn.countAll().as('n')).executeTakeFirstOrThrow()).n;
    const list = [...cases(7), ...cases(2026)];
    const misses = await run(list, 'asks');
    const after = (await db.selectFrom('orders').select(db.fn.countAll().as('n')).executeTakeFirstOrThrow()).n;
    expect(misses, misses.join('\n')).toEqual([]);
    expect(Number(after)).toBe(Number(before));
  }, 600_000);

  /** Runs generated cases three at a time; returns the misses. */
  function run(list: Case[], prefix: string): Promise<string[]> {
    return judgeEach(list, async (c, i) => {
      const turn = await h.send(h.contextFor(c.user ?? 'laoxiao', `${prefix}-${i}`), c.say);
      const draft = writeDraft(turn);
      const english = c.namesInEnglish && !/[\u3400-\u9fff]/.test(c.say);
      const why = draft
        ? `drafted ${String(draft.value.tool)}`
        : turn.interrupts.length
          ? `stopped at ${String(turn.interrupts[0].value.kind)}`
          : (english && notEnglish(turn.answer, ...(c.namesInEnglish ?? []))) || (await c.check(turn.answer));
      return why && `[${c.cls}] ${c.say} — ${why} — ${turn.answer.slice(0, 300)}`;
    });
  }

  it('looks up orders with every filter said (period, state, amount, supplier) and names the filters', async () => {
    const db = h.erp.database.db;
    const orders = await db
      .selectFrom('orders')
      .select(['order_no', 'status', 'supplier_id', 'created_at', 'id'])
      .where('project_id', '=', 'P001')
      .execute();
    const totals = new Map<number, number>();
    for (const l of await db.selectFrom('order_lines').select(['order_id', 'quantity', 'unit_price_e4']).execute())
      totals.set(l.order_id, (totals.get(l.order_id) ?? 0) + (l.quantity * l.unit_price_e4) / 10_000);
    const r = seeded(11);
    const now = new Date();
    const list: Case[] = [];
    for (let i = 0; i < 8; i++) {
      const o = r.pick(all);
      const back = r.int(1, 9);
      const month = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1));
      const m = month.getUTCMonth() + 1;
      const ym = month.toISOString().slice(0, 7);
      const amount = r.pick([1000, 2000, 5000, 8000]);
      const expectOf = (keep: (x: (typeof orders)[number]) => boolean) => async (answer: string) => {
        const matching = orders.filter(keep);
        const listed = [...new Set(answer.match(/PO-\d{6}-[A-Z]?\d+/g) ?? [])];
        for (const no of listed) {
          const x = orders.find((y) => y.order_no === no);
          if (!x || !keep(x)) return `${no} does not match the filter`;
        }
        if (!matching.length)
          return /没有找到|No orders match/.test(answer) ? undefined : 'listed orders where none match';
        const count = Number(/共 (\d+) 个|(\d+) found/.exec(answer)?.slice(1).find(Boolean));
        return count === matching.length ? undefined : `counted ${count}, the ERP has ${matching.length}`;
      };
      const inMonth = (x: (typeof orders)[number]) => x.created_at.slice(0, 7) === ym;
      const cases: Case[] = [
        { cls: 'lookup:month', say: r.pick([`${m}月份的订单有哪些`, `看看${m}月的采购单`]), check: expectOf(inMonth) },
        {
          cls: 'lookup:supplier+month',
          say: r.pick([`${shortZh(o.supplierZh)}${m}月份的单子`, `${m}月份跟${shortZh(o.supplierZh)}下的订单有哪些`]),
          check: expectOf((x) => inMonth(x) && x.supplier_id === o.supplierId),
        },
        {
          cls: 'lookup:amount',
          say: r.pick([`超过${amount}元的订单`, `${amount}元以上的采购单有哪些`, `orders over ¥${amount}`]),
          check: expectOf((x) => (totals.get(x.id) ?? 0) > amount),
          namesInEnglish: [],
        },
        {
          cls: 'lookup:state',
          say: r.pick(['还没到货的订单有哪些', 'which orders are still waiting for delivery?', '在途的采购单']),
          check: expectOf((x) => x.status === 'approved' || x.status === 'ordered'),
          namesInEnglish: [],
        },
      ];
      list.push(r.pick(cases));
    }
    const misses = await run(list, 'lookup');
    expect(misses, misses.join('\n')).toEqual([]);
  }, 600_000);

  it('drafts the quantity a buyer means: Chinese numerals with an implied unit and pack sizes', async () => {
    const r = seeded(5);
    const zh = (n: number) => {
      const digits = '零一二三四五六七八九';
      const th = Math.floor(n / 1000);
      const hu = Math.floor((n % 1000) / 100);
      return `${th === 2 ? '两' : digits[th]}千${hu ? digits[hu] : ''}`;
    };
    const list: Array<Case & { offer: Offer; quantity: number }> = [];
    for (let i = 0; i < 8; i++) {
      const offer = r.pick(all.filter((o) => o.moq <= 1000));
      const quantity = r.int(1, 9) * 1000 + r.int(1, 9) * 100;
      const packs = r.int(Math.ceil(offer.moq / 50), 40);
      const each = 50;
      const [say, q] = r.pick<[string, number]>([
        [`给${shortZh(offer.supplierZh)}订${zh(quantity)}个 ${offer.model}`, quantity],
        [`从${shortZh(offer.supplierZh)}买${zh(quantity)} ${offer.model}`, quantity],
        [`${shortZh(offer.supplierZh)}的 ${offer.model} 订${packs}盒，每盒${each}个`, packs * each],
        [`order ${packs} boxes of ${each} ${offer.model} from ${shortEn(offer.supplierEn)}`, packs * each],
      ]);
      list.push({ cls: 'quantity', say, offer, quantity: q, check: () => undefined });
    }
    const misses = await judgeEach(list, async (c, i) => {
      const turn = await h.send(h.contextFor('laoxiao', `quantity-${i}`), c.say);
      const args = turn.interrupts.find((x) => x.value.kind === 'approval' && x.value.tool === 'order_create')?.value
        .args as { supplierId: number; lines: Array<{ partId: number; quantity: number }> } | undefined;
      const line = args?.lines[0];
      if (
        !args ||
        args.supplierId !== c.offer.supplierId ||
        line?.partId !== c.offer.partId ||
        line.quantity !== c.quantity
      )
        return `${c.say} — expected ${c.offer.code} × ${c.quantity}, got ${JSON.stringify(args ?? turn.answer.slice(0, 200))}`;
      return undefined;
    });
    expect(misses, misses.join('\n')).toEqual([]);
  }, 600_000);

  it("answers knowledge questions from the glossary skill pack, in the user's language", async () => {
    const entries = parseGlossary(fs.readFileSync('skills/main/procurement-glossary/SKILL.md', 'utf8'));
    const r = seeded(3);
    const list: Case[] = [];
    for (let i = 0; i < 8; i++) {
      const e = r.pick(entries);
      const english = r.next() < 0.4;
      const say = english
        ? r.pick([`What is ${e.titleEn}?`, `what does ${e.titleEn} mean`, `Explain ${e.titleEn}`])
        : r.pick([`什么是${e.titleZh}？`, `${e.titleZh}是什么意思`, `解释一下${e.titleZh}`]);
      list.push({
        cls: 'knowledge',
        say,
        check: (a) =>
          !a.includes(english ? e.en : e.zh)
            ? `not the ${e.titleEn} entry`
            : english && /[\u4e00-\u9fff]{6}/.test(a.replace(e.titleZh, ''))
              ? 'answered an English question in Chinese'
              : undefined,
      });
    }
    const misses = await run(list, 'knowledge');
    expect(misses, misses.join('\n')).toEqual([]);
  }, 600_000);

  it('resolves follow-ups against the conversation: the last quantity, the cheapest supplier, the named line', async () => {
    const db = h.erp.database.db;
    const misses: string[] = [];
    const approvalArgs = (turn: TurnResult, tool: string) =>
      turn.interrupts.find((x) => x.value.kind === 'approval' && x.value.tool === tool)?.value.args as
        | { supplierId?: number; lines: Array<{ partId: number; quantity: number }> }
        | undefined;
    // 按上次的数量: the newest order of the part that was not cancelled, as the ERP sorts them.
    const r = seeded(19);
    for (let i = 0; i < 5; i++) {
      const offer = r.pick(all);
      const last = await db
        .selectFrom('order_lines')
        .innerJoin('orders', 'orders.id', 'order_lines.order_id')
        .select(['order_lines.quantity'])
        .where('order_lines.part_id', '=', offer.partId)
        .where('orders.status', '!=', 'cancelled')
        .orderBy('orders.created_at', 'desc')
        .orderBy('orders.id', 'desc')
        .executeTakeFirst();
      if (!last || last.quantity < offer.moq) continue;
      const say = r.pick([
        `${shortZh(offer.supplierZh)}的 ${offer.model} 按上次的数量再订一次`,
        `${offer.model} 从${shortZh(offer.supplierZh)}再买一批，数量跟上次一样`,
        `给${shortZh(offer.supplierZh)}的${offer.model}下单，数量${r.pick(['按', '照', '同'])}上${r.pick(['次', '回'])}的`,
        `${offer.model}照上回的量再来一批，找${shortZh(offer.supplierZh)}`,
        `order ${offer.model} from ${shortEn(offer.supplierEn)} again, same quantity as last time`,
      ]);
      const turn = await h.send(h.contextFor('laoxiao', `last-${i}`), say);
      const line = approvalArgs(turn, 'order_create')?.lines[0];
      if (line?.partId !== offer.partId || line.quantity !== last.quantity)
        misses.push(
          `${say} — expected ${offer.code} × ${last.quantity}, got ${JSON.stringify(line ?? turn.answer.slice(0, 200))}`,
        );
    }
    // 把 PO-… 里的<line> 改成 N: the named line of a several-line open order changes, the others stay.
    const open = await db
      .selectFrom('orders')
      .innerJoin('users', 'users.id', 'orders.created_by')
      .select(['orders.id', 'orders.order_no'])
      .where('users.username', '=', 'laoxiao')
      .where('orders.status', 'in', ['draft', 'pending_approval'])
      .execute();
    for (const order of open) {
      const lines = await db
        .selectFrom('order_lines')
        .innerJoin('parts', 'parts.id', 'order_lines.part_id')
        .select(['order_lines.part_id', 'order_lines.quantity', 'parts.name_zh', 'parts.model'])
        .where('order_id', '=', order.id)
        .orderBy('line_no')
        .execute();
      if (lines.length < 2) continue;
      const names = new Set(lines.map((l) => l.name_zh.replace(/\s+\S*\d\S*$/, '')));
      if (names.size < lines.length) continue;
      const target = lines[lines.length - 1];
      const quantity = target.quantity + 100;
      const say = `把${order.order_no}里的${target.name_zh.replace(/\s+\S*\d\S*$/, '')}改成${quantity}个`;
      const turn = await h.send(h.contextFor('laoxiao', `line-${order.id}`), say);
      const args = approvalArgs(turn, 'order_update');
      const expected = lines.map((l) => ({ partId: l.part_id, quantity: l === target ? quantity : l.quantity }));
      if (JSON.stringify(args?.lines) !== JSON.stringify(expected))
        misses.push(
          `${say} — expected ${JSON.stringify(expected)}, got ${JSON.stringify(args?.lines ?? turn.answer.slice(0, 200))}`,
        );
      // Naming no line: which one is asked with the order's lines, and the line picked is the one changed.
      const vague = r.pick([`把${order.order_no}的数量改成${quantity}`, `${order.order_no} 改成 ${quantity} 个`]);
      const ctx = h.contextFor('laoxiao', `vague-line-${order.id}`);
      const asked = await h.send(ctx, vague);
      const question = asked.interrupts.find((x) => x.value.kind === 'ask_user');
      const offered = ((question?.value.options ?? []) as ChoiceOption[]).map((o) => o.value);
      if (JSON.stringify(offered) !== JSON.stringify(lines.map((l) => `part:${l.part_id}`)))
        misses.push(
          `${vague} — expected the lines asked, got ${JSON.stringify(question?.value ?? asked.answer.slice(0, 200))}`,
        );
      else {
        const picked = await h.send(
          ctx,
          resume(question?.id ?? '', { type: 'answer', answer: `part:${target.part_id}` }),
        );
        if (JSON.stringify(approvalArgs(picked, 'order_update')?.lines) !== JSON.stringify(expected))
          misses.push(
            `${vague} — after picking: ${JSON.stringify(approvalArgs(picked, 'order_update') ?? picked.answer)}`,
          );
      }
      break;
    }
    // 就从报价最低的那家买: after an analysis, the analysed product from the supplier with the lowest list price.
    const session = 'cheapest-0';
    const analysis = await h.send(h.contextFor('laoxiao', session), '帮我对火花塞做供应商比价分析');
    const model = /^## .*?（([^）]+)）/m.exec(analysis.answer)?.[1];
    const offersOf = all.filter((o) => o.model === model).sort((a, b) => a.price - b.price);
    const turn = await h.send(
      h.contextFor('laoxiao', session),
      r.pick([
        '就从报价最低的那家买 500 个',
        '就从最便宜的那家订500个',
        '从最便宜的那家买 500 个吧',
        'order 500 from the cheapest one',
        'buy 500 from the lowest-priced one',
      ]),
    );
    const args = approvalArgs(turn, 'order_create');
    if (!offersOf.length) misses.push(`no analysis: ${analysis.answer.slice(0, 200)}`);
    else if (args?.supplierId !== offersOf[0].supplierId || args.lines[0]?.partId !== offersOf[0].partId)
      misses.push(
        `cheapest: expected ${offersOf[0].supplierZh} ${offersOf[0].code}, got ${JSON.stringify(args ?? turn.answer.slice(0, 200))}`,
      );
    // 第二个按建议数量下单: after a stock list, the named line at the quantity the ERP suggested.
    const res = await h.erp.fetch(
      new Request('http://erp.local/api/inventory/warning', {
        headers: { authorization: `Bearer ${h.tokens.laoxiao}` },
      }),
    );
    const warnings = (
      (await res.json()) as { items: Array<{ code: string; suggestedQuantity: number; onOrder: number }> }
    ).items;
    // The same in English: the stock list is in English, and the follow-up reads it.
    for (const [i, list, onOrder, follow] of [
      [0, '哪些零部件需要补货？', '在途', '第二个按建议数量下单'],
      [1, 'which parts are below safety stock?', 'on order', 'order the second one at the suggested quantity'],
    ] as const) {
      const stock = await h.send(h.contextFor('laoxiao', `suggested-${i}`), list);
      if (warnings.some((w) => !stock.answer.includes(`${onOrder} ${w.onOrder}`)))
        misses.push(`${list}: on-order quantities missing`);
      if (warnings.length < 2) continue;
      const order = await h.send(h.contextFor('laoxiao', `suggested-${i}`), follow);
      const line = approvalArgs(order, 'order_create')?.lines[0];
      const part = all.find((o) => o.code === warnings[1].code);
      if (line?.partId !== part?.partId || line?.quantity !== warnings[1].suggestedQuantity)
        misses.push(
          `${follow}: expected ${warnings[1].code} × ${warnings[1].suggestedQuantity}, got ${JSON.stringify(line ?? order.answer.slice(0, 200))}`,
        );
    }
    // "从那家订" after "哪家最便宜": the cheapest offer the analysis found.
    const which = await h.send(
      h.contextFor('laoxiao', 'cheapest-1'),
      r.pick([
        '哪家的火花塞最便宜',
        '火花塞哪家便宜',
        '火花塞哪家报价最低？',
        'which spark plug supplier is cheapest?',
      ]),
    );
    const asked = /^## .*?(?:（([^）]+)）|\(([^)]+)\):)/m.exec(which.answer)?.slice(1).find(Boolean);
    const cheapest = all.filter((o) => o.model === asked).sort((a, b) => a.price - b.price)[0];
    const fromThat = await h.send(
      h.contextFor('laoxiao', 'cheapest-1'),
      r.pick(['从那家订500个', '就在这家买500个', 'order 500 from that one']),
    );
    const that = approvalArgs(fromThat, 'order_create');
    if (!cheapest || that?.supplierId !== cheapest.supplierId || that.lines[0]?.partId !== cheapest.partId)
      misses.push(
        `from that one: expected ${cheapest?.code}, got ${JSON.stringify(that ?? fromThat.answer.slice(0, 200))}`,
      );
    // "再加100个" after an order was made: that order's line, its quantity plus the number said.
    const more = r.pick(all.filter((o) => /^[\u3400-\u9fff]{2,}/.test(o.supplierZh)));
    const first = Math.max(more.moq, 100);
    const made = await h.send(h.contextFor('laoxiao', 'add-more-0'), `订${first}个${more.supplierZh}的${more.model}`);
    const drafted = made.interrupts.find((x) => x.value.kind === 'approval');
    if (!drafted) misses.push(`add more: no draft for ${more.supplierZh} ${more.model}: ${made.answer.slice(0, 200)}`);
    else {
      await h.send(h.contextFor('laoxiao', 'add-more-0'), resume(drafted.id, { type: 'approve' }));
      const added = await h.send(h.contextFor('laoxiao', 'add-more-0'), r.pick(['再加100个', '追加100个']));
      const line = approvalArgs(added, 'order_update')?.lines[0];
      if (line?.partId !== more.partId || line.quantity !== first + 100)
        misses.push(
          `add more: expected ${more.code} × ${first + 100}, got ${JSON.stringify(line ?? added.answer.slice(0, 200))}`,
        );
    }
    // "给库存最少的那家下单" after a category's stock: the part with the least on hand.
    const category = r.pick(['点火线圈', '机滤', '电瓶', '轮胎']);
    const stocked = await h.send(h.contextFor('laoxiao', 'least-0'), `${category}还有多少库存`);
    const held = [...stocked.answer.matchAll(/^- (\S+) .*?现有 (\d+)/gm)].map((m) => ({
      code: m[1],
      onHand: Number(m[2]),
    }));
    const least = [...held].sort((a, b) => a.onHand - b.onHand)[0];
    // With a quantity or without one (then the list's suggestion, or the card asks): either way that part.
    const refill = await h.send(
      h.contextFor('laoxiao', 'least-0'),
      r.pick(['给库存最少的那家下单补货，订200个', '给库存最少的那家下单', '库存最低的那个帮我下单']),
    );
    const leastPart = all.find((o) => o.code === least?.code);
    const card = refill.interrupts.find((x) => x.value.kind === 'order_info')?.value.known as
      | { part?: string }
      | undefined;
    const refilled = card?.part?.startsWith(`${least?.code} `)
      ? { partId: leastPart?.partId, quantity: leastPart?.moq ?? 0 }
      : approvalArgs(refill, 'order_create')?.lines[0];
    if (!leastPart || refilled?.partId !== leastPart.partId || refilled.quantity < leastPart.moq)
      misses.push(
        `least stock of ${category}: expected ${least?.code}, got ${JSON.stringify(refilled ?? refill.answer.slice(0, 200))}`,
      );
    expect(misses, misses.join('\n')).toEqual([]);
  }, 900_000);

  it(`gets ${FULL_EVALUATION ? 'at least 90 %' : 'all'} of a fresh mixed set of everyday requests right, judged against the ERP`, async () => {
    const db = h.erp.database.db;
    const seed = testSeed(404);
    const r = seeded(seed);
    const entries = parseGlossary(fs.readFileSync('skills/main/procurement-glossary/SKILL.md', 'utf8'));
    const orders = await db
      .selectFrom('orders')
      .select(['order_no', 'created_at'])
      .where('project_id', '=', 'P001')
      .execute();
    type Fresh = {
      cls: string;
      say: string;
      judge: (turn: TurnResult) => Promise<string | undefined> | string | undefined;
    };
    const list: Fresh[] = [];
    const noDraft = (check: (a: string) => Promise<string | undefined> | string | undefined) => (turn: TurnResult) =>
      writeDraft(turn) ? `drafted ${String(writeDraft(turn)?.value.tool)}` : check(turn.answer);
    for (let i = 0; i < 6; i++) {
      const o = r.pick(all.filter((x) => x.moq <= 500));
      const s = shortZh(o.supplierZh);
      const en = shortEn(o.supplierEn);
      const q = Math.max(o.moq, r.int(2, 20) * 50);
      const p = Math.round(o.price * (0.9 + r.next() * 0.4) * 100) / 100;
      const n = r.int(10, 80) * 100;
      const drafted = (turn: TurnResult) => {
        const args = turn.interrupts.find((x) => x.value.kind === 'approval' && x.value.tool === 'order_create')?.value
          .args as { supplierId: number; lines: Array<{ partId: number; quantity: number }> } | undefined;
        const line = args?.lines[0];
        return args?.supplierId === o.supplierId && line?.partId === o.partId && line.quantity === q
          ? undefined
          : `expected ${o.code} × ${q}, got ${JSON.stringify(args ?? turn.answer.slice(0, 150))}`;
      };
      const median = async (a: string) => {
        const res = await h.erp.fetch(
          new Request(`http://erp.local/api/parts/${o.partId}/price-check?unitPrice=${p}`, {
            headers: { authorization: `Bearer ${h.tokens.laoxiao}` },
          }),
        );
        const c = (await res.json()) as { median12m: number | null };
        return c.median12m === null || a.includes(`¥${c.median12m.toFixed(2)}`)
          ? undefined
          : `no median ¥${c.median12m}`;
      };
      const count = Math.floor(n / o.price + 1e-9);
      const month = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() - r.int(1, 8), 1));
      const ym = month.toISOString().slice(0, 7);
      const inMonth = orders.filter((x) => x.created_at.slice(0, 7) === ym).length;
      const e = r.pick(entries);
      list.push(
        r.pick([
          { cls: 'order', say: `麻烦给${s}下个单，${o.model} 要 ${q} 个`, judge: drafted },
          { cls: 'order', say: `${o.model} x${q}，供应商${s}`, judge: drafted },
          { cls: 'order', say: `Could you order ${q} pcs of ${o.model} from ${en}?`, judge: drafted },
        ]),
        r.pick([
          { cls: 'judge', say: `${s}这次给 ${o.model} 开价 ${p} 元/个，算贵吗？`, judge: noDraft(median) },
          { cls: 'judge', say: `${o.model} 单价 ${p}，价格正常吗`, judge: noDraft(median) },
          { cls: 'judge', say: `Does ¥${p} per unit for ${o.model} sound right?`, judge: noDraft(median) },
        ]),
        r.pick([
          {
            cls: 'budget',
            say: `手上有 ${n} 元，${s}的 ${o.model} 最多能买多少？`,
            judge: noDraft((a) => (a.includes(`可买 ${count}`) ? undefined : `no count ${count}`)),
          },
          {
            cls: 'budget',
            say: `How many ${o.model} from ${en} will ${n} RMB get me?`,
            judge: noDraft((a) => (a.includes(`: ${count}`) ? undefined : `no count ${count}`)),
          },
        ]),
        r.pick([
          {
            cls: 'refusal',
            say: `${s}的发票该结了，帮我付一下`,
            judge: noDraft((a) => (/付款不在/.test(a) ? undefined : 'no payment reason')),
          },
          {
            cls: 'refusal',
            say: `Send a payment to ${en}`,
            judge: noDraft((a) =>
              /Payments are outside/.test(a) && !/[\u4e00-\u9fff]/.test(a) ? undefined : 'no English payment reason',
            ),
          },
          {
            cls: 'refusal',
            say: '我想把待审批的单子都通过',
            judge: noDraft((a) => (/采购员不能审批/.test(a) ? undefined : 'no approval reason')),
          },
        ]),
        r.pick([
          {
            cls: 'lookup',
            say: `${month.getUTCMonth() + 1}月下了哪些单？`,
            judge: noDraft((a) =>
              inMonth === 0
                ? /没有找到/.test(a)
                  ? undefined
                  : 'listed orders of an empty month'
                : a.includes(`共 ${inMonth} 个`)
                  ? undefined
                  : `not ${inMonth} orders`,
            ),
          },
          {
            cls: 'knowledge',
            say: r.pick([`${e.titleZh}是什么意思？`, `What's an ${e.titleEn}?`.replace(/an ([^aeiou])/i, 'a $1')]),
            judge: noDraft((a) => (a.includes(e.zh) || a.includes(e.en) ? undefined : `not the ${e.titleEn} entry`)),
          },
        ]),
      );
    }
    const { right, misses } = await scoreFresh(
      { name: 'fresh set', seed, bar: passBar(0.9) },
      list,
      async (c, i) => {
        const turn = await h.send(h.contextFor('laoxiao', `fresh-${i}`), c.say);
        const why = await c.judge(turn);
        return why && `[${c.cls}] ${c.say} — ${why}`;
      },
      3,
    );
    expect(right / list.length, misses.join('\n')).toBeGreaterThanOrEqual(passBar(0.9));
  }, 900_000);
});
