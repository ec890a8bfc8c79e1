import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StartedStack, startStack } from '../../bench/eval/stack.ts';
import { sleep } from '../../src/shared/index.ts';
import { erpOrders } from '../ui/procura.ts';
import { hasScript, terminalChat } from './terminal.ts';

/**
 * `procura chat` at a person's terminal (a pseudo-terminal through util-linux `script`) against a started stack:
 * the approval prompt takes only a key pressed after its card is drawn, the card says what the ERP would write, and
 * Ctrl-C at the prompt decides nothing.
 */
let stack: StartedStack;

beforeAll(async () => {
  stack = await startStack();
}, 120_000);
afterAll(async () => {
  await stack?.close();
});

/** Orders of the demo buyer holding a line of `quantity` F7TC plugs. */
const ordersOf = async (quantity: number) =>
  (await erpOrders(stack.erpUrl, stack.tokens.laoxiao, 'F7TC')).filter((o) =>
    o.lines.some((l) => l.quantity === quantity),
  );

describe.skipIf(!hasScript)('the terminal approval prompt', () => {
  it('drops an Enter typed before the card is drawn; the card shows the order as the ERP would write it; Ctrl-C decides nothing', async () => {
    const t = terminalChat(stack.apiUrl, stack.tokens.laoxiao);
    try {
      await t.waitFor(/你 \/ you/);
      // Type-ahead: an Enter 0.2 s after sending, long before the approval card exists.
      const quantity = 230;
      t.type(`给博世下 ${quantity} 个 F7TC 火花塞的采购单\r`);
      await sleep(200);
      t.type('\r');
      await t.waitFor(/如何处理/);
      // Nothing answered the prompt: it still waits, and no order was written.
      await sleep(1500);
      expect(t.count(/✔ 如何处理/)).toBe(0);
      expect(await ordersOf(quantity)).toEqual([]);

      // The card: supplier, the line's part, quantity, unit price and amount with its price check, the total, and
      // the ERP approval policy's decision — the ERP's own preview of this order.
      const card = t.plain().slice(t.plain().indexOf('需要审批'));
      const line = /1\. (BS-F7TC) (.+?) × (\d+)(\S*) @ ¥([\d.]+) = ¥([\d,.]+) {2}\[(.+?)\]/.exec(card);
      expect(line, card).not.toBeNull();
      const [, code, , shownQuantity, , price, amount, check] = line!;
      // The ERP's names in both languages (the seeded English names).
      expect(card).toMatch(/供应商 \/ supplier: \S*博世\S* \/ Bosch/);
      expect(card).toMatch(/1\. BS-F7TC \S+ F7TC \/ Motorcycle spark plug F7TC × /);
      // Named by the ERP, not shown again as its bare id.
      expect(card).not.toMatch(/supplierId/);
      expect(Number(shownQuantity)).toBe(quantity);
      expect(Number(amount.replace(/,/g, ''))).toBeCloseTo(Number(price) * quantity, 2);
      expect(check).toMatch(/12-month median ¥[\d.]+|unknown/);
      const total = /合计 \/ total: ¥([\d,.]+)/.exec(card)?.[1];
      expect(total).toBe(amount);
      expect(card).toMatch(/审批策略 \/ approval policy: .*(auto-approved|admin approval)/);

      // Ctrl-C at the prompt: a clear message, nothing written, the session free for the next message.
      t.type('\x03');
      await t.waitFor(/已取消，未做决定，没有写入任何内容/);
      await t.waitFor(/你 \/ you/, 2);
      expect(await ordersOf(quantity)).toEqual([]);
      expect(code).toBe('BS-F7TC');

      // The next order in the same session: a key pressed after the card is drawn decides, exactly once.
      const next = quantity + 10;
      t.type(`给博世下 ${next} 个 F7TC 火花塞的采购单\r`);
      await t.waitFor(/如何处理/, 2);
      await sleep(800);
      t.type('\r');
      await t.waitFor(/PO-\d{6}-\S+/);
      const written = await ordersOf(next);
      expect(written.map((o) => o.lines[0].quantity)).toEqual([next]);
      expect(await ordersOf(quantity)).toEqual([]);
      await t.waitFor(/\? 你 \/ you\s*$/);
      t.type('\x03');
      expect(await t.exited()).toBe(0);
    } finally {
      t.child.kill();
    }
  }, 240_000);
});
