/**
 * Text primitives of the offline model's understanding layer: normalisation, Latin word matching with typo
 * tolerance, and CJK overlap. Everything here is pure and deterministic.
 */

/** A text as a regular expression matching it literally. */
export const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export const CJK = /[\u3400-\u9fff\uf900-\ufaff]/;
const CJK_RUN = /[\u3400-\u9fff\uf900-\ufaff]+/g;

/** Full-width → half-width (NFKC), one kind of quote and space, no runs of blanks. */
export function normalize(text: string): string {
  return (
    text
      // A full-width comma separates clauses ("AF-125，150个"); kept apart so it never reads as a thousands separator.
      .replace(/，/g, ', ')
      .normalize('NFKC')
      .replace(/[“”„]/g, '"')
      .replace(/[‘’]/g, "'")
      .replace(/[、]/g, ',')
      .replace(/\s+/g, ' ')
      .trim()
  );
}

/** Latin words (letters, digits, - / .) with their positions, lower-cased. */
export function latinWords(text: string): Array<{ word: string; index: number }> {
  return [...text.matchAll(/[A-Za-z][A-Za-z'-]*/g)].map((m) => ({
    word: m[0].toLowerCase().replace(/'s$/, ''),
    index: m.index,
  }));
}

/** Damerau–Levenshtein distance (adjacent transpositions count once), capped early above `max`. */
export function editDistance(a: string, b: string, max = 3): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) rows.push([i, ...new Array(b.length).fill(0)]);
  for (let j = 0; j <= b.length; j++) rows[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    let best = Number.POSITIVE_INFINITY;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2][j - 2] + 1);
      rows[i][j] = d;
      best = Math.min(best, d);
    }
    if (best > max) return max + 1;
  }
  return rows[a.length][b.length];
}

/** Typo budget for a word of this length: none up to 3 letters, one up to 6, two beyond. */
export const typoBudget = (length: number) => (length <= 3 ? 0 : length <= 6 ? 1 : 2);

/** Whether a typed word stands for a known one: equal, or within the typo budget of the known word. */
export function sameWord(typed: string, known: string): boolean {
  if (typed === known) return true;
  // A plural is a different word here ("orders" is a noun, "order" a verb); callers that want plurals ask for them.
  if (typed === `${known}s`) return false;
  const budget = typoBudget(known.length);
  return budget > 0 && typed[0] === known[0] && editDistance(typed, known, budget) <= budget;
}

/** English plural → singular, enough for catalogue nouns (plugs, pads, batteries, boxes). */
export function singular(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 4 && /(?:ss|x|ch|sh)es$/.test(word)) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

/**
 * Finds a phrase of known words in the text's Latin words, each word typo-tolerant (and plural-tolerant unless
 * `plurals` is false).
 * Returns the character span of the match.
 */
export function findLatinPhrase(
  words: Array<{ word: string; index: number }>,
  phrase: string[],
  plurals = true,
): { start: number; end: number } | undefined {
  const matches = (typed: string, p: string) =>
    sameWord(typed, p) || (plurals && (singular(typed) === p || sameWord(singular(typed), p)));
  // Words of a phrase stand next to each other (a blank or a hyphen apart), not anywhere in the text.
  const adjacent = (at: number) => words[at].index - (words[at - 1].index + words[at - 1].word.length) <= 3;
  const matchesAt = (i: number) =>
    phrase.every((p, k) => (k === 0 || adjacent(i + k)) && matches(words[i + k].word, p));
  for (let i = 0; i + phrase.length <= words.length; i++) {
    if (matchesAt(i)) {
      const last = words[i + phrase.length - 1];
      return { start: words[i].index, end: last.index + last.word.length };
    }
  }
  return undefined;
}

/** CJK runs of a text. */
export const cjkRuns = (text: string) => text.match(CJK_RUN) ?? [];

/** The longest common substring of two code-point arrays: its length and where it starts in each. */
function longestCommon(x: string[], y: string[]): { length: number; i: number; j: number } {
  let best = { length: 0, i: 0, j: 0 };
  let prev = new Array(y.length + 1).fill(0);
  for (let i = 1; i <= x.length; i++) {
    const row = new Array(y.length + 1).fill(0);
    for (let j = 1; j <= y.length; j++) {
      if (x[i - 1] === y[j - 1]) {
        row[j] = prev[j - 1] + 1;
        if (row[j] > best.length) best = { length: row[j], i: i - row[j], j: j - row[j] };
      }
    }
    prev = row;
  }
  return best;
}

/**
 * How many characters two strings share in common runs of at least `min`, taken longest first and never twice:
 * "摩托车刹车片" shares 摩托车 and 刹车片 (6) with 摩托车前刹车片 but only 摩托车 (3) with 摩托车火花塞, so a
 * compound phrase prefers the name that has all of its words over one that has only its first.
 */
export function sharedRuns(a: string, b: string, min = 2): number {
  const x = [...a];
  const y = [...b];
  let total = 0;
  for (;;) {
    const run = longestCommon(x, y);
    if (run.length < min) return total;
    total += run.length;
    // Blank the run on both sides with characters that match nothing, so it is not counted again.
    x.fill('\u0000', run.i, run.i + run.length);
    y.fill('\u0001', run.j, run.j + run.length);
  }
}

/** Replaces the given spans with a separator, so what is left can be read for other facts. */
export function blankSpans(text: string, spans: Array<{ start: number; end: number }>): string {
  const merged: Array<{ start: number; end: number }> = [];
  for (const s of [...spans].sort((a, b) => a.start - b.start)) {
    const last = merged.at(-1);
    if (last && s.start < last.end) last.end = Math.max(last.end, s.end);
    else merged.push({ ...s });
  }
  let out = text;
  for (const s of merged.reverse()) out = `${out.slice(0, s.start)} | ${out.slice(s.end)}`;
  return out;
}
