import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { coversCall, describeScope, standingScope } from './standing.ts';

const http = (method: string, path: string, args: Record<string, unknown> = {}) => ({ method, path, arguments: args });

describe('standing permissions cover the same tool, method, path template and target resource only', () => {
  it('does not let a note change on one order approve a cancel of another', () => {
    const scope = standingScope('dynamic_http_call', http('PUT', '/orders/update/12', { version: 3, note: 'x' }));
    expect(scope).toEqual({
      tool: 'dynamic_http_call',
      method: 'PUT',
      path: '/orders/update/{id}',
      target: '/orders/update/12',
    });
    // The same write to the same order, with other content, is covered.
    expect(coversCall(scope, 'dynamic_http_call', http('PUT', '/orders/update/12', { version: 4, note: 'y' }))).toBe(
      true,
    );
    for (const [method, path] of [
      ['POST', '/orders/13/cancel'],
      ['POST', '/orders/12/cancel'],
      ['PUT', '/orders/update/13'],
      ['PATCH', '/orders/update/12'],
      ['PUT', '/orders/update/12/../13'],
      ['PUT', '/orders/update/%31%33'],
      ['PUT', '/approval-policy'],
    ])
      expect(coversCall(scope, 'dynamic_http_call', http(method, path)), `${method} ${path}`).toBe(false);
    // Spelling the same path differently is the same resource.
    expect(coversCall(scope, 'dynamic_http_call', http('put', '/orders//update/12?x=1'))).toBe(true);
    expect(describeScope(scope)).toBe('PUT /orders/update/12');
  });

  it('scopes a dedicated tool to the ids its arguments name, and an id-less call to itself', () => {
    const update = standingScope('order_update', { orderId: 7, version: 2, note: 'a' });
    expect(coversCall(update, 'order_update', { orderId: 7, version: 3, lines: [] })).toBe(true);
    expect(coversCall(update, 'order_update', { orderId: 8, version: 3 })).toBe(false);
    expect(coversCall(update, 'order_cancel', { orderId: 7, version: 3 })).toBe(false);
    const skill = standingScope('assign_skill', { source: '/drafts/a/', agent: 'procurement-analyst' });
    expect(coversCall(skill, 'assign_skill', { agent: 'procurement-analyst', source: '/drafts/a/' })).toBe(true);
    expect(coversCall(skill, 'assign_skill', { source: '/drafts/b/', agent: 'procurement-analyst' })).toBe(false);
  });

  it('never covers a write to another resource, for any generated pair of calls', () => {
    const segment = fc.oneof(fc.constantFrom('orders', 'update', 'cancel', 'parts', 'approve'), fc.nat(50).map(String));
    const path = fc.array(segment, { minLength: 1, maxLength: 4 }).map((s) => `/${s.join('/')}`);
    const method = fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE');
    fc.assert(
      fc.property(method, path, method, path, (m1, p1, m2, p2) => {
        const scope = standingScope('dynamic_http_call', http(m1, p1));
        const covered = coversCall(scope, 'dynamic_http_call', http(m2, p2));
        expect(covered).toBe(m1 === m2 && p1 === p2);
      }),
      { numRuns: 500 },
    );
  });

  it('holds an order write to the approved supplier, parts and amount', () => {
    // "Always allow" given on a ¥2,552 order of one part must not confirm another part of that supplier for ¥6,506.
    const approved = { supplierId: 3, lines: [{ partId: 10, quantity: 80, unitPrice: 31.9 }], submit: true };
    const card = (totalAmount: number, ...codes: Array<[number, string]>) => ({
      supplier: '博世',
      lines: codes.map(([partId, code]) => ({ partId, code, name: code, unit: '只', listPrice: 30 })),
      preview: { totalAmount, approval: { rule: 'auto-approved' as const, reason: 'under the limit' } },
    });
    const scope = standingScope('order_create', approved, card(2552, [10, 'F7TC']));
    expect(scope).toEqual({ tool: 'order_create', target: 'supplierId=3', parts: [10], maxAmount: 2552 });
    expect(describeScope(scope, card(2552, [10, 'F7TC']))).toBe(
      'order_create · 供应商 / supplier: 博世 · 零件 / parts: F7TC · 不超过 / up to ¥2,552.00',
    );
    const later = (partId: number, quantity: number, unitPrice: number) => ({
      supplierId: 3,
      lines: [{ partId, quantity, unitPrice }],
    });
    // The same part for no more than approved is covered; another part, or more money, shows a card again.
    expect(coversCall(scope, 'order_create', later(10, 50, 31.9), card(1595, [10, 'F7TC']))).toBe(true);
    expect(coversCall(scope, 'order_create', later(11, 200, 32.53), card(6506, [11, 'D8TC']))).toBe(false);
    expect(coversCall(scope, 'order_create', later(10, 100, 31.9), card(3190, [10, 'F7TC']))).toBe(false);
    expect(coversCall(scope, 'order_create', { ...later(10, 50, 31.9), supplierId: 4 }, card(1595, [10, 'F7TC']))).toBe(
      false,
    );
    // Without a preview the amount is the lines' own (list prices where a line names none); unknown is not covered.
    expect(
      coversCall(scope, 'order_create', { supplierId: 3, lines: [{ partId: 10, quantity: 80 }] }, { supplier: '博世' }),
    ).toBe(false);
    const listed = { supplier: '博世', lines: [{ partId: 10, code: 'F7TC', name: 'F7TC', unit: '只', listPrice: 30 }] };
    expect(coversCall(scope, 'order_create', { supplierId: 3, lines: [{ partId: 10, quantity: 80 }] }, listed)).toBe(
      true,
    );
    expect(coversCall(scope, 'order_create', { supplierId: 3, lines: [{ partId: 10, quantity: 80 }] })).toBe(false);
  });

  it('covers a generated order write only within the approved parts and amount', () => {
    const line = fc.record({ partId: fc.integer({ min: 1, max: 6 }), quantity: fc.integer({ min: 1, max: 500 }) });
    const order = fc.array(line, { minLength: 1, maxLength: 3 });
    const price = (partId: number) => 10 + partId;
    const detailsOf = (lines: Array<{ partId: number }>) => ({
      lines: lines.map(({ partId }) => ({
        partId,
        code: `P${partId}`,
        name: '',
        unit: '只',
        listPrice: price(partId),
      })),
    });
    const total = (lines: Array<{ partId: number; quantity: number }>) =>
      lines.reduce((sum, l) => sum + l.quantity * price(l.partId), 0);
    fc.assert(
      fc.property(order, order, fc.boolean(), (first, second, sameSupplier) => {
        const scope = standingScope('order_create', { supplierId: 1, lines: first }, detailsOf(first));
        const args = { supplierId: sameSupplier ? 1 : 2, lines: second };
        const inside =
          sameSupplier &&
          second.every((l) => first.some((f) => f.partId === l.partId)) &&
          total(second) <= total(first);
        expect(coversCall(scope, 'order_create', args, detailsOf(second))).toBe(inside);
      }),
      { numRuns: 500 },
    );
  });
});
