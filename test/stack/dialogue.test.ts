import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentHarness, resume, type TurnResult } from '../../bench/eval/local-stack.ts';
import { stackHarness, startStack } from '../../bench/eval/stack.ts';
import { notEnglish, type Offer, offers, scoreFresh, shortEn, shortZh } from '../fresh-requests.ts';
import { seeded } from '../seeded.ts';

/**
 * Conversations of the classes the offline model holds a dialogue by, generated from the suppliers, parts, categories
 * and orders of the started stack's ERP with a fixed seed, in Chinese and English, and judged against that ERP after
 * every turn: what the answer says, which card it shows, and what was written.
 */

const inEnglish = (say: string) => !/[\u3400-\u9fff]/.test(say);
const approval = (turn: TurnResult) => turn.interrupts.find((i) => i.value.kind === 'approval');
const orderNumbers = (text: string) => [...new Set(text.match(/PO-\d{6}-[A-Z]?\d+/g) ?? [])];

/** A state a reference names a listed order by, in Chinese and English, with the ERP states it means. */
const STATES: Array<{ states: string[]; zh: string; en: string }> = [
  { states: ['pending_approval'], zh: '还没审批的', en: 'still waiting for approval' },
  { states: ['pending_approval'], zh: '待审批的', en: 'pending' },
  { states: ['approved'], zh: '已审批的', en: 'approved' },
  { states: ['draft'], zh: '草稿', en: 'draft' },
];

