import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StartedStack, stackHarness, startStack, workspaceFile } from '../../bench/eval/stack.ts';
import {
  type Catalogue,
  type DemoSupplier,
  demoParts,
  openErpDatabase,
  type ProductLine,
  seedDemoData,
} from '../../src/erp/index.ts';
import { seededRandom } from '../../src/shared/index.ts';
import { testSeed } from '../evaluation.ts';

/**
 * The offline model on an ERP seeded with another trade: generated bearing and bolt suppliers, categories with their
 * own synonyms, and no part, supplier or category of the demo catalogue. What the model knows of the vocabulary it
 * reads from the ERP (`category_list`, `supplier_query`, `part_search`).
 */
const SEED = testSeed(20261207);
const random = seededRandom(SEED);
const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)];

/** Two-character company names and their pinyin, drawn without repeats. */
const SYLLABLES: Array<[string, string]> = [
  ['鼎', 'Ding'],
  ['盛', 'Sheng'],
  ['恒', 'Heng'],
  ['丰', 'Feng'],
  ['瑞', 'Rui'],
  ['泰', 'Tai'],
  ['华', 'Hua'],
  ['铭', 'Ming'],
  ['宏', 'Hong'],
  ['昌', 'Chang'],
];
const pool = [...SYLLABLES].sort(() => random() - 0.5);

const CATEGORIES = [
  { code: 'bearing', nameZh: '轴承', nameEn: 'Bearing', synonymsZh: ['培林'], synonymsEn: ['ball race'] },
  { code: 'bolt', nameZh: '螺栓', nameEn: 'Bolt', synonymsZh: ['螺杆'], synonymsEn: ['screw bolt'] },
];

function supplier(i: number, trade: { zh: string; en: string }): DemoSupplier {
  const [a, b] = [pool[2 * i], pool[2 * i + 1]];
  return {
    key: `s${i}`,
    nameZh: `${a[0]}${b[0]}${trade.zh}`,
    nameEn: `${a[1]}${b[1].toLowerCase()} ${trade.en}`,
    contactName: '周平',
    contactPhone: '0571-8800-1000',
    contactEmail: `sales${i}@example.test`,
    city: '杭州',
    province: '浙江',
    rating: 4 + Math.round(random() * 9) / 10,
    leadTimeDays: 7 + Math.floor(random() * 14),
    paymentTerms: '月结30天',
    priceFactor: 0.8 + random() * 0.4,
    projects: ['P001'],
  };
}

const SUPPLIERS = [
  supplier(0, { zh: '轴承', en: 'Bearing' }),
  supplier(1, { zh: '轴承', en: 'Bearing' }),
  supplier(2, { zh: '螺栓', en: 'Bolts' }),
  supplier(3, { zh: '机械', en: 'Machinery' }),
];

const line = (
  model: string,
  category: string,
  nameZh: string,
  nameEn: string,
  suppliers: string[],
  basePrice: number,
): ProductLine => ({
  model,
  category,
  nameZh,
  nameEn,
  spec: '',
  unit: category === 'bolt' ? '个' : '套',
  basePrice,
  moq: pick([50, 100, 200]),
  suppliers,
  projects: ['P001'],
});

const CATALOGUE: Catalogue = {
  categories: CATEGORIES,
  suppliers: SUPPLIERS,
  lines: [
    line('6204-2RS', 'bearing', '深沟球轴承 6204-2RS', 'Deep groove ball bearing 6204-2RS', ['s0', 's1', 's3'], 18),
    line('30205', 'bearing', '圆锥滚子轴承 30205', 'Tapered roller bearing 30205', ['s0', 's1'], 36),
    line('M8X30', 'bolt', '外六角螺栓 M8X30', 'Hex bolt M8X30', ['s2', 's3'], 0.6),
    line('M10X40', 'bolt', '法兰面螺栓 M10X40', 'Flange bolt M10X40', ['s2', 's3'], 1.1),
  ],
  codePrefix: { s0: 'AA', s1: 'AB', s2: 'AC', s3: 'AD' },
  yearlyDrift: { bearing: 0.05 },
};

let stack: StartedStack;

