import { pinyin } from 'pinyin-pro';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentHarness, resume, type TurnResult } from '../../bench/eval/local-stack.ts';
import { stackHarness, startStack } from '../../bench/eval/stack.ts';
import { passBar, testSeed } from '../evaluation.ts';
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

/** A Chinese numeral as buyers write a quantity or a count: 200 → 两百, 150 → 一百五十, 50 → 五十, 3 → 三. */
function zhNumber(n: number): string {
  const digits = '零一二三四五六七八九';
  const [thousands, hundreds, tens, units] = [
    Math.floor(n / 1000),
    Math.floor(n / 100) % 10,
    Math.floor(n / 10) % 10,
    n % 10,
  ];
  const head = (d: number) => (d === 2 ? '两' : digits[d]);
  if (n < 10) return head(n);
  return [
    thousands ? `${head(thousands)}千` : '',
    hundreds ? `${head(hundreds)}百` : thousands && (tens || units) ? '零' : '',
    tens ? `${tens === 1 && n < 100 ? '' : digits[tens]}十` : hundreds && units ? '零' : '',
    units ? digits[units] : '',
  ].join('');
}

/**
 * Regions as buyers name them, judged by the ERP's own supplier provinces and cities: the seven geographic regions
 * and the deltas as commonly drawn.
 */
