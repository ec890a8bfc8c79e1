/**
 * Secret redaction where text enters Procura (messages, decisions, schedule texts and names, memories, ERP notes):
 * what is redacted there is what every later copy holds (history, events, checkpoints, the model's requests, the
 * ERP and its audit log). Detection is secretlint's maintained recommended rule set (cloud, VCS, chat, payment and
 * model-provider keys, private keys, connection strings with passwords), plus rules of our own for shapes it does
 * not cover: Procura's own tokens and sessions, bearer/basic headers, Stripe-style and Chinese cloud keys, JWTs,
 * secrets said in a sentence in English or Chinese (`my password is …`, `ERP 的密码是 …`, `口令：…`), and generic
 * high-entropy strings. No maintained detector reads natural-language phrasing, so the phrasing is declared here as
 * data (the words that name a secret, whose it is, the links) and the patterns are built from it.
 */
import { lintSource } from '@secretlint/core';
import { creator as recommended } from '@secretlint/secretlint-rule-preset-recommend';

export const REDACTED = '[redacted]';

/** A secret found in a text: `[start, end)` and the rule that found it. */
export interface SecretMatch {
  start: number;
  end: number;
  rule: string;
}

/**
 * How people say a secret in a sentence, in both languages: a word naming the secret, optionally whose or which it is,
 * a link, then the value.
 */
const SECRET_PHRASING = {
  /** Words naming a secret; a space stands for a space, `_`, `-` or nothing (`api key`, `api_key`, `apikey`). */
  names: [
    'password',
    'passwd',
    'passphrase',
    'passcode',
    'pwd',
    'secret',
    'client secret',
    'api key',
    'access key',
    'secret key',
    'private key',
    'auth token',
    'access token',
    'token',
  ],
  namesZh: ['密码', '口令', '密钥', '秘钥', '令牌', '通行码'],
  /** Words saying whose or which secret it is, followed by up to three words: "for the ERP", "of my account". */
  whose: ['for', 'of', 'to', 'on', 'at', 'in'],
  /** Links after which any value of 4+ characters is the secret. */
  marks: [
    ':',
    '：',
    '=',
    '是',
    '为',
    '為',
    '就是',
    '设为',
    '设成',
    '设置为',
    '设置成',
    '改为',
    '改成',
    '改成了',
    '换成',
    '换成了',
  ],
  /**
   * Words after which the value must look like a secret (a digit, a capital or a symbol, or 12+ characters), so that
   * "the password is wrong" or "the token is expired" stay as written.
   */
  words: ['is', 'was', 'is now', 'is still', 'is set to', 'was set to', 'set to', 'changed to', 'equals'],
};

/** A character of a value: it runs up to whitespace, a quote, a comma or semicolon, or CJK. */
const VALUE = `[^\\s"'“”‘’\\\\,;\\u3000-\\u9fff\\uff00-\\uffef]`;
const escapeWords = (words: readonly string[]) =>
  words
    .map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/ /g, '[\\s_-]?'))
    .sort((a, b) => b.length - a.length)
    .join('|');

