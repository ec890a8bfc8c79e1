import { describe, expect, it } from 'vitest';
import { searchDocument, searchQuery } from './search-tokens.ts';

describe('search tokens', () => {
  it('keeps whole words (and CJK bigrams) apart from Latin prefixes', () => {
    const doc = searchDocument('摩托车火花塞 F7TC', 'Spark plug');
    expect(doc.words).toEqual(expect.arrayContaining(['摩托', '火花', '花塞', 'f7tc', 'spark', 'plug']));
    expect(doc.prefixes).toEqual(expect.arrayContaining(['f7', 'f7t', 'sp', 'spar', 'pl', 'plu']));
    expect(doc.prefixes).not.toContain('spark');
    expect(doc.words).not.toContain('火花塞');
  });

  it('turns a query into whole-word tokens and any-word tokens', () => {
    expect(searchQuery('火花塞')).toEqual({
      whole: ['火花', '花塞'],
      any: ['火花', '花塞'],
      chars: [],
      needsScan: false,
    });
    expect(searchQuery('Spark PLUG')).toEqual({
      whole: ['spark', 'plug'],
      any: ['spark', 'plug'],
      chars: [],
      needsScan: false,
    });
    expect(searchQuery('链').needsScan).toBe(true);
    expect(searchQuery('o 2').needsScan).toBe(true);
    // Lone characters beside a longer token: Latin ones are whole words, CJK ones are looked for in names.
    expect(searchQuery('Tyre 2.75-18')).toMatchObject({ whole: ['tyre', '75', '18', '2'], needsScan: false });
    expect(searchQuery('后 刹车片')).toMatchObject({ whole: ['刹车', '车片'], chars: ['后'], needsScan: false });
    expect(searchQuery("' OR 1=1 --").any).toEqual(['or', '1']);
    expect(searchQuery('%_').any).toEqual([]);
    expect(searchQuery('transmissionbelt').any).toEqual(['transmission']);
  });

  it('finds what it indexed', () => {
    const doc = searchDocument('油封链条 520-120L', 'O-ring chain 520-120L');
    const indexed = new Set([...doc.words, ...doc.prefixes]);
    const words = new Set(doc.words);
    for (const q of ['链条', '油封', 'chain', 'o-ring', '520', 'ring ch', 'transmissionbelts']) {
      const query = searchQuery(q);
      const expected = q !== 'transmissionbelts';
      expect(
        query.any.every((t) => indexed.has(t)),
        q,
      ).toBe(expected);
    }
    expect(searchQuery('ring ch').whole.every((t) => words.has(t))).toBe(false);
    expect(searchQuery('chain ring').whole.every((t) => words.has(t))).toBe(true);
  });
});
