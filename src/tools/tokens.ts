import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

interface Ranks {
  pat_str: string;
  bpe_ranks: string;
}

/** The 1 MB ranks module, read only when a count is not memoised: parsing it is most of a tool listing's start. */
const cl100k = (): Ranks => createRequire(import.meta.url)('js-tiktoken/ranks/cl100k_base') as Ranks;

/**
 * Counts cl100k_base tokens with the ranks js-tiktoken ships, without js-tiktoken's encoder: building its tables
 * (every rank decoded to bytes, then keyed by their decimal list) takes about 0.4 s, which a command that only
 * lists tools cannot afford. Here the ranks stay keyed by their base64 text, as the ranks file stores them, and a
 * piece of input is looked up by its own base64.
 */
let ranks: Map<string, number> | undefined;

function loadRanks(): Map<string, number> {
  const map = new Map<string, number>();
  // Each line: `! <first rank> <token> <token> …`, consecutive ranks.
  for (const line of cl100k().bpe_ranks.split('\n')) {
    const fields = line.split(' ');
    const first = Number.parseInt(fields[1], 10);
    for (let i = 2; i < fields.length; i++) map.set(fields[i], first + i - 2);
  }
  return map;
}

let pieces: RegExp | undefined;

const keyOf = (bytes: Buffer, start: number, end: number) => bytes.toString('base64', start, end);

/**
 * Tokens of one regex piece: tiktoken's byte-pair merge (join the adjacent pair of lowest rank until no pair is a
 * token), counting the parts left. Each pair's rank is looked up once and again only when a merge changes it.
 */
function mergedParts(bytes: Buffer, rankMap: Map<string, number>): number {
  // starts[i] is where part i begins; pairRanks[i] is the rank of parts i and i + 1 joined (Infinity: no token).
  const starts = Array.from({ length: bytes.length + 1 }, (_, i) => i);
  const pairRank = (i: number) =>
    i + 2 < starts.length
      ? (rankMap.get(keyOf(bytes, starts[i], starts[i + 2])) ?? Number.POSITIVE_INFINITY)
      : Number.POSITIVE_INFINITY;
  const pairRanks = starts.slice(0, -2).map((_, i) => pairRank(i));
  while (pairRanks.length > 0) {
    let best = 0;
    for (let i = 1; i < pairRanks.length; i++) if (pairRanks[i] < pairRanks[best]) best = i;
    if (pairRanks[best] === Number.POSITIVE_INFINITY) break;
    starts.splice(best + 1, 1);
    pairRanks.splice(best, 1);
    if (best < pairRanks.length) pairRanks[best] = pairRank(best);
    if (best > 0) pairRanks[best - 1] = pairRank(best - 1);
  }
  return starts.length - 1;
}

function countUnmemoised(text: string): number {
  ranks ??= loadRanks();
  pieces ??= new RegExp(cl100k().pat_str, 'gu');
  let count = 0;
  for (const [piece] of text.matchAll(pieces)) {
    const bytes = Buffer.from(piece, 'utf8');
    count += ranks.has(keyOf(bytes, 0, bytes.length)) ? 1 : mergedParts(bytes, ranks);
  }
  return count;
}

/**
 * Counts already made, by a hash of the text, kept across processes in the temp directory: a tool listing counts
 * the same declarations every time, and a hit spares loading the ranks. A missing or unreadable file only means
 * counting again. The file's name carries the counting's version: a change to how tokens are counted starts anew.
 */
const MEMO_FILE = path.join(os.tmpdir(), `procura-token-counts-v1-${process.getuid?.() ?? 'user'}.json`);
const MEMO_MAX = 5_000;
let memo: Map<string, number> | undefined;
let memoChanged = false;

function memoised(): Map<string, number> {
  if (memo) return memo;
  memo = new Map();
  try {
    const saved: unknown = JSON.parse(fs.readFileSync(MEMO_FILE, 'utf8'));
    if (saved && typeof saved === 'object')
      for (const [key, value] of Object.entries(saved)) if (Number.isInteger(value)) memo.set(key, value as number);
  } catch {
    // no memo yet, or a damaged one: it is rewritten on exit
  }
  process.once('exit', saveMemo);
  return memo;
}

function saveMemo(): void {
  if (!memo || !memoChanged) return;
  const entries = [...memo].slice(-MEMO_MAX);
  const partial = `${MEMO_FILE}.${process.pid}`;
  try {
    fs.writeFileSync(partial, JSON.stringify(Object.fromEntries(entries)), { mode: 0o600 });
    fs.renameSync(partial, MEMO_FILE); // atomic: a concurrent reader sees the old file or the new one
  } catch {
    fs.rmSync(partial, { force: true });
  }
}

/** cl100k_base token count of `text` (special-token text such as `<|endoftext|>` counts as ordinary text). */
export function countTokens(text: string): number {
  const key = createHash('sha256').update(text).digest('base64url');
  const known = memoised().get(key);
  if (known !== undefined) return known;
  const count = countUnmemoised(text);
  memo?.set(key, count);
  memoChanged = true;
  return count;
}
