import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  asksOnePrice,
  type Extreme,
  type FieldBound,
  readExtreme,
  readFieldBound,
  readPlace,
} from '../../src/agent/models/offline/asks.ts';
import {
  findSuppliers,
  inPlace,
  matchParts,
  namesSomething,
  type PartRef,
  partQueries,
  partText,
  wholeCategory,
} from '../../src/agent/models/offline/catalogue.ts';
import { readDate } from '../../src/agent/models/offline/dates.ts';
import { findTerm, parseGlossary } from '../../src/agent/models/offline/glossary.ts';
import { unknownSupplier } from '../../src/agent/models/offline/grounding.ts';
import { readRequest } from '../../src/agent/models/offline/intent.ts';
import { readQuantity } from '../../src/agent/models/offline/quantities.ts';
import { historyWindow } from '../../src/agent/models/offline/questions.ts';
import { readLines, readSplit } from '../../src/agent/models/offline/reading/lines.ts';
import { inRegion, locationIn, readRegion } from '../../src/agent/models/offline/reading/regions.ts';
import { rfqAction, rfqDates } from '../../src/agent/models/offline/sourcing.ts';
import { normalize } from '../../src/agent/models/offline/text.ts';
import { seeded } from '../seeded.ts';

/**
 * The offline model's understanding layer on its own: what a request says before any lookup, and how the parts a
 * search returned are matched. The corpus (corpus.test.ts) judges the same layer end to end.
 */

const today = new Date('2026-12-03T08:00:00Z');

const part = (id: number, code: string, model: string, name: string): PartRef => ({
  id,
  code,
  model,
  name,
  category: 'x',
  unitPrice: 10,
  moq: 10,
  supplier: { id: 1, name: '德尔福' },
});

describe('reading a request', () => {
  it('reads a day of this or next month as a delivery date, and a bare day only as a deadline', () => {
    expect(readDate('本月25号前送到', today)?.value).toBe('2026-12-25');
    expect(readDate('这个月20日交货', today)?.value).toBe('2026-12-20');
    expect(readDate('下个月5号', today)?.value).toBe('2027-01-05');
    expect(readDate('20号前到货', today)?.value).toBe('2026-12-20');
    // A day already past this month is next month's.
    expect(readDate('1号之前交货', today)?.value).toBe('2027-01-01');
    // A count of days is not a date of the month, nor is a size.
    expect(readDate('3日内', today)?.value).toBe('2026-12-06');
    expect(readDate('5号电池 20 个', today)).toBeUndefined();
  });

  it('reads English numbers in words, compound ones too, and no article or pronoun as a quantity', () => {
    const q = (text: string) => readQuantity(text)?.value;
    expect(q('please procure two hundred fifty A7TC from Bosch')).toBe(250);
    expect(q('two hundred and fifty pcs')).toBe(250);
    expect(q('twenty-five sets')).toBe(25);
    expect(q('one thousand five hundred F7TC')).toBe(1500);
    expect(q('make it three hundred')).toBe(300);
    expect(q('order 3 hundred F7TC')).toBe(300);
    expect(q('1.5 thousand pcs')).toBe(1500);
    expect(q('cancel that one')).toBeUndefined();
    expect(q('buy a D8TC')).toBeUndefined();
  });

  it('reads restocking questions as stock warnings, not as orders', () => {
    expect(readRequest('which items need restocking?', today).intent).toBe('inventory');
    expect(readRequest('what needs replenishment', today).intent).toBe('inventory');
  });

  it('reads shortage questions as stock warnings, and the assistant’s name as no request', () => {
    expect(readRequest('仓库里哪些东西要补了', today).intent).toBe('inventory');
    expect(readRequest('are we short on anything?', today).intent).toBe('inventory');
    expect(readRequest('Hello Procura!', today).intent).toBe('greeting');
    expect(readRequest('Procura, buy 200 D8TC from Bosch', today).intent).toBe('create');
  });

  it('reads the orders a buyer placed and the ones waiting for approval as look-ups with their filter', () => {
    const mine = readRequest('看看我下过的单', today);
    expect(mine.intent).toBe('lookup');
    expect(mine.scores.mine).toBeGreaterThan(0);
    const pending = readRequest('list orders waiting for approval', today);
    expect(pending.intent).toBe('lookup');
    expect(pending.scores.pending).toBeGreaterThan(0);
    expect(readRequest('还没批的采购单有哪些', today).scores.pending).toBeGreaterThan(0);
  });
});

describe('matching parts', () => {
  const front = part(25, 'DP-BP-125F', 'BP-125F', '摩托车前刹车片 125cc');
  const rear = part(29, 'DP-BP-150R', 'BP-150R', '摩托车后刹车片 150cc');

  it('knows a code typed without its separators', () => {
    const results = new Map([['刹车片', [front, rear]]]);
    expect(matchParts('BP150R刹车片', results)).toEqual([rear]);
    expect(matchParts('bp-150r 刹车片', results)).toEqual([rear]);
  });

  it('reads a bare number left over as the start of a model ("the 520 chains")', () => {
    const chains = [
      part(1, 'HJ-428H-118L', '428H-118L', 'chain 428H'),
      part(2, 'HJ-520-120L', '520-120L', 'chain 520'),
    ];
    const results = new Map([['chain', chains]]);
    expect(matchParts('of the 520 chain from', results).map((p) => p.id)).toEqual([2]);
    // Beside the category's own name too ("520链条 两百条"): the model it starts, not the whole category.
    const zh = chains.map((c) => ({ ...c, category: 'chain', name: `链条 ${c.model}` }));
    const found = new Map([['链条', zh]]);
    const category = { code: 'chain', nameZh: '链条', nameEn: 'Drive chain', synonymsZh: [], synonymsEn: [] };
    for (const text of ['520链条', '给恒久链传动下一单，520链条', '520 链条'])
      expect(
        wholeCategory(text, matchParts(text, found), found, [category]).map((p) => p.id),
        text,
      ).toEqual([2]);
    expect(wholeCategory('链条', matchParts('链条', found), found, [category]).map((p) => p.id)).toEqual([1, 2]);
    // A word beside it that only some names hold narrows to them (前刹车片), one all of them hold does not.
    const pads = [
      { ...part(3, 'DP-BP-125F', 'BP-125F', '摩托车前刹车片 125cc'), category: 'brake_pad' },
      { ...part(4, 'DP-BP-150R', 'BP-150R', '摩托车后刹车片 150cc'), category: 'brake_pad' },
    ];
    const brakes = { code: 'brake_pad', nameZh: '刹车片', nameEn: 'Brake pad', synonymsZh: [], synonymsEn: [] };
    // Every query the words make finds both pads, as the ERP's search does.
    const pick = (text: string) => {
      const padResults = new Map(partQueries(text).map((q) => [q.query, pads]));
      return wholeCategory(text, matchParts(text, padResults), padResults, [brakes]).map((p) => p.id);
    };
    expect(pick('前刹车片')).toEqual([3]);
    expect(pick('后刹车片')).toEqual([4]);
    expect(pick('摩托车刹车片')).toEqual([3, 4]);
  });

  it('searches a model’s leading number when nothing else is left to name the part', () => {
    expect(partQueries(' | 520').map((q) => q.query)).toEqual(['520']);
    // Beside words that name the part, the words are searched and the number picks among what they find.
    expect(partQueries('the 520 chains').map((q) => q.query)).toEqual(['chain']);
    // A number that starts a piece of several models finds them all, for the user to pick.
    const bosch = [
      part(5, 'BS-BP-125F', 'BP-125F', 'pad'),
      part(6, 'BS-AF-125', 'AF-125', 'filter'),
      part(7, 'BS-F7TC', 'F7TC', 'plug'),
    ];
    expect(matchParts(' | 125', new Map([['125', bosch]])).map((p) => p.id)).toEqual([5, 6]);
  });

  it('searches the pieces of a separator-less code the catalogue does not know as typed', () => {
    const first = partQueries('YTX7LBS').map((q) => q.query);
    expect(first).toEqual(['YTX7LBS']);
    const again = partQueries('YTX7LBS', new Map([['YTX7LBS', []]])).map((q) => q.query);
    expect(again).toEqual(['YTX7LBS', 'YTX7', '7LBS']);
    const battery = part(54, 'VT-YTX7L-BS', 'YTX7L-BS', '摩托车蓄电池 YTX7L-BS');
    expect(
      matchParts(
        'YTX7LBS',
        new Map([
          ['YTX7LBS', []],
          ['YTX7', [battery]],
          ['7LBS', []],
        ]),
      ),
    ).toEqual([battery]);
  });
});

const ZH_DIGITS = ['零', '一', '二', '三', '四', '五', '六', '七', '八', '九'];
/** 3500 → 三千五百 (or 三千五 when `short`), 250 → 两百五十. */
function zhNumber(n: number, short: boolean): string {
  const units: Array<[number, string]> = [
    [1000, '千'],
    [100, '百'],
    [10, '十'],
  ];
  let out = '';
  let rest = n;
  for (const [size, name] of units) {
    const d = Math.floor(rest / size);
    rest %= size;
    if (d) out += (d === 2 && size >= 100 ? '两' : ZH_DIGITS[d]) + name;
    if (short && d && rest && rest % (size / 10) === 0 && rest < size && rest >= size / 10) {
      return out + ZH_DIGITS[rest / (size / 10)];
    }
  }
  return out + (rest ? ZH_DIGITS[rest] : '');
}

