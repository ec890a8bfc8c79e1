import fs from 'node:fs';
import { seeded } from './seeded.ts';

/**
 * The two tiers of Procura's evaluation-style tests (phrasing corpus, generated phrasings, provenance per category).
 * - CI (`npm test`): a fixed sample of each set, from a fixed seed, and every case of it must be right: a sample
 *   right today stays right, so one regression fails the run.
 * - `npm run eval` (PROCURA_EVAL=full): every case of each set, from a seed it varies (PROCURA_TEST_SEED), judged
 *   against the set's pass-rate bar; each set's tally is appended to PROCURA_EVAL_REPORT for the printed table.
 */
export const FULL_EVALUATION = process.env.PROCURA_EVAL === 'full';

/** The seed a generated set is drawn from: the test's fixed one, or PROCURA_TEST_SEED to replay or vary a run. */
export function testSeed(fixed: number): number {
  const given = process.env.PROCURA_TEST_SEED;
  if (given === undefined || given === '') return fixed;
  const seed = Number(given);
  if (!Number.isSafeInteger(seed) || seed < 0)
    throw new Error(`PROCURA_TEST_SEED must be a whole number ≥ 0: ${given}`);
  return seed;
}

/** The share of a set that must be right: all of CI's fixed sample; the set's own bar over a full evaluation. */
export const passBar = (fullBar: number): number => (FULL_EVALUATION ? fullBar : 1);

/**
 * The cases CI runs of a set: up to `perClass` of each class, drawn with the seed, in the set's order (so every class
 * the set holds is covered however the set grows); every case in a full evaluation.
 */
export function sampleOf<T>(items: readonly T[], classOf: (item: T) => string, perClass: number, seed: number): T[] {
  if (FULL_EVALUATION) return [...items];
  const r = seeded(seed);
  const byClass = new Map<string, number[]>();
  items.forEach((item, i) => {
    byClass.set(classOf(item), [...(byClass.get(classOf(item)) ?? []), i]);
  });
  const chosen = new Set<number>();
  for (const indices of byClass.values()) {
    const pool = [...indices];
    for (let n = 0; n < perClass && pool.length; n++) chosen.add(pool.splice(Math.floor(r.next() * pool.length), 1)[0]);
  }
  return items.filter((_, i) => chosen.has(i));
}

/** One set's outcome, as `npm run eval` tabulates it. */
export interface EvaluationTally {
  set: string;
  seed?: number;
  right: number;
  total: number;
  bar: number;
  byClass: Record<string, { right: number; all: number }>;
  misses: string[];
}

/** Counts, class by class, the cases of a set judged and those right. */
export function classTally() {
  const byClass: EvaluationTally['byClass'] = {};
  return {
    byClass,
    count(cls: string, right: boolean) {
      const tally = byClass[cls] ?? { right: 0, all: 0 };
      tally.all++;
      if (right) tally.right++;
      byClass[cls] = tally;
    },
  };
}

/** Prints a set's outcome and, under `npm run eval`, appends it to the report file the script reads back. */
export function recordTally(tally: EvaluationTally): void {
  const classes = Object.entries(tally.byClass)
    .map(([k, v]) => `${k} ${v.right}/${v.all}`)
    .join(', ');
  console.log(
    `${tally.set}${tally.seed === undefined ? '' : ` (seed ${tally.seed})`}: ${tally.right}/${tally.total} right (${((tally.right / tally.total) * 100).toFixed(1)} %) — ${classes}${tally.misses.length ? `\n${tally.misses.join('\n')}` : ''}`,
  );
  const report = process.env.PROCURA_EVAL_REPORT;
  if (report) fs.appendFileSync(report, `${JSON.stringify(tally)}\n`);
}

/** The files whose sets `npm run eval` runs in full: each samples in CI through this module. */
export const EVALUATION_FILES = [
  'test/agent/corpus.test.ts',
  'test/agent/asks.test.ts',
  'test/stack/questions.test.ts',
  'test/stack/reading.test.ts',
  'test/stack/provenance.test.ts',
  'test/stack/other-catalogue.test.ts',
  'test/stack/dialogue.test.ts',
];

/** The sets' table as `npm run eval` prints it: one row a set, below its bar marked, then every miss. */
export function tallyTable(tallies: readonly EvaluationTally[]): string {
  const percent = (x: number) => `${(x * 100).toFixed(1)} %`;
  const rows = tallies.map((t) => {
    const share = t.total ? t.right / t.total : 0;
    const classes = Object.entries(t.byClass)
      .map(([k, v]) => `${k} ${v.right}/${v.all}`)
      .join(', ');
    return `| ${t.set} | ${t.seed ?? '—'} | ${t.right}/${t.total} | ${percent(share)} | ${percent(t.bar)} | ${share >= t.bar ? '✓' : '✗ below'} | ${classes} |`;
  });
  const misses = tallies.flatMap((t) => t.misses.map((m) => `- ${t.set}: ${m}`));
  return [
    '| set | seed | right | share | bar | | by class |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    ...(misses.length ? ['', 'Misses:', ...misses] : []),
  ].join('\n');
}
