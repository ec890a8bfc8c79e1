import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentHarness, TurnResult } from '../../bench/eval/local-stack.ts';
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
      'questions about earlier orders',
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
});
