import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seeded } from '../seeded.ts';
import { type AgentHarness, resume, startAgentHarness, type TurnResult } from './harness.ts';

/**
 * Requests for quotation on the offline model, through the compiled graph (its ERP tools over MCP): generated
 * phrasings — Chinese and English, parts by model and trade word, quantities, a number of suppliers or the suppliers
 * named — end at the approval card of `rfq_create` with the part, quantity and suppliers the text says, resolved in
 * the ERP the run talks to; a rejected card writes nothing.
 */

/** Parts as buyers name them, with the model the ERP lists them under. */
const PARTS: Array<{ zh: string; en: string; model: string }> = [
  { zh: '火花塞 F7TC', en: 'F7TC spark plugs', model: 'F7TC' },
  { zh: 'A7TC 火花塞', en: 'A7TC spark plugs', model: 'A7TC' },
  { zh: 'D8TC', en: 'D8TC plugs', model: 'D8TC' },
  { zh: 'HF204 机油滤清器', en: 'HF204 oil filters', model: 'OF-HF204' },
  { zh: 'BP-125F 刹车片', en: 'BP-125F brake pads', model: 'BP-125F' },
];
/** Suppliers as buyers write them: Chinese short names and English names. */
const SUPPLIERS: Array<{ zh: string; en: string }> = [
  { zh: '博世', en: 'Bosch' },
  { zh: '电装', en: 'Denso' },
  { zh: 'NGK', en: 'NGK' },
  { zh: '德尔福', en: 'Delphi' },
  { zh: '冠军', en: 'Champion' },
  { zh: '火炬', en: 'Torch' },
  { zh: '马勒', en: 'Mahle' },
  { zh: '布雷博', en: 'Brembo' },
];

let h: AgentHarness;
type Db = AgentHarness['erp']['database']['db'];

beforeAll(async () => {
  h = await startAgentHarness();
}, 120_000);
afterAll(() => h?.close());

async function offersOf(db: Db, model: string) {
  const parts = await db
    .selectFrom('parts')
    .select(['id', 'supplier_id'])
    .where('project_id', '=', 'P001')
    .where('model', '=', model)
    .execute();
  return { partIds: new Set(parts.map((p) => p.id)), suppliers: new Set(parts.map((p) => p.supplier_id)) };
}

async function supplierIds(db: Db, names: string[]) {
  const rows = await db
    .selectFrom('suppliers')
    .select(['id', 'name_zh', 'name_en'])
    .where('project_id', '=', 'P001')
    .execute();
  return names.map(
    (n) => rows.find((r) => r.name_zh.includes(n) || r.name_en.toLowerCase().includes(n.toLowerCase()))?.id,
  );
}