describe('numbers and money (generated phrasings)', () => {
  const g = seeded(23);
  const parts = ['F7TC', 'BP-125F', '机油滤清器', '火花塞', 'spark plugs', '90/90-18 轮胎'];

  it('reads Chinese numerals with an implied unit and pack sizes as quantities', () => {
    for (let i = 0; i < 60; i++) {
      const thousands = g.int(1, 9);
      const hundreds = g.int(1, 9);
      const n = thousands * 1000 + hundreds * 100;
      const text = `${g.pick(['订', '买', '再订', '采购'])}${zhNumber(n, true)}${g.pick([' ', '个', '只'])}${g.pick(parts)}`;
      expect(readRequest(text, today).quantity, text).toBe(n);
      const packs = g.int(2, 20);
      const each = g.pick([10, 20, 25, 50, 100]);
      const part = g.pick(parts);
      const packed = g.pick([
        `${part} ${packs}${g.pick(['盒', '箱', '包'])}，每${g.pick(['盒', '箱', '包'])}${each}个`,
        `order ${packs} boxes of ${each} ${part}`,
        // The part between the packs and their size, its model's digits too.
        `从${g.pick(['NGK', '博世', '马勒'])}订${packs}${g.pick(['盒', '箱'])}${part}，${g.pick(['每', '一'])}${g.pick(['盒', '箱', ''])}${each}${g.pick(['支', '个', '只'])}`,
        `${g.pick(['每', '一'])}箱${each}个，${part}订${packs}箱`,
        `order ${packs} boxes of ${part}, ${each} ${g.pick(['', 'pieces ', 'pcs '])}${g.pick(['per', 'in each', 'a'])} box`,
      ]);
      const reading = readRequest(packed, today);
      expect(reading.quantity, packed).toBe(packs * each);
      // The part named between the packs and their size is left to name the part.
      expect(reading.rest, packed).toContain(part);
    }
  });

  it('keeps money apart from quantities, and never reads a question with numbers as an order', () => {
    for (let i = 0; i < 60; i++) {
      const money = g.int(2, 90) * 100;
      const price = g.int(5, 400);
      const part = g.pick(parts);
      const budget = g.pick([
        `预算 ${money} 元能买多少个${part}？`,
        `预算${zhNumber(money, false)}元，${part}可以买几个`,
        `我有 ¥${money}，能买多少 ${part}`,
        `With a budget of ${money} yuan how many ${part} can I buy?`,
      ]);
      const b = readRequest(budget, today);
      expect([b.intent, b.money, b.quantity], budget).toEqual(['budget', money, undefined]);
      const judge = g.pick([
        `博世报给我们 ${price} 元一个 ${part}，这个价合理吗？`,
        `${part} ${price} 块钱一个贵不贵`,
        `德尔福的${part}报价高不高？`,
        `Is ${price} yuan a fair price for ${part}?`,
      ]);
      const j = readRequest(judge, today);
      expect([j.intent, j.quantity], judge).toEqual(['judge', undefined]);
      const lookup = g.pick([`超过${money}元的订单`, `${money}元以上的采购单有哪些`, `orders over ¥${money}`]);
      const l = readRequest(lookup, today);
      expect([l.intent, l.amount?.min, l.quantity], lookup).toEqual(['lookup', money, undefined]);
    }
  });
});

describe('periods, spend and quoted prices (generated phrasings)', () => {
  const g = seeded(41);
  const suppliers = ['博世', '电装', '德尔福', '朝阳轮胎', '冠军'];
  const parts = ['F7TC', '机油滤清器', '刹车片', 'BP-125F', '火花塞'];
  const MONTHS = [
    'January',
    'February',
    'March',
    'April',
    'May',
    'June',
    'July',
    'August',
    'September',
    'October',
    'November',
    'December',
  ];
  const lastDay = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();

  it('reads a month of a named year as that month, not the whole year', () => {
    for (let i = 0; i < 40; i++) {
      const month = g.int(1, 12);
      const [word, year] = g.pick([
        ['去年', 2025],
        ['今年', 2026],
        ['前年', 2024],
      ] as const);
      const written = g.pick([String(month), zhNumber(month, false)]);
      const text = g.pick([
        `${word}${written}月${g.pick(suppliers)}的订单有哪些`,
        `${word}${written}月份下的采购单`,
        `看看${word}的${written}月的单子`,
        ...(word === '前年' ? [] : [`orders from ${MONTHS[month - 1]} ${word === '去年' ? 'last' : 'this'} year`]),
      ]);
      const mm = String(month).padStart(2, '0');
      expect(readRequest(text, today).period, text).toMatchObject({
        from: `${year}-${mm}-01`,
        to: `${year}-${mm}-${lastDay(year, month)}`,
      });
    }
  });

  it('reads how much the orders placed came to as a spend question, never an order', () => {
    for (let i = 0; i < 40; i++) {
      const text = g.pick([
        `${g.pick(['上个月', '今年', '去年下半年', '这个月'])}一共${g.pick(['下', '订', '采购', '买'])}了多少钱的${g.pick(['单', '货', '订单'])}？`,
        `${g.pick(['上个月', '今年'])}${g.pick(suppliers)}的订单总金额是多少`,
        `${g.pick(['上个月', '今年'])}在${g.pick(parts)}上${g.pick(['订', '采购'])}了多少钱`,
      ]);
      const r = readRequest(text, today);
      expect([r.intent, r.quantity], text).toEqual(['spend', undefined]);
    }
  });

  it('reads the total of orders in a state as a spend question over those states, never a list or an order', () => {
    const states: Array<[string[], string[], string[]]> = [
      [
        ['pending_approval'],
        ['待审批的订单', '还没审批的单子', '等审批的采购单'],
        ['orders awaiting approval', 'pending orders'],
      ],
      [
        ['approved', 'ordered'],
        ['还没到货的订单', '未到货的单子'],
        ['orders not yet delivered', 'outstanding orders'],
      ],
      [['cancelled'], ['已取消的订单', '作废的单子'], ['cancelled orders']],
    ];
    for (let i = 0; i < 40; i++) {
      const [statuses, zh, en] = g.pick(states);
      const who = g.pick(['', g.pick(suppliers)]);
      const text = g.pick([
        `${who}${g.pick(zh)}金额一共多少`,
        `${who}${g.pick(zh)}${g.pick(['总共', '一共', '加起来'])}多少钱`,
        `${who}${g.pick(zh)}总金额是多少？`,
        `How much are the ${g.pick(en)} worth in total?`,
        `What's the total value of ${g.pick(en)}?`,
      ]);
      const r = readRequest(text, today);
      expect([r.intent, r.statuses?.statuses, r.quantity], text).toEqual(['spend', statuses, undefined]);
    }
  });

  it('reads a quoted price with the piece it is for as money, and the judgement words as no part: only the part and supplier are left to look up', () => {
    for (let i = 0; i < 40; i++) {
      const price = g.int(5, 60) + g.pick([0, 0.5, 0.8, 0.25]);
      const supplier = g.pick(suppliers);
      const part = g.pick(parts);
      const text = g.pick([
        `${supplier}的${part}卖${price}${g.pick(['一个', '一只', '每个'])}${g.pick(['贵不贵', '合理吗', '高不高'])}`,
        `${supplier}${part} ${price}元${g.pick(['一个', '一只', '/个'])}，${g.pick(['贵吗', '划算吗', '合理吗'])}`,
        `${supplier}报${part}单价${price}${g.pick(['一个', ''])}，贵不贵`,
      ]);
      const r = readRequest(text, today);
      expect([r.intent, r.money, r.quantity], text).toEqual(['judge', price, undefined]);
      expect(r.rest, text).not.toMatch(/[一每]\s*[个只]|\/个|贵不贵|合理吗|高不高|贵吗|划算吗|单价/);
    }
  });
});

describe('commands versus questions (generated phrasings)', () => {
  const g = seeded(2026);
  const suppliers = ['博世', '德尔福', 'NGK', 'Bosch', '马勒'];

  it('refuses payments, approvals, catalogue price changes and bulk deletes, each with its own reason', () => {
    for (let i = 0; i < 40; i++) {
      const s = g.pick(suppliers);
      const n = g.int(1, 99) * 100;
      const cases: Array<[string, string]> = [
        [
          g.pick([`帮我给${s}付款`, `给${s}付一下上个月的货款 ${n} 元`, `pay ${s} ${n} yuan`, `转账 ${n} 元给${s}`]),
          'payment',
        ],
        [g.pick(['帮我批准所有待审批的订单', '把 PO-202612-0001 审批通过', 'approve all pending orders']), 'approve'],
        [
          g.pick([
            `把F7TC的目录价改成${n}元`,
            `${s}的 F7TC 单价调到 ${n} 块`,
            `change the list price of F7TC to ${n} yuan`,
          ]),
          'priceChange',
        ],
        [g.pick(['把所有订单都删掉', '清空全部数据', 'delete everything']), 'deleteAll'],
      ];
      for (const [text, refusal] of cases) {
        const r = readRequest(text, today);
        expect([r.intent, r.refusal], text).toEqual(['refuse', refusal]);
      }
    }
  });

  it('reads price trends as questions and looks up orders by state, period, amount and supplier', () => {
    // Which way a price went is its own question: answered from the price history, never an order.
    for (let i = 0; i < 30; i++) {
      const part = g.pick(['火花塞', '刹车片', '机油滤清器', 'F7TC', 'spark plugs', 'brake pads']);
      const text = g.pick([
        `${part}${g.pick(['这一年', '最近', '今年', ''])}是涨了还是跌了？`,
        `${part}价格${g.pick(['今年', '近半年', ''])}是涨是跌`,
        `${part}涨价了吗`,
        `has the price of ${part} gone ${g.pick(['up', 'down'])}${g.pick([' this year', ' lately', ''])}?`,
        `did ${part} prices ${g.pick(['rise', 'fall', 'drop', 'increase'])} over the past year?`,
        `${part}${g.pick(['价格', ''])}是不是越来越${g.pick(['贵', '便宜'])}了`,
        `${part}${g.pick(['贵', '便宜'])}了不少吗`,
        `${part}${g.pick(['最近', ''])}价格${g.pick(['稳定吗', '稳不稳定', '波动大吗'])}`,
        `are ${part} getting ${g.pick(['pricier', 'cheaper', 'more expensive'])}?`,
      ]);
      expect(readRequest(text, today).intent, text).toBe('direction');
    }
    expect(readRequest('prices went up, order 200 F7TC from Bosch', today).intent).not.toBe('direction');
    for (let i = 0; i < 40; i++) {
      const month = g.int(1, 11);
      const text = g.pick([
        `${month}月份的订单有哪些`,
        `${g.pick(suppliers)}${month}月份的单子`,
        `看看${month}月的采购单`,
      ]);
      const r = readRequest(text, today);
      expect([r.intent, r.period?.from], text).toEqual(['lookup', `2026-${String(month).padStart(2, '0')}-01`]);
    }
    const cancelled = readRequest('上周取消了哪些单子', today);
    expect([cancelled.intent, cancelled.statuses?.statuses, cancelled.period?.from]).toEqual([
      'lookup',
      ['cancelled'],
      '2026-11-23',
    ]);
    for (const text of ['还没到货的订单', 'which orders are still waiting for delivery?', '在途的采购单有哪些']) {
      expect(readRequest(text, today).statuses?.statuses, text).toEqual(['approved', 'ordered']);
    }
    expect(readRequest('last month orders from Bosch', today).period?.from).toBe('2026-11-01');
  });

  it('reads definitions as knowledge questions and finds them in the glossary', () => {
    const glossary = parseGlossary(fs.readFileSync('skills/main/procurement-glossary/SKILL.md', 'utf8'));
    const asks: Array<[string, string]> = [
      ['什么是交货周期？', 'Lead time'],
      ['what is a blanket PO?', 'Blanket PO'],
      ['MOQ 是什么意思', 'MOQ'],
      ['解释一下三单匹配', 'Three-way match'],
      ['What does Incoterms mean?', 'Incoterms'],
      ['火花塞的热值是什么意思', 'Heat range'],
      ['what is a framework agreement', 'Framework agreement'],
      ['what is three-way matching?', 'Three-way match'],
      ['explain blanket POs', 'Blanket PO'],
    ];
    for (const [text, term] of asks) {
      expect(readRequest(text, today).intent, text).toBe('knowledge');
      expect(findTerm(glossary, text)?.titleEn, text).toBe(term);
    }
  });
});

