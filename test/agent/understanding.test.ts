import { describe, expect, it } from 'vitest';
import { matchParts, type PartRef, partQueries } from '../../src/agent/models/offline/catalogue.ts';
import { readDate } from '../../src/agent/models/offline/dates.ts';
import { readRequest } from '../../src/agent/models/offline/intent.ts';
import { readQuantity } from '../../src/agent/models/offline/quantities.ts';

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