/** A value said after a word rather than a mark reads as a secret: a digit, a capital or a symbol, or 12+ characters. */
const secretLike = (value: string) => /[\dA-Z#$%&*+/=@^_~-]/.test(value) || value.length >= 12;

/** The patterns of {@link SECRET_PHRASING}: after a mark any value, after a word a value that looks like a secret. */
function phrasingPatterns(): OwnPattern[] {
  const p = SECRET_PHRASING;
  const name = `(?:(?<![A-Za-z0-9])(?:${escapeWords(p.names)})(?![A-Za-z0-9])|${escapeWords(p.namesZh)})`;
  const whose = `(?:\\s+(?:${escapeWords(p.whose)})(?:\\s+[^\\s,;:=，；：。]+){1,3}?|\\s*[（(][^）)\\n]{1,30}[）)])?`;
  const value = `["'“”‘’]?(?<value>${VALUE}{4,})`;
  return [
    { rule: 'assignment', pattern: new RegExp(`${name}${whose}\\s*(?:${escapeWords(p.marks)})\\s*${value}`, 'gi') },
    {
      rule: 'phrasing',
      pattern: new RegExp(`${name}${whose}\\s+(?:${escapeWords(p.words)})\\s*[:：]?\\s+${value}`, 'gi'),
      accept: secretLike,
    },
  ];
}

/** A shape of our own: redacted whole (group 0), or only its value where it has a `value` group that `accept`s. */
interface OwnPattern {
  rule: string;
  pattern: RegExp;
  accept?: (value: string) => boolean;
}

/** Shapes of our own. */
const PATTERNS: OwnPattern[] = [
  // Procura's API tokens and demo sign-in sessions (which stand for a user's token).
  { rule: 'procura-token', pattern: /\b(?:pk|pds)_[A-Za-z0-9_-]{16,}/g },
  { rule: 'auth-header', pattern: /\bBearer\s+(?<value>[A-Za-z0-9._~+/=-]{8,})/gi },
  // Basic credentials are base64: words after "Basic" in a sentence are not.
  { rule: 'auth-header', pattern: /\bBasic\s+(?<value>(?=[A-Za-z+/]*[\d+/=])[A-Za-z0-9+/]{12,}={0,2})/g },
  // Model providers (OpenAI-style `sk-…`, DeepSeek, Anthropic), Stripe and its webhooks, GitLab, Google API keys.
  { rule: 'provider-key', pattern: /\bsk-[A-Za-z0-9_-]{16,}/g },
  { rule: 'stripe-key', pattern: /\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{10,}|\bwhsec_[A-Za-z0-9]{16,}/g },
  { rule: 'gitlab-token', pattern: /\bglpat-[A-Za-z0-9_-]{20,}/g },
  { rule: 'google-api-key', pattern: /\bAIza[0-9A-Za-z_-]{35}/g },
  // Alibaba Cloud and Tencent Cloud access key ids.
  { rule: 'cloud-access-key', pattern: /\b(?:LTAI[A-Za-z0-9]{12,24}|AKID[A-Za-z0-9]{13,40})\b/g },
  { rule: 'jwt', pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  ...phrasingPatterns(),
];

/** Runs of characters a key or token is made of (no `/` or `.`, so paths and host names split into words). */
const TOKEN_RUN = /[A-Za-z0-9_+=-]{20,}/g;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Bits per character above which a mixed-case alphanumeric run reads as random rather than as words or codes. */
const ENTROPY_BITS = 3.5;

function entropy(text: string): number {
  const counts = new Map<string, number>();
  for (const ch of text) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) bits -= (n / text.length) * Math.log2(n / text.length);
  return bits;
}

/** Generic high-entropy strings: 20+ characters with upper case, lower case and digits, random-looking. */
function highEntropy(text: string): SecretMatch[] {
  const found: SecretMatch[] = [];
  for (const match of text.matchAll(TOKEN_RUN)) {
    const run = match[0];
    if (UUID.test(run) || !/[A-Z]/.test(run) || !/[a-z]/.test(run) || !/\d/.test(run)) continue;
    if (entropy(run) < ENTROPY_BITS) continue;
    found.push({ start: match.index, end: match.index + run.length, rule: 'high-entropy' });
  }
  return found;
}

/** Our own shapes, found without the rule engine: cheap enough for every streamed event. */
function ownMatches(text: string): SecretMatch[] {
  const found: SecretMatch[] = [];
  for (const { rule, pattern, accept } of PATTERNS) {
    for (const match of text.matchAll(pattern)) {
      const value = match.groups?.value;
      if (accept && value !== undefined && !accept(value)) continue;
      const start = value === undefined ? match.index : match.index + match[0].lastIndexOf(value);
      found.push({ start, end: start + (value ?? match[0]).length, rule });
    }
  }
  return found;
}

const SECRETLINT_CONFIG = {
  rules: [
    {
      id: recommended.meta.id,
      rule: recommended,
      // AWS access key ids alone (AKIA…) are secrets here too, not only next to their secret key.
      rules: [{ id: '@secretlint/secretlint-rule-aws', options: { enableIDScanRule: true } }],
    },
  ],
};

/** Every secret in `text`, by secretlint's recommended rules and ours; overlapping finds are all listed. */
export async function findSecrets(text: string): Promise<SecretMatch[]> {
  const found = [...ownMatches(text), ...highEntropy(text)];
  if (text.length) {
    // No file path: the private-key rule would otherwise read the named file from disk.
    const result = await lintSource({
      source: { content: text, filePath: '', ext: '.txt', contentType: 'text' },
      options: { config: SECRETLINT_CONFIG as never },
    });
    for (const message of result.messages)
      found.push({ start: message.range[0], end: message.range[1], rule: message.ruleId });
  }
  return found;
}

/** `text` with `matches` and the `known` secrets (a user's own token, …) replaced by `[redacted]`. */
function replace(text: string, matches: SecretMatch[], known: readonly string[]): string {
  const ranges = [...matches];
  for (const secret of known) {
    if (!secret || secret.length < 8) continue;
    for (let at = text.indexOf(secret); at >= 0; at = text.indexOf(secret, at + secret.length))
      ranges.push({ start: at, end: at + secret.length, rule: 'known' });
  }
  if (!ranges.length) return text;
  ranges.sort((a, b) => a.start - b.start);
  let out = '';
  let cursor = 0;
  for (const { start, end } of ranges) {
    if (end <= cursor) continue;
    out += text.slice(cursor, Math.max(cursor, start)) + (start >= cursor ? REDACTED : '');
    cursor = end;
  }
  return out + text.slice(cursor);
}

/** Text as it may enter Procura: every secret found, and every `known` one, replaced by `[redacted]`. */
export async function redactSecrets(text: string, known: readonly string[] = []): Promise<string> {
  return replace(text, await findSecrets(text), known);
}

/** A JSON value with each of its strings redacted as {@link redactSecrets} does (keys stay). */
export async function redactSecretsIn<T>(value: T, known: readonly string[] = []): Promise<T> {
  if (typeof value === 'string') return (await redactSecrets(value, known)) as T;
  if (Array.isArray(value)) return (await Promise.all(value.map((v) => redactSecretsIn(v, known)))) as T;
  if (value && typeof value === 'object') {
    const entries = await Promise.all(
      Object.entries(value).map(async ([k, v]) => [k, await redactSecretsIn(v, known)] as const),
    );
    return Object.fromEntries(entries) as T;
  }
  return value;
}

/**
 * The quick pass for text leaving Procura (streamed events, error details): the `known` secrets and our own shapes,
 * without the rule engine. What entered was already redacted in full.
 */
export function redactKnown(text: string, known: readonly string[] = []): string {
  return replace(text, ownMatches(text), known);
}
