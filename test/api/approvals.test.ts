import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHarness, startApiHarness } from './harness.ts';

describe('chat API: the admin approval queue carries decisions to the ERP as the signed-in admin', () => {
  let h: ApiHarness;
  let orderId: number;
  beforeAll(async () => {
    h = await startApiHarness();
    // A buyer submits an order over the ERP's default limit: the policy keeps it for an admin.
    const part = (
      (await (
        await fetch(`${h.erpUrl}/parts?size=1`, { headers: { authorization: `Bearer ${h.tokens.laoxiao}` } })
      ).json()) as { items: Array<{ id: number; moq: number; unitPrice: number; supplier: { id: number } }> }
    ).items[0];
    const quantity = Math.ceil(6000 / part.unitPrice / part.moq) * part.moq;
    const created = await fetch(`${h.erpUrl}/orders/create`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.tokens.laoxiao}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        supplierId: part.supplier.id,
        lines: [{ partId: part.id, quantity }],
        status: 'pending_approval',
      }),
    });
    orderId = ((await created.json()) as { id: number }).id;
  }, 90_000);
  afterAll(() => h?.close());

  it('lists pending orders with the policy’s reason for admins only', async () => {
    expect((await h.call('GET', '/api/v1/approvals')).status).toBe(403);
    const queue = await h.call('GET', '/api/v1/approvals', { token: h.tokens.admin });
    expect(queue.status).toBe(200);
    const mine = queue.body.items.find((o: { id: number }) => o.id === orderId);
    expect(mine).toMatchObject({ status: 'pending_approval', approval: { rule: 'needs-admin' } });
    expect(mine.approval.reason).toMatch(/buyer limit/);
  });

  it('decides with a comment; the ERP’s own refusals come back with their status', async () => {
    const bad = await h.call('POST', `/api/v1/approvals/${orderId}`, {
      token: h.tokens.admin,
      body: { decision: 'maybe', version: 1 },
    });
    expect(bad.status).toBe(422);
    const buyer = await h.call('POST', `/api/v1/approvals/${orderId}`, { body: { decision: 'approve', version: 1 } });
    expect(buyer.status).toBe(403);
    const stale = await h.call('POST', `/api/v1/approvals/${orderId}`, {
      token: h.tokens.admin,
      body: { decision: 'approve', version: 9 },
    });
    expect(stale.status).toBe(409);
    const approved = await h.call('POST', `/api/v1/approvals/${orderId}`, {
      token: h.tokens.admin,
      body: { decision: 'approve', version: 1, comment: '同意' },
    });
    expect(approved.body).toMatchObject({ status: 'approved', approval: { rule: 'admin-approved' } });
    expect(
      (
        await h.call('POST', '/api/v1/approvals/999999', {
          token: h.tokens.admin,
          body: { decision: 'reject', version: 1 },
        })
      ).status,
    ).toBe(404);
  });

  it('shows under four eyes which orders the admin may not approve, and why; the ERP refuses them', async () => {
    const part = (
      (await (
        await fetch(`${h.erpUrl}/parts?size=1`, { headers: { authorization: `Bearer ${h.tokens.admin}` } })
      ).json()) as { items: Array<{ id: number; moq: number; unitPrice: number; supplier: { id: number } }> }
    ).items[0];
    const created = await fetch(`${h.erpUrl}/orders/create`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.tokens.admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        supplierId: part.supplier.id,
        lines: [{ partId: part.id, quantity: Math.ceil(6000 / part.unitPrice / part.moq) * part.moq }],
        status: 'pending_approval',
      }),
    });
    const own = (await created.json()) as { id: number; version: number };
    const queue = await h.call('GET', '/api/v1/approvals', { token: h.tokens.admin });
    const listed = queue.body.items.find((o: { id: number }) => o.id === own.id);
    expect(listed.permissions).toMatchObject({ approve: false });
    expect(listed.permissions.reason).toMatch(/四眼原则.*you created/);
    const refused = await h.call('POST', `/api/v1/approvals/${own.id}`, {
      token: h.tokens.admin,
      body: { decision: 'approve', version: own.version },
    });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'four_eyes' });
  });

  it('tells the browser who is signed in', async () => {
    expect((await h.call('GET', '/api/v1/me', { token: h.tokens.admin })).body).toMatchObject({
      username: 'admin',
      role: 'admin',
    });
  });
});