const rfqCount = async (db: Db) =>
  Number(
    (
      await db
        .selectFrom('rfqs')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

const card = (turn: TurnResult, tool: string) => {
  const first = turn.interrupts[0];
  return first?.value.kind === 'approval' && first.value.tool === tool
    ? (first.value.args as { lines: Array<{ partId: number; quantity: number }>; supplierIds: number[] })
    : undefined;
};

describe('requests for quotation on the offline model (generated phrasings)', () => {
  it('drafts the RFQ the text asks for — part, quantity, N suppliers that offer it or the named ones — for approval', async () => {
    const g = seeded(77);
    const db = h.erp.database.db;
    const failures: string[] = [];
    const before = await rfqCount(db);
    for (let i = 0; i < 16; i++) {
      const part = g.pick(PARTS);
      const offers = await offersOf(db, part.model);
      const n = g.int(2, 30) * 50;
      const english = i % 2 === 1;
      const byCount = g.int(0, 2) > 0;
      const k = g.int(2, 5);
      // Named suppliers are ones the catalogue lists for the part, so the RFQ makes sense to the buyer.
      const ids = await supplierIds(
        db,
        SUPPLIERS.map((s) => s.zh),
      );
      const candidates = SUPPLIERS.filter((_, j) => ids[j] !== undefined && offers.suppliers.has(ids[j]!));
      const named = byCount ? [] : candidates.slice(0, Math.max(1, Math.min(candidates.length, g.int(1, 3))));
      const names = named.map((s) => (english ? s.en : s.zh));
      const say = english
        ? g.pick([
            `Create an RFQ for ${n} ${part.en} ${byCount ? `to ${k} suppliers` : `to ${names.join(' and ')}`}`,
            `please request quotes for ${n} pcs of ${part.en} ${byCount ? `from ${k} vendors` : `from ${names.join(', ')}`}`,
            `send a request for quotation ${byCount ? `to ${k} suppliers` : `to ${names.join(' and ')}`}: ${part.en}, qty ${n}`,
          ])
        : g.pick([
            `给${part.zh}发询价，数量 ${n}，${byCount ? `问 ${k} 家供应商` : `发给${names.join('、')}`}`,
            `${byCount ? `找 ${k} 家供应商` : `向${names.join('和')}`}询价 ${part.zh} ${n}个`,
            `帮我做个${part.zh}的询价单，${n}个，${byCount ? `${k}家厂商报价` : `询${names.join('、')}`}`,
          ]);
      const session = `rfq-gen-${i}`;
      const turn = await h.send(h.contextFor('laoxiao', session), say);
      const args = card(turn, 'rfq_create');
      const seen = JSON.stringify(turn.interrupts[0]?.value ?? turn.answer).slice(0, 300);
      if (!args) {
        failures.push(`${say} — no rfq_create approval: ${seen}`);
        continue;
      }
      const line = args.lines[0];
      const expectedSuppliers = byCount
        ? Math.min(k, offers.suppliers.size)
        : (
            await supplierIds(
              db,
              named.map((s) => s.zh),
            )
          ).length;
      const wrong = [
        args.lines.length !== 1 && 'one line',
        !offers.partIds.has(line.partId) && `a ${part.model} part`,
        line.quantity !== n && `quantity ${n}`,
        args.supplierIds.length !== expectedSuppliers && `${expectedSuppliers} suppliers`,
        byCount && !args.supplierIds.every((id) => offers.suppliers.has(id)) && 'suppliers that offer it',
        !byCount &&
          JSON.stringify([...args.supplierIds].sort()) !==
            JSON.stringify(
              (
                await supplierIds(
                  db,
                  named.map((s) => s.zh),
                )
              ).sort(),
            ) &&
          `the named ${names.join(', ')}`,
      ].filter(Boolean);
      if (wrong.length) failures.push(`${say} — expected ${wrong.join(', ')}: ${seen}`);
      // Rejected: nothing is written, and the answer says so.
      const after = await h.send(h.contextFor('laoxiao', session), resume(turn.interrupts[0].id, { type: 'reject' }));
      if (after.interrupts.length || !/未创建|not created/.test(after.answer))
        failures.push(`${say} — after rejecting: ${after.answer.slice(0, 200)}`);
    }
    expect(failures).toEqual([]);
    expect(await rfqCount(db)).toBe(before);
  }, 300_000);

  it('asks which part when several match and how many when no quantity is said, then drafts with the answers', async () => {
    const ctx = h.contextFor('laoxiao', 'rfq-ask');
    const first = await h.send(ctx, '给火花塞发询价，问 3 家供应商');
    const which = first.interrupts[0]?.value as { kind: string; options: Array<{ value: string }> };
    expect(which.kind).toBe('ask_user');
    expect(which.options.length).toBeGreaterThan(1);
    const part = which.options[1].value;
    const second = await h.send(ctx, resume(first.interrupts[0].id, { type: 'answer', answer: part }));
    const many = second.interrupts[0]?.value as { kind: string; options: Array<{ value: string }> };
    expect(many.kind).toBe('ask_user');
    const quantity = many.options[2].value;
    const third = await h.send(ctx, resume(second.interrupts[0].id, { type: 'answer', answer: quantity }));
    const args = card(third, 'rfq_create');
    expect(args?.lines).toEqual([
      expect.objectContaining({ partId: Number(part.slice(5)), quantity: Number(quantity.slice(9)) }),
    ]);
    expect(args?.supplierIds).toHaveLength(3);
    await h.send(ctx, resume(third.interrupts[0].id, { type: 'reject' }));
  }, 120_000);

  it('gives a viewer no RFQ write: the answer says why and nothing is written', async () => {
    const db = h.erp.database.db;
    const before = await rfqCount(db);
    const turn = await h.send(h.contextFor('viewer', 'rfq-viewer'), '给火花塞 F7TC 发询价，数量 500，问 5 家供应商');
    expect(turn.interrupts).toEqual([]);
    expect(turn.answer).toMatch(/只读|read-only/);
    expect(await rfqCount(db)).toBe(before);
  }, 120_000);
});
