import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import { promisify, stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { erpOrders, ROOT, type RunningProcura, startProcura } from '../ui/procura.ts';

const run = promisify(execFile);

interface Line {
  event: string;
  id?: string;
  data: Record<string, unknown>;
}

describe('procura chat against procura start (offline model)', () => {
  let procura: RunningProcura;

  beforeAll(async () => {
    procura = await startProcura();
  }, 180_000);
  afterAll(async () => {
    await procura?.close();
  });

  /** Runs `procura chat` and returns its exit code and JSON event lines. */
  async function chat(...args: string[]): Promise<{ code: number; lines: Line[] }> {
    const argv = [
      'bin/procura.js',
      'chat',
      '--url',
      procura.apiUrl,
      '--token',
      procura.tokens.laoxiao,
      '--json',
      ...args,
    ];
    const result = await run(process.execPath, argv, { cwd: ROOT, timeout: 150_000 }).then(
      (r) => ({ code: 0, stdout: r.stdout }),
      (error: { code?: number; stdout?: string }) => ({ code: error.code ?? -1, stdout: error.stdout ?? '' }),
    );
    const lines = result.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Line);
    return { code: result.code, lines };
  }

  const answer = (lines: Line[]) =>
    lines
      .filter((l) => l.event === 'token')
      .map((l) => l.data.content)
      .join('');

  it('streams the analysis as JSON lines: analyst steps complete, the answer, done', async () => {
    const { code, lines } = await chat('--once', '帮我对摩托车火花塞做供应商比价分析');
    expect(code).toBe(0);
    const steps = lines.filter((l) => l.event === 'progress' && l.data.agent === 'procurement-analyst');
    expect(steps.some((l) => l.data.status === 'completed' && String(l.data.title).includes('图表'))).toBe(true);
    expect(steps.every((l) => l.data.status !== 'error')).toBe(true);
    expect(answer(lines)).toMatch(/供应商比价结果/);
    expect(lines.at(-1)?.event).toBe('done');
    // Every event carries the session and a rising id.
    const ids = lines.filter((l) => l.id).map((l) => Number(l.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(lines.map((l) => l.data.session_id)).size).toBe(1);
  }, 180_000);

  it('leaves an order waiting without --yes, and places it with --yes', async () => {
    const waiting = await chat('--once', '给博世下 170 个 F7TC 火花塞的采购单');
    expect(waiting.code).toBe(2);
    expect(waiting.lines.filter((l) => l.event === 'interrupt').map((l) => l.data.kind)).toEqual(['approval']);
    expect(waiting.lines.some((l) => l.event === 'done')).toBe(false);

    const { code, lines } = await chat('--once', '给博世下 180 个 F7TC 火花塞的采购单', '--yes');
    expect(code).toBe(0);
    const interrupt = lines.find((l) => l.event === 'interrupt');
    expect(interrupt?.data.tool).toBe('order_create');
    const decision = lines.find((l) => l.event === 'decision');
    expect(decision?.data).toEqual({ interrupt_id: interrupt?.data.interrupt_id, decision: { type: 'approve' } });
    const orderNo = /PO-\d{6}-[A-Z]?\d+/.exec(answer(lines))?.[0];
    expect(orderNo).toBeDefined();
    const orders = await erpOrders(procura.erpUrl, procura.tokens.laoxiao, orderNo!);
    expect(orders.map((o) => [o.orderNo, o.lines[0].quantity])).toEqual([[orderNo, 180]]);
    // The order left waiting was never written.
    const all = await erpOrders(procura.erpUrl, procura.tokens.laoxiao, 'F7TC');
    expect(all.some((o) => o.lines.some((l) => l.quantity === 170))).toBe(false);
  }, 240_000);

  it("with --yes as text: says the confirmation was the person's only, names the supplier, and matches the ERP status", async () => {
    // Over the buyer's limit, so the ERP's policy sends the order to an admin: nothing here may call it approved.
    const cases = [
      { message: '给博世下 2600 个 F7TC 火花塞的采购单', supplier: /博世/ },
      { message: '给电装下 2400 个 D8TC 火花塞的采购单', supplier: /电装/ },
    ];
    for (const c of cases) {
      const argv = ['bin/procura.js', 'chat', '--url', procura.apiUrl, '--token', procura.tokens.laoxiao];
      const { stdout } = await run(process.execPath, [...argv, '--once', c.message, '--yes'], {
        cwd: ROOT,
        timeout: 150_000,
      });
      const text = stripVTControlCharacters(stdout);
      expect(text).not.toMatch(/已自动批准|auto-approved/);
      expect(text).toMatch(/已代你确认（--yes）/);
      expect(text).toMatch(new RegExp(`供应商 / supplier: .*${c.supplier.source}`));
      expect(text).not.toMatch(/supplierId/);
      const orderNo = /PO-\d{6}-[A-Z]?\d+/.exec(text)?.[0];
      expect(orderNo).toBeDefined();
      const [order] = await erpOrders(procura.erpUrl, procura.tokens.laoxiao, orderNo!);
      expect(order.status).toBe('pending_approval');
      // The card told what the ERP would do before it was written.
      expect(text).toMatch(/审批策略 \/ approval policy: .*(管理员|admin)/);
    }
  }, 300_000);

  // A pseudo-terminal through util-linux `script`, so the prompts run as they do for a person.
  it.skipIf(!fs.existsSync('/usr/bin/script'))(
    'in a terminal: "always allow" approves later orders of the session within the approved part and amount without asking, and asks again beyond it; Ctrl-C exits',
    async () => {
      const command = `${process.execPath} bin/procura.js chat --url ${procura.apiUrl} --token ${procura.tokens.laoxiao}`;
      const child = spawn('script', ['-qfec', command, '/dev/null'], {
        cwd: ROOT,
        env: { ...process.env, TERM: 'xterm' },
      });
      let screen = '';
      child.stdout.on('data', (d) => {
        screen += d;
      });
      const plain = () => stripVTControlCharacters(screen);
      const count = (re: RegExp) => plain().match(new RegExp(re.source, 'g'))?.length ?? 0;
      const waitFor = async (re: RegExp, times = 1) => {
        const deadline = Date.now() + 90_000;
        while (count(re) < times) {
          if (Date.now() > deadline) throw new Error(`no ${re} on screen:\n${plain().slice(-2000)}`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      };
      const type = (text: string) => child.stdin.write(text);
      try {
        await waitFor(/你 \/ you/);
        type('给博世下 210 个 F7TC 火花塞的采购单\r');
        await waitFor(/如何处理/);
        // The line names the part and its price, checked against the 12-month history.
        expect(plain()).toMatch(/F7TC .+ × 210\S* @ ¥[\d.]+ = ¥[\d,.]+ {2}\[.+(12-month median ¥[\d.]+|unknown)\]/);
        type('\x1b[B'); // down: "always allow this tool in this session"
        await waitFor(/❯ 本会话内总是允许/);
        type('\r');
        await waitFor(/PO-\d{6}-\S+/);
        await waitFor(/✔ 你 \/ you/, 1);
        await waitFor(/\? 你 \/ you\s*$/);
        // Within the approved part and amount: confirmed without asking.
        type('给博世下 200 个 F7TC 火花塞的采购单\r');
        await waitFor(/confirmed for you: 创建采购订单/);
        await waitFor(/PO-\d{6}-\S+/, 2);
        expect(count(/✔ 如何处理/)).toBe(1);
        const numbers = plain().match(/PO-\d{6}-[A-Z]?\d+/g) ?? [];
        const orders = await erpOrders(procura.erpUrl, procura.tokens.laoxiao, numbers.at(-1)!);
        expect(orders[0].lines[0].quantity).toBe(200);
        await waitFor(/\? 你 \/ you\s*$/);
        // More than the approved amount is asked again.
        type('给博世下 230 个 F7TC 火花塞的采购单\r');
        await waitFor(/需要审批 \/ approval needed[\s\S]*如何处理[\s\S]*需要审批 \/ approval needed[\s\S]*如何处理/);
        expect(count(/confirmed for you/)).toBe(1);
        type('\x1b[B\x1b[B\x1b[B'); // down to "deny"
        await waitFor(/❯ 拒绝 \/ deny/);
        type('\r');
        await waitFor(/拒绝原因/);
        type('\r');
        await waitFor(/\? 你 \/ you\s*$/);
        type('\x03');
        const code = await new Promise((resolve) => child.once('exit', resolve));
        expect(code).toBe(0);
      } finally {
        child.kill();
      }
    },
    180_000,
  );
});