describe('the offline model holds a conversation (generated on the started stack)', () => {
  let h: AgentHarness;
  let all: Offer[];
  let categories: Array<{ code: string; name_zh: string; name_en: string }>;
  const orderCount = async () =>
    Number(
      (
        await h.erp.database.db
          .selectFrom('orders')
          .select(h.erp.database.db.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  beforeAll(async () => {
    h = stackHarness(await startStack());
    all = await offers(h.erp.database.db);
    categories = (
      await h.erp.database.db.selectFrom('categories').selectAll().where('project_id', '=', 'P001').execute()
    ).filter((c) => all.some((o) => o.category === c.code));
  }, 120_000);
  afterAll(() => h?.close());

  it('answers a question about earlier orders and never drafts a write, whatever verbs it holds', async () => {
    const r = seeded(36);
    const list: Array<{ cls: string; say: string }> = [];
    for (let i = 0; i < 14; i++) {
      const o = r.pick(all);
      const s = shortZh(o.supplierZh);
      const en = shortEn(o.supplierEn);
      const c = categories.find((x) => x.code === o.category);
      const kindZh = c?.name_zh ?? o.nameZh;
      const kindEn = (c?.name_en ?? o.nameEn).toLowerCase();
      const [v, done] = r.pick<[string, string]>([
        ['buy', 'bought'],
        ['order', 'ordered'],
        ['purchase', 'purchased'],
      ]);
      const zv = r.pick(['买', '订', '采购', '进']);
      const unit = r.pick(['个', '箱', '盒', '件']);
      list.push(
        {
          cls: 'zh',
          say: r.pick([
            `上回${zv}了几${unit}${o.model}？`,
            `这种${kindZh}以前都找谁${zv}？`,
            `${o.model}我们一般从哪家${zv}？`,
            `之前有没有从${s}${zv}过${kindZh}？`,
            `上次从${s}${zv}了多少${unit}${o.model}？`,
            `是不是一直从${s}${zv}${kindZh}？`,
            `${kindZh}以前都是在哪家${zv}的？`,
            `上回${zv}了几${unit}？`,
          ]),
        },
        {
          cls: 'en',
          say: r.pick([
            `do we usually ${v} these from ${en}?`,
            `Do we normally ${v} ${kindEn} from ${en}?`,
            `how many did we ${v} last time?`,
            `How many ${o.model} did we ${v} last time?`,
            `did we ${v} ${o.model} from ${en} last month?`,
            `who do we usually ${v} ${kindEn} from?`,
            `have we ever ${done} ${o.model} from ${en}?`,
            `What did we ${v} from ${en} last time?`,
          ]),
        },
      );
    }
    const before = await orderCount();
    const { right, misses } = await scoreFresh(
      { name: 'questions about earlier orders', seed: 36, bar: 1 },
      list,
      async (c, i) => {
        const turn = await h.send(h.contextFor('laoxiao', `past-question-${i}`), c.say);
        // No card at all: an approval card drafts a write, and an order-info card is the way to one.
        const card = turn.interrupts[0];
        const why = card
          ? `showed a ${String(card.value.kind)} card ${String(card.value.tool ?? '')}`
          : turn.error
            ? `failed: ${turn.error}`
            : !/PO-\d{6}-|没有找到|No orders/.test(turn.answer)
              ? `no orders or "none found": ${turn.answer.slice(0, 160)}`
              : inEnglish(c.say)
                ? notEnglish(turn.answer)
                : undefined;
        return why && `[${c.cls}] ${c.say} — ${why}`;
      },
      3,
    );
    expect(await orderCount()).toBe(before);
    expect(misses, misses.join('\n')).toEqual([]);
    expect(right).toBe(list.length);
  }, 900_000);

  it('resolves a reference over a list of orders against its rows and states, never its first row', async () => {
    const db = h.erp.database.db;
    const r = seeded(3602);
    const orders = await db
      .selectFrom('orders')
      .innerJoin('suppliers', 'suppliers.id', 'orders.supplier_id')
      .select(['orders.id', 'orders.order_no', 'orders.status', 'suppliers.name_zh', 'suppliers.name_en'])
      .where('orders.project_id', '=', 'P001')
      .execute();
    const byNo = new Map(orders.map((o) => [o.order_no, o]));
    const statuses = async () =>
      JSON.stringify(await db.selectFrom('orders').select(['id', 'status']).orderBy('id').execute());
    // Suppliers with an order in a state a reference can name: their lists hold a row to point at.
    const named = [
      ...new Set(orders.filter((o) => STATES.some((st) => st.states.includes(o.status))).map((o) => o.name_zh)),
    ];
    type Talk = {
      cls: string;
      english: boolean;
      list: string;
      refer: (st: (typeof STATES)[number]) => string;
      cancels: boolean;
    };
    const talks: Talk[] = [];
    for (let i = 0; i < 12; i++) {
      const supplier = orders.find((o) => o.name_zh === r.pick(named));
      const english = i % 2 === 1;
      const list = english
        ? r.pick([
            'show me the recent orders',
            `show ${shortEn(supplier?.name_en ?? '')} orders`,
            'list the latest purchase orders',
          ])
        : r.pick(['看看最近的订单', `${shortZh(supplier?.name_zh ?? '')}的订单有哪些`, '列一下最近的采购单']);
      const [cls, refer, cancels] = r.pick<[string, Talk['refer'], boolean]>(
        english
          ? [
              [
                'cancel',
                (st) =>
                  `cancel the one ${st.en === 'pending' || st.en === 'still waiting for approval' ? st.en : `that is ${st.en}`}`,
                true,
              ],
              ['cancel', (st) => `please cancel the ${st.en} one`, true],
              ['who', (st) => `who is the ${st.en} one from?`, false],
            ]
          : [
              ['cancel', (st) => `把${st.zh}那张取消`, true],
              ['cancel', (st) => `${st.zh}那张不要了，取消掉`, true],
              ['who', (st) => `${st.zh}那张是谁家的？`, false],
            ],
      );
      talks.push({ cls: `${cls}-${english ? 'en' : 'zh'}`, english, list, refer, cancels });
    }
    const { right, misses } = await scoreFresh(
      { name: 'references over a list', seed: 3602, bar: 1 },
      talks,
      async (t, i) => {
        const ctx = h.contextFor('laoxiao', `list-reference-${i}`);
        const first = await h.send(ctx, t.list);
        const listed = orderNumbers(first.answer).filter((no) => byNo.has(no));
        if (!listed.length) return `[${t.cls}] ${t.list} — listed no order: ${first.answer.slice(0, 160)}`;
        // The state said is one some listed row is in.
        const fits = STATES.filter((x) => listed.some((no) => x.states.includes(byNo.get(no)?.status ?? '')));
        const st = fits[i % Math.max(fits.length, 1)];
        if (!st) return undefined;
        const say = t.refer(st);
        const meant = listed.map((no) => byNo.get(no)).filter((o) => o && st.states.includes(o.status));
        const before = await statuses();
        const turn = await h.send(ctx, say);
        const why = (() => {
          const card = approval(turn);
          if (card && (card.value.tool !== 'order_cancel' || meant.length !== 1))
            return `drafted ${String(card.value.tool)} ${JSON.stringify(card.value.args)} with ${meant.length} rows meant`;
          if (card && (card.value.args as { orderId: number }).orderId !== meant[0]?.id)
            return `cancel card for order ${JSON.stringify(card.value.args)}, meant ${meant[0]?.order_no}`;
          if (!t.cancels) {
            if (turn.interrupts.length) return `showed a ${String(turn.interrupts[0].value.kind)} card for a question`;
            const missing = meant.filter(
              (o) => o && !turn.answer.includes(t.english ? shortEn(o.name_en) : shortZh(o.name_zh)),
            );
            return missing.length
              ? `did not name ${missing.map((o) => o?.order_no).join(', ')}'s supplier: ${turn.answer.slice(0, 200)}`
              : undefined;
          }
          if (meant.length > 1) {
            const options = (turn.interrupts.find((x) => x.value.kind === 'ask_user')?.value.options ?? []) as Array<{
              label: string;
            }>;
            const offered = meant.filter((o) => options.some((op) => op.label.includes(o?.order_no ?? '?')));
            return offered.length === meant.length
              ? undefined
              : `expected a choice of ${meant.map((o) => o?.order_no).join(', ')}, got ${JSON.stringify(options.map((op) => op.label))} ${turn.answer.slice(0, 160)}`;
          }
          // One row meant: its cancel card, or the ERP's reason it may not (four eyes), naming that order.
          return card || turn.answer.includes(meant[0]?.order_no ?? '?')
            ? undefined
            : `no cancel of ${meant[0]?.order_no}: ${turn.answer.slice(0, 200)}`;
        })();
        const written = (await statuses()) !== before ? 'an order changed before any approval' : undefined;
        const language = t.english && turn.answer ? notEnglish(turn.answer) : undefined;
        const miss = why ?? written ?? language;
        return miss && `[${t.cls}] ${t.list} → ${say} — ${miss}`;
      },
      3,
    );
    expect(misses, misses.join('\n')).toEqual([]);
    expect(right).toBe(talks.length);
  }, 900_000);

  it('replaces the slot a correction names and keeps the rest of the request', async () => {
    const r = seeded(3603);
    // Models two suppliers carry: a correction of the supplier names one that has the part too.
    const shared = all.filter((o) => all.some((x) => x.model === o.model && x.supplierId !== o.supplierId));
    type Created = { supplierId: number; lines: Array<{ partId: number; quantity: number }> };
    const created = (turn: TurnResult) => {
      const card = approval(turn);
      return card?.value.tool === 'order_create' ? (card.value.args as Created) : undefined;
    };
    const talks: Array<{ cls: string; draft: string; correct: string; expect: { offer: Offer; quantity: number } }> =
      [];
    for (let i = 0; i < 10; i++) {
      const o = r.pick(shared);
      const y = r.pick(all.filter((x) => x.model === o.model && x.supplierId !== o.supplierId));
      const q = Math.max(o.moq, y.moq, r.int(2, 12) * 50);
      const q2 = q + r.int(1, 6) * 50;
      const english = i % 2 === 1;
      const draft = english
        ? `order ${q} ${o.model} from ${shortEn(o.supplierEn)}`
        : `给${shortZh(o.supplierZh)}下 ${q} 个 ${o.model}`;
      const [cls, correct, expect] = r.pick<[string, string, { offer: Offer; quantity: number }]>(
        english
          ? [
              ['supplier-en', `no wait, make it ${shortEn(y.supplierEn)}`, { offer: y, quantity: q }],
              ['supplier-en', `not ${shortEn(o.supplierEn)}, ${shortEn(y.supplierEn)}`, { offer: y, quantity: q }],
              ['supplier-en', `sorry, I meant ${shortEn(y.supplierEn)}`, { offer: y, quantity: q }],
              ['quantity-en', `no wait, make it ${q2}`, { offer: o, quantity: q2 }],
            ]
          : [
              ['supplier-zh', `不是${shortZh(o.supplierZh)}，是${shortZh(y.supplierZh)}`, { offer: y, quantity: q }],
              ['supplier-zh', `换成${shortZh(y.supplierZh)}`, { offer: y, quantity: q }],
              [
                'supplier-zh',
                `不对，不要${shortZh(o.supplierZh)}，要${shortZh(y.supplierZh)}的`,
                { offer: y, quantity: q },
              ],
              ['quantity-zh', `不是${q}个，是${q2}个`, { offer: o, quantity: q2 }],
            ],
      );
      talks.push({ cls, draft, correct, expect });
    }
    const before = await orderCount();
    const { right, misses } = await scoreFresh(
      { name: 'corrections', seed: 3603, bar: 1 },
      talks,
      async (t, i) => {
        const ctx = h.contextFor('laoxiao', `correction-${i}`);
        const first = await h.send(ctx, t.draft);
        const card = approval(first);
        if (!card || !created(first)) return `[${t.cls}] ${t.draft} — no draft: ${first.answer.slice(0, 160)}`;
        await h.send(ctx, resume(card.id, { type: 'reject', reason: 'wrong' }));
        const turn = await h.send(ctx, t.correct);
        const args = created(turn);
        const line = args?.lines[0];
        const right =
          args?.supplierId === t.expect.offer.supplierId &&
          args.lines.length === 1 &&
          line?.partId === t.expect.offer.partId &&
          line.quantity === t.expect.quantity;
        const why = right
          ? inEnglish(t.correct) && turn.answer
            ? notEnglish(turn.answer)
            : undefined
          : `expected ${t.expect.offer.code} of ${t.expect.offer.supplierEn} × ${t.expect.quantity}, got ${JSON.stringify(args ?? turn.interrupts[0]?.value ?? turn.answer.slice(0, 200))}`;
        return why && `[${t.cls}] ${t.draft} → ${t.correct} — ${why}`;
      },
      3,
    );
    expect(await orderCount()).toBe(before);
    expect(misses, misses.join('\n')).toEqual([]);
    expect(right).toBe(talks.length);
  }, 900_000);
});
