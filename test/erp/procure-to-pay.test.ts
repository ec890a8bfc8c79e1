import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/shared/index.ts';
import { BACKENDS, type ErpHarness, startHarness } from './harness.ts';

interface PartRow {
  id: number;
  code: string;
  moq: number;
  unitPrice: number;
  supplier: { id: number };
}
interface OrderBody {
  id: number;
  orderNo: string;
  status: string;
  version: number;
  lines: Array<{ lineNo: number; partId: number; quantity: number; unitPrice: number }>;
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.enabled)(
    `goods receipts, supplier invoices and the three-way match on ${backend.name}`,
    () => {
      let h: ErpHarness;
      /** Two parts of one supplier. */
      let parts: [PartRow, PartRow];
      let admin2: string;
      let invoiceSeq = 0;

      /** An order of the two parts placed with the supplier (created by laoxiao, approved if the policy asks, ordered). */
      const placedOrder = async (quantities: [number, number] = [parts[0].moq * 4, parts[1].moq * 2]) => {
        const created = await h.call('POST', '/api/orders/create', {
          body: {
            supplierId: parts[0].supplier.id,
            lines: parts.map((p, i) => ({ partId: p.id, quantity: quantities[i] })),
            status: 'pending_approval',
          },
        });
        expect(created.status).toBe(201);
        let order = created.body as OrderBody;
        if (order.status === 'pending_approval') {
          const approved = await h.call('POST', `/api/orders/${order.id}/approve`, {
            token: h.tokens.admin,
            body: { version: order.version },
          });
          expect(approved.status).toBe(200);
          order = approved.body;
        }
        expect(order.status).toBe('approved');
        return order;
      };
      const place = async (order: OrderBody) => {
        const res = await h.call('PUT', `/api/orders/update/${order.id}`, {
          body: { version: order.version, status: 'ordered' },
        });
        expect(res.status).toBe(200);
        return res.body as OrderBody;
      };
      const receive = (
        orderId: number,
        lines: Array<{ lineNo: number; quantity: number }>,
        options: { token?: string; key?: string; receiptNo?: string } = {},
      ) =>
        h.call('POST', `/api/orders/${orderId}/receipts`, {
          token: options.token,
          headers: options.key ? { 'idempotency-key': options.key } : undefined,
          body: { lines, ...(options.receiptNo ? { receiptNo: options.receiptNo } : {}) },
        });
      const onHand = async (partId: number) =>
        (await h.call('GET', `/api/inventory?partId=${partId}`)).body.items[0].onHand as number;
      /** An invoice of the order's lines at the given quantities and unit prices (fen), in CNY unless said. */
      const invoice = (
        order: OrderBody,
        lines: Array<{ lineNo: number; quantity: number; unitPriceMinor: number }>,
        extra: Record<string, unknown> = {},
      ) =>
        h.call('POST', '/api/invoices', {
          token: h.tokens.admin,
          body: {
            supplierId: parts[0].supplier.id,
            invoiceNo: `INV-${++invoiceSeq}`,
            orderNo: order.orderNo,
            currency: 'CNY',
            invoiceDate: new Date().toISOString().slice(0, 10),
            lines: lines.map((l) => ({ partId: order.lines[l.lineNo - 1].partId, ...l })),
            ...extra,
          },
        });
      /** The order line's unit price in fen (the demo's prices have at most 2 decimals). */
      const fenOf = (order: OrderBody, lineNo: number) => Math.round(order.lines[lineNo - 1].unitPrice * 100);
      const auditActions = async (entity: string, id: number) =>
        (
          (await h.call('GET', `/api/audit?entity=${entity}&entityId=${id}`, { token: h.tokens.admin })).body
            .items as Array<{ action: string }>
        ).map((e) => e.action);

      beforeAll(async () => {
        h = await startHarness(backend);
        await h.erp.services.users.create({ username: 'admin2', role: 'admin', projectIds: ['P001'] });
        admin2 = await h.erp.services.users.issueToken('admin2');
        const all = (await h.call('GET', '/api/parts?page=1&size=100')).body.items as PartRow[];
        const pair = all
          .filter((p) => p.unitPrice >= 1 && Math.round(p.unitPrice * 100) === p.unitPrice * 100)
          .map((p, _i, list) => [p, list.find((q) => q !== p && q.supplier.id === p.supplier.id)] as const)
          .find(([, q]) => q !== undefined);
        expect(pair).toBeDefined();
        parts = [pair![0], pair![1]!];
      });
      afterAll(() => h?.close());

      it('receives in part and in full, refuses more than ordered and goods against an order not placed', async () => {
        const approved = await placedOrder();
        const early = await receive(approved.id, [{ lineNo: 1, quantity: 1 }]);
        expect(early.status).toBe(409);
        expect(early.body.detail).toMatch(/approved/);
        const order = await place(approved);
        const [ordered1, ordered2] = order.lines.map((l) => l.quantity);
        const stock = await onHand(parts[0].id);

        const first = await receive(order.id, [{ lineNo: 1, quantity: ordered1 - 3 }], { token: h.tokens.admin });
        expect(first.status).toBe(201);
        expect(first.body.order).toMatchObject({ status: 'partly_received', version: order.version + 1 });
        expect(first.body.receipt).toMatchObject({
          receiptNo: expect.stringMatching(/^GR-\d{6}-\d{6}$/),
          receivedBy: { username: 'admin' },
          lines: [{ lineNo: 1, partId: parts[0].id, quantity: ordered1 - 3 }],
        });
        expect(first.body.lines).toEqual([
          expect.objectContaining({ lineNo: 1, ordered: ordered1, received: ordered1 - 3, invoiced: 0 }),
          expect.objectContaining({ lineNo: 2, ordered: ordered2, received: 0 }),
        ]);
        expect(await onHand(parts[0].id)).toBe(stock + ordered1 - 3);

        // Four more than are still open on line 1: refused, naming the line, and nothing is written.
        const over = await receive(order.id, [
          { lineNo: 2, quantity: ordered2 },
          { lineNo: 1, quantity: 4 },
        ]);
        expect(over.status).toBe(422);
        expect(over.body.errors).toEqual([
          { field: 'lines[1].quantity', message: expect.stringContaining(`at most 3 more`) },
        ]);
        expect(await onHand(parts[0].id)).toBe(stock + ordered1 - 3);
        const unknownLine = await receive(order.id, [{ lineNo: 9, quantity: 1 }]);
        expect(unknownLine.status).toBe(422);
        for (const receivedAt of [new Date(Date.now() + 3_600_000).toISOString(), '2001-01-01T00:00:00Z']) {
          const dated = await h.call('POST', `/api/orders/${order.id}/receipts`, {
            body: { lines: [{ lineNo: 1, quantity: 1 }], receivedAt },
          });
          expect(dated.status).toBe(422);
          expect(dated.body.errors[0].field).toBe('receivedAt');
        }

        const viewer = await receive(order.id, [{ lineNo: 1, quantity: 1 }], { token: h.tokens.viewer });
        expect(viewer.status).toBe(403);

        const last = await receive(
          order.id,
          [
            { lineNo: 1, quantity: 3 },
            { lineNo: 2, quantity: ordered2 },
          ],
          { token: h.tokens.laoxiao },
        );
        expect(last.status).toBe(201);
        expect(last.body.order.status).toBe('received');
        const read = await h.call('GET', `/api/orders/${order.id}`);
        expect(read.body.status).toBe('received');
        expect(read.body.receivedAt).toBe(last.body.receipt.receivedAt);
        const receiving = await h.call('GET', `/api/orders/${order.id}/receipts`);
        expect(receiving.body.receipts.map((r: { receivedBy: { username: string } }) => r.receivedBy.username)).toEqual(
          ['admin', 'laoxiao'],
        );
        expect(receiving.body.lines.map((l: { received: number }) => l.received)).toEqual([ordered1, ordered2]);
        expect((await receive(order.id, [{ lineNo: 1, quantity: 1 }])).status).toBe(409);
        expect(await auditActions('order', order.id)).toEqual(expect.arrayContaining(['receive']));
      });

      it('gives every order received before receipts existed one receipt in full', async () => {
        const { db } = h.erp.database;
        const sums = async (table: 'order_lines' | 'goods_receipt_lines') =>
          Number(
            (
              await db
                .selectFrom(table)
                .innerJoin('orders', 'orders.id', `${table}.order_id`)
                .select((eb) => eb.fn.sum<string | number>(`${table}.quantity`).as('n'))
                .where('orders.status', '=', 'received')
                .executeTakeFirstOrThrow()
            ).n,
          );
        const ordered = await sums('order_lines');
        expect(ordered).toBeGreaterThan(0);
        expect(await sums('goods_receipt_lines')).toBe(ordered);
      });

      it('writes a receipt once per idempotency key and once per receipt number', async () => {
        const order = await place(await placedOrder());
        const stock = await onHand(parts[0].id);
        const lines = [{ lineNo: 1, quantity: parts[0].moq }];
        const first = await receive(order.id, lines, { key: 'gr-retry-1' });
        const again = await receive(order.id, lines, { key: 'gr-retry-1' });
        expect(first.status).toBe(201);
        expect(again.status).toBe(200);
        expect(again.headers.get('idempotent-replayed')).toBe('true');
        expect(again.body.receipt.id).toBe(first.body.receipt.id);
        expect((await receive(order.id, [{ lineNo: 1, quantity: 1 }], { key: 'gr-retry-1' })).status).toBe(422);

        const numbered = await receive(order.id, lines, { receiptNo: 'DN-7781' });
        const resent = await receive(order.id, lines, { receiptNo: 'DN-7781' });
        expect(numbered.status).toBe(201);
        expect(resent.status).toBe(200);
        expect(resent.body.receipt.id).toBe(numbered.body.receipt.id);
        const otherLines = await receive(order.id, [{ lineNo: 2, quantity: 1 }], { receiptNo: 'DN-7781' });
        expect(otherLines.status).toBe(409);

        expect(resent.body.lines[0].received).toBe(2 * parts[0].moq);
        expect(await onHand(parts[0].id)).toBe(stock + 2 * parts[0].moq);
      });

      it('counts two receipts sent at once one after the other: together they cannot exceed the order', async () => {
        const order = await place(await placedOrder());
        const all = [{ lineNo: 1, quantity: order.lines[0].quantity }];
        const answers = await Promise.all([receive(order.id, all), receive(order.id, all)]);
        expect(answers.map((a) => a.status).sort()).toEqual([201, 422]);
        const receiving = (await h.call('GET', `/api/orders/${order.id}/receipts`)).body;
        expect(receiving.lines[0].received).toBe(order.lines[0].quantity);
      });

      it('a status change to received receives what is still open, as one receipt', async () => {
        const order = await place(await placedOrder());
        await receive(order.id, [{ lineNo: 1, quantity: 1 }]);
        const current = (await h.call('GET', `/api/orders/${order.id}`)).body as OrderBody;
        const stock = await onHand(parts[1].id);
        const done = await h.call('PUT', `/api/orders/update/${order.id}`, {
          body: { version: current.version, status: 'received' },
        });
        expect(done.status).toBe(200);
        const receiving = (await h.call('GET', `/api/orders/${order.id}/receipts`)).body;
        expect(receiving.receipts).toHaveLength(2);
        expect(receiving.lines.map((l: { received: number; ordered: number }) => l.received - l.ordered)).toEqual([
          0, 0,
        ]);
        expect(await onHand(parts[1].id)).toBe(stock + order.lines[1].quantity);
      });

      it('matches an invoice at the order price for what was received, and releases it only by another admin', async () => {
        const order = await place(await placedOrder());
        const [q1, q2] = order.lines.map((l) => l.quantity);
        // The admin records the receipt: under four eyes another admin releases the invoice.
        await receive(order.id, [{ lineNo: 1, quantity: q1 }], { token: h.tokens.admin });
        await receive(order.id, [{ lineNo: 2, quantity: q2 }], { token: h.tokens.admin });
        const recorded = await invoice(
          order,
          [
            { lineNo: 1, quantity: q1, unitPriceMinor: fenOf(order, 1) },
            { lineNo: 2, quantity: q2, unitPriceMinor: fenOf(order, 2) },
          ],
          { totalMinor: q1 * fenOf(order, 1) + q2 * fenOf(order, 2) },
        );
        expect(recorded.status).toBe(201);
        expect(recorded.body).toMatchObject({
          status: 'matched',
          currency: 'CNY',
          rateToCny: 1,
          totalMinor: q1 * fenOf(order, 1) + q2 * fenOf(order, 2),
          match: {
            result: 'matched',
            reasons: [],
            tolerances: { pricePct: 2, quantityPct: 0, duplicateWindowDays: 30 },
          },
          lines: [{ orderLineNo: 1 }, { orderLineNo: 2 }],
          enteredBy: 'admin',
        });
        const id = recorded.body.id as number;
        expect((await h.call('GET', `/api/orders/${order.id}/receipts`)).body.lines[0].invoiced).toBe(q1);

        const byBuyer = await h.call('POST', `/api/invoices/${id}/release`, { body: { version: 1 } });
        expect(byBuyer.status).toBe(403);
        const byReceiver = await h.call('POST', `/api/invoices/${id}/release`, {
          token: h.tokens.admin,
          body: { version: 1 },
        });
        expect(byReceiver.status).toBe(403);
        expect(byReceiver.body).toMatchObject({ code: 'four_eyes', detail: expect.stringMatching(/another admin/) });
        const released = await h.call('POST', `/api/invoices/${id}/release`, { token: admin2, body: { version: 1 } });
        expect(released.status).toBe(200);
        expect(released.body).toMatchObject({ status: 'released', releasedBy: 'admin2', version: 2 });
        const twice = await h.call('POST', `/api/invoices/${id}/release`, { token: admin2, body: { version: 2 } });
        expect(twice.status).toBe(409);
        expect(await auditActions('invoice', id)).toEqual(['record', 'four_eyes_refused', 'release']);
      });

      it('holds for price and for quantity above received with every reason, and refuses their release', async () => {
        const order = await place(await placedOrder());
        const [q1] = order.lines.map((l) => l.quantity);
        await receive(order.id, [{ lineNo: 1, quantity: q1 - 2 }]);
        const price = fenOf(order, 1);
        const over = Math.ceil(price * 1.1);
        const held = await invoice(order, [
          { lineNo: 1, quantity: q1, unitPriceMinor: over },
          { lineNo: 2, quantity: 1, unitPriceMinor: fenOf(order, 2) },
        ]);
        expect(held.status).toBe(201);
        expect(held.body.status).toBe('held');
        expect(held.body.match.reasons).toEqual([
          expect.objectContaining({ code: 'price_above_order', line: 1, expected: price, actual: over }),
          expect.objectContaining({ code: 'quantity_above_received', line: 1, expected: q1 - 2, actual: q1 }),
          expect.objectContaining({ code: 'quantity_above_received', line: 2, expected: 0, actual: 1 }),
        ]);
        expect(held.body.match.reasons[0].message).toMatch(/高 .*% .*above the order/);
        const refused = await h.call('POST', `/api/invoices/${held.body.id}/release`, {
          token: admin2,
          body: { version: 1 },
        });
        expect(refused.status).toBe(409);
        expect(refused.body.code).toBe('invoice_held');
        expect(refused.body.reasons.map((r: { code: string }) => r.code)).toEqual([
          'price_above_order',
          'quantity_above_received',
          'quantity_above_received',
        ]);
        expect((await h.call('GET', `/api/invoices/${held.body.id}`)).body).toMatchObject({
          status: 'held',
          version: 2,
        });
        expect(await auditActions('invoice', held.body.id)).toEqual(['record', 'release_held']);
      });

      it('a held invoice matches once the rest arrives', async () => {
        const order = await place(await placedOrder());
        const [q1] = order.lines.map((l) => l.quantity);
        await receive(order.id, [{ lineNo: 1, quantity: 1 }]);
        const held = await invoice(order, [{ lineNo: 1, quantity: q1, unitPriceMinor: fenOf(order, 1) }]);
        expect(held.body.match.reasons).toEqual([
          expect.objectContaining({ code: 'quantity_above_received', expected: 1, actual: q1 }),
        ]);
        await receive(order.id, [{ lineNo: 1, quantity: q1 - 1 }]);
        const rematched = await h.call('POST', `/api/invoices/${held.body.id}/match`, { body: { version: 1 } });
        expect(rematched.status).toBe(200);
        expect(rematched.body).toMatchObject({ status: 'matched', version: 2, match: { reasons: [] } });
      });

      it('follows generated prices and quantities against the tolerances', async () => {
        const random = seededRandom(42);
        const order = await place(await placedOrder());
        const q1 = order.lines[0].quantity;
        await receive(order.id, [{ lineNo: 1, quantity: q1 }]);
        const price = fenOf(order, 1);
        // A model of the rules beside the ERP: what a matched invoice bills, and every amount invoiced so far.
        let billed = 0;
        const amounts: number[] = [];
        for (let i = 0; i < 12; i++) {
          const beyondPrice = random() < 0.5;
          const pct = beyondPrice ? 2.5 + random() * 30 : -10 + random() * 11.9;
          const unitPriceMinor = beyondPrice ? Math.ceil(price * (1 + pct / 100)) : Math.floor(price * (1 + pct / 100));
          const quantity = 1 + Math.floor(random() * q1);
          const expected = [
            ...(unitPriceMinor > price * 1.02 ? ['price_above_order'] : []),
            ...(billed + quantity > q1 ? ['quantity_above_received'] : []),
            ...(amounts.includes(unitPriceMinor * quantity) ? ['possible_duplicate'] : []),
          ];
          const res = await invoice(order, [{ lineNo: 1, quantity, unitPriceMinor }]);
          expect(res.status).toBe(201);
          expect(res.body.match.reasons.map((r: { code: string }) => r.code)).toEqual(expected);
          expect(res.body.status).toBe(expected.length ? 'held' : 'matched');
          if (!expected.length) billed += quantity;
          amounts.push(unitPriceMinor * quantity);
        }
        const receiving = (await h.call('GET', `/api/orders/${order.id}/receipts`)).body;
        expect(receiving.lines[0].invoiced).toBe(billed);
      });

      it('refuses the same supplier invoice number twice and holds the same amount for the same order', async () => {
        const order = await place(await placedOrder());
        const q1 = order.lines[0].quantity;
        await receive(order.id, [{ lineNo: 1, quantity: q1 }]);
        const line = [{ lineNo: 1, quantity: q1 / 2, unitPriceMinor: fenOf(order, 1) }];
        const first = await invoice(order, line, { invoiceNo: 'SP-2026/0042' });
        expect(first.body.status).toBe('matched');
        // The same number, written another way, is the same invoice.
        const again = await invoice(order, line, { invoiceNo: 'sp 2026-0042' });
        expect(again.status).toBe(409);
        expect(again.body).toMatchObject({ code: 'duplicate_invoice', invoiceId: first.body.id });
        const lookalike = await invoice(order, line, { invoiceNo: 'SP-2026/0043' });
        expect(lookalike.status).toBe(201);
        expect(lookalike.body.match.reasons).toEqual([
          expect.objectContaining({ code: 'possible_duplicate', line: null, actual: 'SP-2026/0042' }),
        ]);
        expect((await invoice(order, line, { invoiceNo: ' -/- ' })).status).toBe(422);
        // Two entries of one invoice at the same moment: the database's unique key lets one in.
        const racing = await Promise.all([
          invoice(order, line, { invoiceNo: 'SP-RACE-1' }),
          invoice(order, line, { invoiceNo: 'SP-RACE-1' }),
        ]);
        expect(racing.map((r) => r.status).sort()).toEqual([201, 409]);
        // A retry under its idempotency key is the first answer again, not a duplicate.
        const body = {
          supplierId: parts[0].supplier.id,
          invoiceNo: 'SP-KEYED',
          orderNo: order.orderNo,
          currency: 'CNY',
          invoiceDate: '2026-01-02',
          lines: [{ partId: parts[0].id, quantity: 1, unitPriceMinor: 1 }],
        };
        const headers = { 'idempotency-key': 'inv-retry-1' };
        const once = await h.call('POST', '/api/invoices', { body, headers });
        const retried = await h.call('POST', '/api/invoices', { body, headers });
        expect([once.status, retried.status]).toEqual([201, 200]);
        expect(retried.headers.get('idempotent-replayed')).toBe('true');
        expect(retried.body.id).toBe(once.body.id);
        // Outside the window the same amount is another delivery's invoice.
        const later = new Date(Date.now() + 40 * 86_400_000).toISOString().slice(0, 10);
        const outside = await invoice(order, line, { invoiceNo: 'SP-2026/0044', invoiceDate: later });
        expect(outside.body.match.reasons.map((r: { code: string }) => r.code)).not.toContain('possible_duplicate');
      });

      it('holds an invoice whose order, supplier or lines do not fit, and one naming no line of a part ordered twice', async () => {
        const approved = await placedOrder();
        const other = (await h.call('GET', '/api/parts?page=1&size=100')).body.items.find(
          (p: PartRow) => p.supplier.id !== parts[0].supplier.id,
        ) as PartRow;
        const misfit = await h.call('POST', '/api/invoices', {
          body: {
            supplierId: other.supplier.id,
            invoiceNo: 'MISFIT-1',
            orderNo: approved.orderNo,
            currency: 'CNY',
            invoiceDate: '2026-01-01',
            lines: [{ partId: other.id, quantity: 1, unitPriceMinor: 100 }],
          },
        });
        expect(misfit.status).toBe(201);
        expect(misfit.body.match.reasons).toEqual([
          expect.objectContaining({ code: 'order_status', line: null, actual: 'approved' }),
          expect.objectContaining({
            code: 'supplier_mismatch',
            expected: parts[0].supplier.id,
            actual: other.supplier.id,
          }),
          expect.objectContaining({ code: 'not_on_order', line: 1, actual: other.id }),
        ]);

        const twice = await h.call('POST', '/api/orders/create', {
          body: {
            supplierId: parts[0].supplier.id,
            lines: [
              { partId: parts[0].id, quantity: parts[0].moq },
              { partId: parts[0].id, quantity: parts[0].moq },
            ],
            status: 'pending_approval',
          },
        });
        expect(twice.status).toBe(201);
        let order = twice.body as OrderBody;
        if (order.status === 'pending_approval')
          order = (
            await h.call('POST', `/api/orders/${order.id}/approve`, {
              token: h.tokens.admin,
              body: { version: order.version },
            })
          ).body;
        order = await place(order);
        await receive(order.id, [
          { lineNo: 1, quantity: parts[0].moq },
          { lineNo: 2, quantity: parts[0].moq },
        ]);
        const named = await invoice(order, [{ lineNo: 2, quantity: 1, unitPriceMinor: fenOf(order, 2) }]);
        expect(named.body).toMatchObject({ status: 'matched', lines: [{ orderLineNo: 2 }] });
        const ambiguous = await h.call('POST', '/api/invoices', {
          token: h.tokens.admin,
          body: {
            supplierId: parts[0].supplier.id,
            invoiceNo: 'AMBIGUOUS-1',
            orderNo: order.orderNo,
            currency: 'CNY',
            invoiceDate: '2026-01-01',
            lines: [{ partId: parts[0].id, quantity: 1, unitPriceMinor: fenOf(order, 1) + 7 }],
          },
        });
        expect(ambiguous.body.match.reasons).toEqual([
          expect.objectContaining({ code: 'line_ambiguous', line: 1, actual: '1,2' }),
        ]);
      });

      it('holds a stated total the lines do not add up to', async () => {
        const order = await place(await placedOrder());
        await receive(order.id, [{ lineNo: 1, quantity: 2 }]);
        const res = await invoice(order, [{ lineNo: 1, quantity: 2, unitPriceMinor: 234 }], { totalMinor: 2340 });
        expect(res.body.match.reasons).toEqual([
          expect.objectContaining({ code: 'total_mismatch', expected: 468, actual: 2340 }),
        ]);
        // Kept on the invoice: matching it again does not forget it.
        const rematched = await h.call('POST', `/api/invoices/${res.body.id}/match`, { body: { version: 1 } });
        expect(rematched.body.match.reasons.map((r: { code: string }) => r.code)).toEqual(['total_mismatch']);
      });

      it('takes another currency only at a rate the ERP declares, and never without a currency', async () => {
        const order = await place(await placedOrder());
        const q1 = order.lines[0].quantity;
        await receive(order.id, [{ lineNo: 1, quantity: q1 }]);
        const noCurrency = await h.call('POST', '/api/invoices', {
          body: {
            supplierId: parts[0].supplier.id,
            invoiceNo: 'NC-1',
            orderNo: order.orderNo,
            invoiceDate: '2026-01-01',
            lines: [{ partId: parts[0].id, quantity: 1, unitPriceMinor: 100 }],
          },
        });
        expect(noCurrency.status).toBe(422);
        expect(noCurrency.body.errors.map((e: { field: string }) => e.field)).toContain('currency');
        const usdCents = Math.round((order.lines[0].unitPrice / 7.2) * 100);
        const noRate = await invoice(order, [{ lineNo: 1, quantity: q1, unitPriceMinor: usdCents }], {
          currency: 'usd',
        });
        expect(noRate.status).toBe(422);
        expect(noRate.body.errors).toEqual([{ field: 'currency', message: expect.stringContaining('USD') }]);
        expect(
          (await h.call('PUT', '/api/exchange-rates/USD', { token: h.tokens.admin, body: { rateToCny: 7.2 } })).status,
        ).toBe(200);
        const usd = await invoice(order, [{ lineNo: 1, quantity: q1, unitPriceMinor: usdCents }], { currency: 'USD' });
        expect(usd.status).toBe(201);
        expect(usd.body).toMatchObject({ currency: 'USD', rateToCny: 7.2, status: 'matched' });
      });

      it('keeps its tolerances in the approval policy: widening waits for a second admin, narrowing applies', async () => {
        const policy = (await h.call('GET', '/api/approval-policy')).body;
        expect(policy.invoiceMatch).toEqual({ pricePct: 2, quantityPct: 0, duplicateWindowDays: 30 });
        const wider = { pricePct: 15, quantityPct: 0, duplicateWindowDays: 30 };
        const proposed = await h.call('PUT', '/api/approval-policy', {
          token: h.tokens.admin,
          body: { version: policy.version, invoiceMatch: wider },
        });
        expect(proposed.status).toBe(202);
        expect(proposed.body.invoiceMatch.pricePct).toBe(2);
        expect(proposed.body.pendingChange.loosens).toEqual([expect.stringContaining('pricePct')]);

        const order = await place(await placedOrder());
        await receive(order.id, [{ lineNo: 1, quantity: 1 }]);
        const tenPct = Math.ceil(fenOf(order, 1) * 1.1);
        const held = await invoice(order, [{ lineNo: 1, quantity: 1, unitPriceMinor: tenPct }]);
        expect(held.body.status).toBe('held');

        const own = await h.call('POST', '/api/approval-policy/confirm', {
          token: h.tokens.admin,
          body: { proposalId: proposed.body.pendingChange.id },
        });
        expect(own.status).toBe(403);
        const confirmed = await h.call('POST', '/api/approval-policy/confirm', {
          token: admin2,
          body: { proposalId: proposed.body.pendingChange.id },
        });
        expect(confirmed.status).toBe(200);
        expect(confirmed.body.invoiceMatch).toEqual(wider);
        const rematched = await h.call('POST', `/api/invoices/${held.body.id}/match`, { body: { version: 1 } });
        expect(rematched.body).toMatchObject({ status: 'matched', match: { tolerances: wider } });

        // Narrowing (and a longer duplicate window) applies at once, by one admin.
        const narrower = { pricePct: 1, quantityPct: 0, duplicateWindowDays: 60 };
        const tightened = await h.call('PUT', '/api/approval-policy', {
          token: h.tokens.admin,
          body: { version: confirmed.body.version, invoiceMatch: narrower },
        });
        expect(tightened.status).toBe(200);
        expect(tightened.body.invoiceMatch).toEqual(narrower);
      });
    },
  );
}