describe('questions about suppliers, the catalogue, spend and orders (generated phrasings)', () => {
  const g = seeded(4711);
  const suppliers = ['博世', '德尔福', '瓦尔塔', '正新', 'Bosch', 'Mahle', 'Brembo'];
  const categories = ['火花塞', '刹车片', '轮胎', '链条', '电瓶', 'spark plugs', 'tyres', 'oil filters'];

  it('reads a supplier’s lead time, rating, terms and contact as a question, and a change of them as a refusal', () => {
    for (let i = 0; i < 40; i++) {
      const s = g.pick(suppliers);
      const ask = g.pick([
        `${s}的交货周期是多少天？`,
        `${s}交期一般多久`,
        `${s}的付款条件是什么`,
        `${s}的账期多长`,
        `${s}的联系人是谁，电话多少`,
        `${s}质量怎么样，评分多少`,
        `${s}的联系电话发我一下`,
        `${s}那边交货要多少天`,
        `${s}的结算方式是啥`,
        `What is ${s}'s lead time?`,
        `How is ${s} rated?`,
        `what are the payment terms of ${s}?`,
      ]);
      const r = readRequest(ask, today);
      expect([r.intent, r.ask], ask).toEqual(['supplierInfo', 'supplierInfo']);
      const change = g.pick([
        `把${s}的评级改成${g.int(1, 5)}分`,
        `把${s}的交期改成${g.int(3, 30)}天`,
        `${s}的账期改为月结${g.pick([30, 60, 90])}天`,
        `把${s}的联系人改成张三`,
        `change ${s}'s rating to ${g.int(1, 5)}`,
        `set ${s}'s lead time to ${g.int(3, 30)} days`,
      ]);
      expect([readRequest(change, today).intent, readRequest(change, today).refusal], change).toEqual([
        'refuse',
        'masterData',
      ]);
    }
    // An order's delivery date is an order change, a payment still a payment, a definition still a term.
    expect(readRequest('把 PO-202611-H00231 的交期改到下周五', today).intent).toBe('update');
    expect(readRequest('给博世付一下上个月的货款', today).refusal).toBe('payment');
    expect(readRequest('什么是交货周期？', today).intent).toBe('knowledge');
  });

  it('reads who supplies a part and which models there are as catalogue questions, and spend as its own', () => {
    for (let i = 0; i < 30; i++) {
      const c = g.pick(categories);
      const text = g.pick([
        `谁家供应${c}？`,
        `哪些供应商能供应${c}`,
        `${c}有哪些型号`,
        `who supplies ${c}?`,
        `which suppliers carry ${c}?`,
        `What models of ${c} can we buy?`,
        `which ${c} do we have in the catalogue?`,
        `谁在卖${c}？`,
      ]);
      const r = readRequest(text, today);
      expect(r.intent, text).toBe('catalogue');
      // The question's words are not left to name a part.
      expect(r.rest, text).not.toMatch(/供应|型号|supplies|carry|models|buy/);
      const spend = g.pick([
        `去年下半年我们在${c}上花了多少钱？`,
        `今年${c}一共花了多少`,
        `how much did we spend on ${c} last year?`,
      ]);
      expect(readRequest(spend, today).intent, spend).toBe('spend');
    }
    // The cheapest of a comparison stays a comparison.
    expect(readRequest('which vendor has the cheapest ignition coils', today).intent).toBe('compare');
  });

  it('reads approval states, delivery questions, single days, half-years, quarters and rolling months', () => {
    for (const text of [
      '列出所有还没审批的订单',
      '未审批的单子有哪些',
      'show me orders not yet approved',
      'which orders are still waiting on approval',
    ]) {
      const r = readRequest(text, today);
      expect([r.intent, r.statuses?.statuses], text).toEqual(['lookup', ['pending_approval']]);
    }
    const friday = readRequest('上周五下的单到货了没有', today);
    expect([friday.intent, friday.delivery, friday.statuses, friday.period?.from, friday.period?.to]).toEqual([
      'lookup',
      true,
      undefined,
      '2026-11-27',
      '2026-11-27',
    ]);
    const period = (text: string) => {
      const p = readRequest(text, today).period;
      return p && [p.from, p.to];
    };
    expect(period('去年下半年在轮胎上花了多少钱')).toEqual(['2025-07-01', '2025-12-31']);
    expect(period('今年上半年的订单')).toEqual(['2026-01-01', '2026-06-30']);
    expect(period('第三季度的订单')).toEqual(['2026-07-01', '2026-09-30']);
    expect(period('上个季度花了多少')).toEqual(['2026-07-01', '2026-09-30']);
    expect(period('昨天下的单子有哪些')).toEqual(['2026-12-02', '2026-12-02']);
    expect(period('orders placed last Friday')).toEqual(['2026-11-27', '2026-11-27']);
    expect(period('这周一下的单都到货了吗')).toEqual(['2026-11-30', '2026-11-30']);
    expect(period('取消今天那张博世的单子')).toEqual(['2026-12-03', '2026-12-03']);
    for (const [day, from] of [
      ['昨天', '2026-12-02'],
      ['今天', '2026-12-03'],
    ]) {
      const withdraw = readRequest(`把${day}给冠军下的那个单撤了`, today);
      expect([withdraw.intent, withdraw.period?.from]).toEqual(['cancel', from]);
    }
    expect(period('最近三个月的订单')).toEqual(['2026-09-03', '2026-12-03']);
    // 今天到货 is still a delivery date, not a period.
    expect(readRequest('给博世下200个F7TC，今天到货', today).expectedDate).toBe('2026-12-03');
  });

  it('reads an order from the cheapest offer as an order, and a comparison of it as a comparison', () => {
    for (let i = 0; i < 20; i++) {
      const q = g.int(2, 20) * 50;
      const text = g.pick([
        `I need ${q} F7TC spark plugs, cheapest supplier`,
        `要${q}个前刹车片，哪家便宜就从哪家买`,
        `就从最便宜的那家订${q}个`,
        `buy ${q} pcs of BP-150R from whoever is cheapest`,
        `来${q}个D8TC，挑最便宜的供应商`,
      ]);
      const r = readRequest(text, today);
      expect([r.intent, r.quantity, r.cheapest], text).toEqual(['create', q, true]);
    }
    expect(readRequest('帮我比价一下500个F7TC哪家最便宜', today).intent).toBe('compare');
  });

  it('knows a Chinese supplier by its pinyin in English, whole words only', () => {
    const list = [
      { id: 1, name: '大同链条', nameEn: 'DID Chain' },
      { id: 2, name: '朝阳轮胎', nameEn: 'Chaoyang Tyres' },
      { id: 3, name: '马勒', nameEn: 'MAHLE' },
    ];
    const trade = ['链条', '轮胎', 'chain', 'tyre'];
    const named = (text: string) => findSuppliers(text, list, trade).map((m) => m.supplier.id);
    expect(named('order 600 of the 428H chains from Datong please')).toEqual([1]);
    expect(named('Chaoyang: 100 tyres')).toEqual([2]);
    // Short spellings (ma le) are never a supplier, nor a word a typo away from one.
    expect(named('make it 300 datongs')).toEqual([]);
  });
});

