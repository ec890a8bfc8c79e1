import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, type ErpHarness, startHarness } from './harness.ts';

interface PartRow {
  id: number;
  model: string;
  category: string;
  moq: number;
  unitPrice: number;
  supplier: { id: number };
}

const median = (values: number[]) => {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};

for (const backend of BACKENDS) {
  describe.skipIf(!backend.enabled)(`price checks, approval policy and scorecards on ${backend.name}`, () => {
    let h: ErpHarness;
    let part: PartRow;
    /** What the project paid for the part's product over the last 12 months, read straight from the tables. */
    let paid: number[];

    const paidPrices = async (model: string, category: string) => {
      const from = new Date(Date.now() - 365 * 86_400_000).toISOString();
      const rows = await h.erp.database.db
        .selectFrom('order_lines')
        .innerJoin('orders', 'orders.id', 'order_lines.order_id')
        .innerJoin('parts', 'parts.id', 'order_lines.part_id')
        .select('order_lines.unit_price_e4')
        .where('orders.project_id', '=', 'P001')
        .where('orders.status', 'in', ['ordered', 'received'])
        .where('orders.created_at', '>=', from)
        .where('parts.model', '=', model)
        .where('parts.category', '=', category)
        .execute();
      return rows.map((r) => Number(r.unit_price_e4) / 10_000);
    };
    const order = (p: PartRow, quantity: number, unitPrice?: number, status = 'pending_approval') =>
      h.call('POST', '/api/orders/create', {
        body: { supplierId: p.supplier.id, lines: [{ partId: p.id, quantity, unitPrice }], status },
      });

    beforeAll(async () => {
      h = await startHarness(backend);
      const parts = (await h.call('GET', '/api/parts?page=1&size=100')).body.items as PartRow[];
      // The part whose product has the most paid history: its median means something.
      let best = { part: parts[0], prices: [] as number[] };
      for (const p of parts) {
        const prices = await paidPrices(p.model, p.category);
        if (prices.length > best.prices.length) best = { part: p, prices };
      }
      part = best.part;
      paid = best.prices;
      expect(paid.length).toBeGreaterThanOrEqual(3);
    });
    afterAll(() => h?.close());

    describe('price check', () => {
      it('compares a price with the 12-month median and minimum of what the project paid, by severity', async () => {
        const med = median(paid);
        for (const [factor, severity] of [
          [1, 'ok'],
          [1.06, 'info'],
          [1.12, 'warn'],
          [1.3, 'critical'],
          [0.8, 'ok'],
        ] as const) {
          const unitPrice = Math.round(med * factor * 100) / 100;
          const res = await h.call('GET', `/api/parts/${part.id}/price-check?unitPrice=${unitPrice}`);
          expect(res.status).toBe(200);
          expect(res.body).toMatchObject({ partId: part.id, unitPrice, severity });
          expect(res.body.median12m).toBeCloseTo(med, 3);
          expect(res.body.minPrice12m).toBeCloseTo(Math.min(...paid), 3);
          expect(res.body.deviationPct).toBeCloseTo(((unitPrice - med) / med) * 100, 0);
          expect(res.body.basis.lines).toBe(paid.length);
          expect(res.body.reason).toMatch(/中位价.*median/);
        }
      });

      it('says unknown, and why, when the product has too little history', async () => {
        // Leave the product only two paid lines.
        const other = (await h.call('GET', '/api/parts?page=1&size=100')).body.items.find(
          (p: PartRow) => p.model !== part.model,
        ) as PartRow;
        const lines = await h.erp.database.db
          .selectFrom('order_lines')
          .innerJoin('parts', 'parts.id', 'order_lines.part_id')
          .select('order_lines.order_id')
          .where('parts.model', '=', other.model)
          .execute();
        const keep = lines.slice(0, 2).map((l) => Number(l.order_id));
        const drop = lines.map((l) => Number(l.order_id)).filter((id) => !keep.includes(id));
        if (drop.length)
          await h.erp.database.db.updateTable('orders').set({ status: 'cancelled' }).where('id', 'in', drop).execute();
        const paidNow = await paidPrices(other.model, other.category);
        expect(paidNow.length).toBeLessThan(3);
        const res = await h.call('GET', `/api/parts/${other.id}/price-check?unitPrice=${other.unitPrice}`);
        expect(res.body).toMatchObject({ severity: 'unknown', median12m: null, deviationPct: null });
        expect(res.body.reason).toMatch(/too little history/);
      });

      it('refuses bad input with 4xx', async () => {
        expect((await h.call('GET', `/api/parts/${part.id}/price-check`)).status).toBe(422);
        expect((await h.call('GET', `/api/parts/${part.id}/price-check?unitPrice=-1`)).status).toBe(422);
        expect((await h.call('GET', '/api/parts/99999999/price-check?unitPrice=1')).status).toBe(404);
        expect((await h.call('GET', `/api/parts/${part.id}/price-check?unitPrice=1&supplierId=99999`)).status).toBe(
          404,
        );
        expect((await h.call('GET', `/api/parts/${part.id}/price-check?unitPrice=1`, { token: null })).status).toBe(
          401,
        );
      });

      it('every order line carries its check, computed at create and again when the line changes', async () => {
        const med = median(paid);
        const created = await order(part, part.moq, Math.round(med * 1.3 * 100) / 100, 'draft');
        expect(created.status).toBe(201);
        expect(created.body.lines[0].priceCheck).toMatchObject({ severity: 'critical', partId: part.id });
        const updated = await h.call('PUT', `/api/orders/update/${created.body.id}`, {
          body: { version: 1, lines: [{ partId: part.id, quantity: part.moq, unitPrice: med }] },
        });
        expect(updated.body.lines[0].priceCheck).toMatchObject({ severity: 'ok' });
        expect((await h.call('GET', `/api/orders/${created.body.id}`)).body.lines[0].priceCheck.severity).toBe('ok');
      });
    });

    describe('approval policy', () => {
      it('approves a buyer’s order within the limit at once, saying by which rule; the audit log records it', async () => {
        const quantity = part.moq;
        const res = await order(part, quantity, median(paid));
        expect(res.status).toBe(201);
        expect(res.body.status).toBe('approved');
        expect(res.body.approval.rule).toBe('auto-approved');
        expect(res.body.approval.reason).toMatch(/auto-approved: ¥[\d,.]+ ≤ buyer limit ¥5,000/);
        const audit = await h.call('GET', `/api/audit?entity=order&entityId=${res.body.id}`, { token: h.tokens.admin });
        expect(audit.body.items.map((e: { action: string }) => e.action)).toEqual(['create', 'auto_approve']);
      });

      it('keeps an order over the limit, or with a warn/critical price, for an admin, with every reason', async () => {
        const big = await order(part, Math.ceil(6000 / median(paid) / part.moq) * part.moq, median(paid));
        expect(big.body.status).toBe('pending_approval');
        expect(big.body.approval).toMatchObject({ rule: 'needs-admin' });
        expect(big.body.approval.reason).toMatch(/> buyer limit ¥5,000/);
        const pricey = await order(part, part.moq, Math.round(median(paid) * 1.32 * 100) / 100);
        expect(pricey.body.status).toBe('pending_approval');
        expect(pricey.body.approval.reason).toMatch(/3[12](\.\d)?% above 12-month median .*critical/);
        // The buyer cannot approve; the admin approves with a comment, which lands on the order.
        const buyer = await h.call('POST', `/api/orders/${pricey.body.id}/approve`, { body: { version: 1 } });
        expect(buyer.status).toBe(403);
        const approved = await h.call('POST', `/api/orders/${pricey.body.id}/approve`, {
          body: { version: 1, comment: '独家供货，同意' },
          token: h.tokens.admin,
        });
        expect(approved.status).toBe(200);
        expect(approved.body).toMatchObject({ status: 'approved', approval: { rule: 'admin-approved' } });
        expect(approved.body.approval.reason).toContain('独家供货，同意');
        expect(approved.body.note).toContain('独家供货，同意');
        // Rejecting returns the order to the buyer as a draft; a decided order cannot be decided again.
        const rejected = await h.call('POST', `/api/orders/${big.body.id}/reject`, {
          body: { version: 1, comment: '数量太大' },
          token: h.tokens.admin,
        });
        expect(rejected.body).toMatchObject({ status: 'draft', approval: { rule: 'admin-rejected' } });
        const again = await h.call('POST', `/api/orders/${big.body.id}/approve`, {
          body: { version: 2 },
          token: h.tokens.admin,
        });
        expect(again.status).toBe(409);
      });

      it('previews an order as create would write it — lines, checks, total, the policy’s decision — writing nothing', async () => {
        const count = async () =>
          Number(
            (
              await h.erp.database.db
                .selectFrom('orders')
                .select(sql<number>`count(*)`.as('n'))
                .executeTakeFirstOrThrow()
            ).n,
          );
        const before = await count();
        const cases = [
          [part.moq, median(paid)],
          [Math.ceil(6000 / median(paid) / part.moq) * part.moq, median(paid)],
          [part.moq, Math.round(median(paid) * 1.3 * 100) / 100],
          [part.moq, undefined],
        ] as const;
        for (const [i, [quantity, unitPrice]] of cases.entries()) {
          const body = { supplierId: part.supplier.id, lines: [{ partId: part.id, quantity, unitPrice }] };
          const preview = await h.call('POST', '/api/orders/preview', { body });
          expect(preview.status).toBe(200);
          expect(await count()).toBe(before + i);
          // The same order, really submitted: the preview said what it got.
          const created = await order(part, quantity, unitPrice);
          expect(preview.body).toEqual({
            supplier: created.body.supplier,
            lines: created.body.lines,
            totalAmount: created.body.totalAmount,
            approval: { rule: created.body.approval.rule, reason: created.body.approval.reason },
          });
          await h.call('POST', `/api/orders/${created.body.id}/cancel`, { body: { version: created.body.version } });
        }
        // What create refuses, preview refuses the same way; a viewer may not preview an order either.
        const below = { supplierId: part.supplier.id, lines: [{ partId: part.id, quantity: part.moq - 1 || 0 }] };
        expect((await h.call('POST', '/api/orders/preview', { body: below })).status).toBe(422);
        const viewer = { supplierId: part.supplier.id, lines: [{ partId: part.id, quantity: part.moq }] };
        expect((await h.call('POST', '/api/orders/preview', { body: viewer, token: h.tokens.viewer })).status).toBe(
          403,
        );
        expect(await count()).toBe(before + cases.length);
      });

      it('is the admin’s to edit, versioned and audited; the new limit and lists apply to the next submission', async () => {
        const policy = await h.call('GET', '/api/approval-policy');
        expect(policy.body).toMatchObject({ buyerLimit: 5000, version: 0 });
        const update = { version: 0, buyerLimit: 1, adminCategories: [part.category] };
        expect((await h.call('PUT', '/api/approval-policy', { body: update })).status).toBe(403);
        const bad = await h.call('PUT', '/api/approval-policy', {
          body: { version: 0, priceThresholds: { infoPct: 20, warnPct: 10, criticalPct: 30 } },
          token: h.tokens.admin,
        });
        expect(bad.status).toBe(422);
        const saved = await h.call('PUT', '/api/approval-policy', { body: update, token: h.tokens.admin });
        expect(saved.body).toMatchObject({ buyerLimit: 1, adminCategories: [part.category], version: 1 });
        const stale = await h.call('PUT', '/api/approval-policy', { body: update, token: h.tokens.admin });
        expect(stale.status).toBe(409);
        const res = await order(part, part.moq, median(paid));
        expect(res.body.status).toBe('pending_approval');
        expect(res.body.approval.reason).toMatch(/> buyer limit ¥1/);
        expect(res.body.approval.reason).toContain(`category ${part.category} always needs an admin`);
        const audit = await h.call('GET', '/api/audit?entity=approval_policy&entityId=P001', { token: h.tokens.admin });
        expect(audit.body.items).toHaveLength(1);
        // Another project keeps its own policy.
        const p2 = await h.call('GET', '/api/approval-policy', {
          token: h.tokens.admin,
          headers: { 'x-project-id': 'P002' },
        });
        expect(p2.body).toMatchObject({ projectId: 'P002', buyerLimit: 5000 });
        // Loosening it again takes a second admin.
        const restore = await h.call('PUT', '/api/approval-policy', {
          body: { version: 1, buyerLimit: 5000, adminCategories: [] },
          token: h.tokens.admin,
        });
        expect(restore.status).toBe(202);
        await h.erp.services.users.create({ username: 'admin-controls', role: 'admin', projectIds: ['P001'] });
        const confirmed = await h.call('POST', '/api/approval-policy/confirm', {
          body: { proposalId: restore.body.pendingChange.id },
          token: await h.erp.services.users.issueToken('admin-controls'),
        });
        expect(confirmed.body).toMatchObject({ buyerLimit: 5000, adminCategories: [], version: 2 });
      });
    });

    describe('supplier scorecard', () => {
      it('measures on-time delivery, price against the market, volume and cancellations from the ERP history', async () => {
        const supplierId = part.supplier.id;
        const res = await h.call('GET', `/api/suppliers/${supplierId}/scorecard`);
        expect(res.status).toBe(200);
        const from = res.body.period.from as string;
        const orders = await h.erp.database.db
          .selectFrom('orders')
          .select(['status', 'expected_date', 'received_at'])
          .where('project_id', '=', 'P001')
          .where('supplier_id', '=', supplierId)
          .where('created_at', '>=', from)
          .execute();
        const delivered = orders.filter((o) => o.status === 'received' && o.expected_date && o.received_at);
        const onTime = delivered.filter((o) => o.received_at!.slice(0, 10) <= o.expected_date!).length;
        const cancelled = orders.filter((o) => o.status === 'cancelled').length;
        expect(delivered.length).toBeGreaterThan(0);
        expect(res.body.delivery).toMatchObject({ received: delivered.length, onTime });
        expect(res.body.delivery.onTimePct).toBeCloseTo((onTime / delivered.length) * 100, 0);
        expect(res.body.volume.orders).toBe(orders.length - cancelled);
        expect(res.body.cancellations.count).toBe(cancelled);
        // Price: its list prices against the median list price of the same product across suppliers.
        const market = await h.erp.database.db
          .selectFrom('parts')
          .select(['model', 'category', 'supplier_id', sql<number>`unit_price_e4`.as('price')])
          .where('project_id', '=', 'P001')
          .execute();
        const deviations = market
          .filter((p) => Number(p.supplier_id) === supplierId)
          .flatMap((p) => {
            const peers = market.filter((m) => m.model === p.model && m.category === p.category);
            if (!peers.some((m) => Number(m.supplier_id) !== supplierId)) return [];
            const med = median(peers.map((m) => Number(m.price)));
            return [((Number(p.price) - med) / med) * 100];
          });
        expect(res.body.price.partsCompared).toBe(deviations.length);
        expect(res.body.price.vsMarketMedianPct).toBeCloseTo(
          deviations.reduce((a, b) => a + b, 0) / deviations.length,
          0,
        );
      });

      it('404s another project’s or an unknown supplier, 422s a bad period', async () => {
        expect((await h.call('GET', '/api/suppliers/99999/scorecard')).status).toBe(404);
        expect((await h.call('GET', `/api/suppliers/${part.supplier.id}/scorecard?months=0`)).status).toBe(422);
      });
    });
  });
}
