import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, type ErpHarness, startHarness } from './harness.ts';

interface PartRow {
  id: number;
  moq: number;
  unitPrice: number;
  supplier: { id: number };
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.enabled)(`four eyes on ${backend.name}`, () => {
    let h: ErpHarness;
    let part: PartRow;
    /** A second buyer and a second admin in P001, besides laoxiao and admin. */
    let buyer2: string;
    let admin2: string;

    /** An order over the buyer's limit, so it waits for an admin. */
    const pendingOrder = async (token: string) => {
      const quantity = Math.ceil(6_000 / part.unitPrice / part.moq) * part.moq;
      const res = await h.call('POST', '/api/orders/create', {
        token,
        body: { supplierId: part.supplier.id, lines: [{ partId: part.id, quantity }], status: 'pending_approval' },
      });
      expect(res.status).toBe(201);
      expect(res.body.status).toBe('pending_approval');
      return res.body as { id: number; version: number; orderNo: string };
    };
    const auditActions = async (orderId: number) =>
      (await h.call('GET', `/api/audit?entity=order&entityId=${orderId}`, { token: h.tokens.admin })).body
        .items as Array<{
        action: string;
        userId: number;
        after: { reason?: string } | null;
      }>;

    beforeAll(async () => {
      h = await startHarness(backend);
      const users = h.erp.services.users;
      await users.create({ username: 'buyer2', role: 'buyer', projectIds: ['P001'] });
      await users.create({ username: 'admin2', role: 'admin', projectIds: ['P001'] });
      buyer2 = await users.issueToken('buyer2');
      admin2 = await users.issueToken('admin2');
      const parts = (await h.call('GET', '/api/parts?page=1&size=50')).body.items as PartRow[];
      part = parts.find((p) => p.unitPrice > 5) ?? parts[0];
    });
    afterAll(() => h?.close());

    it('is a project policy, on by default, that one admin cannot lift alone: a second admin confirms', async () => {
      expect((await h.call('GET', '/api/approval-policy')).body).toMatchObject({ fourEyes: true, version: 0 });
      const proposed = await h.call('PUT', '/api/approval-policy', {
        token: h.tokens.admin,
        body: { version: 0, fourEyes: false },
      });
      // Proposed, not applied: four eyes stays on until another admin confirms.
      expect(proposed.status).toBe(202);
      expect(proposed.body).toMatchObject({ fourEyes: true, version: 0 });
      expect(proposed.body.pendingChange).toMatchObject({ changes: { fourEyes: false }, proposedBy: 'admin' });
      const mine = await pendingOrder(h.tokens.admin);
      const refused = await h.call('POST', `/api/orders/${mine.id}/approve`, {
        token: h.tokens.admin,
        body: { version: mine.version },
      });
      expect(refused.status).toBe(403);
      const self = await h.call('POST', '/api/approval-policy/confirm', {
        token: h.tokens.admin,
        body: { proposalId: proposed.body.pendingChange.id },
      });
      expect(self.status).toBe(403);
      expect(self.body).toMatchObject({ code: 'four_eyes' });
      expect((await h.call('GET', '/api/approval-policy')).body).toMatchObject({ fourEyes: true, version: 0 });

      const off = await h.call('POST', '/api/approval-policy/confirm', {
        token: admin2,
        body: { proposalId: proposed.body.pendingChange.id },
      });
      expect(off.body).toMatchObject({ fourEyes: false, version: 1, pendingChange: null });
      // With the policy off by two admins, an admin may approve his own order.
      const approved = await h.call('POST', `/api/orders/${mine.id}/approve`, {
        token: h.tokens.admin,
        body: { version: mine.version },
      });
      expect(approved.status).toBe(200);
      // Tightening applies at once, by one admin.
      const on = await h.call('PUT', '/api/approval-policy', {
        token: h.tokens.admin,
        body: { version: 1, fourEyes: true },
      });
      expect(on.status).toBe(200);
      expect(on.body).toMatchObject({ fourEyes: true, version: 2 });
      const audit = await h.call('GET', '/api/audit?entity=approval_policy&entityId=P001', { token: h.tokens.admin });
      expect(audit.body.items.map((e: { action: string }) => e.action)).toEqual(['propose', 'confirm', 'update']);
    });

    it('holds any loosening for a second admin: a raised limit waits, and a proposal on a changed policy is void', async () => {
      const now = (await h.call('GET', '/api/approval-policy')).body;
      const raise = await h.call('PUT', '/api/approval-policy', {
        token: admin2,
        body: { version: now.version, buyerLimit: 1_000_000 },
      });
      expect(raise.status).toBe(202);
      expect(raise.body.buyerLimit).toBe(now.buyerLimit);
      // A tightening change meanwhile moves the policy on: the proposal no longer applies.
      const tighter = await h.call('PUT', '/api/approval-policy', {
        token: h.tokens.admin,
        body: { version: now.version, buyerLimit: now.buyerLimit - 1 },
      });
      expect(tighter.status).toBe(200);
      expect(tighter.body.pendingChange).toBeNull();
      const stale = await h.call('POST', '/api/approval-policy/confirm', {
        token: h.tokens.admin,
        body: { proposalId: raise.body.pendingChange.id },
      });
      expect(stale.status).toBe(409);
      expect((await h.call('GET', '/api/approval-policy')).body.buyerLimit).toBe(now.buyerLimit - 1);
      const restore = await h.call('PUT', '/api/approval-policy', {
        token: h.tokens.admin,
        body: { version: tighter.body.version, buyerLimit: now.buyerLimit },
      });
      const restored = await h.call('POST', '/api/approval-policy/confirm', {
        token: admin2,
        body: { proposalId: restore.body.pendingChange.id },
      });
      expect(restored.body.buyerLimit).toBe(now.buyerLimit);
    });

    it('lets only the creator or an admin change or cancel an order; a refusal is 403 four_eyes and audited', async () => {
      const order = await pendingOrder(h.tokens.laoxiao);
      const quantity = part.moq * 2;
      const change = await h.call('PUT', `/api/orders/update/${order.id}`, {
        token: buyer2,
        body: { version: order.version, lines: [{ partId: part.id, quantity }] },
      });
      expect(change.status).toBe(403);
      expect(change.body).toMatchObject({ code: 'four_eyes' });
      expect(change.body.detail).toMatch(/only the order's creator \(laoxiao\) or an admin/);
      const cancel = await h.call('POST', `/api/orders/${order.id}/cancel`, {
        token: buyer2,
        body: { version: order.version },
      });
      expect(cancel.status).toBe(403);
      // Nothing changed; both attempts are in the audit log under the other buyer's id.
      const now = await h.call('GET', `/api/orders/${order.id}`);
      expect(now.body).toMatchObject({ version: order.version, status: 'pending_approval' });
      const refused = (await auditActions(order.id)).filter((e) => e.action === 'four_eyes_refused');
      expect(refused).toHaveLength(2);
      expect(new Set(refused.map((e) => e.userId)).size).toBe(1);
      // The other buyer reads the order and is told what he may not do, and why.
      const seen = await h.call('GET', `/api/orders/${order.id}`, { token: buyer2 });
      expect(seen.body.permissions).toMatchObject({ change: false, approve: false });
      expect(seen.body.permissions.reason).toMatch(/four eyes/);
      // The creator and an admin may.
      const own = await h.call('PUT', `/api/orders/update/${order.id}`, {
        body: { version: order.version, note: '改交期' },
      });
      expect(own.status).toBe(200);
      const byAdmin = await h.call('POST', `/api/orders/${order.id}/cancel`, {
        token: h.tokens.admin,
        body: { version: own.body.version, reason: '重复' },
      });
      expect(byAdmin.body.status).toBe('cancelled');
    });

    it('never lets an order’s creator or last editor approve it, admins included', async () => {
      // The admin's own order: another admin must approve it.
      const own = await pendingOrder(h.tokens.admin);
      expect(own).toBeDefined();
      const fetched = await h.call('GET', `/api/orders/${own.id}`, { token: h.tokens.admin });
      expect(fetched.body.permissions).toMatchObject({ approve: false });
      expect(fetched.body.permissions.reason).toMatch(/you created/);
      const self = await h.call('POST', `/api/orders/${own.id}/approve`, {
        token: h.tokens.admin,
        body: { version: own.version },
      });
      expect(self.status).toBe(403);
      expect(self.body.code).toBe('four_eyes');
      // The same through a plain status change.
      const viaUpdate = await h.call('PUT', `/api/orders/update/${own.id}`, {
        token: h.tokens.admin,
        body: { version: own.version, status: 'approved' },
      });
      expect(viaUpdate.status).toBe(403);
      const other = await h.call('POST', `/api/orders/${own.id}/approve`, {
        token: admin2,
        body: { version: own.version },
      });
      expect(other.body).toMatchObject({ status: 'approved', approval: { decidedBy: 'admin2' } });

      // A buyer's order that an admin edited: that admin is now its last editor and may not approve it.
      const buyers = await pendingOrder(h.tokens.laoxiao);
      const edited = await h.call('PUT', `/api/orders/update/${buyers.id}`, {
        token: h.tokens.admin,
        body: { version: buyers.version, lines: [{ partId: part.id, quantity: part.moq * 9_000 }] },
      });
      expect(edited.body.lastEditedBy.username).toBe('admin');
      const byEditor = await h.call('POST', `/api/orders/${buyers.id}/approve`, {
        token: h.tokens.admin,
        body: { version: edited.body.version },
      });
      expect(byEditor.status).toBe(403);
      expect(byEditor.body.detail).toMatch(/you last changed/);
      // Editing and approving in one request is refused too.
      const both = await h.call('PUT', `/api/orders/update/${buyers.id}`, {
        token: admin2,
        body: { version: edited.body.version, status: 'approved', note: '顺手改一下' },
      });
      expect(both.status).toBe(403);
      // A review comment does not make the reviewer an editor: admin2 returns it, laoxiao resubmits, admin2 approves.
      const returned = await h.call('POST', `/api/orders/${buyers.id}/reject`, {
        token: admin2,
        body: { version: edited.body.version, comment: '数量不对' },
      });
      expect(returned.body.lastEditedBy.username).toBe('admin');
      const resubmitted = await h.call('PUT', `/api/orders/update/${buyers.id}`, {
        body: {
          version: returned.body.version,
          status: 'pending_approval',
          lines: [{ partId: part.id, quantity: part.moq * 600 }],
        },
      });
      expect(resubmitted.body.lastEditedBy.username).toBe('laoxiao');
      const decided = await h.call('POST', `/api/orders/${buyers.id}/approve`, {
        token: admin2,
        body: { version: resubmitted.body.version },
      });
      expect(decided.status).toBe(200);
      const actions = (await auditActions(buyers.id)).map((e) => e.action);
      expect(actions).toContain('four_eyes_refused');
    });

    it('reads back creator, editor and permissions on every order of a search', async () => {
      const page = await h.call('GET', '/api/orders/search?status=pending_approval&size=100', { token: admin2 });
      expect(page.status).toBe(200);
      for (const order of page.body.items) {
        expect(order.lastEditedBy.username).not.toBe('');
        const mineToApprove = order.createdBy.username !== 'admin2' && order.lastEditedBy.username !== 'admin2';
        expect(order.permissions.approve).toBe(mineToApprove);
      }
    });
  });
}
