import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resume, type TurnResult } from '../../bench/eval/local-stack.ts';
import { type StartedStack, stackHarness, startStack } from '../../bench/eval/stack.ts';
import { bodyCall } from '../http-call.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted field by field
type Any = any;

/**
 * Asking Procura for a request for quotation, through the chat API of the started stack (every part, the ERP over
 * MCP, the RFQ mail and the simulated suppliers answering by SMTP) with the offline model: the user asks in words,
 * approves each write, the suppliers reply by mail, and the award writes exactly one purchase order linked to the RFQ.
 */
describe('a request for quotation asked for in chat', () => {
  let stack: StartedStack;
  const erp = bodyCall(
    () => stack.erpUrl,
    () => stack.tokens.laoxiao,
  );
  /** How many orders the ERP holds that the buyer sees. */
  const orderCount = async () => (await erp('GET', '/orders/search?size=1')).total as number;
  /** The RFQ once no invited supplier is still to answer (or after a minute): the suppliers reply by mail. */
  const repliesCollected = async (id: number) => {
    let rfq: Any;
    const end = Date.now() + 60_000;
    do {
      await new Promise((r) => setTimeout(r, 500));
      rfq = await erp('GET', `/rfqs/${id}`);
    } while (rfq.invitations.some((i: Any) => i.status === 'invited') && Date.now() < end);
    return rfq;
  };

  beforeAll(async () => {
    stack = await startStack();
  }, 120_000);
  afterAll(() => stack?.close());

  /** Sends one message and approves every write it stops for; returns the tools approved, in order, and the answer. */
  async function say(session: string, message: string) {
    const h = stackHarness(stack);
    const ctx = h.contextFor('laoxiao', session);
    let turn: TurnResult = await h.send(ctx, message);
    const approved: Array<{ tool: string; args: Any; details: Any }> = [];
    while (turn.interrupts.length) {
      const [first] = turn.interrupts;
      expect(first.value.kind, JSON.stringify(first.value)).toBe('approval');
      approved.push({ tool: String(first.value.tool), args: first.value.args, details: first.value.details });
      turn = await h.send(ctx, resume(first.id, { type: 'approve' }));
    }
    expect(turn.error, turn.answer).toBeUndefined();
    return { approved, answer: turn.answer };
  }

  it('「给火花塞 F7TC 发询价，数量 500，问 5 家供应商」: sent on approval, quotes by mail, proposal, award into one order', async () => {
    const session = 'stack-rfq-chat';
    // The mail desk quotes one supplier in USD: the project's rate makes that quote comparable.
    await erp('PUT', '/exchange-rates/USD', { rateToCny: 7.1 }, stack.tokens.admin);
    const asked = await say(session, '给火花塞 F7TC 发询价，数量 500，问 5 家供应商');
    // Drafting and mailing are two writes, each approved by the user.
    expect(asked.approved.map((a) => a.tool)).toEqual(['rfq_create', 'rfq_send']);
    const draft = asked.approved[0].args;
    expect(draft.lines).toHaveLength(1);
    expect(draft.lines[0].quantity).toBe(500);
    expect(draft.supplierIds).toHaveLength(5);
    const part = await erp('GET', `/parts/${draft.lines[0].partId}`);
    expect(part.model).toBe('F7TC');
    // Every invited supplier offers F7TC in the catalogue.
    const offers = (await erp('GET', '/parts/search?name=F7TC&limit=50')).items as Any[];
    const offering = new Set(offers.filter((p) => p.model === 'F7TC').map((p) => p.supplier.id));
    expect(draft.supplierIds.every((id: number) => offering.has(id))).toBe(true);
    const rfqNo = /RFQ-\d{6}-\d+/.exec(asked.answer)?.[0];
    expect(rfqNo, asked.answer).toBeDefined();
    const listed = (await erp('GET', '/rfqs')).items as Any[];
    const id = listed.find((r) => r.rfqNo === rfqNo).id;

    // The simulated suppliers answer the invitations by mail; the RFQ mail collects them.
    const rfq = await repliesCollected(id);
    expect(rfq.invitations.every((i: Any) => i.mail.status === 'sent' && i.status !== 'invited')).toBe(true);
    expect(rfq.quotes.some((q: Any) => q.source.kind === 'mail')).toBe(true);

    const shown = await say(session, `看看 ${rfqNo} 的报价和授标建议`);
    expect(shown.approved).toEqual([]);
    const proposal = await erp('GET', `/rfqs/${id}/proposal`);
    expect(proposal.recommended, JSON.stringify(proposal.excluded)).not.toBeNull();
    expect(shown.answer).toContain(`推荐 / recommended：${proposal.recommended.nameZh}`);
    for (const e of proposal.excluded) expect(shown.answer).toContain(e.supplier.nameZh);

    const before = await orderCount();
    const awarded = await say(session, `把 ${rfqNo} 授标给${proposal.recommended.nameZh}`);
    // Still collecting: one decision closes and awards it, and its card showed the order the ERP then wrote.
    expect(awarded.approved.map((a) => a.tool)).toEqual(['rfq_award']);
    const [decided] = awarded.approved;
    expect(decided.args).toMatchObject({ supplierId: proposal.recommended.id, close: true });
    expect(await orderCount()).toBe(before + 1);
    const final = await erp('GET', `/rfqs/${id}`);
    expect(final.status).toBe('awarded');
    const order = await erp('GET', `/orders/${final.award.orderId}`);
    expect(order.supplier.id).toBe(proposal.recommended.id);
    expect(decided.details).toMatchObject({
      supplier: order.supplier.nameZh,
      preview: { totalAmount: order.totalAmount, approval: { rule: order.approval.rule } },
      award: { rfqNo, closes: true, rank: 1 },
    });
    expect(decided.details.lines.map((l: Any) => [l.code, l.quantity, l.listPrice])).toEqual(
      order.lines.map((l: Any) => [l.part.code, l.quantity, l.unitPrice]),
    );
    expect(order.note).toContain(rfqNo);
    expect(awarded.answer).toContain(order.orderNo);
  }, 240_000);

  it('in English, to the suppliers named, then "award it to the recommended supplier" for the RFQ of the conversation', async () => {
    const session = 'stack-rfq-chat-en';
    const suppliers = (await erp('GET', '/suppliers')).items as Any[];
    const named = ['bosch', 'ngk', 'delphi'].map((key) => suppliers.find((s) => s.key === key));
    const asked = await say(
      session,
      `Please send a request for quotation for 300 A7TC spark plugs to ${named.map((s) => s.nameEn).join(', ')}`,
    );
    expect(asked.approved.map((a) => a.tool)).toEqual(['rfq_create', 'rfq_send']);
    expect([...asked.approved[0].args.supplierIds].sort()).toEqual(named.map((s) => s.id).sort());
    expect(asked.approved[0].args.lines[0].quantity).toBe(300);
    const rfqNo = /RFQ-\d{6}-\d+/.exec(asked.answer)?.[0];
    const id = ((await erp('GET', '/rfqs')).items as Any[]).find((r) => r.rfqNo === rfqNo).id;
    await repliesCollected(id);
    const proposal = await erp('GET', `/rfqs/${id}/proposal`);
    expect(proposal.recommended).not.toBeNull();
    const before = await orderCount();
    const awarded = await say(session, 'award it to the recommended supplier');
    expect(awarded.approved.map((a) => a.tool)).toEqual(['rfq_award']);
    expect(awarded.approved[0].args).toMatchObject({ rfqId: id, supplierId: proposal.recommended.id, close: true });
    expect(awarded.approved[0].details.supplierEn).toBe(proposal.recommended.nameEn);
    expect(await orderCount()).toBe(before + 1);
    const final = await erp('GET', `/rfqs/${id}`);
    expect(awarded.answer).toContain(final.award.orderNo);
  }, 240_000);
});
