import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../../src/agent/backends/index.ts';
import { openStore, STORE_KINDS, type StoreHarness, tempDir } from './harness.ts';

describe.each(STORE_KINDS)('agent store on $name', (kind) => {
  let h: StoreHarness;
  beforeEach(async () => {
    if (kind.enabled) h = await openStore(kind);
  });
  afterEach(async () => {
    await h?.close();
  });

  it.skipIf(!kind.enabled)('puts, gets, overwrites and deletes an item, keeping its creation time', async () => {
    const { store } = h;
    expect(await store.get(['users', 'u1'], 'prefs')).toBeNull();
    await store.put(['users', 'u1'], 'prefs', { theme: 'dark', suppliers: ['博世'] });
    const first = await store.get(['users', 'u1'], 'prefs');
    expect(first).toMatchObject({
      namespace: ['users', 'u1'],
      key: 'prefs',
      value: { theme: 'dark', suppliers: ['博世'] },
    });
    expect(first?.createdAt).toBeInstanceOf(Date);

    await new Promise((resolve) => setTimeout(resolve, 5));
    await store.put(['users', 'u1'], 'prefs', { theme: 'light' });
    const second = await store.get(['users', 'u1'], 'prefs');
    expect(second?.value).toEqual({ theme: 'light' });
    expect(second?.createdAt.getTime()).toBe(first?.createdAt.getTime());
    expect(second?.updatedAt.getTime()).toBeGreaterThan(first?.updatedAt.getTime() ?? Number.POSITIVE_INFINITY);

    await store.delete(['users', 'u1'], 'prefs');
    expect(await store.get(['users', 'u1'], 'prefs')).toBeNull();
  });

  it.skipIf(!kind.enabled)(
    'searches by whole-label namespace prefix, newest first, with limit and offset',
    async () => {
      const { store } = h;
      await store.put(['docs', 'a'], 'one', { n: 1 });
      await store.put(['docs', 'a', 'deep'], 'two', { n: 2 });
      await store.put(['docs', 'b'], 'three', { n: 3 });
      await store.put(['other'], 'four', { n: 4 });

      const all = await store.search(['docs']);
      expect(all.map((i) => i.key)).toEqual(['three', 'two', 'one']);
      expect((await store.search(['docs', 'a'])).map((i) => i.key).sort()).toEqual(['one', 'two']);

      expect((await store.search(['docs'], { limit: 2 })).map((i) => i.key)).toEqual(['three', 'two']);
      expect((await store.search(['docs'], { limit: 2, offset: 2 })).map((i) => i.key)).toEqual(['one']);
    },
  );

  it.skipIf(!kind.enabled)('filters on value fields: equality and comparison operators', async () => {
    const { store } = h;
    await store.put(['parts'], 'p1', { category: 'spark-plug', price: 12, active: true });
    await store.put(['parts'], 'p2', { category: 'spark-plug', price: 30, active: false });
    await store.put(['parts'], 'p3', { category: 'chain', price: 80, active: true });

    const keys = async (filter: Record<string, unknown>) =>
      (await store.search(['parts'], { filter })).map((i) => i.key).sort();
    expect(await keys({ category: 'spark-plug' })).toEqual(['p1', 'p2']);
    expect(await keys({ category: 'spark-plug', active: true })).toEqual(['p1']);
    expect(await keys({ category: { $eq: 'chain' } })).toEqual(['p3']);
    expect(await keys({ category: { $ne: 'chain' } })).toEqual(['p1', 'p2']);
    expect(await keys({ price: { $gt: 12 } })).toEqual(['p2', 'p3']);
    expect(await keys({ price: { $gte: 12, $lt: 80 } })).toEqual(['p1', 'p2']);
    expect(await keys({ category: { $in: ['chain', 'bolt'] } })).toEqual(['p3']);
    expect(await keys({ category: 'bolt' })).toEqual([]);
  });

  it.skipIf(!kind.enabled)('lists namespaces by prefix, suffix and depth', async () => {
    const { store } = h;
    await store.put(['procura', 'u1', 'memories'], 'a', { x: 1 });
    await store.put(['procura', 'u1', 'skills'], 'b', { x: 1 });
    await store.put(['procura', 'u2', 'memories'], 'c', { x: 1 });
    await store.put(['procura', 'u2', 'memories', 'archive'], 'd', { x: 1 });
    await store.put(['elsewhere'], 'e', { x: 1 });

    expect(await store.listNamespaces({ prefix: ['procura', 'u1'] })).toEqual([
      ['procura', 'u1', 'memories'],
      ['procura', 'u1', 'skills'],
    ]);
    expect(await store.listNamespaces({ suffix: ['memories'] })).toEqual([
      ['procura', 'u1', 'memories'],
      ['procura', 'u2', 'memories'],
    ]);
    expect(await store.listNamespaces({ prefix: ['procura', 'u2'], maxDepth: 3 })).toEqual([
      ['procura', 'u2', 'memories'],
    ]);
    expect(await store.listNamespaces({ limit: 2, offset: 1 })).toEqual([
      ['procura', 'u1', 'memories'],
      ['procura', 'u1', 'skills'],
    ]);
  });

  it.skipIf(!kind.enabled)('runs a batch of mixed operations and answers each in order', async () => {
    const { store } = h;
    await store.put(['b'], 'existing', { v: 1 });
    const results: unknown[] = await store.batch([
      { namespace: ['b'], key: 'existing' },
      { namespace: ['b'], key: 'new', value: { v: 2 } },
      { namespacePrefix: ['b'], limit: 10, offset: 0 },
      { matchConditions: [{ matchType: 'prefix', path: ['b'] }], limit: 10, offset: 0 },
    ]);
    expect(results[0]).toMatchObject({ value: { v: 1 } });
    expect(results[1]).toBeUndefined();
    expect(results[3]).toEqual([['b']]);
    expect(await store.get(['b'], 'new')).toMatchObject({ value: { v: 2 } });
  });

  it.skipIf(!kind.enabled)('refuses invalid namespaces', async () => {
    await expect(h.store.put(['a.b'], 'k', { v: 1 })).rejects.toThrow();
    await expect(h.store.put([], 'k', { v: 1 })).rejects.toThrow();
  });
});

