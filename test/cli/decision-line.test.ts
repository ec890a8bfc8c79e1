import { describe, expect, it } from 'vitest';
import { TerminalRenderer } from '../../src/cli/chat/render.ts';

describe('procura chat: an admin’s decision on the conversation’s order', () => {
  const render = (data: Record<string, unknown>) => {
    let written = '';
    const out = { isTTY: false, write: (text: string) => (written += text) } as unknown as NodeJS.WriteStream;
    new TerminalRenderer(out).event({ event: 'order_decision', id: '9', data });
    return written;
  };
  const decision = {
    session_id: 's1',
    order_id: 7,
    order_no: 'PO-202612-000007',
    decided_by: 'admin',
    decided_at: '2026-12-03T06:00:00.000Z',
    total_amount: 30_000,
  };

  it('prints who approved which order, their comment and when', () => {
    expect(render({ ...decision, decision: 'approved', comment: '紧急补货，同意' })).toBe(
      '✓ 管理员 admin 已批准订单 PO-202612-000007 / Order PO-202612-000007 approved by admin: 紧急补货，同意 2026-12-03T06:00:00.000Z\n',
    );
  });

  it('prints a return without a comment as such', () => {
    expect(render({ ...decision, decision: 'rejected', comment: null })).toBe(
      '↩ 管理员 admin 已退回订单 PO-202612-000007 / Order PO-202612-000007 returned by admin 2026-12-03T06:00:00.000Z\n',
    );
  });
});
