import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findSecrets, REDACTED, redactKnown, redactSecrets, redactSecretsIn } from '../../src/shared/secrets.ts';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const UPPER_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const HEX = '0123456789abcdef';
/** A random string of `n` characters from `alphabet` (fast-check drives the randomness). */
const chars = (alphabet: string, n: number) =>
  fc.array(fc.constantFrom(...alphabet), { minLength: n, maxLength: n }).map((a) => a.join(''));
const b64url = (n: number) => chars(`${ALNUM}_-`, n);

/** Secret shapes as they appear in the wild, each a generator of fresh values. */
const SHAPES: Record<string, fc.Arbitrary<string>> = {
  'Procura API token': b64url(43).map((s) => `pk_${s}`),
  'Procura demo session': b64url(43).map((s) => `pds_${s}`),
  'Stripe live secret key': chars(ALNUM, 24).map((s) => `sk_live_${s}`),
  'Stripe test key': chars(ALNUM, 24).map((s) => `sk_test_${s}`),
  'Stripe restricted key': chars(ALNUM, 24).map((s) => `rk_live_${s}`),
  'Stripe webhook secret': chars(ALNUM, 32).map((s) => `whsec_${s}`),
  'OpenAI/DeepSeek key': chars(ALNUM, 32).map((s) => `sk-${s}`),
  'OpenAI project key': chars(ALNUM, 20).map((s) => `sk-proj-${s}T3BlbkFJ${s}`),
  'GitHub personal token': chars(ALNUM, 36).map((s) => `ghp_${s}`),
  'GitHub fine-grained token': chars(`${ALNUM}_`, 82).map((s) => `github_pat_${s}`),
  'GitLab token': b64url(20).map((s) => `glpat-${s}`),
  'AWS access key id': chars(UPPER_DIGITS, 16).map((s) => `AKIA${s}`),
  'AWS secret assignment': chars(`${ALNUM}/+`, 40).map((s) => `aws_secret_access_key=${s}`),
  'Google API key': b64url(35).map((s) => `AIza${s}`),
  'Alibaba Cloud AccessKey': chars(ALNUM, 20).map((s) => `LTAI${s}`),
  'Tencent Cloud SecretId': chars(ALNUM, 32).map((s) => `AKID${s}`),
  'Slack bot token': chars('0123456789', 12).map((d) => `xoxb-${d}-${d}1-abcdefghijklmnopqrstuvwx`),
  'npm token': chars(ALNUM, 36).map((s) => `npm_${s}`),
  JWT: fc.tuple(b64url(20), b64url(40), b64url(43)).map(([a, b, c]) => `eyJ${a}.eyJ${b}.${c}`),
  'bearer header': b64url(30).map((s) => `Authorization: Bearer ${s}`),
  'basic header': chars(ALNUM, 22).map((s) => `Authorization: Basic ${s}9=`),
  'password: value': chars(ALNUM, 10).map((s) => `password: ${s}`),
  'PASSWORD=value': chars(ALNUM, 10).map((s) => `DB_PASSWORD=${s}`),
  '密码：value': chars(ALNUM, 8).map((s) => `密码：${s}`),
  '口令是 value': chars(ALNUM, 8).map((s) => `口令是 ${s}`),
  'api_key = "value"': chars(ALNUM, 24).map((s) => `api_key = "${s}"`),
  'connection string with password': chars(ALNUM, 12).map((s) => `postgres://buyer:${s}@db.internal:5432/erp`),
  'URL with credentials': chars(ALNUM, 12).map((s) => `https://admin:${s}@erp.example.com/api`),
  'private key': chars(`${ALNUM}+/`, 200).map(
    (s) => `-----BEGIN RSA PRIVATE KEY-----\n${`MII${s}`.match(/.{1,64}/g)!.join('\n')}\n-----END RSA PRIVATE KEY-----`,
  ),
  'high-entropy string': chars(ALNUM, 32).filter((s) => /[A-Z]/.test(s) && /[a-z]/.test(s) && /\d/.test(s)),
  'hex digest key': chars(HEX, 40).map((s) => `secret=${s}`),
};

/** What a procurement team writes every day: none of it may be redacted. */
const ORDINARY = [
  '帮我对摩托车火花塞做供应商比价分析',
  '给博世下 200 个 F7TC 火花塞的采购单，交期 2026-06-30',
  'order 200 F7TC plugs from Bosch, deliver by 2026-06-30',
  '订单 PO-202605-000123 的数量改成 300',
  '零件 NGK-BPR6ES-11 和 DENSO-W20EPR-U 哪个便宜？',
  '供应商网址 http://127.0.0.1:8090/bosch/products/spark-plug-f7tc?ref=compare',
  '看一下 /analysis/report_20260509.md 和 /data/analysis_result.json',
  'session 3f2b8c1e-9d4a-4b7e-a1c2-5e6f7a8b9c0d 的报告',
  '上个月 Token 用量是多少？模型调用 1,234 次',
  'The password policy requires 12 characters; ask IT to reset it.',
  'Basic information about the supplier, please',
  '密码是多少我不知道',
  'Bearer of good news: prices fell 5%',
  '每周一 09:00 发送刹车片库存摘要给 laoxiao',
  'Compare lead times: Bosch 7 days, Denso 12 days, NGK 10 days',
  'the password is wrong, please reset it',
  'my token is expired.',
  'the API key for the supplier portal is invalid',
  'the password for the ERP is not working',
  '密码是什么？忘记了',
];