describe('requests for quotation (generated phrasings)', () => {
  const g = seeded(509);
  const parts = ['F7TC', '火花塞 F7TC', 'BP-125F 刹车片', 'HF204 机油滤清器', '90/90-18 轮胎', 'YTX7L-BS 蓄电池'];
  const partsEn = ['F7TC spark plugs', 'BP-125F brake pads', 'HF204 oil filters', 'YTX7L-BS batteries'];
  const named = [
    ['博世', 'NGK', '电装'],
    ['德尔福', '冠军'],
    ['博世', '火炬', '马勒', '电装'],
  ];
  const namedEn = [
    ['Bosch', 'NGK', 'Denso'],
    ['Delphi', 'Champion'],
  ];
  const rfqNo = () => `RFQ-2026${String(g.int(1, 12)).padStart(2, '0')}-${String(g.int(1, 999)).padStart(6, '0')}`;
  /** The model or code of a part phrase, which the text left to name parts must still hold. */
  const code = (part: string) => /[A-Z0-9][A-Z0-9/.-]+/.exec(part)?.[0] ?? part;

  it('reads a new RFQ: the part, the quantity, and a number of suppliers or the suppliers named, in Chinese and English', () => {
    for (let i = 0; i < 120; i++) {
      const n = g.int(1, 40) * 50;
      const k = g.int(2, 8);
      const english = g.int(0, 1) === 1;
      const byCount = g.int(0, 1) === 1;
      let text: string;
      let names: string[] = [];
      let part: string;
      if (english) {
        part = g.pick(partsEn);
        names = byCount ? [] : g.pick(namedEn);
        const who = byCount
          ? g.pick([`to ${k} suppliers`, `from ${k} vendors`, `to ${k} different suppliers`])
          : g.pick([`to ${names.join(' and ')}`, `from ${names.join(', ')}`]);
        text = g.pick([
          `Create an RFQ for ${n} ${part} ${who}`,
          `send a request for quotation for ${n} pcs of ${part} ${who}`,
          `RFQ: ${part}, qty ${n}, ${who}`,
          `please request quotes for ${n} ${part} ${who}`,
          `I need a quote request ${who} for ${n} ${part}`,
        ]);
      } else {
        part = g.pick(parts);
        names = byCount ? [] : g.pick(named);
        const quantity = g.pick([`数量 ${n}`, `${n}个`, `${zhNumber(n, false)}个`, `数量${n}`]);
        const who = byCount
          ? g.pick([`问 ${k} 家供应商`, `找${ZH_DIGITS[k]}家供应商报价`, `${k}家厂商`, `邀请 ${k} 家供应商`])
          : `向${names.join(g.pick(['、', '和', '，']))}`;
        text = g.pick([
          `给${part}发询价，${quantity}，${who}`,
          `帮我对${part}做个询价，${quantity}，${who}`,
          `${who}询价 ${part} ${quantity}`,
          `${part} ${quantity}，发询价单，${who}`,
          `${who}发一张${part}的询价单，${quantity}`,
        ]);
      }
      const r = readRequest(text, today);
      expect([r.intent, rfqAction(r), r.quantity, r.supplierCount], text).toEqual([
        'rfq',
        'create',
        n,
        byCount ? k : undefined,
      ]);
      // What names the part and the suppliers is left for grounding in the ERP.
      expect(r.rest, text).toContain(code(part));
      for (const name of names) expect(r.rest, text).toContain(name);
    }
  });

  it('reads what is done with an RFQ named by number: its quotes and proposal, the award and to whom, the close, the send', () => {
    const suppliers = ['博世', 'NGK', '电装', 'Bosch', 'Denso'];
    for (let i = 0; i < 80; i++) {
      const no = rfqNo();
      const s = g.pick(suppliers);
      const cases: Array<[string, string]> = [
        [
          g.pick([
            `看看 ${no} 的报价`,
            `${no} 的授标建议`,
            `${no} 报价回来了吗？`,
            `${no} 推荐哪家`,
            `show the quotes for ${no}`,
            `what did suppliers quote on ${no}?`,
            `proposal for ${no}`,
            `${no}`,
          ]),
          'show',
        ],
        [
          g.pick([
            `把 ${no} 授标给${s}`,
            `${no} 定标${s}`,
            `${no} 授给${s}吧`,
            `award ${no} to ${s}`,
            `${no}: award it to ${s}`,
            `please award ${no} to ${s}`,
          ]),
          'award',
        ],
        [g.pick([`截止 ${no}`, `关闭询价单 ${no}`, `${no} 提前截止`, `close ${no}`, `close ${no} now`]), 'close'],
        [g.pick([`把 ${no} 发出去`, `发送询价单 ${no}`, `send ${no} to the suppliers`, `send out ${no}`]), 'send'],
      ];
      for (const [text, action] of cases) {
        const r = readRequest(text, today);
        expect([r.intent, rfqAction(r), r.rfqNo, r.quantity], text).toEqual(['rfq', action, no, undefined]);
        if (action === 'award') expect(r.rest, text).toContain(s);
      }
    }
  });

  it('reads award and listing requests without a number, and keeps orders and analyses apart from RFQs', () => {
    for (const text of ['按推荐授标', '授标给博世', '就授给推荐的那家']) {
      const r = readRequest(text, today);
      expect([r.intent, rfqAction(r)], text).toEqual(['rfq', 'award']);
    }
    // Without a number, closing and sending mean the RFQ of the conversation — unless the words name a part to ask for.
    const actions: Array<[string, string]> = [
      ['截止询价', 'close'],
      ['把刚才的询价发出去', 'send'],
      ['close that RFQ', 'close'],
      ['报价截止周五，给火花塞 F7TC 发询价', 'create'],
      ['给火花塞 F7TC 发出询价，询博世和电装', 'create'],
    ];
    for (const [text, action] of actions) {
      const r = readRequest(text, today);
      expect([r.intent, rfqAction(r)], text).toEqual(['rfq', action]);
    }
    for (const text of ['我的询价单有哪些', '看看所有询价单', 'list my RFQs', 'which RFQs are open?']) {
      const r = readRequest(text, today);
      expect([r.intent, rfqAction(r)], text).toEqual(['rfq', 'list']);
    }
    // An order from one supplier, a comparison of named suppliers, and the assistant's awareness are no RFQ.
    expect(readRequest('给博世下 200 个 F7TC 火花塞的采购单', today).intent).toBe('create');
    expect(readRequest('对比一下火炬、恒久、大同三家的428H-118L链条价格', today).intent).toBe('compare');
    expect(readRequest('比较 3 家供应商的 F7TC 报价', today).intent).toBe('compare');
    expect(readRequest('are you aware of low stock?', today).intent).toBe('inventory');
  });
});

describe('prices with cents, budgets said first, look-back windows, states, months and definitions (generated phrasings)', () => {
  const g = seeded(8080);
  const suppliers = ['博世', '德尔福', '火炬', 'NGK', '电装'];
  const parts = ['F7TC', 'BP-125F', 'HF204 机油滤清器', '火花塞', 'IC-125 点火线圈'];

  it('keeps the cents of a price, reads a price per piece without its currency, and a budget however it is put', () => {
    for (let i = 0; i < 40; i++) {
      const price = g.int(5, 400) + g.pick([0.5, 0.25, 0.48, 0.9, 0.05]);
      const judge = g.pick([
        `${g.pick(suppliers)}的${g.pick(parts)}卖${price}贵不贵`,
        `${g.pick(parts)} ${price}元，这个价合理吗`,
        `${g.pick(suppliers)}报价 ${price}，${g.pick(parts)}价格高不高`,
        `Is ${price} yuan a fair price for ${g.pick(parts)}?`,
        `${g.pick(['Bosch', 'Denso'])} wants ${price} per ${g.pick(parts)}, is that fair?`,
        `${g.pick(parts)} at ${price} each — reasonable?`,
        `${g.pick(suppliers)}的${g.pick(parts)} ${price}/个，合理吗`,
      ]);
      const j = readRequest(judge, today);
      expect([j.intent, j.money, j.quantity], judge).toEqual(['judge', price, undefined]);
      const tenThousands = g.int(1, 9) + g.pick([0, 0.5, 0.2]);
      const n = g.int(2, 90) * 100;
      const [budget, money] = g.pick<[string, number]>([
        [`我有${tenThousands}万预算，${g.pick(parts)}能买几个`, Math.round(tenThousands * 10_000)],
        [`${zhNumber(n, false)}元的预算，${g.pick(parts)}可以买多少`, n],
        [`a ${n / 1000}k budget for ${g.pick(parts)}, how many can I buy?`, n],
        [`How many ${g.pick(parts)} from ${g.pick(['Bosch', 'Torch'])} can I buy with ${n} yuan?`, n],
        [`我手上有${zhNumber(n, false)}块，${g.pick(suppliers)}的${g.pick(parts)}最多能买多少？`, n],
      ]);
      const b = readRequest(budget, today);
      expect([b.intent, b.money, b.quantity], budget).toEqual(['budget', money, undefined]);
    }
  });

  it('reads the window a direction or trend question looks back over, 12 months when it says none', () => {
    for (let i = 0; i < 40; i++) {
      const part = g.pick(parts);
      const n = g.int(2, 11);
      const [text, months] = g.pick<[string, number | undefined]>([
        [`${part}${g.pick(['最近半年', '近半年', '过去半年', '这半年'])}价格涨了还是跌了？`, 6],
        [`${part}${g.pick(['过去', '最近', '近'])}${g.pick([String(n), zhNumber(n, false)])}个月价格是涨是跌`, n],
        [`has the price of ${part} gone ${g.pick(['up', 'down'])} over the last ${n} months?`, n],
        [`${part}这一年是涨了还是跌了`, undefined],
      ]);
      const r = readRequest(text, today);
      expect([r.intent, r.period?.months, r.quantity], text).toEqual(['direction', months, undefined]);
      expect(historyWindow(r.period, today).months, text).toBe(months ?? 12);
      const trend = `${part}${g.pick(['近', '过去', '最近'])}${zhNumber(n, false)}个月的价格走势`;
      const t = readRequest(trend, today);
      expect([t.intent, t.period?.months], trend).toEqual(['trend', n]);
    }
    // A calendar period is the months from its start to now, kept to its end.
    expect(historyWindow(readRequest('F7TC今年上半年是涨了还是跌了', today).period, today)).toMatchObject({
      months: 12,
      from: '2026-01',
      to: '2026-06',
    });
  });

  it('reads cancelled orders said as an attribute, and months spelled out in English, as look-up filters', () => {
    const names = [
      'January',
      'February',
      'March',
      'April',
      'June',
      'July',
      'August',
      'September',
      'October',
      'November',
    ];
    for (let i = 0; i < 30; i++) {
      const month = g.int(1, 11);
      const zh = readRequest(
        g.pick([`${month}月份取消的订单有哪些`, `${month}月作废的单子`, `看看${month}月撤销的采购单`]),
        today,
      );
      expect([zh.intent, zh.statuses?.statuses, zh.period?.from], zh.text).toEqual([
        'lookup',
        ['cancelled'],
        `2026-${String(month).padStart(2, '0')}-01`,
      ]);
      const name = g.pick(names);
      const en = readRequest(
        g.pick([
          `show me cancelled orders from ${name}`,
          `${name} orders from ${g.pick(suppliers)}`,
          `list orders of ${name}`,
        ]),
        today,
      );
      const at = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov'].indexOf(
        name.slice(0, 3).toLowerCase(),
      );
      expect([en.intent, en.period?.from], en.text).toEqual(['lookup', `2026-${String(at + 1).padStart(2, '0')}-01`]);
    }
  });

  it('reads what a term is as a knowledge question, even when the term names a flow of its own', () => {
    const glossary = parseGlossary(fs.readFileSync('skills/main/procurement-glossary/SKILL.md', 'utf8'));
    for (const entry of glossary) {
      for (const text of [
        `什么是${entry.titleZh}`,
        `${entry.titleZh}是什么？`,
        `${entry.titleEn} 是什么`,
        `什么叫${entry.titleZh}`,
        `何谓${entry.titleZh}？`,
      ]) {
        expect(readRequest(text, today).intent, text).toBe('knowledge');
        expect(findTerm(glossary, text)?.titleEn, text).toBe(entry.titleEn);
      }
    }
    // A supplier's field is still the supplier's.
    expect(readRequest('博世的付款条件是什么', today).intent).toBe('supplierInfo');
  });

  it('refuses a buyer approving an order however the request is put, and still lists orders awaiting approval', () => {
    for (let i = 0; i < 20; i++) {
      const no = `PO-2026${String(g.int(1, 12)).padStart(2, '0')}-H${String(g.int(1, 999)).padStart(5, '0')}`;
      const text = g.pick([`帮我审批 ${no}`, `请审批一下这个单`, `麻烦把${no}审批了`, `审批 ${no}`, `帮忙批一下${no}`]);
      const r = readRequest(text, today);
      expect([r.intent, r.refusal], text).toEqual(['refuse', 'approve']);
    }
    for (const text of ['待审批的订单有哪些', '审批中的订单', '哪些单子还没审批？'])
      expect(readRequest(text, today).intent, text).toBe('lookup');
  });
});

