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
    const limiter = new RunLimiter({ startsPerMinute: 100, maxConcurrent: 2, loopDelayMs: Number.POSITIVE_INFINITY });
    try {
      const open = new AbortController().signal;
      const [a, b] = await Promise.all([limiter.acquire(open), limiter.acquire(open)]);
      const leaving = new AbortController();
      const third = limiter.acquire(leaving.signal);
      const fourth = limiter.acquire(open);
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
    const limiter = new RunLimiter({ startsPerMinute: 100, maxConcurrent: 8, loopDelayMs: 40 });
    try {
      const open = new AbortController().signal;
      const first = await limiter.acquire(open);
      await settle(60);
      const blockedUntil = Date.now() + 300;
      while (Date.now() < blockedUntil) {} // a run hogging the loop
      await settle(25);
      const second = limiter.acquire(open);
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
    const limiter = new RunLimiter({ startsPerMinute: 100, maxConcurrent: 8, loopDelayMs: 10_000 });
    try {
      const open = new AbortController().signal;
      const burst = Array.from({ length: 4 }, () => limiter.acquire(open));
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

  it('refuses a user past the starts per minute with 429 and the seconds to wait; others are unaffected', () => {
    const limiter = new RunLimiter({ startsPerMinute: 2, maxConcurrent: 1, loopDelayMs: 40 });
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
