/**
 * Search tokens for parts: CJK text becomes overlapping bigrams (single characters stand alone),
 * Latin words become their prefixes from two characters on. The same tokens work as an index in
 * SQLite and PostgreSQL, so "火花塞", "花塞", "spark pl" and "F7T" all find a part by plain equality.
 */
const MAX_PREFIX = 12;
const CJK = /[\u3400-\u9fff\uf900-\ufaff]/;

function segments(text: string): Array<{ cjk: boolean; text: string }> {
  const out: Array<{ cjk: boolean; text: string }> = [];
  for (const match of text.toLowerCase().matchAll(/[\u3400-\u9fff\uf900-\ufaff]+|[a-z0-9]+/g)) {
    out.push({ cjk: CJK.test(match[0]), text: match[0] });
  }
  return out;
}

/** Every token a stored text should be findable by. */
export function indexTokens(...texts: string[]): string[] {
  const tokens = new Set<string>();
  for (const text of texts) {
    for (const seg of segments(text)) {
      if (seg.cjk) {
        const chars = [...seg.text];
        if (chars.length === 1) tokens.add(chars[0]);
        for (let i = 0; i + 1 < chars.length; i++) tokens.add(chars[i] + chars[i + 1]);
      } else {
        const word = seg.text.slice(0, MAX_PREFIX);
        for (let n = Math.min(2, word.length); n <= word.length; n++) tokens.add(word.slice(0, n));
      }
    }
  }
  return [...tokens];
}

/** The tokens a query must all match. A lone CJK character matches only single-character words, so the
 *  caller falls back to a substring scan when `needsScan` is set. */
export function queryTokens(query: string): { tokens: string[]; needsScan: boolean } {
  const tokens = new Set<string>();
  let needsScan = false;
  for (const seg of segments(query)) {
    if (seg.cjk) {
      const chars = [...seg.text];
      if (chars.length === 1) needsScan = true;
      for (let i = 0; i + 1 < chars.length; i++) tokens.add(chars[i] + chars[i + 1]);
    } else if (seg.text.length === 1) {
      needsScan = true;
    } else {
      tokens.add(seg.text.slice(0, MAX_PREFIX));
    }
  }
  return { tokens: [...tokens], needsScan };
}
