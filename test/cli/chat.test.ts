import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { erpOrders, ROOT, type RunningProcura, startProcura } from '../ui/procura.ts';

const run = promisify(execFile);

interface Line {
  event: string;
  id?: string;
  data: Record<string, unknown>;
}

describe('procura chat --once --json against procura start (offline model)', () => {
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
});
