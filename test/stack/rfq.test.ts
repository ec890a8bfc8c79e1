import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StartedStack, startStack } from '../../bench/eval/stack.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted field by field
type Any = any;

/** A request for quotation on the stack `procura start` runs: ERP, RFQ mail and the simulated suppliers by SMTP. */
describe('requests for quotation on the started stack', () => {
  let stack: StartedStack;
  const call = async (method: string, path: string, body?: unknown, token = stack.tokens.laoxiao) => {
    const res = await fetch(`${stack.erpUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: (await res.json()) as Any };
  };

  beforeAll(async () => {
    stack = await startStack();
  }, 120_000);
  afterAll(() => stack?.close());

  it('mails five suppliers, collects their replies in the background, and awards into one order', async () => {
    expect(stack.parts.get('RFQ mail')?.detail).toMatch(/simulated suppliers/);
    const suppliers = (await call('GET', '/suppliers')).body.items as Any[];
    const id = (key: string) => suppliers.find((s) => s.key === key).id;
    const part = (await call('GET', '/parts/search?name=F7TC')).body.items[0];
    const rfq = (
      await call('POST', '/rfqs', {
        title: 'F7TC 200 个',
        lines: [
          {
            partId: part.id,
            quantity: 200,
            requiredDate: new Date(Date.now() + 16 * 86_400_000).toISOString().slice(0, 10),
          },
        ],
        supplierIds: ['bosch', 'denso', 'ngk', 'delphi', 'champion'].map(id),
        replyDeadline: new Date(Date.now() + 86_400_000).toISOString(),
      })
    ).body;
    await call('PUT', '/exchange-rates/USD', { rateToCny: 7.1 }, stack.tokens.admin);
    expect((await call('POST', `/rfqs/${rfq.id}/send`, { version: rfq.version })).body.status).toBe('sent');
    let now: Any;
    const end = Date.now() + 60_000;
    do {
      await new Promise((r) => setTimeout(r, 500));
      now = (await call('GET', `/rfqs/${rfq.id}`)).body;
    } while (now.invitations.some((i: Any) => i.status === 'invited') && Date.now() < end);
    expect(now.invitations.map((i: Any) => i.status).sort()).toEqual([
      'declined',
      'replied',
      'replied',
      'replied',
      'replied',
    ]);
    const quoted = now.quotes.filter((q: Any) => q.status === 'quoted');
    expect(quoted).toHaveLength(4);
    expect(quoted.every((q: Any) => q.source.kind === 'mail' && q.effective.totalCny > 0)).toBe(true);
    const closed = (await call('POST', `/rfqs/${rfq.id}/close`, { version: now.version })).body;
    // The proposal leaves out the MOQ above the asked quantity and the decline, saying so, and ranks the rest.
    const proposal = (await call('GET', `/rfqs/${rfq.id}/proposal`)).body;
    const excluded = proposal.excluded.map((e: Any) => [e.supplier.id, e.reason]);
    expect(excluded).toContainEqual([id('delphi'), 'moq']);
    expect(excluded).toContainEqual([id('champion'), 'declined']);
    const ranked = proposal.ranking.map((r: Any) => r.supplier.id);
    expect(ranked.length).toBeGreaterThan(0);
    expect([...ranked, ...excluded.map((e: Any) => e[0])].sort()).toEqual(
      ['bosch', 'denso', 'ngk', 'delphi', 'champion'].map(id).sort(),
    );
    expect(proposal.recommended.id).toBe(ranked[0]);
    const award = await call('POST', `/rfqs/${rfq.id}/award`, { version: closed.version, supplierId: id('bosch') });
    expect(award.status).toBe(200);
    expect(award.body.rfq.award.orderId).toBe(award.body.order.id);
    expect(award.body.order.lines[0].unitPrice).toBe(
      quoted.find((q: Any) => q.supplier.id === id('bosch')).effective.unitPriceCny,
    );
  }, 120_000);
});
