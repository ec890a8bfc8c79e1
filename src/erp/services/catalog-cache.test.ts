import { describe, expect, it } from 'vitest';
import { CatalogCache } from './catalog-cache.ts';

describe('CatalogCache', () => {
  it('computes an answer once per catalogue version and drops it when a newer version is read', async () => {
    const cache = new CatalogCache();
    let runs = 0;
    const compute = async () => ++runs;
    expect(await cache.answer('k', 1, compute)).toBe(1);
    expect(await cache.answer('k', 1, compute)).toBe(1);
    expect(await cache.answer('k', 2, compute)).toBe(2);
    // A request that read an older version neither uses nor replaces what the newer one kept.
    expect(await cache.answer('k', 1, compute)).toBe(3);
    expect(await cache.answer('k', 2, compute)).toBe(2);
  });

  it('keeps nothing computed while the version moved on', async () => {
    const cache = new CatalogCache();
    let release!: () => void;
    const slow = cache.answer('k', 1, () => new Promise<string>((resolve) => (release = () => resolve('old'))));
    expect(await cache.answer('other', 2, async () => 'x')).toBe('x');
    release();
    expect(await slow).toBe('old');
    expect(await cache.answer('k', 2, async () => 'new')).toBe('new');
  });

  it('forgets the oldest answers past its capacity', async () => {
    const cache = new CatalogCache(2);
    for (const key of ['a', 'b', 'c']) await cache.answer(key, 1, async () => key);
    expect(await cache.answer('a', 1, async () => 'a again')).toBe('a again');
    expect(await cache.answer('c', 1, async () => 'c again')).toBe('c');
  });

  it('answers cards in the order asked, rendering only the missing ones, and only for their own project', async () => {
    const cache = new CatalogCache();
    const rendered: number[][] = [];
    const render = (project: string) => async (ids: number[]) => {
      rendered.push(ids);
      // Part 9 is gone; part 3 belongs to P002.
      return ids
        .filter((id) => id !== 9 && (id === 3) === (project === 'P002'))
        .map((id) => [id, `{"id":${id}}`]) as Array<[number, string]>;
    };
    expect(await cache.cardArray([2, 1, 9], 'P001', 1, render('P001'))).toBe('[{"id":2},{"id":1}]');
    expect(await cache.cardArray([1, 4, 2], 'P001', 1, render('P001'))).toBe('[{"id":1},{"id":4},{"id":2}]');
    expect(rendered).toEqual([[2, 1, 9], [4]]);
    expect(await cache.cardArray([3], 'P001', 1, render('P001'))).toBe('[]');
    expect(await cache.cardArray([3, 1], 'P002', 1, render('P002'))).toBe('[{"id":3}]');
    expect(await cache.cardArray([2], 'P001', 2, render('P001'))).toBe('[{"id":2}]');
    expect(rendered.at(-1)).toEqual([2]);
  });
});