describe('trend words, the newest order, supplier bounds and stock questions (generated phrasings)', () => {
  const g = seeded(41);
  const parts = ['链条', '火花塞', 'F7TC', '刹车片', 'BP-125F', '机滤', '轮胎', '点火线圈'];
  const suppliers = ['博世', '朝阳轮胎', '马勒', '大同链条'];

  it('reads how a price moved as a trend, however the movement is put', () => {
    for (let i = 0; i < 30; i++) {
      const part = g.pick(parts);
      const text = g.pick([
        `${part}${g.pick(['最近一年', '近半年', '这一年', ''])}价格怎么走的`,
        `${part}的价格走向如何`,
        `${part}价格变化情况`,
        `${part}最近价格怎么变的`,
        `${part}的价格变动`,
      ]);
      expect(readRequest(text, today).intent, text).toBe('trend');
    }
  });

  it('reads the newest of the orders meant, only when a cancel or change says so', () => {
    for (let i = 0; i < 30; i++) {
      const supplier = g.pick(suppliers);
      const text = g.pick([
        `把最近那张${supplier}的单子取消掉`,
        `取消${supplier}最新的一单`,
        `刚才下的那张${supplier}的单子取消`,
        `把${supplier}最后一张订单撤了`,
        `取消我最近${g.pick(['', '一次'])}${g.pick(['下', '订', '提交'])}的${g.pick(['那张', '那个', ''])}${g.pick(['单', '订单'])}`,
        `把我最近${g.pick(['下', '订'])}的那张${supplier}的单子撤掉`,
        `cancel my latest order with ${g.pick(['Bosch', 'Mahle'])}`,
        `cancel the most recent ${g.pick(['Bosch', 'Mahle'])} order`,
      ]);
      const r = readRequest(text, today);
      expect([r.intent, r.newest], text).toEqual(['cancel', true]);
    }
    for (const text of ['最近三个月的订单有哪些', '取消昨天那张博世的单子', 'show last month orders'])
      expect(readRequest(text, today).newest, text).toBeUndefined();
  });

  it('reads a bound on a supplier’s rating or lead time, inclusive as said, as a supplier question', () => {
    for (let i = 0; i < 40; i++) {
      const rating = g.pick([4, 4.2, 4.5, 4.7]);
      const days = g.int(5, 30);
      const [text, bound] = g.pick<[string, FieldBound]>([
        [`评分${rating}以上的供应商有哪些`, { field: 'rating', op: '>=', value: rating }],
        [`评级不低于${rating}的供应商`, { field: 'rating', op: '>=', value: rating }],
        [`评分高于${rating}的供应商有哪些？`, { field: 'rating', op: '>', value: rating }],
        [`交期${days}天以内的供应商有哪些`, { field: 'leadTime', op: '<=', value: days }],
        [`哪些供应商交货期在${days}天以下`, { field: 'leadTime', op: '<=', value: days }],
        [`which suppliers are rated at least ${rating}?`, { field: 'rating', op: '>=', value: rating }],
        [`suppliers with a rating above ${rating}`, { field: 'rating', op: '>', value: rating }],
        [`which suppliers have a lead time under ${days} days?`, { field: 'leadTime', op: '<', value: days }],
      ]);
      expect(readFieldBound(text), text).toEqual(bound);
      const r = readRequest(text, today);
      expect([r.intent, r.quantity], text).toEqual(['supplierInfo', undefined]);
    }
    expect(readFieldBound('博世的交期是多少')).toBeUndefined();
  });

  it('reads a state-named cancel as a cancel, how many orders and what was paid as spend, who supplies as catalogue, and a difference as knowledge', () => {
    for (let i = 0; i < 40; i++) {
      const s = g.pick(suppliers);
      const [state, statuses] = g.pick<[string, string[]]>([
        ['待审批', ['pending_approval']],
        ['还没审批', ['pending_approval']],
        ['还没到货', ['approved', 'ordered']],
      ]);
      const cancel = g.pick([
        `帮我把${s}那张${state}的单取消掉`,
        `${s}${state}的订单撤了吧`,
        `把${s}${state}的那个单子作废`,
      ]);
      const r = readRequest(cancel, today);
      expect([r.intent, r.statuses?.statuses], cancel).toEqual(['cancel', statuses]);
      const count = g.pick([
        `${g.pick(['上个月', '今年', '这个月'])}一共下了几张单，总金额多少`,
        `${g.pick(['上个月', '今年'])}下了多少个订单，一共花了多少钱`,
      ]);
      const c = readRequest(count, today);
      expect([c.intent, namesSomething(partText(c, []))], count).toEqual(['spend', false]);
      const paid = g.pick([
        `What did we pay for ${g.pick(['CR7HIX', 'F7TC', 'brake pads'])} ${g.pick(['over the last six months', 'last year', 'this year', ''])}?`,
        `what price did we pay for ${g.pick(['F7TC', 'tyres'])}?`,
      ]);
      expect(readRequest(paid, today).intent, paid).toBe('spend');
      const who = `${g.pick(['点火线圈', '火花塞', '轮胎'])}${g.pick(['有几家在供货', '有几家供应商能供应', '几家在卖'])}`;
      expect(readRequest(who, today).intent, who).toBe('catalogue');
      const diff = g.pick([
        "what's the difference between a blanket order and a framework agreement",
        'what is the difference between MOQ and lot size?',
        '框架订单和一揽子订单有什么区别',
      ]);
      expect(readRequest(diff, today).intent, diff).toBe('knowledge');
    }
    expect(readRequest('上周取消了哪些单子', today).intent).toBe('lookup');
    expect(readRequest('帮我给博世付款 200 元', today).refusal).toBe('payment');
  });

  it('tells a question about what one supplier’s part costs from a comparison of offers', () => {
    for (let i = 0; i < 30; i++) {
      const s = g.pick(suppliers);
      const part = g.pick(['A7TC', '高压包', 'F7TC', '刹车片']);
      const one = g.pick([
        `${s}的${part}多少钱一个`,
        `${s}的${part}现在什么价？`,
        `${s}的${part}单价是多少`,
        `what's ${s}'s price for ${part}?`,
        `how much is ${part} from ${s}?`,
      ]);
      expect(asksOnePrice(one), one).toBe(true);
      const many = g.pick([
        `${part}哪家最便宜`,
        `${part}多少钱，帮我比价`,
        `compare the price of ${part}`,
        `which supplier has the cheapest ${part}?`,
      ]);
      expect(asksOnePrice(many), many).toBe(false);
    }
  });

  it('reads a price change asked about as a direction, a month to date as spend, an English price judgement, and the newest order asked about alone', () => {
    for (let i = 0; i < 40; i++) {
      const part = g.pick(['铱金火花塞', 'F7TC', '刹车片', '链条']);
      const direction = g.pick([
        `${g.pick(['NGK的', '博世的', ''])}${part}${g.pick(['最近三个月', '今年', ''])}价格有变化吗`,
        `${part}的价格有没有变化`,
        `${part}价格变了吗`,
        `has the price of ${g.pick(['F7TC', 'brake pads'])} changed ${g.pick(['this year', 'lately', ''])}?`,
      ]);
      expect(readRequest(direction, today).intent, direction).toBe('direction');
      const spend = `${g.pick(['这个月', '今年', '这个季度'])}${g.pick(['到现在', '至今', '到目前为止'])}${g.pick(['花了多少钱', '一共花了多少钱', '花费多少钱'])}`;
      const r = readRequest(spend, today);
      expect([r.intent, namesSomething(partText(r, []))], spend).toEqual(['spend', false]);
      const price = g.int(5, 60);
      const judge = g.pick([
        `${g.pick(suppliers)}报${g.pick(['F7TC', 'A7TC'])}单价${price}块，这个价怎么样`,
        `Is ${price} yuan for a ${g.pick(['D8TC spark plug', 'BP-150R brake pad'])} expensive?`,
        `is Bosch's F7TC at ${price}.5 cheap?`,
        `Are ${price} yuan tyres pricey?`,
      ]);
      const j = readRequest(judge, today);
      expect([j.intent, Math.floor(j.money ?? 0)], judge).toEqual(['judge', price]);
      const newest = `${g.pick(suppliers)}最近的${g.pick(['单子', '订单', '那张单'])}${g.pick(['到货了吗', '到了没有', '状态怎么样'])}`;
      const n = readRequest(newest, today);
      expect([n.intent, n.newest], newest).toEqual(['lookup', true]);
    }
    expect(readRequest('最近的订单有哪些', today).newest).toBeUndefined();
  });

  it('reads the place a supplier question narrows to, and finds a city in it by its Chinese or its pinyin', () => {
    for (let i = 0; i < 30; i++) {
      const [zh, en] = g.pick([
        ['江苏', 'Jiangsu'],
        ['上海', 'Shanghai'],
        ['浙江', 'Zhejiang'],
        ['广州', 'Guangzhou'],
      ]);
      const text = g.pick([
        `哪些供应商在${zh}`,
        `有没有在${zh}的供应商？`,
        `${zh}的供应商有哪些`.replace(/^/, '位于'),
        `Which suppliers are based in ${en}?`,
        `suppliers in ${en}`,
      ]);
      const r = readRequest(text, today);
      expect([r.intent, readPlace(text), namesSomething(partText(r, []))], text).toEqual([
        'supplierInfo',
        /[a-z]/i.test(text) ? en : zh,
        false,
      ]);
    }
    expect(inPlace('江苏苏州', '江苏')).toBe(true);
    expect(inPlace('江苏苏州', 'Suzhou')).toBe(true);
    expect(inPlace('上海', 'shanghai')).toBe(true);
    expect(inPlace('浙江杭州', 'Jiangsu')).toBe(false);
    expect(inPlace('天津', '上海')).toBe(false);
  });

  it('reads what a supplier sells as a catalogue question and whether it delivers on time as a supplier question', () => {
    for (let i = 0; i < 30; i++) {
      const s = g.pick(['布雷博', '博世', '正新轮胎', 'Brembo', 'Bosch']);
      const sells = g.pick([
        `${s}都卖哪些东西`,
        `${s}有什么产品`,
        `${s}卖什么`,
        `what does ${s} sell?`,
        `what can ${s} supply`,
      ]);
      const r = readRequest(sells, today);
      expect([r.intent, r.rest.replace(/[|\s?]/g, '')], sells).toEqual(['catalogue', s]);
      const onTime = g.pick([`${s}交货准时吗`, `${s}到货及时吗`, `${s}按时交货吗`, `${s}发货准时吗`]);
      expect(readRequest(onTime, today).intent, onTime).toBe('supplierInfo');
    }
  });

  it('reads every glossary term, asked in every way, as a knowledge question', () => {
    const entries = parseGlossary(fs.readFileSync('skills/main/procurement-glossary/SKILL.md', 'utf8'));
    // Inside a sentence a term is written in lower case, an acronym (MOQ) as it is.
    const inSentence = (title: string) => (/^[A-Z][a-z]/.test(title) ? title.toLowerCase() : title);
    for (const e of entries)
      for (const say of [
        `What is ${inSentence(e.titleEn)}?`,
        `what does ${e.titleEn} mean`,
        `Explain ${e.titleEn}`,
        `什么是${e.titleZh}？`,
        `${e.titleZh}是什么意思`,
        `解释一下${e.titleZh}`,
      ])
        expect(readRequest(say, today).intent, say).toBe('knowledge');
  });

  it('reads an RFQ deadline said before or after its words, and the rest as the required date', () => {
    const now = new Date('2026-12-05T04:00:00Z');
    for (const [text, deadline] of [
      ['给德尔福发个询价，F7TC 2000个，下周五截止', '2026-12-11'],
      ['F7TC 询价 500个，报价截止到下周三', '2026-12-09'],
      ['询价 F7TC 500个，周三前截止', '2026-12-09'],
    ] as const) {
      const { replyDeadline, requiredDate } = rfqDates(text, {}, now);
      expect(new Date(replyDeadline).toISOString(), text).toBe(new Date(`${deadline}T18:00:00+08:00`).toISOString());
      expect(requiredDate > deadline, text).toBe(true);
    }
  });

  it('reads a question about what one’s own account may do as a permission question, and an order asked politely as an order', () => {
    for (let i = 0; i < 40; i++) {
      const verb = g.pick(['下单', '审批', '取消订单', '修改订单', '采购']);
      const text = g.pick([
        `我是${g.pick(['只读', '访客', '采购员', ''])}账号，${g.pick(['能', '可以', '能不能'])}${verb}吗`,
        `我有${g.pick(['', '没有'])}权限${verb}${g.pick(['吗', '？'])}`,
        `当前账号可以${verb}吗？`,
        `我的${g.pick(['权限', '角色'])}是什么`,
        `${g.pick(['can', 'may'])} I ${g.pick(['approve', 'place', 'cancel', 'create'])} ${g.pick(['orders', 'an order', 'purchase orders'])}?`,
        `am I allowed to ${g.pick(['approve', 'cancel', 'place'])} orders?`,
        `do I have permission to ${g.pick(['approve', 'order'])}?`,
        `what is my role?`,
      ]);
      expect(readRequest(text, today).intent, text).toBe('permission');
    }
    for (let i = 0; i < 20; i++) {
      const q = g.int(2, 40) * 10;
      const text = g.pick([
        `我能给${g.pick(suppliers)}下${q}个F7TC吗`,
        `can I order ${q} F7TC from ${g.pick(['Bosch', 'Denso'])}?`,
        `我可以订${q}个刹车片吗`,
      ]);
      expect(readRequest(text, today).intent, text).toBe('create');
    }
  });

  it('reads the best or worst supplier by a field, and a ranking, as a supplier question with that ranking', () => {
    for (let i = 0; i < 40; i++) {
      const within = g.pick(['', `${g.pick(['火花塞', '刹车片', '轮胎', '链条', '电瓶'])}的供应商里`]);
      const [text, extreme] = g.pick<[string, Extreme]>([
        [`${within}哪家供应商的评分最高`, { by: 'rating', want: 'max', end: true }],
        [`${within}评级最低的是哪家`, { by: 'rating', want: 'min', end: true }],
        [`${within}哪家交期最短？`, { by: 'leadTime', want: 'min', end: true }],
        [`${within}哪家交货最快`, { by: 'leadTime', want: 'min', end: true }],
        [`${within}交期最长的是哪家`, { by: 'leadTime', want: 'max', end: true }],
        [`${within}哪家供应商准时交货率最高`, { by: 'onTime', want: 'max', end: true }],
        [`按准时交货率给供应商排个名`, { by: 'onTime', want: 'max', end: false }],
        [`供应商按评分排名`, { by: 'rating', want: 'max', end: false }],
        ['which supplier is rated highest?', { by: 'rating', want: 'max', end: true }],
        ['which supplier has the best lead time?', { by: 'leadTime', want: 'min', end: true }],
        ['who has the longest lead time?', { by: 'leadTime', want: 'max', end: true }],
        ['rank suppliers by on-time delivery', { by: 'onTime', want: 'max', end: false }],
        ['which vendor has the worst on-time delivery rate?', { by: 'onTime', want: 'min', end: true }],
      ]);
      expect(readExtreme(text), text).toEqual(extreme);
      const r = readRequest(text, today);
      expect([r.intent, r.quantity], text).toEqual(['supplierInfo', undefined]);
    }
    expect(readExtreme('博世的交期是多少')).toBeUndefined();
  });

  it('reads a stock question about a part as a stock question, never an order', () => {
    for (let i = 0; i < 30; i++) {
      const part = g.pick(parts);
      const text = g.pick([
        `${part}的库存还有多少？`,
        `${part}还剩多少库存`,
        `仓库里${part}有多少`,
        `how many ${part} do we have in stock?`,
        `what is our stock of ${part}?`,
      ]);
      const r = readRequest(text, today);
      expect([r.intent, r.quantity], text).toEqual(['inventory', undefined]);
      expect(partText(r, []), text).toContain(part);
    }
  });
});