beforeAll(async () => {
  stack = await startStack({
    seed: async (dataDir) => {
      const database = await openErpDatabase({ dataDir });
      try {
        await seedDemoData(database, new Date(), CATALOGUE);
      } finally {
        await database.close();
      }
    },
  });
}, 120_000);
afterAll(() => stack?.close());

describe(`the offline model on an ERP of another trade (seed ${SEED})`, () => {
  it('serves the categories of that ERP, with their synonyms, over REST', async () => {
    const answer = await fetch(`${stack.erpUrl}/categories`, {
      headers: { authorization: `Bearer ${stack.tokens.laoxiao}` },
    });
    const { items } = (await answer.json()) as { items: Array<{ code: string; synonymsZh: string[] }> };
    expect(items.map((c) => c.code).sort()).toEqual(['bearing', 'bolt']);
    expect(items.find((c) => c.code === 'bearing')?.synonymsZh).toEqual(['培林']);
  });

  it('compares the suppliers of a category named by its synonym, at the ERP’s list prices', async () => {
    const h = stackHarness(stack);
    const session = `other-analysis-${SEED}`;
    const turn = await h.send(h.contextFor('laoxiao', session), '帮我对培林做供应商比价分析');
    expect(turn.error, turn.answer).toBeUndefined();
    const result = JSON.parse(workspaceFile(stack.dataDir, session, /data\/analysis_result\.json$/) ?? 'null') as {
      suppliers: Array<{ code: string; erpPrice: number }>;
    } | null;
    expect(result, turn.answer).not.toBeNull();
    const bearings = new Map(
      demoParts(CATALOGUE)
        .filter((p) => p.category === 'bearing')
        .map((p) => [p.code, p.unitPrice]),
    );
    expect(result!.suppliers.length).toBeGreaterThanOrEqual(2);
    for (const s of result!.suppliers) expect(s.erpPrice, s.code).toBe(bearings.get(s.code));
  }, 180_000);

  it('answers who supplies a category named by its synonym, and a supplier’s lead time, from that ERP', async () => {
    const h = stackHarness(stack);
    const who = await h.send(h.contextFor('laoxiao', `other-who-${SEED}`), pick(['谁家供应培林？', '培林有哪些型号']));
    const bearings = demoParts(CATALOGUE).filter((p) => p.category === 'bearing');
    for (const key of new Set(bearings.map((p) => p.supplierKey)))
      expect(who.answer, who.answer).toContain(SUPPLIERS.find((s) => s.key === key)?.nameZh);
    for (const model of new Set(bearings.map((p) => p.model))) expect(who.answer).toContain(model);
    const maker = pick(SUPPLIERS);
    const lead = await h.send(h.contextFor('laoxiao', `other-lead-${SEED}`), `${maker.nameZh}的交期是多少天？`);
    expect(lead.interrupts).toHaveLength(0);
    expect(lead.answer).toContain(`交期 ${maker.leadTimeDays} 天`);
  }, 180_000);

  it('drafts an order for a new supplier’s part, named by the supplier’s short name and a synonym', async () => {
    const h = stackHarness(stack);
    const maker = SUPPLIERS[2];
    const short = maker.nameZh.replace('螺栓', '');
    const quantity = 100 * (2 + Math.floor(random() * 8));
    const turn = await h.send(
      h.contextFor('laoxiao', `other-order-${SEED}`),
      `给${short}下 ${quantity} 个 M10X40 螺杆的采购单`,
    );
    expect(turn.interrupts, turn.answer).toHaveLength(1);
    const part = await stack.erp.database.db
      .selectFrom('parts')
      .innerJoin('suppliers', 'suppliers.id', 'parts.supplier_id')
      .select(['parts.id', 'parts.supplier_id'])
      .where('parts.code', '=', `AC-M10X40`)
      .where('suppliers.key', '=', maker.key)
      .executeTakeFirstOrThrow();
    expect(turn.interrupts[0].value, JSON.stringify(turn.interrupts[0].value)).toMatchObject({
      kind: 'approval',
      tool: 'order_create',
      args: { supplierId: Number(part.supplier_id), lines: [{ partId: Number(part.id), quantity }] },
    });
  }, 180_000);
});
