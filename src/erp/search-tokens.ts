/**
 * Search tokens for parts. CJK text has no word boundaries, so it becomes overlapping bigrams (a lone
 * character stands alone); Latin text becomes lower-case words, each also findable by its prefixes from two
 * characters on. A part's document keeps whole words and prefixes apart, so a query can tell a whole-word
 * match ("plug") from a partial one ("pl"). SQLite and PostgreSQL index the same tokens.
 */
const MAX_PREFIX = 12;
/** Longer words are cut here: no catalogue word is that long, and it bounds index keys. */
const MAX_WORD = 40;
const CJK = /[\u3400-\u9fff\uf900-\ufaff]/;
const SEGMENT = /[\u3400-\u9fff\uf900-\ufaff]+|[a-z0-9]+/g;

function segments(text: string): Array<{ cjk: boolean; text: string }> {
  const out: Array<{ cjk: boolean; text: string }> = [];
  for (const match of text.toLowerCase().matchAll(SEGMENT)) out.push({ cjk: CJK.test(match[0]), text: match[0] });
  return out;
}

function bigrams(text: string): string[] {
  const chars = [...text];
  if (chars.length === 1) return chars;
  return chars.slice(1).map((char, i) => chars[i] + char);
}

/** What a stored part can be found by: whole words (and CJK bigrams), and proper prefixes of Latin words. */
export interface SearchDocument {
  words: string[];
  prefixes: string[];
}

export function searchDocument(...texts: string[]): SearchDocument {
  const words = new Set<string>();
  const prefixes = new Set<string>();
  for (const text of texts) {
    for (const seg of segments(text)) {
      if (seg.cjk) {
        for (const gram of bigrams(seg.text)) words.add(gram);
        continue;
      }
      const word = seg.text.slice(0, MAX_WORD);
      words.add(word);
      const longest = Math.min(MAX_PREFIX, word.length - 1);
      for (let n = 2; n <= longest; n++) prefixes.add(word.slice(0, n));
    }
  }
  for (const word of words) prefixes.delete(word);
  return { words: [...words], prefixes: [...prefixes] };
}

/**
 * What a query asks for. `whole`: tokens that must all be whole words (CJK bigrams always are); `any`: the
 * same tokens as whole words or prefixes. A lone Latin character ("o" of "O-ring", "2" of "2.75-18") is a
 * whole word a part's document holds too; a lone CJK character is found in no bigram, so it comes back in
 * `chars`, for the caller to look for in names among what the tokens find. A query of lone characters only
 * has nothing to narrow by, so `needsScan` tells the caller to fall back to a substring scan.
 */
export interface SearchQuery {
  whole: string[];
  any: string[];
  chars: string[];
  needsScan: boolean;
}

export function searchQuery(query: string): SearchQuery {
  const whole = new Set<string>();
  const any = new Set<string>();
  const chars = new Set<string>();
  const loneLatin = new Set<string>();
  for (const seg of segments(query)) {
    if (seg.cjk) {
      if ([...seg.text].length === 1) chars.add(seg.text);
      else
        for (const gram of bigrams(seg.text)) {
          whole.add(gram);
          any.add(gram);
        }
    } else if (seg.text.length === 1) {
      loneLatin.add(seg.text);
    } else {
      whole.add(seg.text.slice(0, MAX_WORD));
      any.add(seg.text.slice(0, MAX_PREFIX));
    }
  }
  // With no longer token to walk by, lone characters match anywhere in a name: only a scan finds that.
  if (!any.size) return { whole: [], any: [], chars: [], needsScan: Boolean(chars.size || loneLatin.size) };
  for (const char of loneLatin) {
    whole.add(char);
    any.add(char);
  }
  return { whole: [...whole], any: [...any], chars: [...chars], needsScan: false };
}

/** Whether a token is Latin (a word or prefix) rather than a CJK bigram. */
export const isLatinToken = (token: string) => !CJK.test(token);