describe('SqliteStore specifics', () => {
  it('keeps its data in a WAL SQLite file across reopenings', async () => {
    const dir = tempDir('procura-sqlite-store-');
    const file = path.join(dir, 'agent-store.sqlite');
    const first = new SqliteStore({ file });
    await first.put(['procura', 'u1', 'memories'], '/preferences.md', { content: '偏好' });
    first.stop();
    const second = new SqliteStore({ file });
    expect((await second.get(['procura', 'u1', 'memories'], '/preferences.md'))?.value).toEqual({ content: '偏好' });
    const mode = (second as unknown as { db: { pragma(q: string, o: object): unknown } }).db.pragma('journal_mode', {
      simple: true,
    });
    expect(mode).toBe('wal');
    second.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('matches namespace prefixes by whole labels (PostgresStore matches raw text, so user labels are never last)', async () => {
    const store = new SqliteStore({ file: ':memory:' });
    await store.put(['docs', 'a'], 'one', { n: 1 });
    expect(await store.search(['do'])).toEqual([]);
    expect(await store.search(['docs'])).toHaveLength(1);
    store.stop();
  });

  it('refuses a vector index configuration with a clear message', () => {
    expect(() => new SqliteStore({ file: ':memory:', index: { dims: 3 } })).toThrow(/vector search/);
  });

  it('keeps byte content, distinguishes 1 from "1", and truncates namespaces to maxDepth', async () => {
    const store = new SqliteStore({ file: ':memory:' });
    await store.put(['files'], 'bin', { content: new Uint8Array([0, 1, 254]), mimeType: 'image/png' });
    const item = await store.get(['files'], 'bin');
    expect(item?.value.content).toEqual(new Uint8Array([0, 1, 254]));

    await store.put(['t'], 'number', { v: 1 });
    await store.put(['t'], 'string', { v: '1' });
    expect((await store.search(['t'], { filter: { v: 1 } })).map((i) => i.key)).toEqual(['number']);
    expect((await store.search(['t'], { filter: { v: { $exists: true } } })).length).toBe(2);
    await store.put(['q'], 'plug', { title: 'Spark plug F7TC' });
    expect((await store.search(['q'], { query: 'f7tc' })).map((i) => i.key)).toEqual(['plug']);
    expect(await store.search(['q'], { query: 'chain' })).toEqual([]);

    await store.put(['a', 'b', 'c'], 'k', { v: 1 });
    expect(await store.listNamespaces({ prefix: ['a'], maxDepth: 2 })).toEqual([['a', 'b']]);
    expect(await store.listNamespaces({ prefix: ['*', 'b'] })).toEqual([['a', 'b', 'c']]);
    await expect(store.search(['t'], { filter: { v: { $regex: '1' } } })).rejects.toThrow(
      /unsupported filter operator/,
    );
    store.stop();
  });
});
