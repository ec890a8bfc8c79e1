import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, type ErpHarness, startHarness } from './harness.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted field by field
type Any = any;

const inDays = (days: number) => new Date(Date.now() + days * 86_400_000);

for (const backend of BACKENDS) {
  describe.skipIf(!backend.enabled)(`requests for quotation on ${backend.name}`, () => {
    let h: ErpHarness;
    let f7tc: Array<{ id: number; supplier: { id: number; nameEn: string } }>;
    const supplierOf = (name: string) => f7tc.find((p) => p.supplier.nameEn.startsWith(name))?.supplier.id as number;

    beforeAll(async () => {
      h = await startHarness(backend);
      f7tc = (await h.call('GET', '/api/parts/search?name=F7TC')).body.items;
    });
    afterAll(() => h?.close());

    const deadline = inDays(3).toISOString();
    const draft = async (token = h.tokens.laoxiao, key?: string) => {
      const res = await h.call('POST', '/api/rfqs', {
        token,
        headers: key ? { 'idempotency-key': key } : {},
        body: {
          title: '火花塞询价 F7TC',
          lines: [
            { partId: f7tc[0].id, quantity: 200, requiredDate: inDays(16).toISOString().slice(0, 10) },
            {
              item: '火花塞套筒扳手 16mm',
              quantity: 5,
              unit: '把',
              requiredDate: inDays(16).toISOString().slice(0, 10),
            },
          ],
          supplierIds: [supplierOf('Bosch'), supplierOf('Denso'), supplierOf('NGK')],
          replyDeadline: deadline,
          incoterm: 'DAP',
        },
      });
      return res;
    };
    /** The invitation's token, as the mail side reads it from the ERP's table. */
    const tokenOf = async (rfqId: number, supplierId: number) =>
      (
        await h.erp.database.db
          .selectFrom('rfq_invitations')
          .select('token')
          .where('rfq_id', '=', rfqId)
          .where('supplier_id', '=', supplierId)
          .executeTakeFirstOrThrow()
      ).token;

    it('a buyer drafts an RFQ: part and free-text lines, invited suppliers, terms; viewers and other projects cannot', async () => {
      const res = await draft();
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        status: 'draft',
        version: 1,
        currency: 'CNY',
        incoterm: 'DAP',
        rfqNo: expect.stringMatching(/^RFQ-\d{6}-\d{6}$/),
        lines: [
          { lineNo: 1, partId: f7tc[0].id, quantity: 200, unit: expect.any(String), part: { model: 'F7TC' } },
          { lineNo: 2, partId: null, item: '火花塞套筒扳手 16mm', quantity: 5, unit: '把' },
        ],
      });
      expect(res.body.invitations.map((i: Any) => [i.status, i.mail.status])).toEqual([
        ['invited', 'none'],
        ['invited', 'none'],
        ['invited', 'none'],
      ]);
      expect((await draft(h.tokens.viewer)).status).toBe(403);
      expect((await h.call('GET', `/api/rfqs/${res.body.id}`, { token: h.tokens.zhangwei })).status).toBe(404);
      const list = await h.call('GET', '/api/rfqs?status=draft');
      expect(list.body.items.find((r: Any) => r.id === res.body.id)).toMatchObject({
        lines: 2,
        invited: 3,
        replied: 0,
      });
      const audit = await h.call('GET', `/api/audit?entity=rfq&entityId=${res.body.id}`, { token: h.tokens.admin });
      expect(audit.body.items.map((e: Any) => e.action)).toEqual(['create']);
    });

    it('refuses what no RFQ can be: a past deadline, an unknown supplier, a line without part or item (422)', async () => {
      const res = await h.call('POST', '/api/rfqs', {
        body: {
          title: 'x',
          lines: [{ quantity: 1, requiredDate: inDays(5).toISOString().slice(0, 10) }],
          supplierIds: [999_999],
          replyDeadline: inDays(-1).toISOString(),
        },
      });
      expect(res.status).toBe(422);
      const second = await h.call('POST', '/api/rfqs', {
        body: {
          title: 'x',
          lines: [{ partId: f7tc[0].id, quantity: 1, requiredDate: inDays(5).toISOString().slice(0, 10) }],
          supplierIds: [999_999],
          replyDeadline: inDays(-1).toISOString(),
        },
      });
      expect(second.status).toBe(422);
      expect(second.body.errors.map((e: Any) => e.field).sort()).toEqual(['replyDeadline', 'supplierIds[0]']);
    });

    it('an idempotency key creates one RFQ, whatever the retries', async () => {
      const first = await draft(h.tokens.laoxiao, 'rfq-once-1');
      const again = await draft(h.tokens.laoxiao, 'rfq-once-1');
      expect(first.status).toBe(201);
      expect(again.status).toBe(200);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body.id).toBe(first.body.id);
    });

    it('collects quotes, shows each in CNY at the asked quantity, and awards into one purchase order draft', async () => {
      const { body: rfq } = await draft();
      const sent = await h.call('POST', `/api/rfqs/${rfq.id}/send`, { body: { version: 1 } });
      expect(sent.body).toMatchObject({ status: 'sent', version: 2 });
      expect(sent.body.invitations.every((i: Any) => i.mail.status === 'queued')).toBe(true);
      // Sending twice is an illegal move, not a second batch of mail.
      expect((await h.call('POST', `/api/rfqs/${rfq.id}/send`, { body: { version: 2 } })).status).toBe(409);

      const bosch = await tokenOf(rfq.id, supplierOf('Bosch'));
      const denso = await tokenOf(rfq.id, supplierOf('Denso'));
      const ngk = await tokenOf(rfq.id, supplierOf('NGK'));
      const form = (token: string, body: unknown) =>
        h.call('POST', `/api/quote-invitations/${token}`, { token: null, body });
      const invitation = await h.call('GET', `/api/quote-invitations/${bosch}`, { token: null });
      expect(invitation.body).toMatchObject({ rfqNo: rfq.rfqNo, supplier: { nameEn: 'Bosch' }, replied: false });
      expect(invitation.body.lines).toHaveLength(2);
      expect(JSON.stringify(invitation.body)).not.toContain('Denso');

      expect(
        (
          await form(bosch, {
            lines: [
              {
                lineNo: 1,
                unitPrice: 14.8,
                currency: 'CNY',
                priceBreaks: [
                  { minQty: 100, unitPrice: 14.2 },
                  { minQty: 500, unitPrice: 13.5 },
                ],
                leadTimeDays: 10,
                freight: 50,
              },
              { lineNo: 2, unitPrice: 38, currency: 'CNY' },
            ],
          })
        ).body,
      ).toEqual({ outcome: 'recorded', late: false });
      await form(denso, { lines: [{ lineNo: 1, unitPrice: 1.9, currency: 'USD', moq: 100, leadTimeDays: 20 }] });
      await form(ngk, { decline: true, remarks: '产能已满 / no capacity' });

      let now = (await h.call('GET', `/api/rfqs/${rfq.id}`)).body;
      expect(now.status).toBe('collecting');
      const quote = (name: string, lineNo: number) =>
        now.quotes.find((q: Any) => q.supplier.nameEn.startsWith(name) && q.lineNo === lineNo);
      // 200 pieces take the 100-piece break: 14.2 × 200 + 50 freight.
      expect(quote('Bosch', 1).effective).toEqual({
        unitPriceCny: 14.2,
        totalCny: 2890,
        priceBreakMinQty: 100,
        rateToCny: 1,
      });
      expect(quote('Denso', 1)).toMatchObject({ effective: null, effectiveReason: expect.stringContaining('USD') });
      expect(quote('NGK', 1).status).toBe('declined');
      expect(quote('Bosch', 1).source.kind).toBe('form');

      // Rates are the admins' table; a buyer may not set one.
      expect((await h.call('PUT', '/api/exchange-rates/USD', { body: { rateToCny: 7.1 } })).status).toBe(403);
      const rates = await h.call('PUT', '/api/exchange-rates/usd', { token: h.tokens.admin, body: { rateToCny: 7.1 } });
      expect(rates.body.items).toContainEqual(expect.objectContaining({ currency: 'USD', rateToCny: 7.1 }));
      now = (await h.call('GET', `/api/rfqs/${rfq.id}`)).body;
      expect(quote('Denso', 1).effective).toEqual({
        unitPriceCny: 13.49,
        totalCny: 2698,
        priceBreakMinQty: null,
        rateToCny: 7.1,
      });

      // A free-text line cannot go on a purchase order; an open RFQ is closed before it is awarded.
      expect(
        (
          await h.call('POST', `/api/rfqs/${rfq.id}/award`, {
            body: { version: now.version, supplierId: supplierOf('Bosch') },
          })
        ).status,
      ).toBe(409);
      const closed = await h.call('POST', `/api/rfqs/${rfq.id}/close`, { body: { version: now.version } });
      expect(closed.body.status).toBe('closed');
      const refused = await h.call('POST', `/api/rfqs/${rfq.id}/award`, {
        body: { version: closed.body.version, supplierId: supplierOf('Bosch') },
      });
      expect(refused.status).toBe(422);
      expect(refused.body.errors[0].message).toContain('free-text');
    });

    it('an award is previewed as the ERP would write it (order, policy, rank), writes nothing, and can close the RFQ in the same write', async () => {
      const date = inDays(20).toISOString().slice(0, 10);
      const created = await h.call('POST', '/api/rfqs', {
        body: {
          title: 'F7TC 300',
          lines: [{ partId: f7tc[0].id, quantity: 300, requiredDate: date }],
          supplierIds: [supplierOf('Bosch'), supplierOf('Torch')],
          replyDeadline: inDays(2).toISOString(),
        },
      });
      const id = created.body.id;
      await h.call('POST', `/api/rfqs/${id}/send`, { body: { version: 1 } });
      for (const [name, unitPrice] of [
        ['Torch', 9.35],
        ['Bosch', 12.4],
      ] as const) {
        const token = await tokenOf(id, supplierOf(name));
        await h.call('POST', `/api/quote-invitations/${token}`, {
          token: null,
          body: { lines: [{ lineNo: 1, unitPrice, currency: 'CNY', leadTimeDays: 7 }] },
        });
      }
      const open = (await h.call('GET', `/api/rfqs/${id}`)).body;
      const ordersBefore = (await h.call('GET', '/api/orders/search?size=1')).body.total;
      const body = { version: open.version, supplierId: supplierOf('Bosch'), close: true, submit: true };
      const preview = await h.call('POST', `/api/rfqs/${id}/award/preview`, { body });
      expect(preview.status).toBe(200);
      expect(preview.body).toMatchObject({
        rfqNo: open.rfqNo,
        closes: true,
        rank: 2,
        ranked: 2,
        order: {
          supplier: { id: supplierOf('Bosch') },
          lines: [{ quantity: 300, unitPrice: 12.4, amount: 3720 }],
          totalAmount: 3720,
        },
      });
      expect(preview.body.why.length).toBeGreaterThan(0);
      // Nothing was written: the RFQ still collects at its version, no order was added.
      expect((await h.call('GET', `/api/rfqs/${id}`)).body).toMatchObject({
        status: open.status,
        version: open.version,
      });
      expect((await h.call('GET', '/api/orders/search?size=1')).body.total).toBe(ordersBefore);
      // Without close, an open RFQ is still refused; with it, one write closes and awards what the preview showed.
      expect((await h.call('POST', `/api/rfqs/${id}/award`, { body: { ...body, close: false } })).status).toBe(409);
      const awarded = await h.call('POST', `/api/rfqs/${id}/award`, { body });
      expect(awarded.status).toBe(200);
      expect(awarded.body.rfq.status).toBe('awarded');
      expect(awarded.body.order).toMatchObject({
        totalAmount: preview.body.order.totalAmount,
        approval: preview.body.order.approval,
        lines: [{ quantity: 300, unitPrice: 12.4 }],
      });
      // A stale version is refused, as for every RFQ write.
      const stale = await h.call('POST', `/api/rfqs/${id}/award/preview`, { body });
      expect(stale.status).toBe(409);
    });

    it('award: one order at the quote’s CNY price, linked to the RFQ, written once; replies stay kept, late', async () => {
      const date = inDays(20).toISOString().slice(0, 10);
      const created = await h.call('POST', '/api/rfqs', {
        body: {
          title: 'F7TC 200',
          lines: [{ partId: f7tc[0].id, quantity: 200, requiredDate: date }],
          supplierIds: [supplierOf('Bosch'), supplierOf('Torch')],
          replyDeadline: inDays(2).toISOString(),
        },
      });
      const id = created.body.id;
      await h.call('POST', `/api/rfqs/${id}/send`, { body: { version: 1 } });
      const torch = await tokenOf(id, supplierOf('Torch'));
      const torchForm = {
        token: null,
        headers: { 'idempotency-key': `form-${id}` },
        body: { lines: [{ lineNo: 1, unitPrice: 9.05, currency: 'CNY', leadTimeDays: 7 }] },
      };
      expect((await h.call('POST', `/api/quote-invitations/${torch}`, torchForm)).body.outcome).toBe('recorded');
      // The same form submission sent again is recognised: nothing changes, nothing is audited twice.
      const resent = await h.call('POST', `/api/quote-invitations/${torch}`, torchForm);
      expect(resent.body.outcome).toBe('duplicate');
      expect(resent.headers.get('idempotent-replayed')).toBe('true');
      const open = (await h.call('GET', `/api/rfqs/${id}`)).body;
      expect(open.quotes).toHaveLength(1);
      expect(open.quotes[0].source).toMatchObject({ kind: 'form', messageId: expect.stringContaining('form-') });
      const closed = (await h.call('POST', `/api/rfqs/${id}/close`, { body: { version: open.version } })).body;
      // After the close the form refuses; a reply entered for the supplier is kept and marked late.
      const bosch = await tokenOf(id, supplierOf('Bosch'));
      const refusedForm = await h.call('POST', `/api/quote-invitations/${bosch}`, {
        token: null,
        body: { lines: [{ lineNo: 1, unitPrice: 14, currency: 'CNY' }] },
      });
      expect(refusedForm.status).toBe(409);
      const entered = await h.call('POST', `/api/rfqs/${id}/quotes`, {
        body: { supplierId: supplierOf('Bosch'), lines: [{ lineNo: 1, unitPrice: 14, currency: 'CNY' }] },
      });
      expect(entered.body.quotes.find((q: Any) => q.supplier.id === supplierOf('Bosch')).late).toBe(true);
      // Another buyer may not award someone else's RFQ.
      const other = await h.erp.services.users.create({
        username: `buyer-${backend.name}`,
        role: 'buyer',
        projectIds: ['P001'],
      });
      const otherToken = await h.erp.services.users.issueToken(other.username);
      const body = { version: closed.version, supplierId: supplierOf('Torch') };
      expect((await h.call('POST', `/api/rfqs/${id}/award`, { token: otherToken, body })).status).toBe(403);
      const [a, b] = await Promise.all([
        h.call('POST', `/api/rfqs/${id}/award`, { body, headers: { 'idempotency-key': `award-${id}` } }),
        h.call('POST', `/api/rfqs/${id}/award`, { body, headers: { 'idempotency-key': `award-${id}` } }),
      ]);
      expect([a.status, b.status]).toEqual([200, 200]);
      expect(a.body.rfq.award).toMatchObject({ supplierId: supplierOf('Torch'), awardedBy: 'laoxiao' });
      expect(b.body.order.id).toBe(a.body.order.id);
      expect(a.body.order).toMatchObject({
        status: 'draft',
        supplier: { id: supplierOf('Torch') },
        expectedDate: date,
        note: expect.stringContaining(a.body.rfq.rfqNo),
        lines: [{ part: { code: 'TC-F7TC' }, quantity: 200, unitPrice: 9.05 }],
      });
      expect(a.body.rfq.award.orderNo).toBe(a.body.order.orderNo);
      const again = await h.call('POST', `/api/rfqs/${id}/award`, { body: { ...body, version: a.body.rfq.version } });
      expect(again.status).toBe(409);
      const orders = await h.call('GET', `/api/orders/search?keyword=${a.body.order.orderNo}`);
      expect(orders.body.total).toBe(1);
      // Replies to an awarded RFQ are refused.
      expect(
        (
          await h.call('POST', `/api/quote-invitations/${torch}`, {
            token: null,
            body: { lines: [{ lineNo: 1, unitPrice: 1, currency: 'CNY' }] },
          })
        ).status,
      ).toBe(409);
      const audit = await h.call('GET', `/api/audit?entity=rfq&entityId=${id}`, { token: h.tokens.admin });
      expect(audit.body.items.map((e: Any) => e.action)).toEqual([
        'create',
        'sent',
        'quote',
        'closed',
        'quote',
        'award',
      ]);
      expect((await h.call('GET', '/api/quote-invitations/0123456789abcdef01234567', { token: null })).status).toBe(
        404,
      );
    });
  });
}
