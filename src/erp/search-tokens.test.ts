import { describe, expect, it } from 'vitest';
import { indexTokens, queryTokens } from './search-tokens.ts';

describe('search tokens', () => {
  it('indexes CJK bigrams and Latin prefixes', () => {
    const tokens = indexTokens('摩托车火花塞 F7TC', 'Spark plug');
    expect(tokens).toEqual(
      expect.arrayContaining(['摩托', '火花', '花塞', 'f7', 'f7t', 'f7tc', 'sp', 'spark', 'pl', 'plug']),
    );
    expect(tokens).not.toContain('火花塞');
  });

  it('turns a query into tokens every match must have', () => {
    expect(queryTokens('火花塞')).toEqual({ tokens: ['火花', '花塞'], needsScan: false });
    expect(queryTokens('Spark PLUG')).toEqual({ tokens: ['spark', 'plug'], needsScan: false });
    expect(queryTokens('链')).toEqual({ tokens: [], needsScan: true });
    expect(queryTokens("' OR 1=1 --").tokens).toEqual(['or']);
    expect(queryTokens('%_').tokens).toEqual([]);
  });

  it('finds what it indexed', () => {
    const indexed = new Set(indexTokens('油封链条 520-120L', 'O-ring chain 520-120L'));
    for (const q of ['链条', '油封', 'chain', 'o-ring', '520', 'ring ch']) {
      expect(
        queryTokens(q).tokens.every((t) => indexed.has(t)),
        q,
      ).toBe(true);
    }
  });
});