const REGIONS: Array<{ zh: string; en: string; provinces?: string[]; cities?: string[] }> = [
  { zh: '华东', en: 'East China', provinces: ['上海', '江苏', '浙江', '安徽', '福建', '江西', '山东'] },
  { zh: '华南', en: 'South China', provinces: ['广东', '广西', '海南'] },
  { zh: '华北', en: 'North China', provinces: ['北京', '天津', '河北', '山西', '内蒙古'] },
  { zh: '华中', en: 'Central China', provinces: ['河南', '湖北', '湖南'] },
  { zh: '长三角', en: 'Yangtze River Delta', provinces: ['上海', '江苏', '浙江', '安徽'] },
  {
    zh: '珠三角',
    en: 'Pearl River Delta',
    cities: ['广州', '深圳', '珠海', '佛山', '惠州', '东莞', '中山', '江门', '肇庆'],
  },
];

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

  it('drafts one order per supplier with all its lines, asking only for a line left open', async () => {
    const db = h.erp.database.db;
    const seed = testSeed(3604);
    const r = seeded(seed);
    // Parts named by a model of letters and digits that their supplier sells once: a line names exactly one offer.
    const coded = all.filter(
      (o) =>
        /[A-Z]/.test(o.model) && all.filter((x) => x.supplierId === o.supplierId && x.model === o.model).length === 1,
    );
    const sellers = (o: Offer) => all.filter((x) => x.model === o.model);
    const quantity = (o: Offer) => Math.max(o.moq, r.int(2, 8) * 50);
    type Line = { offer: Offer; quantity: number };
    type Talk = { cls: string; say: string; lines: Line[]; open?: number };
    const talks: Talk[] = [];
    for (let i = 0; i < 12; i++) {
      const english = i % 2 === 1;
      const kind = ['one-supplier', 'two-suppliers', 'open-line'][Math.floor(i / 2) % 3];
      const cls = `${kind}-${english ? 'en' : 'zh'}`;
      if (kind === 'one-supplier') {
        const supplier = r.pick(
          [...new Set(coded.map((o) => o.supplierId))].filter(
            (id) => coded.filter((o) => o.supplierId === id).length >= 2,
          ),
        );
        const [a, b] = [...coded.filter((o) => o.supplierId === supplier)].sort(() => r.next() - 0.5);
        const [qa, qb] = [quantity(a), quantity(b)];
        const [zh, en] = [shortZh(a.supplierZh), shortEn(a.supplierEn)];
        const say = english
          ? r.pick([
              `order ${qa} ${a.model} and ${qb} ${b.model} from ${en}`,
              `${qa} ${a.model}, ${qb} ${b.model}, all from ${en}`,
              `please buy ${qa} ${a.model} plus ${qb} ${b.model} from ${en}`,
            ])
          : r.pick([
              `${a.model} ${zhNumber(qa)}个、${b.model} ${zhNumber(qb)}个，都从${zh}订`,
              `给${zh}下 ${qa} 个 ${a.model} 和 ${qb} 个 ${b.model}`,
              `${a.model} ${qa}个，${b.model} ${qb}个，从${zh}采购`,
            ]);
        talks.push({
          cls,
          say,
          lines: [
            { offer: a, quantity: qa },
            { offer: b, quantity: qb },
          ],
        });
      } else if (kind === 'two-suppliers') {
        const a = r.pick(coded);
        const b = r.pick(coded.filter((o) => o.supplierId !== a.supplierId && o.model !== a.model));
        const [qa, qb] = [quantity(a), quantity(b)];
        const say = english
          ? r.pick([
              `${qa} ${a.model} from ${shortEn(a.supplierEn)} and ${qb} ${b.model} from ${shortEn(b.supplierEn)}`,
              `order ${qa} ${a.model} from ${shortEn(a.supplierEn)}, ${qb} ${b.model} from ${shortEn(b.supplierEn)}`,
            ])
          : r.pick([
              `${a.model} ${qa} 个从${shortZh(a.supplierZh)}订，${b.model} ${qb} 个从${shortZh(b.supplierZh)}订`,
              `给${shortZh(a.supplierZh)}下${qa}个${a.model}，给${shortZh(b.supplierZh)}下${qb}个${b.model}`,
            ]);
        talks.push({
          cls,
          say,
          lines: [
            { offer: a, quantity: qa },
            { offer: b, quantity: qb },
          ],
        });
      } else {
        // One line names a model several suppliers sell, and no supplier: that line alone is asked. The other names
        // one supplier's own code, which settles it.
        const a = r.pick(coded.filter((o) => sellers(o).length > 1));
        const b = r.pick(coded.filter((o) => o.model !== a.model));
        const first = r.next() < 0.5;
        const [x, y] = first ? [a, b] : [b, a];
        const [qx, qy] = [quantity(x), quantity(y)];
        const [nx, ny] = first ? [x.model, y.code] : [x.code, y.model];
        const say = english ? `order ${qx} ${nx} and ${qy} ${ny}` : `${nx} ${qx}个、${ny} ${qy}个`;
        talks.push({
          cls,
          say,
          lines: [
            { offer: x, quantity: qx },
            { offer: y, quantity: qy },
          ],
          open: first ? 0 : 1,
        });
      }
    }
    const { right, misses } = await scoreFresh(
      { name: 'several lines, several suppliers', seed, bar: passBar(0.9) },
      talks,
      async (t, i) => {
        const ctx = h.contextFor('laoxiao', `lines-${seed}-${i}`);
        const lines = t.lines.map((l) => ({ ...l }));
        const cards: Array<{ supplierId: number; lines: Array<{ partId: number; quantity: number }> }> = [];
        let turn = await h.send(ctx, t.say);
        for (let step = 0; step < 6 && turn.interrupts.length; step++) {
          const card = turn.interrupts[0];
          if (card.value.kind === 'ask_user' && t.open !== undefined && step === 0) {
            // The open line's candidates are exactly the ERP's offers of its model; any of them settles it.
            const options = (card.value.options ?? []) as Array<{ value: string }>;
            const offered = options.map((o) => Number(o.value.replace('part:', ''))).sort((a, b) => a - b);
            const wanted = sellers(lines[t.open].offer)
              .map((o) => o.partId)
              .sort((a, b) => a - b);
            if (JSON.stringify(offered) !== JSON.stringify(wanted))
              return `[${t.cls}] ${t.say} — asked with ${JSON.stringify(offered)}, the ERP's offers are ${JSON.stringify(wanted)}`;
            const pick = r.pick(options);
            lines[t.open].offer = all.find((o) => `part:${o.partId}` === pick.value) as Offer;
            turn = await h.send(ctx, resume(card.id, { type: 'answer', answer: pick.value }));
            continue;
          }
          if (card.value.kind !== 'approval' || card.value.tool !== 'order_create')
            return `[${t.cls}] ${t.say} — unexpected ${String(card.value.kind)} card ${JSON.stringify(card.value).slice(0, 200)}`;
          cards.push(card.value.args as (typeof cards)[number]);
          turn = await h.send(ctx, resume(card.id, { type: 'approve' }));
        }
        if (t.open === undefined && turn.interrupts.length === 0 && cards.length === 0)
          return `[${t.cls}] ${t.say} — no draft: ${turn.answer.slice(0, 200)}`;
        // One order per supplier, in the order the suppliers were said, with all of its lines.
        const expected: typeof cards = [];
        for (const l of lines) {
          const order = expected.find((o) => o.supplierId === l.offer.supplierId);
          const line = { partId: l.offer.partId, quantity: l.quantity };
          if (order) order.lines.push(line);
          else expected.push({ supplierId: l.offer.supplierId, lines: [line] });
        }
        const shape = (list: typeof cards) =>
          JSON.stringify(
            list.map((o) => ({ supplierId: o.supplierId, lines: o.lines.map((l) => [l.partId, l.quantity]) })),
          );
        if (shape(cards) !== shape(expected))
          return `[${t.cls}] ${t.say} — drafted ${shape(cards)}, expected ${shape(expected)}`;
        // What the ERP holds: each order the answer names, its supplier and lines as drafted.
        const named = orderNumbers(turn.answer);
        const written = await Promise.all(
          named.map(async (no) => {
            const order = await db
              .selectFrom('orders')
              .select(['id', 'supplier_id'])
              .where('order_no', '=', no)
              .executeTakeFirst();
            const rows = order
              ? await db
                  .selectFrom('order_lines')
                  .select(['part_id', 'quantity'])
                  .where('order_id', '=', order.id)
                  .orderBy('line_no')
                  .execute()
              : [];
            return {
              supplierId: order?.supplier_id ?? 0,
              lines: rows.map((l) => ({ partId: l.part_id, quantity: l.quantity })),
            };
          }),
        );
        if (shape(written) !== shape(expected))
          return `[${t.cls}] ${t.say} — the ERP holds ${shape(written)} for ${named.join(', ')}, expected ${shape(expected)}`;
        return inEnglish(t.say) ? notEnglish(turn.answer) : undefined;
      },
      3,
    );
    expect(misses, misses.join('\n')).toEqual([]);
    expect(right / talks.length).toBeGreaterThanOrEqual(passBar(0.9));
  }, 900_000);

  it('asks how to split an order into several, never reading their count as a quantity', async () => {
    const seed = testSeed(3605);
    const r = seeded(seed);
    const talks: Array<{ cls: string; say: string; count: number; quantity: number }> = [];
    for (let i = 0; i < 6; i++) {
      const o = r.pick(all.filter((x) => /[A-Z]/.test(x.model)));
      const count = r.int(2, 4);
      const quantity = Math.max(o.moq, r.int(4, 12) * 50);
      const english = i % 2 === 1;
      const say = english
        ? r.pick([
            `order ${quantity} ${o.model} from ${shortEn(o.supplierEn)}, split into ${['two', 'three', 'four'][count - 2]} orders`,
            `${quantity} ${o.model} from ${shortEn(o.supplierEn)} in ${count} separate orders`,
          ])
        : r.pick([
            `${o.model} ${quantity}个从${shortZh(o.supplierZh)}订，分${zhNumber(count)}单下`,
            `给${shortZh(o.supplierZh)}下${quantity}个${o.model}，拆成${count}张订单`,
          ]);
      talks.push({ cls: english ? 'split-en' : 'split-zh', say, count, quantity });
    }
    const before = await orderCount();
    const { right, misses } = await scoreFresh(
      { name: 'split into several orders', seed, bar: passBar(0.9) },
      talks,
      async (t, i) => {
        const turn = await h.send(h.contextFor('laoxiao', `split-${seed}-${i}`), t.say);
        const card = turn.interrupts[0];
        const why = card
          ? `showed a ${String(card.value.kind)} card ${JSON.stringify(card.value.args ?? card.value.question ?? '').slice(0, 160)}`
          : !turn.answer.includes(String(t.quantity)) ||
              (!turn.answer.includes(String(t.count)) && !turn.answer.includes(zhNumber(t.count)))
            ? `does not restate ${t.quantity} in ${t.count} orders: ${turn.answer.slice(0, 200)}`
            : inEnglish(t.say)
              ? notEnglish(turn.answer)
              : undefined;
        return why && `[${t.cls}] ${t.say} — ${why}`;
      },
      3,
    );
    expect(await orderCount()).toBe(before);
    expect(misses, misses.join('\n')).toEqual([]);
    expect(right / talks.length).toBeGreaterThanOrEqual(passBar(0.9));
  }, 900_000);

  it('reads region words as a filter on where suppliers are, never as a supplier', async () => {
    const db = h.erp.database.db;
    const seed = testSeed(3606);
    const r = seeded(seed);
    const suppliers = await db
      .selectFrom('suppliers')
      .select(['id', 'name_zh', 'name_en', 'province', 'city'])
      .where('project_id', '=', 'P001')
      .execute();
    const spelled = (zh: string) =>
      pinyin(zh, { toneType: 'none', type: 'array' })
        .join('')
        .replace(/^./, (c) => c.toUpperCase());
    // The regions of the table and the ERP's own provinces, each with the suppliers the ERP places there.
    const places = [
      ...REGIONS,
      ...[...new Set(suppliers.map((s) => s.province))].map((p) => ({
        zh: p,
        en: spelled(p),
        provinces: [p],
        cities: undefined,
      })),
    ].map((place) => ({
      ...place,
      there: suppliers.filter((s) =>
        place.cities ? place.cities.includes(s.city) : (place.provinces ?? []).includes(s.province),
      ),
    }));
    type Talk = { cls: string; say: string; place: (typeof places)[number]; compare?: string };
    const talks: Talk[] = [];
    for (let i = 0; i < 10; i++) {
      const english = i % 2 === 1;
      const place = r.pick(places);
      const say = english
        ? r.pick([
            `Which suppliers are in ${place.en}?`,
            `list the suppliers in ${place.en}`,
            `show me suppliers based in ${place.en}`,
          ])
        : r.pick([`${place.zh}的供应商有哪些`, `${place.zh}有哪些供应商？`, `列一下${place.zh}的供应商`]);
      talks.push({ cls: english ? 'list-en' : 'list-zh', say, place });
    }
    // A comparison narrowed to a region: every supplier it compares is one the ERP places there.
    for (const english of [false, true]) {
      const place = places.find((p) => p.zh === '华东') as (typeof places)[number];
      const c = r.pick(
        categories.filter(
          (x) => all.filter((o) => o.category === x.code && place.there.some((s) => s.id === o.supplierId)).length >= 2,
        ),
      );
      const say = english
        ? `compare suppliers in ${place.en} for ${c.name_en.toLowerCase()}s`
        : `${place.zh}的${c.name_zh}供应商比价`;
      talks.push({ cls: english ? 'compare-en' : 'compare-zh', say, place, compare: c.code });
    }
    const { right, misses } = await scoreFresh(
      { name: 'region words', seed, bar: passBar(0.9) },
      talks,
      async (t, i) => {
        const turn = await h.send(h.contextFor('laoxiao', `region-${seed}-${i}`), t.say);
        const english = inEnglish(t.say);
        const name = (s: (typeof suppliers)[number]) => (english ? s.name_en : s.name_zh);
        const why = (() => {
          if (turn.interrupts.length) return `showed a ${String(turn.interrupts[0].value.kind)} card`;
          if (t.compare) {
            const compared = /(?:Compared \d+ suppliers: |比较了 \d+ 家供应商：)(.+?)[.。]\s*$/m.exec(turn.answer)?.[1];
            if (!compared) return `no comparison: ${turn.answer.slice(0, 200)}`;
            const outside = suppliers.filter((s) => compared.includes(name(s)) && !t.place.there.includes(s));
            return outside.length ? `compared ${outside.map(name).join(', ')} outside ${t.place.en}` : undefined;
          }
          const listed = suppliers.filter((s) => turn.answer.includes(`- ${name(s)}`));
          const ids = (list: typeof suppliers) => JSON.stringify(list.map((s) => s.id).sort((a, b) => a - b));
          return ids(listed) === ids(t.place.there)
            ? undefined
            : `listed ${listed.map(name).join(', ') || 'none'}, the ERP has ${t.place.there.map(name).join(', ') || 'none'} there: ${turn.answer.slice(0, 200)}`;
        })();
        const miss = why ?? (english ? notEnglish(turn.answer) : undefined);
        return miss && `[${t.cls}] ${t.say} — ${miss}`;
      },
      3,
    );
    expect(misses, misses.join('\n')).toEqual([]);
    expect(right / talks.length).toBeGreaterThanOrEqual(passBar(0.9));
  }, 900_000);
});