describe('deletes, per-piece prices, receipt states and price questions (generated phrasings)', () => {
  const g = seeded(53);
  const suppliers = ['德尔福', '博世', '马勒', '朝阳轮胎'];
  const parts = ['刹车片', 'F7TC', '机滤', '轮胎', '链条'];

  it('refuses deleting one supplier, part or record with its own reason, and leaves an order to be cancelled', () => {
    for (let i = 0; i < 20; i++) {
      const text = g.pick([
        `把${g.pick(suppliers)}删掉`,
        `删除供应商${g.pick(suppliers)}`,
        `把${g.pick(parts)}这个零件删了`,
        `delete the supplier ${g.pick(['Bosch', 'Delphi'])}`,
        `remove ${g.pick(['Bosch', 'Delphi'])} from the vendor list`,
      ]);
      const r = readRequest(text, today);
      expect([r.intent, r.refusal], text).toEqual(['refuse', 'delete']);
    }
    expect(readRequest('把PO-202611-H00229删掉', today).refusal).toBeUndefined();
  });

  it('reads a price said per piece of any unit as money, never a quantity', () => {
    for (let i = 0; i < 20; i++) {
      const price = g.pick([g.int(5, 300), g.int(500, 30000) / 100]);
      const unit = g.pick(['一副', '一支', '一根', '一条', '一个', '每套']);
      // With its currency word or without it (33.95 一副): the piece after it makes it a price.
      const text = `${g.pick(suppliers)}的${g.pick(parts)} ${price}${g.pick([' 块', '块', '元', ' ', ''])}${unit}${g.pick(['，这个价格正常吗？', '贵不贵？', '合理吗'])}`;
      const r = readRequest(text, today);
      expect([r.intent, r.money, r.quantity], text).toEqual(['judge', price, undefined]);
    }
  });

  it('reads orders not yet received as a state filter, and a supplier named inside a lead-time question', () => {
    for (const text of ['还没收货的订单有哪些', '哪些单子还未收货', '尚未收货的采购单'])
      expect(readRequest(text, today).statuses?.label, text).toMatch(/未到货/);
    for (const name of ['Brembo', 'Bosch', 'Mahle'])
      expect(readRequest(`How long does ${name} take to deliver?`, today).rest, name).toContain(name);
  });

  it('reads an English direction follow-up as naming no part, so the part of the conversation is meant', () => {
    for (const text of [
      'Has it gone up or down?',
      'Did it go down or up?',
      'has the price gone up over the last six months?',
      'Was it going up?',
    ]) {
      const r = readRequest(text, today);
      expect([r.intent, namesSomething(partText(r, []))], text).toEqual(['direction', false]);
    }
  });

  it('reads what a part costs now as a price question, and which supplier is bought from most as spend', () => {
    for (let i = 0; i < 20; i++) {
      const part = g.pick(parts);
      const price = g.pick([`${part}现在什么价`, `${part}啥价`, `${part}现在怎么卖`, `${part}的价位怎么样`]);
      expect(readRequest(price, today).intent, price).toBe('compare');
      const most = g.pick([
        `我们最常买的是哪家的${part}`,
        `${part}买得最多的是哪家`,
        `which supplier do we buy the most ${part} from?`,
      ]);
      expect(readRequest(most, today).intent, most).toBe('spend');
    }
  });
});

