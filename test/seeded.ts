/**
 * The tests' seeded generator (a 32-bit LCG): the same inputs on every run of a seed, so a failing case replays from
 * the seed it prints. Kept apart from the product's PRNG so generated test inputs do not move when seeded demo data
 * does.
 */
export function seeded(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  return {
    next,
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)],
    int: (a: number, b: number) => a + Math.floor(next() * (b - a + 1)),
  };
}
