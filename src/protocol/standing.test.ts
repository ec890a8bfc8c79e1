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
});