describe('a model no part has', () => {
  const battery = (id: number, model: string) => ({
    ...part(id, `VT-${model}`, model, `摩托车蓄电池 ${model}`),
    category: 'battery',
  });

  it('names no part when the model said is not among the parts found, instead of another model of the same words', () => {
    const found = new Map([['battery', [battery(1, 'YTX7L-BS')]]]);
    for (const text of ['need 40 batteries L2-400 from Varta', '订40个L2-400电瓶', 'order 40 of the 12N9-4B batteries'])
      expect(matchParts(text, found), text).toEqual([]);
    // A count or a size beside the words still finds them, and so does the model itself.
    for (const text of ['order 300pcs batteries', 'YTX7LBS battery x 40', 'the 7L-BS battery'])
      expect(
        matchParts(text, found).map((p) => p.id),
        text,
      ).toEqual([1]);
  });
});

describe('noun-phrase questions (generated phrasings)', () => {
  const g = seeded(61);

  it('reads a supplier field said last as a question about it, never a payment, and 几张单 as a look-up', () => {
    for (let i = 0; i < 30; i++) {
      const supplier = g.pick(['正新轮胎', 'Bosch', '马勒', '德尔福']);
      const field = g.pick(['联系方式', '付款条件', '账期', '交期', '电话', '评分']);
      const text = `${supplier}的${field}${g.pick(['', '？', '。'])}`;
      expect(readRequest(text, today).intent, text).toBe('supplierInfo');
      const count = `${g.pick(['上个月', '上周', '这个月', '今年'])}${g.pick(['一共', '总共', ''])}下了几${g.pick(['张', '笔'])}单`;
      expect(readRequest(count, today).intent, count).toBe('lookup');
    }
  });
});

describe('own orders, stock left, payments and a day of a month (generated phrasings)', () => {
  const g = seeded(67);

  it('reads 我…提交的 as the user’s own, what is left of a part as stock, and 打一笔款 as a payment', () => {
    for (let i = 0; i < 20; i++) {
      const mine = `我${g.pick(['上周', '上个月', '昨天', '给博世'])}${g.pick(['提交', '下', '订'])}的${g.pick(['订单', '单子'])}有哪些`;
      const r = readRequest(mine, today);
      expect([r.intent, (r.scores.mine ?? 0) > 0], mine).toEqual(['lookup', true]);
      const part = g.pick(['F7TC', '点火线圈', '机滤', 'BP-125F']);
      const left = g.pick([`${part}还有多少`, `${part}还剩多少个？`, `哪些东西快没货了`, `how many ${part} are left`]);
      expect(readRequest(left, today).intent, left).toBe('inventory');
      const ours = `what is our stock of ${g.pick(['tyres', 'F7TC', 'brake pads'])}?`;
      expect(readRequest(ours, today).intent, ours).toBe('inventory');
      const pay = `给${g.pick(['德尔福', '博世', '马勒'])}${g.pick(['打一笔款', '打笔款', '汇一笔款'])}`;
      expect(readRequest(pay, today).refusal, pay).toBe('payment');
    }
    // Orders are still looked up: what is left undelivered is a question about orders, not stock.
    expect(readRequest('上个月还有多少订单没到货', today).intent).toBe('lookup');
  });

  it('reads a day of a month the orders were placed on as that day, last year’s when it is still to come', () => {
    for (let i = 0; i < 20; i++) {
      const month = g.int(1, 12);
      const day = g.int(1, 28);
      const text = `${month}月${day}${g.pick(['号', '日'])}${g.pick(['下的单到货了吗', '的订单有哪些', '订的那张单'])}`;
      const year =
        month - 1 > today.getUTCMonth() || (month - 1 === today.getUTCMonth() && day > today.getUTCDate())
          ? 2025
          : 2026;
      const iso = `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
      expect(readRequest(text, today).period?.from, text).toBe(iso);
    }
    // A delivery date is not a period.
    expect(readRequest('给博世下200个F7TC，12月20号前到货', today).period).toBeUndefined();
  });

  it('reads adding to an order as a change of it', () => {
    for (const text of ['再加100个', '追加50个', '多加200只'])
      expect([readRequest(text, today).intent, readRequest(text, today).quantity], text).toEqual([
        'update',
        Number(/\d+/.exec(text)?.[0]),
      ]);
  });
});

describe('yuan and jiao, English budgets and catalogue questions (generated phrasings)', () => {
  const g = seeded(71);

  it('reads 9块5 as nine yuan five jiao, never a count of five', () => {
    for (let i = 0; i < 20; i++) {
      const yuan = g.int(2, 90);
      const jiao = g.int(1, 9);
      const said = g.pick([
        `${yuan}块${jiao}`,
        `${yuan}块${jiao}毛`,
        `${zhNumber(yuan, false)}块${'一二三四五六七八九'[jiao - 1]}`,
      ]);
      const text = `${g.pick(['火炬', '博世'])}的F7TC${g.pick(['报价', '卖', ''])}${said}${g.pick(['一只', '一个', ''])}，${g.pick(['合理吗', '贵不贵'])}`;
      const r = readRequest(text, today);
      expect([r.intent, r.money, r.quantity], text).toEqual(['judge', yuan + jiao / 10, undefined]);
    }
  });

  it('reads "how many … can N yuan buy" as a budget and "any suppliers for …" as the catalogue', () => {
    for (let i = 0; i < 10; i++) {
      const part = g.pick(['3.00-10 tyres', 'F7TC plugs', 'brake pads']);
      const money = g.int(10, 90) * 100;
      const budget = `how many ${part} can ${money} yuan buy?`;
      expect([readRequest(budget, today).intent, readRequest(budget, today).money], budget).toEqual(['budget', money]);
      const who = `${g.pick(['do we have any', 'which', 'are there any'])} suppliers for ${g.pick(['air filters', 'chains', 'batteries'])}?`;
      expect(readRequest(who, today).intent, who).toBe('catalogue');
    }
  });
});

describe('a supplier the ERP does not have (generated phrasings)', () => {
  const g = seeded(83);
  /** Whether `raw` names a supplier the ERP lacks, when only the part words in `known` find parts. */
  const stranger = (raw: string, known: string[] = [], vocabulary: string[] = []) => {
    const words = partText(readRequest(raw, today), []);
    const found = { id: 1 } as PartRef;
    const searched = new Map(
      partQueries(words).map((q) => [q.query, known.includes(q.query) ? [found] : []] as [string, PartRef[]]),
    );
    return unknownSupplier(raw, words, searched, known.length > 0, (w) => vocabulary.some((v) => w.includes(v)));
  };

  it('reads a name where a supplier goes that the ERP knows as neither supplier nor part', () => {
    for (let i = 0; i < 30; i++) {
      const [zh, en] = g.pick([
        ['米其林', 'Michelin'],
        ['固特异', 'Goodyear'],
        ['倍耐力', 'Pirelli'],
        ['法雷奥', 'Valeo'],
      ]);
      const part = g.pick(['轮胎', 'F7TC', '刹车片']);
      const partEn = g.pick(['tyres', 'F7TC', 'brake pads']);
      const [text, name, known] = g.pick<[string, string, string[]]>([
        [`${zh}的${part}价格这半年是涨是跌？`, zh, [part]],
        [`给${zh}下${g.int(1, 9) * 100}个${part}`, zh, [part]],
        [`从${zh}订${g.int(1, 9) * 100}个${part}`, zh, [part]],
        [`${zh}的单子有哪些`, zh, []],
        [`今年在${zh}上花了多少钱`, zh, []],
        [`order ${g.int(1, 9) * 100} ${partEn} from ${en}`, en, [partEn.replace(/s$/, '').toLowerCase()]],
        [`how much is the ${en} ${partEn}?`, en, [partEn.replace(/s$/, '').toLowerCase()]],
      ]);
      expect(stranger(text, known), text).toBe(name);
    }
  });

  it('reads no supplier in the user, a pronoun, a supplier already meant, a part the ERP lacks or a model code', () => {
    for (const [text, known] of [
      ['给我订200个F7TC', ['F7TC']],
      ['从那家订500个', []],
      ['给最便宜的那家下单', []],
      ['火星塞的价格多少', []],
      ['order 200 tyres from them', ['tyre']],
      ['how much is the tyre?', ['tyre']],
      ['how much is the XR-900 plug?', ['plug']],
      ['给供应商付款', []],
    ] as Array<[string, string[]]>)
      expect(stranger(text, known), text).toBeUndefined();
    // A category the catalogue knows, where a supplier could stand ("在链条上花了多少"), is spend on that category.
    for (const word of ['链条', '轮胎', '火花塞']) {
      expect(stranger(`上上个月在${word}上花了多少？`, [], [word]), word).toBeUndefined();
      expect(stranger(`给${word}发询价，问 3 家供应商`, [], [word]), word).toBeUndefined();
    }
  });
});

describe('this quarter, quarters by number and orders already received (generated phrasings)', () => {
  const g = seeded(97);
  const suppliers = ['博世', '火炬', '马勒'];

  it('reads this quarter and Q1–Q4 (of this or last year) as the quarter’s months', () => {
    for (let i = 0; i < 20; i++) {
      const supplier = g.pick(suppliers);
      const said = g.pick(['这个季度', '本季度', '这季度', '当前季度']);
      expect(readRequest(`${said}${supplier}的单子有哪些`, today).period, said).toMatchObject({
        from: '2026-10-01',
        to: '2026-12-31',
      });
      const n = g.int(1, 4);
      const lastYear = g.pick([true, false]);
      const text = `${lastYear ? '去年' : ''}Q${n}${supplier}的订单`;
      const year = lastYear ? 2025 : 2026;
      expect(readRequest(text, today).period?.from, text).toBe(`${year}-${String(n * 3 - 2).padStart(2, '0')}-01`);
    }
    expect(readRequest("this quarter's orders from Bosch", today).period?.from).toBe('2026-10-01');
  });

  it('reads a look at a supplier’s scorecard as a question about the supplier', () => {
    for (let i = 0; i < 10; i++) {
      const text = `${g.pick(['看看', '查查', '查一下', ''])}${g.pick(suppliers)}的${g.pick(['评分卡', '绩效', '记分卡'])}${g.pick(['', '怎么样', '？'])}`;
      expect(readRequest(text, today).intent, text).toBe('supplierInfo');
    }
  });

  it('reads the last n days or weeks as a rolling window ending today; last week stays the calendar week', () => {
    for (let i = 0; i < 20; i++) {
      const [text, days] = g.pick<[string, number]>([
        ['最近一周下的单', 7],
        ['过去7天的订单', 7],
        ['近两周博世的单子', 14],
        ['最近10天的订单', 10],
        ['orders from the last 7 days', 7],
        ['show me orders from the past week', 7],
        ['orders in the last two weeks', 14],
      ]);
      const from = new Date(today);
      from.setUTCDate(from.getUTCDate() - days + 1);
      expect(readRequest(text, today).period, text).toMatchObject({
        from: from.toISOString().slice(0, 10),
        to: today.toISOString().slice(0, 10),
      });
    }
    expect(readRequest('last week orders', today).period?.from).toBe('2026-11-23');
  });

  it('reads a price a supplier said in English (quoted, asking, charging) as money, never a quantity', () => {
    for (let i = 0; i < 20; i++) {
      const price = g.pick([g.int(5, 90), g.int(500, 9000) / 100]);
      const text = `${g.pick(['MAHLE', 'Bosch', 'Denso'])} ${g.pick(['quoted', 'quoted us', 'is asking', 'is charging'])} ${price} ${g.pick(['for HF204', 'per F7TC', 'each for D8TC'])}, ${g.pick(['is that ok?', 'reasonable?', 'too expensive?'])}`;
      const r = readRequest(text, today);
      expect([r.intent, r.money, r.quantity], text).toEqual(['judge', price, undefined]);
    }
  });

  it('reads an amount range as both bounds of a look-up', () => {
    for (let i = 0; i < 20; i++) {
      const low = g.int(1, 9) * 1000;
      const high = low + g.int(1, 9) * 1000;
      const text = g.pick([
        `金额在${low}到${high}之间的订单`,
        `${low}到${high}元之间的单子有哪些`,
        `${g.pick(suppliers)}金额${low}-${high}的订单`,
        `orders between ${low} and ${high} yuan`,
      ]);
      const r = readRequest(text, today);
      expect([r.intent, r.amount?.min, r.amount?.max], text).toEqual(['lookup', low, high]);
    }
  });

  it('reads 合适吗 as a judgement, 都删了 as a bulk delete, on-time delivery as a supplier question, 有吗 as the catalogue', () => {
    for (let i = 0; i < 10; i++) {
      const supplier = g.pick(suppliers);
      const price = g.int(10, 90);
      const judge = `${supplier}的刹车片报价 ${price} 一副，${g.pick(['合适吗', '合不合适', '算便宜吗'])}`;
      expect([readRequest(judge, today).intent, readRequest(judge, today).money], judge).toEqual(['judge', price]);
      const purge = `帮我把${g.pick(['草稿单', '取消的订单', '这些单子'])}${g.pick(['都删了', '全删了', '统统删除'])}`;
      expect(readRequest(purge, today).refusal, purge).toBe('deleteAll');
      const drop = `${g.pick(['删除', '删掉', '移除'])}${supplier}${g.pick(['这个', '这家', ''])}供应商`;
      expect(readRequest(drop, today).refusal, drop).toBe('delete');
      const onTime = g.pick([`how is ${g.pick(['Bosch', 'Mahle'])}'s on-time delivery?`, `${supplier}的准时率怎么样`]);
      expect(readRequest(onTime, today).intent, onTime).toBe('supplierInfo');
      const has = `${g.pick(['邓禄普的轮胎', 'F7TC', `${supplier}的机滤`])}${g.pick(['有吗', '有没有', '有吗？'])}`;
      expect(readRequest(has, today).intent, has).toBe('catalogue');
    }
    for (const text of ['F7TC还有吗', '有没有超过两万块的订单？', '给火炬下500个F7TC，要准时到货'])
      expect(['catalogue', 'supplierInfo'], text).not.toContain(readRequest(text, today).intent);
  });

  it('reads orders already received as the received state', () => {
    for (let i = 0; i < 10; i++) {
      const text = g.pick([
        '哪些单子已经收货了',
        '已经到货的订单',
        `${g.pick(suppliers)}已经收到的单子有哪些`,
        '上个月收货的订单有哪些',
      ]);
      const r = readRequest(text, today);
      expect([r.intent, r.statuses?.statuses], text).toEqual(['lookup', ['received']]);
    }
  });
});

