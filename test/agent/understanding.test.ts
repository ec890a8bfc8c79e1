import { describe, expect, it } from 'vitest';
import { readDate } from '../../src/agent/models/offline/dates.ts';

/**
 * The offline model's understanding layer on its own: what a request says before any lookup, and how the parts a
 * search returned are matched. The corpus (corpus.test.ts) judges the same layer end to end.
 */

const today = new Date('2026-12-03T08:00:00Z');

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
});
