import { afterEach, describe, expect, it, vi } from 'vitest';
import { type EvaluationTally, passBar, sampleOf, tallyTable, testSeed } from './evaluation.ts';

const SET = Array.from({ length: 40 }, (_, i) => ({
  id: i,
  cls: ['a', 'b', 'c', 'd'][i % 4] + (i < 36 ? '' : '-rare'),
}));

describe('the CI tier of an evaluation set', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('samples up to n cases of every class, the same ones for a seed, in the set’s order', () => {
    const sample = sampleOf(SET, (x) => x.cls, 2, 7);
    const classes = new Set(SET.map((x) => x.cls));
    for (const cls of classes) {
      const taken = sample.filter((x) => x.cls === cls).length;
      expect(taken, cls).toBe(Math.min(2, SET.filter((x) => x.cls === cls).length));
    }
    expect(sample).toEqual(sampleOf(SET, (x) => x.cls, 2, 7));
    expect(sample.map((x) => x.id)).toEqual([...sample.map((x) => x.id)].sort((a, b) => a - b));
    const seeds = new Set([1, 2, 3, 4, 5].map((seed) => JSON.stringify(sampleOf(SET, (x) => x.cls, 2, seed))));
    expect(seeds.size).toBeGreaterThan(1);
  });

  it('requires every case right, and takes its seed from PROCURA_TEST_SEED when given', () => {
    expect(passBar(0.95)).toBe(1);
    expect(testSeed(404)).toBe(404);
    vi.stubEnv('PROCURA_TEST_SEED', '123');
    expect(testSeed(404)).toBe(123);
    vi.stubEnv('PROCURA_TEST_SEED', 'soon');
    expect(() => testSeed(404)).toThrow(/PROCURA_TEST_SEED/);
  });

  it('runs whole sets against their own bars under npm run eval', async () => {
    vi.stubEnv('PROCURA_EVAL', 'full');
    vi.resetModules();
    const full = await import('./evaluation.ts');
    expect(full.sampleOf(SET, (x) => x.cls, 2, 7)).toEqual(SET);
    expect(full.passBar(0.9)).toBe(0.9);
  });

  it('tabulates each set against its bar, with every miss', () => {
    const tally = (set: string, right: number): EvaluationTally => ({
      set,
      seed: 9,
      right,
      total: 10,
      bar: 0.9,
      byClass: { order: { right, all: 10 } },
      misses: right < 10 ? [`case ${set}`] : [],
    });
    const table = tallyTable([tally('corpus', 10), tally('questions', 8)]);
    expect(table).toContain('| corpus | 9 | 10/10 | 100.0 % | 90.0 % | ✓ | order 10/10 |');
    expect(table).toContain('| questions | 9 | 8/10 | 80.0 % | 90.0 % | ✗ below | order 8/10 |');
    expect(table).toContain('- questions: case questions');
  });
});