describe('several lines, a split and region words (generated phrasings)', () => {
  const g = seeded(3607);
  const models = ['F7TC', 'D8TC', 'BP-125F', 'HF204', 'YTX7L-BS', '428H-118L', 'CR7HIX'];
  const suppliers = ['博世', '电装', '火炬', '马勒'];
  const english = ['Bosch', 'Denso', 'Torch', 'MAHLE'];
  const zhQuantity: Array<[string, number]> = [
    ['两百', 200],
    ['五十', 50],
    ['一百五十', 150],
    ['三百', 300],
  ];

  it('reads each clause with a quantity of its own as an order line, and one quantity as one line', () => {
    for (let i = 0; i < 20; i++) {
      const [a, b] = [g.pick(models), g.pick(models)];
      const [qa, qb] = [g.int(1, 9) * 100, g.int(1, 9) * 50];
      const [zh, zq] = g.pick(zhQuantity);
      const [s1, s2] = [g.pick(suppliers), g.pick(suppliers)];
      const [e1, e2] = [g.pick(english), g.pick(english)];
      const cases: Array<[string, number[]]> = [
        [`${a} ${zh}个、${b} ${qb}个，都从${s1}订`, [zq, qb]],
        [`${a} ${qa} 个从${s1}订，${b} ${qb} 个从${s2}订`, [qa, qb]],
        [`给${s1}下 ${qa} 个 ${a} 和 ${qb} 个 ${b}`, [qa, qb]],
        [`${qa} ${a} from ${e1} and ${qb} ${b} from ${e2}`, [qa, qb]],
        [`order ${qa} ${a}, ${qb} ${b}, all from ${e1}`, [qa, qb]],
      ];
      for (const [text, quantities] of cases)
        expect(
          readLines(normalize(text))?.map((l) => l.quantity),
          text,
        ).toEqual(quantities);
      const reading = readRequest(`${a} ${qa} 个从${s1}订，${b} ${qb} 个从${s2}订`, today);
      expect(reading.intent).toBe('create');
    }
    for (const one of [
      '5盒，每盒50个火花塞',
      `${models[0]} 和 ${models[1]} 各 100 个`,
      '给博世下200个F7TC，下周五到货',
    ])
      expect(readLines(normalize(one)), one).toBeUndefined();
  });

  it('reads how many orders to split into as a count, never as the quantity or a date', () => {
    for (let i = 0; i < 12; i++) {
      const m = g.pick(models);
      const q = g.int(4, 12) * 50;
      const [word, count] = g.pick<[string, number]>([
        ['两', 2],
        ['三', 3],
        ['四', 4],
      ]);
      const en = ['two', 'three', 'four'][count - 2];
      for (const text of [
        `${m} ${q}个从${g.pick(suppliers)}订，分${word}单下`,
        `给${g.pick(suppliers)}下${q}个${m}，拆成${count}张订单`,
        `order ${q} ${m} from ${g.pick(english)}, split into ${en} orders`,
        `${q} ${m} from ${g.pick(english)} in ${count} separate orders`,
      ]) {
        const r = readRequest(text, today);
        expect([r.intent, r.quantity, r.splitInto, r.expectedDate], text).toEqual(['create', q, count, undefined]);
        expect(readSplit(normalize(text))?.count, text).toBe(count);
      }
    }
  });

  it('reads a region or a province as a place, never as a supplier, and places an ERP location in it', () => {
    const regions: Array<[string, string, string[], string[]]> = [
      ['华东', 'East China', ['江苏苏州', '上海', 'Zhejiang Hangzhou', '福建厦门'], ['广东广州', '天津', '湖南株洲']],
      ['华南', 'South China', ['广东广州', 'Guangdong Shenzhen'], ['江苏苏州', '上海']],
      ['华北', 'North China', ['天津', '北京'], ['上海', '湖南株洲']],
      ['长三角', 'Yangtze River Delta', ['上海', '江苏南京', '浙江杭州'], ['福建厦门', '广东广州']],
      ['珠三角', 'Pearl River Delta', ['广东广州', '广东省深圳市', 'Foshan'], ['广东汕头', '上海']],
      ['江苏', 'Jiangsu', ['江苏苏州', '南京', 'Jiangsu Wuxi'], ['上海', '浙江杭州']],
    ];
    for (let i = 0; i < 12; i++) {
      const [zh, en, inside, outside] = g.pick(regions);
      const text = g.pick([
        `${zh}的供应商有哪些`,
        `${zh}有哪些供应商？`,
        `Which suppliers are in ${en}?`,
        `list the suppliers in ${en}`,
      ]);
      const r = readRequest(text, today);
      expect([r.intent, r.region?.zh], text).toEqual(['supplierInfo', zh]);
      // The region's words are left to name neither a supplier nor a part.
      expect(r.rest.includes(zh) || r.rest.toLowerCase().includes(en.toLowerCase()), text).toBe(false);
      for (const place of inside) expect(inRegion(place, r.region!), `${place} in ${zh}`).toBe(true);
      for (const place of outside) expect(inRegion(place, r.region!), `${place} not in ${zh}`).toBe(false);
    }
    const compare = readRequest('compare suppliers in East China for spark plugs', today);
    expect([compare.intent, compare.region?.en]).toEqual(['compare', 'East China']);
    // A province inside a company's name ("浙江万丰") is no place; an ERP location is said in English for English.
    expect(readRegion('浙江万丰的火花塞')).toBeUndefined();
    expect(locationIn('江苏苏州', true)).toBe('Suzhou, Jiangsu');
    expect(locationIn('江苏苏州', false)).toBe('江苏苏州');
  });
});
