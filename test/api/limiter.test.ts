import { describe, expect, it } from 'vitest';
import { RunLimiter } from '../../src/api/chat/limiter.ts';

const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));
const state = (promise: Promise<unknown>) => {
  let done = false;
  promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  return () => done;
};

describe('run limiter', () => {
  it('caps executing runs; the line is first come, first served, and an aborted run leaves it', async () => {
    const limiter = new RunLimiter({
      startsPerMinute: 100,
      maxConcurrent: 2,
      loopDelayMs: Number.POSITIVE_INFINITY,
      perUserConcurrent: 8,
    });
    try {
      const open = new AbortController().signal;
      const [a, b] = await Promise.all([limiter.acquire('u', open), limiter.acquire('u', open)]);
      const leaving = new AbortController();
      const third = limiter.acquire('u', leaving.signal);
      const fourth = limiter.acquire('u', open);
      const fourthIn = state(fourth);
      expect(limiter.waiting).toBe(2);
      leaving.abort('cancelled');
      await expect(third).rejects.toBe('cancelled');
      expect(limiter.waiting).toBe(1);
      a();
      a(); // releasing twice frees one slot only
      (await fourth)();
      expect(fourthIn()).toBe(true);
      b();
    } finally {
      limiter.close();
    }
  });

  it('past one executing run, holds the next while the event loop lags and lets it in once it catches up', async () => {
    const limiter = new RunLimiter({ startsPerMinute: 100, maxConcurrent: 8, loopDelayMs: 40, perUserConcurrent: 8 });
    try {
      const open = new AbortController().signal;
      const first = await limiter.acquire('u', open);
      await settle(60);
      const blockedUntil = Date.now() + 300;
      while (Date.now() < blockedUntil) {} // a run hogging the loop
      await settle(25);
      const second = limiter.acquire('u', open);
      const secondIn = state(second);
      await settle(0);
      expect(secondIn()).toBe(false);
      (await second)();
      first();
    } finally {
      limiter.close();
    }
  });

  it('lets a burst in one run per loop sample, so the delay check sees each start before admitting more', async () => {
    const limiter = new RunLimiter({
      startsPerMinute: 100,
      maxConcurrent: 8,
      loopDelayMs: 10_000,
      perUserConcurrent: 8,
    });
    try {
      const open = new AbortController().signal;
      const burst = Array.from({ length: 4 }, () => limiter.acquire('u', open));
      const inNow = burst.map(state);
      await settle(0);
      expect(inNow.filter((done) => done())).toHaveLength(1);
      expect(limiter.waiting).toBe(3);
      const releases = await Promise.all(burst);
      expect(limiter.waiting).toBe(0);
      for (const release of releases) release();
    } finally {
      limiter.close();
    }
  });

  it('caps one user’s executing runs while others still get slots; the user’s next run starts as one ends', async () => {
    const fixed = { startsPerMinute: 100, maxConcurrent: 8, loopDelayMs: Number.POSITIVE_INFINITY };
    const limiter = new RunLimiter({ ...fixed, perUserConcurrent: 3 });
    try {
      const open = new AbortController().signal;
      const flood = Array.from({ length: 6 }, () => limiter.acquire('flood', open));
      const floodIn = flood.map(state);
      await settle(0);
      expect(floodIn.filter((done) => done())).toHaveLength(3);
      expect(limiter.wouldWait('flood')).toBe(true);
      expect(limiter.wouldWait('other')).toBe(false);
      const other = state(limiter.acquire('other', open));
      await settle(0);
      expect(other()).toBe(true);
      (await flood[0])();
      await settle(0);
      expect(floodIn.filter((done) => done())).toHaveLength(4);
    } finally {
      limiter.close();
    }
  });

  it('serves users in turn, not first come: a user’s first run goes before another user’s queued flood', async () => {
    const limiter = new RunLimiter({
      startsPerMinute: 100,
      maxConcurrent: 2,
      perUserConcurrent: 2,
      loopDelayMs: Number.POSITIVE_INFINITY,
    });
    try {
      const open = new AbortController().signal;
      const order: string[] = [];
      const ask = (user: string, n: number) =>
        limiter.acquire(user, open).then((release) => {
          order.push(`${user}${n}`);
          return release;
        });
      const flood = Array.from({ length: 6 }, (_, i) => ask('a', i));
      await settle(0);
      const b = [ask('b', 0), ask('b', 1)];
      const c = ask('c', 0);
      expect(order).toEqual(['a0', 'a1']);
      // Each slot that frees goes to the next user in turn: b, c, a, b, a …
      for (const release of [await flood[0], await flood[1]]) release();
      await settle(0);
      expect(order.slice(2, 4)).toEqual(['b0', 'c0']);
      (await b[0])();
      (await c)();
      await settle(0);
      expect(order.slice(4, 6)).toEqual(['a2', 'b1']);
    } finally {
      limiter.close();
    }
  });

  it('refuses a user past the starts per minute with 429 and the seconds to wait; others are unaffected', () => {
    const limiter = new RunLimiter({ startsPerMinute: 2, maxConcurrent: 1, loopDelayMs: 40, perUserConcurrent: 1 });
    try {
      limiter.admitStart('a');
      limiter.admitStart('a');
      expect(() => limiter.admitStart('a')).toThrow(expect.objectContaining({ status: 429 }));
      expect(() => limiter.admitStart('b')).not.toThrow();
    } finally {
      limiter.close();
    }
  });
});
