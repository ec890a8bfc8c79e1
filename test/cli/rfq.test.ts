import { execFile } from 'node:child_process';
import { promisify, stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StartedStack, startStack } from '../../bench/eval/stack.ts';
import { bodyCall } from '../http-call.ts';
import { rfqWithReplies } from '../mail/rfq-judges.ts';
import { ROOT } from '../ui/procura.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted field by field
type Any = any;

const run = promisify(execFile);

/**
 * `procura rfq list` and `procura rfq show` against the started stack (the RFQ mail and the simulated suppliers
 * answering by SMTP), reaching the chat API with the user's token.
 */
describe('procura rfq against the started stack', () => {
  let stack: StartedStack;
  let rfq: Any;
  const erp = bodyCall(
    () => stack.erpUrl,
    () => stack.tokens.laoxiao,
  );
  async function procura(user: string, ...args: string[]) {
    const argv = ['bin/procura.js', 'rfq', ...args, '--url', stack.apiUrl, '--token', stack.tokens[user]];
    return run(process.execPath, argv, { cwd: ROOT, timeout: 120_000 }).then(
      (r) => ({ code: 0, out: stripVTControlCharacters(r.stdout), err: r.stderr }),
      (e: { code?: number; stdout?: string; stderr?: string }) => ({
        code: e.code ?? -1,
        out: e.stdout ?? '',
        err: e.stderr ?? '',
      }),
    );
  }

  beforeAll(async () => {
    stack = await startStack();
    rfq = await rfqWithReplies(erp, stack.tokens.admin, 400);
  }, 180_000);
  afterAll(() => stack?.close());

  it('rfq list: number, status, deadline and replies; --json is the API’s page', async () => {
    const listed = await procura('laoxiao', 'list');
    expect(listed.code, listed.err).toBe(0);
    const row = listed.out.split('\n').find((l) => l.startsWith(rfq.rfqNo)) ?? '';
    expect(row).toContain('收集报价中 / collecting');
    expect(row).toContain(`${rfq.replyDeadline.replace('T', ' ').slice(0, 16)} UTC`);
    expect(row).toMatch(/\b5\/5\b/);
    const json = await procura('laoxiao', 'list', '--json', '--status', 'collecting');
    expect(JSON.parse(json.out).items.map((r: Any) => r.rfqNo)).toContain(rfq.rfqNo);
    // Another project's buyer does not see it.
    expect((await procura('zhangwei', 'list')).out).not.toContain(rfq.rfqNo);
  }, 60_000);

  it('rfq show <number>: the quotes at the ERP’s CNY figures, the ranking with its reasons, what was left out', async () => {
    const shown = await procura('laoxiao', 'show', rfq.rfqNo);
    expect(shown.code, shown.err).toBe(0);
    const lines = shown.out.split('\n');
    const quotes = (await erp('GET', `/rfqs/${rfq.id}`)).quotes as Any[];
    for (const q of quotes.filter((x) => x.effective)) {
      const row = lines.find(
        (l) => l.startsWith('1 ') && l.includes(q.supplier.nameZh) && l.includes(q.effective.totalCny.toFixed(2)),
      );
      expect(row, `${q.supplier.nameZh} ${q.effective.totalCny}`).toBeDefined();
      expect(row).toContain(q.effective.unitPriceCny.toFixed(2));
    }
    const proposal = await erp('GET', `/rfqs/${rfq.id}/proposal`);
    const ranked = lines.filter((l) => /^\d+\. /.test(l));
    expect(ranked.map((l) => l.split(' ')[1])).toEqual(proposal.ranking.map((r: Any) => r.supplier.nameZh));
    expect(ranked[0]).toContain('★ 推荐 / recommended');
    expect(shown.out).toContain(proposal.ranking[0].why[0]);
    for (const e of proposal.excluded) expect(shown.out).toContain(`${e.supplier.nameZh}`);
    expect(shown.out).toContain('moq');
    // By id it is the same RFQ.
    expect((await procura('laoxiao', 'show', String(rfq.id))).out).toBe(shown.out);
  }, 60_000);

  it('someone else’s project or a bad reference is a clear error, exit 1', async () => {
    const other = await procura('zhangwei', 'show', String(rfq.id));
    expect(other.code).toBe(1);
    expect(other.err).toMatch(/not found/i);
    const bad = await procura('laoxiao', 'show', 'nonsense');
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/RFQ id or number/);
  }, 60_000);
});