/**
 * A secret said in a sentence, as people write it: who says it, which system it is for, and how. Each phrasing is a
 * function of the secret and a system name, in English or Chinese; none copies Procura's own rule data.
 */
const PHRASINGS: Array<(secret: string, system: string) => string> = [
  (s) => `my password is ${s}`,
  (s, sys) => `the password for the ${sys} is ${s}`,
  (s, sys) => `My ${sys} password is ${s}, please log in for me`,
  (s) => `Password is now ${s}`,
  (s, sys) => `the api key is ${s} (for ${sys})`,
  (s, sys) => `The API key for ${sys} is ${s}`,
  (s) => `token is ${s}`,
  (s, sys) => `my access token for ${sys} was set to ${s}`,
  (s) => `password: ${s}`,
  (s) => `密码是${s}`,
  (s, sys) => `我的${sys}密码是 ${s}，帮我登录`,
  (s) => `口令：${s}`,
  (s, sys) => `${sys}的密钥为${s}`,
  (s) => `令牌是 ${s}`,
  (s, sys) => `密码（${sys}）：${s}`,
  (s, sys) => `${sys}登录密码改成了${s}`,
];
/** Passwords as people pick them: letters with digits or symbols, or long words run together. */
const PASSWORD = fc.oneof(
  fc
    .tuple(chars(ALNUM, 5), chars('0123456789', 2), fc.constantFrom('', '!', '#', '@', '_'), chars(ALNUM, 3))
    .map((p) => p.join('')),
  chars('abcdefghijklmnopqrstuvwxyz', 14),
);
const SYSTEM = fc.constantFrom('ERP', 'SAP', 'supplier portal', '用友', '金蝶', 'OA', 'mail');

describe('secret redaction where text enters', () => {
  it('finds every shape of the corpus, whatever its random part, and leaves the text around it', async () => {
    for (const [shape, arbitrary] of Object.entries(SHAPES)) {
      await fc.assert(
        fc.asyncProperty(arbitrary, async (secret) => {
          const text = `请用这个：${secret} 然后下单 / then order`;
          const out = await redactSecrets(text);
          const value = secret.replace(/^[^:=：是]*(?:[:=：]|是)\s*"?/, '').replace(/"$/, '');
          expect(out, `${shape}: ${secret}`).not.toContain(value.length >= 8 ? value.slice(-8) : value);
          expect(out).toContain(REDACTED);
          expect(out.startsWith('请用这个：')).toBe(true);
          expect(out.endsWith(' 然后下单 / then order')).toBe(true);
        }),
        { numRuns: 15 },
      );
    }
  });

  it('finds a secret said in a sentence, in English or Chinese, however it is phrased', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...PHRASINGS),
        PASSWORD,
        SYSTEM,
        fc.constantFrom('', '你好，', 'Hi, '),
        async (phrase, secret, system, before) => {
          const text = `${before}${phrase(secret, system)}`;
          const out = await redactSecrets(text);
          expect(out, text).not.toContain(secret);
          expect(out).toContain(REDACTED);
          expect(out.startsWith(before)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('leaves ordinary procurement text alone', async () => {
    for (const text of ORDINARY) {
      expect(await findSecrets(text), text).toEqual([]);
      expect(await redactSecrets(text)).toBe(text);
    }
  });

  it('takes out the known secrets too, and keeps JSON valid and its keys', async () => {
    const token = 'my-own-erp-token-123';
    expect(await redactSecrets(`token ${token} here`, [token])).toBe(`token ${REDACTED} here`);
    const value = await redactSecretsIn({ note: 'password: hunter2hunter2', lines: [{ code: 'F7TC' }] });
    expect(value).toEqual({ note: `password: ${REDACTED}`, lines: [{ code: 'F7TC' }] });
    // The quick pass over JSON text (streamed events) keeps it parseable.
    const json = JSON.stringify({
      content: 'see "quoted" \\ path, Bearer abcdefgh.ijklmnop and sk-abcdefghijklmnop1234',
    });
    const quick = redactKnown(json, []);
    expect(JSON.parse(quick).content).toBe(`see "quoted" \\ path, Bearer ${REDACTED} and ${REDACTED}`);
  });
});
