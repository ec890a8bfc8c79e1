import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, type ErpHarness, startHarness } from './harness.ts';

// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document is read field by field
type Any = any;

for (const backend of BACKENDS) {
  describe.skipIf(!backend.enabled)(`ERP API on ${backend.name}`, () => {
    let h: ErpHarness;
    let boschId: number;
    let torchId: number;
    let boschF7tc: { id: number; moq: number; unitPrice: number };

    beforeAll(async () => {
      h = await startHarness(backend);
      const suppliers = await h.call('GET', '/api/suppliers/search?name=bosch');
      boschId = suppliers.body.items[0].id;
      torchId = (await h.call('GET', `/api/suppliers/search?name=${encodeURIComponent('火炬')}`)).body.items[0].id;
      const parts = await h.call('GET', `/api/parts/supplier/${boschId}`);
      boschF7tc = parts.body.items.find((p: { model: string }) => p.model === 'F7TC');
    });
    afterAll(() => h?.close());

    const createBody = () => ({
      supplierId: boschId,
      lines: [{ partId: boschF7tc.id, quantity: 200 }],
      note: '测试订单',
    });

    describe('service basics', () => {
      it('answers health and docs without a token', async () => {
        expect((await h.call('GET', '/api/health', { token: null })).body).toMatchObject({
          status: 'ok',
          database: backend.name,
        });
        const spec = await h.call('GET', '/api/openapi.json', { token: null });
        expect(spec.status).toBe(200);
        expect(Object.keys(spec.body.paths)).toEqual(
          expect.arrayContaining([
            '/suppliers/search',
            '/parts',
            '/parts/search',
            '/orders/create',
            '/orders/update/{orderId}',
            '/inventory/warning',
          ]),
        );
        expect(spec.body.components.schemas.CreateOrder.required).toEqual(
          expect.arrayContaining(['supplierId', 'lines']),
        );
        const docs = await h.call('GET', '/api/docs', { token: null });
        expect(docs.status).toBe(200);
        expect(docs.body).toContain('/api/orders/create');
      });

      it('declares every operation by the OpenAPI book: operationId, common headers, body problems', async () => {
        const spec = (await h.call('GET', '/api/openapi.json', { token: null })).body;
        const operations = Object.entries(spec.paths).flatMap(([path, ops]) =>
          Object.entries(ops as Record<string, Any>).map(([method, op]) => ({ path, method, op })),
        );
        expect(operations.length).toBeGreaterThanOrEqual(22);
        const ids = operations.map((o) => o.op.operationId);
        expect(
          ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z]+$/.test(id)),
          JSON.stringify(ids),
        ).toBe(true);
        expect(new Set(ids).size).toBe(ids.length);
        for (const { path, method, op } of operations) {
          const refs = (op.parameters ?? []).map((p: Any) => p.$ref);
          expect(refs, `${method} ${path}`).toEqual(
            expect.arrayContaining(['#/components/parameters/ProjectId', '#/components/parameters/TraceId']),
          );
          if (op.requestBody)
            expect(Object.keys(op.responses), `${method} ${path}`).toEqual(expect.arrayContaining(['413', '415']));
        }
        expect(spec.components.parameters.ProjectId).toMatchObject({ name: 'x-project-id', in: 'header' });
        expect(spec.components.parameters.TraceId).toMatchObject({ name: 'x-trace-id', in: 'header' });
      });

      it('answers a method a path does not serve with 405 and Allow, and a body that is not JSON with 415', async () => {
        for (const [method, path, allow] of [
          ['DELETE', '/api/orders/1', 'GET'],
          ['GET', '/api/orders/update/1', 'PUT'],
          ['PATCH', '/api/approval-policy', 'GET, PUT'],
          ['POST', '/api/suppliers', 'GET'],
        ] as const) {
          const answer = await h.call(method, path);
          expect(answer.status, `${method} ${path}`).toBe(405);
          expect(answer.headers.get('allow')?.split(', ').sort().join(', ')).toBe(allow);
          expect(answer.headers.get('content-type')).toContain('application/problem+json');
        }
        expect((await h.call('GET', '/api/no-such-thing')).status).toBe(404);
        const text = await h.call('POST', '/api/orders/create', {
          rawBody: JSON.stringify(createBody()),
          headers: { 'content-type': 'text/plain' },
        });
        expect(text.status).toBe(415);
        expect(text.body).toMatchObject({ status: 415 });
      });

      it('refuses a viewer’s write with 403 whatever its body, before validating it', async () => {
        const spec = (await h.call('GET', '/api/openapi.json', { token: null })).body;
        const writes = Object.entries(spec.paths).flatMap(([path, ops]) =>
          Object.keys(ops as object)
            .filter((m) => m !== 'get')
            .map((m) => ({ method: m.toUpperCase(), path: `/api${path.replace(/\{\w+\}/g, '1')}` })),
        );
        expect(writes.length).toBeGreaterThanOrEqual(6);
        for (const { method, path } of writes) {
          for (const body of [{}, { version: 'x', lines: 'nonsense' }, createBody()]) {
            const answer = await h.call(method, path, { token: h.tokens.viewer, body });
            expect(answer.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(403);
          }
        }
      });

      it('refuses missing and unknown tokens with 401 problem+json', async () => {
        const none = await h.call('GET', '/api/parts', { token: null });
        expect(none.status).toBe(401);
        expect(none.headers.get('content-type')).toContain('application/problem+json');
        expect(none.body).toMatchObject({ status: 401, code: 'unauthorized' });
        expect((await h.call('GET', '/api/parts', { token: 'pk_nope' })).status).toBe(401);
        expect(
          (await h.call('GET', '/api/parts', { token: null, headers: { authorization: 'Basic abc' } })).status,
        ).toBe(401);
      });

      it('tells a token who it belongs to, in the project asked for', async () => {
        const me = await h.call('GET', '/api/me', { token: h.tokens.laoxiao });
        expect(me.status).toBe(200);
        expect(me.body).toMatchObject({ username: 'laoxiao', role: 'buyer', projectId: me.body.projectIds[0] });
        expect((await h.call('GET', '/api/me', { token: 'pk_nope' })).status).toBe(401);
        const other = await h.call('GET', '/api/me', { token: h.tokens.laoxiao, headers: { 'x-project-id': 'nope' } });
        expect(other.status).toBe(403);
      });

      it('echoes a trace id, or makes one', async () => {
        const traced = await h.call('GET', '/api/suppliers', { headers: { 'x-trace-id': 'trace-abc-1' } });
        expect(traced.headers.get('x-trace-id')).toBe('trace-abc-1');
        expect((await h.call('GET', '/api/suppliers')).headers.get('x-trace-id')).toMatch(/[0-9a-f-]{36}/);
      });

      it('answers unknown routes with 404 problem+json', async () => {
        const res = await h.call('GET', '/api/nowhere');
        expect(res.status).toBe(404);
        expect(res.body.code).toBe('not_found');
      });
    });

    describe('suppliers', () => {
      it('searches Chinese and English names, case-insensitively', async () => {
        const zh = await h.call('GET', `/api/suppliers/search?name=${encodeURIComponent('博世')}`);
        expect(zh.body.items.map((s: { nameEn: string }) => s.nameEn)).toEqual(['Bosch']);
        const en = await h.call('GET', '/api/suppliers/search?name=DENSO');
        expect(en.body.items[0].nameZh).toBe('电装');
        const partial = await h.call('GET', `/api/suppliers/search?name=${encodeURIComponent('轮胎')}`);
        expect(partial.body.items.length).toBe(2);
      });

      it('lists, gets and 404s', async () => {
        const all = await h.call('GET', '/api/suppliers');
        expect(all.body.items.length).toBeGreaterThanOrEqual(8);
        const one = await h.call('GET', `/api/suppliers/${boschId}`);
        expect(one.body).toMatchObject({
          id: boschId,
          nameEn: 'Bosch',
          region: { city: '苏州' },
          paymentTerms: expect.any(String),
        });
        expect((await h.call('GET', '/api/suppliers/999999')).status).toBe(404);
      });

      it('rejects an empty or oversized search with field errors', async () => {
        const empty = await h.call('GET', '/api/suppliers/search?name=');
        expect(empty.status).toBe(422);
        expect(empty.body.errors[0].field).toBe('name');
        expect((await h.call('GET', `/api/suppliers/search?name=${'x'.repeat(500)}`)).status).toBe(422);
      });
    });

    describe('parts', () => {
      it('pages with total, filtered by category and supplier', async () => {
        const page1 = await h.call('GET', '/api/parts?page=1&size=5&category=spark_plug');
        expect(page1.body).toMatchObject({ page: 1, size: 5 });
        expect(page1.body.items).toHaveLength(5);
        expect(page1.body.total).toBeGreaterThan(5);
        const page2 = await h.call('GET', '/api/parts?page=2&size=5&category=spark_plug');
        expect(page2.body.items[0].id).not.toBe(page1.body.items[0].id);
        const bySupplier = await h.call('GET', `/api/parts?supplierId=${torchId}&size=100`);
        expect(bySupplier.body.items.every((p: { supplier: { id: number } }) => p.supplier.id === torchId)).toBe(true);
      });

      it('finds parts by Chinese, English, partial words and codes', async () => {
        const zh = await h.call('GET', `/api/parts/search?name=${encodeURIComponent('火花塞')}`);
        expect(zh.body.items.length).toBeGreaterThanOrEqual(18);
        expect(
          new Set(zh.body.items.map((p: { supplier: { nameEn: string } }) => p.supplier.nameEn)).size,
        ).toBeGreaterThanOrEqual(6);
        const en = await h.call('GET', '/api/parts/search?name=spark%20pl');
        expect(en.body.items.length).toBe(zh.body.items.length);
        const code = await h.call('GET', '/api/parts/search?name=f7tc');
        expect(code.body.items.every((p: { model: string }) => p.model === 'F7TC')).toBe(true);
        expect(code.body.items).toHaveLength(6);
        const single = await h.call('GET', `/api/parts/search?name=${encodeURIComponent('链')}`);
        expect(single.body.items.length).toBeGreaterThan(0);
        const nothing = await h.call('GET', `/api/parts/search?name=${encodeURIComponent('不存在的零件')}`);
        expect(nothing.body.items).toEqual([]);
      });

      it('treats SQL-ish and wildcard text as plain text', async () => {
        for (const name of ["' OR 1=1 --", '%', '_', '"; DROP TABLE parts; --', '\\']) {
          const res = await h.call('GET', `/api/parts/search?name=${encodeURIComponent(name)}`);
          expect(res.status).toBe(200);
          expect(res.body.items).toEqual([]);
        }
        expect((await h.call('GET', '/api/parts?size=1')).body.total).toBeGreaterThan(50);
      });

      it('lists a supplier’s parts, categories, and one part', async () => {
        const list = await h.call('GET', `/api/parts/supplier/${torchId}`);
        expect(list.body.items.length).toBeGreaterThan(3);
        expect((await h.call('GET', '/api/parts/supplier/999999')).status).toBe(404);
        const categories = await h.call('GET', '/api/categories');
        expect(categories.body.items.map((c: { code: string }) => c.code)).toEqual(
          expect.arrayContaining(['spark_plug', 'tyre', 'chain']),
        );
        const part = await h.call('GET', `/api/parts/${boschF7tc.id}`);
        expect(part.body).toMatchObject({ code: 'BS-F7TC', currency: 'CNY', supplier: { nameZh: '博世' } });
      });

      it('rejects bad paging and ids with 422, never 5xx', async () => {
        for (const url of [
          '/api/parts?page=0',
          '/api/parts?size=1000',
          '/api/parts?page=abc',
          '/api/parts/abc',
          '/api/parts/99999999999999',
          '/api/parts/-1',
        ]) {
          const res = await h.call('GET', url);
          expect(res.status, url).toBe(422);
          expect(res.body.errors.length, url).toBeGreaterThan(0);
        }
      });
    });

    describe('orders', () => {
      it('creates an order priced from the catalogue, with lines, part and supplier', async () => {
        const res = await h.call('POST', '/api/orders/create', { body: createBody() });
        expect(res.status).toBe(201);
        expect(res.body).toMatchObject({
          status: 'draft',
          version: 1,
          supplier: { id: boschId, nameEn: 'Bosch' },
          createdBy: { username: 'laoxiao' },
          orderNo: expect.stringMatching(/^PO-\d{6}-\d{6}$/),
          lines: [
            {
              lineNo: 1,
              partId: boschF7tc.id,
              quantity: 200,
              unitPrice: boschF7tc.unitPrice,
              part: { code: 'BS-F7TC' },
            },
          ],
        });
        expect(res.body.totalAmount).toBeCloseTo(200 * boschF7tc.unitPrice, 2);
        const fetched = await h.call('GET', `/api/orders/${res.body.id}`);
        expect(fetched.body).toEqual(res.body);
      });

      it('lists every bad field with 422', async () => {
        const res = await h.call('POST', '/api/orders/create', {
          body: { supplierId: 'bosch', lines: [{ partId: 1, quantity: -5 }], expectedDate: '2026-13-45', extra: true },
        });
        expect(res.status).toBe(422);
        const fields = res.body.errors.map((e: { field: string }) => e.field);
        expect(fields).toEqual(expect.arrayContaining(['supplierId', 'lines.0.quantity', 'expectedDate']));
        const logical = await h.call('POST', '/api/orders/create', {
          body: {
            supplierId: boschId,
            lines: [
              { partId: boschF7tc.id, quantity: 1 },
              { partId: 999999, quantity: 500 },
            ],
          },
        });
        expect(logical.status).toBe(422);
        expect(logical.body.errors.map((e: { field: string }) => e.field)).toEqual([
          'lines[0].quantity',
          'lines[1].partId',
        ]);
        const torchPart = (await h.call('GET', `/api/parts/supplier/${torchId}`)).body.items[0];
        const wrongSupplier = await h.call('POST', '/api/orders/create', {
          body: { supplierId: boschId, lines: [{ partId: torchPart.id, quantity: 1000 }] },
        });
        expect(wrongSupplier.body.errors[0].message).toContain('not supplied by');
        const past = await h.call('POST', '/api/orders/create', {
          body: { ...createBody(), expectedDate: '2020-01-01' },
        });
        expect(past.status).toBe(422);
      });

      it('answers malformed and oversized bodies with 4xx and writes nothing', async () => {
        const before = (await h.call('GET', '/api/orders/search?size=1')).body.total;
        expect((await h.call('POST', '/api/orders/create', { rawBody: '{"supplierId": 1, "lines": [' })).status).toBe(
          400,
        );
        expect((await h.call('POST', '/api/orders/create', { rawBody: 'null' })).status).toBe(422);
        expect((await h.call('POST', '/api/orders/create', { rawBody: '[]' })).status).toBe(422);
        const huge = await h.call('POST', '/api/orders/create', {
          body: { ...createBody(), note: 'x'.repeat(400_000) },
        });
        expect(huge.status).toBe(413);
        const longNote = await h.call('POST', '/api/orders/create', {
          body: { ...createBody(), note: '长'.repeat(3000) },
        });
        expect(longNote.status).toBe(422);
        const tooManyLines = await h.call('POST', '/api/orders/create', {
          body: {
            supplierId: boschId,
            lines: Array.from({ length: 201 }, () => ({ partId: boschF7tc.id, quantity: 100 })),
          },
        });
        expect(tooManyLines.status).toBe(422);
        const bigNumbers = await h.call('POST', '/api/orders/create', {
          body: { supplierId: boschId, lines: [{ partId: boschF7tc.id, quantity: 1e12 }] },
        });
        expect(bigNumbers.status).toBe(422);
        expect((await h.call('GET', '/api/orders/search?size=1')).body.total).toBe(before);
      });

      it('keeps unicode and SQL-ish text intact', async () => {
        const note = '备注 ✓ 🚚 \'quoted\' "double" ; DROP TABLE orders; -- \t end';
        const res = await h.call('POST', '/api/orders/create', { body: { ...createBody(), note } });
        expect(res.status).toBe(201);
        expect(res.body.note).toBe(note);
        const nul = await h.call('POST', '/api/orders/create', { body: { ...createBody(), note: 'a\u0000b' } });
        expect(nul.status).toBe(422);
        expect(nul.body.errors[0].field).toBe('note');
      });

      it('creates one order for 20 parallel requests with the same Idempotency-Key', async () => {
        const key = `idem-${backend.name}-${Date.now()}`;
        const results = await Promise.all(
          Array.from({ length: 20 }, () =>
            h.call('POST', '/api/orders/create', { body: createBody(), headers: { 'idempotency-key': key } }),
          ),
        );
        const ids = new Set(results.map((r) => r.body.id));
        expect(ids.size).toBe(1);
        expect(results.filter((r) => r.status === 201)).toHaveLength(1);
        expect(results.filter((r) => r.status === 200 && r.headers.get('idempotent-replayed') === 'true')).toHaveLength(
          19,
        );
        const search = await h.call('GET', `/api/orders/search?keyword=${results[0].body.orderNo}`);
        expect(search.body.total).toBe(1);
        const reused = await h.call('POST', '/api/orders/create', {
          body: { ...createBody(), lines: [{ partId: boschF7tc.id, quantity: 300 }] },
          headers: { 'idempotency-key': key },
        });
        expect(reused.status).toBe(422);
        const otherUser = await h.call('POST', '/api/orders/create', {
          body: createBody(),
          headers: { 'idempotency-key': key },
          token: h.tokens.admin,
        });
        expect(otherUser.status).toBe(201);
        expect(otherUser.body.id).not.toBe(results[0].body.id);
      });

      it('lets one of two writers with the same version win; the other gets 409', async () => {
        const created = (await h.call('POST', '/api/orders/create', { body: createBody() })).body;
        const [a, b] = await Promise.all([
          h.call('PUT', `/api/orders/update/${created.id}`, { body: { version: 1, note: 'writer A' } }),
          h.call('PUT', `/api/orders/update/${created.id}`, { body: { version: 1, note: 'writer B' } }),
        ]);
        expect([a.status, b.status].sort()).toEqual([200, 409]);
        const loser = a.status === 409 ? a : b;
        expect(loser.body).toMatchObject({ code: 'conflict', currentVersion: 2 });
        const final = await h.call('GET', `/api/orders/${created.id}`);
        expect(final.body.version).toBe(2);
        expect(['writer A', 'writer B']).toContain(final.body.note);
      });

      it('edits lines while draft and walks the lifecycle, receiving into stock', async () => {
        const created = (await h.call('POST', '/api/orders/create', { body: createBody() })).body;
        const edited = await h.call('PUT', `/api/orders/update/${created.id}`, {
          body: {
            version: 1,
            lines: [{ partId: boschF7tc.id, quantity: 500, unitPrice: 14.5 }],
            status: 'pending_approval',
          },
        });
        expect(edited.body).toMatchObject({
          version: 2,
          status: 'pending_approval',
          totalAmount: 7250,
          lines: [{ quantity: 500, unitPrice: 14.5 }],
        });
        const buyerApproves = await h.call('PUT', `/api/orders/update/${created.id}`, {
          body: { version: 2, status: 'approved' },
        });
        expect(buyerApproves.status).toBe(403);
        const approved = await h.call('PUT', `/api/orders/update/${created.id}`, {
          body: { version: 2, status: 'approved' },
          token: h.tokens.admin,
        });
        expect(approved.body.status).toBe('approved');
        const locked = await h.call('PUT', `/api/orders/update/${created.id}`, {
          body: { version: 3, lines: [{ partId: boschF7tc.id, quantity: 100 }] },
        });
        expect(locked.status).toBe(409);
        const skip = await h.call('PUT', `/api/orders/update/${created.id}`, {
          body: { version: 3, status: 'received' },
        });
        expect(skip.status).toBe(409);
        expect(skip.body.allowed).toEqual(['ordered', 'cancelled']);
        await h.call('PUT', `/api/orders/update/${created.id}`, { body: { version: 3, status: 'ordered' } });
        const stockBefore = await h.erp.database.db
          .selectFrom('inventory')
          .select('on_hand')
          .where('part_id', '=', boschF7tc.id)
          .executeTakeFirstOrThrow();
        const received = await h.call('PUT', `/api/orders/update/${created.id}`, {
          body: { version: 4, status: 'received' },
        });
        expect(received.body.status).toBe('received');
        const stockAfter = await h.erp.database.db
          .selectFrom('inventory')
          .select('on_hand')
          .where('part_id', '=', boschF7tc.id)
          .executeTakeFirstOrThrow();
        expect(stockAfter.on_hand - stockBefore.on_hand).toBe(500);
        const audit = await h.call('GET', `/api/audit?entity=order&entityId=${created.id}`, { token: h.tokens.admin });
        // The submission over the buyer's limit is recorded with the policy's decision.
        expect(audit.body.items.map((e: { action: string }) => e.action)).toEqual([
          'create',
          'update',
          'submit',
          'update',
          'update',
          'update',
        ]);
        expect(audit.body.items[1].before).toMatchObject({ status: 'draft', version: 1 });
        expect((await h.call('GET', `/api/audit?entity=order&entityId=${created.id}`)).status).toBe(403);
      });

      it('cancels with a reason and refuses to revive a cancelled order', async () => {
        const created = (await h.call('POST', '/api/orders/create', { body: createBody() })).body;
        const cancelled = await h.call('POST', `/api/orders/${created.id}/cancel`, {
          body: { version: 1, reason: '供应商缺货' },
        });
        expect(cancelled.body).toMatchObject({ status: 'cancelled', note: expect.stringContaining('供应商缺货') });
        const revive = await h.call('PUT', `/api/orders/update/${created.id}`, {
          body: { version: 2, status: 'draft' },
        });
        expect(revive.status).toBe(409);
        expect((await h.call('PUT', '/api/orders/update/999999', { body: { version: 1, note: 'x' } })).status).toBe(
          404,
        );
      });

      it('searches order details by keyword, status, supplier, part and date range', async () => {
        const history = await h.call('GET', '/api/orders/search?size=100');
        expect(history.body.total).toBeGreaterThan(150);
        const first = history.body.items[0];
        expect(first.lines[0].part).toMatchObject({ code: expect.any(String), nameZh: expect.any(String) });
        const times = history.body.items.map((o: { createdAt: string }) => o.createdAt);
        expect([...times].sort().reverse()).toEqual(times);
        const oldest = (await h.call('GET', `/api/orders/search?size=1&page=${history.body.total}`)).body.items[0];
        expect(Date.now() - Date.parse(oldest.createdAt)).toBeGreaterThan(300 * 86_400_000);

        const plugs = await h.call('GET', `/api/orders/search?keyword=${encodeURIComponent('火花塞')}&size=100`);
        expect(plugs.body.total).toBeGreaterThan(0);
        expect(
          plugs.body.items.every((o: { lines: Array<{ part: { category: string } }> }) =>
            o.lines.some((l) => l.part.category === 'spark_plug'),
          ),
        ).toBe(true);
        const received = await h.call('GET', `/api/orders/search?status=received&supplierId=${torchId}&size=100`);
        expect(
          received.body.items.every(
            (o: { status: string; supplier: { id: number } }) => o.status === 'received' && o.supplier.id === torchId,
          ),
        ).toBe(true);
        const byPart = await h.call('GET', `/api/orders/search?partId=${boschF7tc.id}&size=100`);
        expect(
          byPart.body.items.every((o: { lines: Array<{ partId: number }> }) =>
            o.lines.some((l) => l.partId === boschF7tc.id),
          ),
        ).toBe(true);
        const day = oldest.createdAt.slice(0, 10);
        const range = await h.call('GET', `/api/orders/search?dateFrom=${day}&dateTo=${day}&size=100`);
        expect(range.body.items.map((o: { id: number }) => o.id)).toContain(oldest.id);
        expect(range.body.items.every((o: { createdAt: string }) => o.createdAt.startsWith(day))).toBe(true);
        expect((await h.call('GET', '/api/orders/search?status=shipped')).status).toBe(422);
        expect((await h.call('GET', '/api/orders/search?dateFrom=yesterday')).status).toBe(422);
      });
      it('finds cancelled orders by when they were cancelled, not when they were placed', async () => {
        const oldCancelled = (await h.call('GET', '/api/orders/search?status=cancelled&size=100')).body.items.find(
          (o: { createdAt: string }) => o.createdAt.slice(0, 10) < new Date().toISOString().slice(0, 10),
        );
        expect(oldCancelled).toBeDefined();
        const created = (await h.call('POST', '/api/orders/create', { body: createBody() })).body;
        await h.call('POST', `/api/orders/${created.id}/cancel`, { body: { version: 1 } });
        const today = new Date().toISOString().slice(0, 10);
        const byCancel = await h.call(
          'GET',
          `/api/orders/search?status=cancelled&dateField=updated&dateFrom=${today}&dateTo=${today}&size=100`,
        );
        const ids = byCancel.body.items.map((o: { id: number }) => o.id);
        expect(ids).toContain(created.id);
        expect(ids).not.toContain(oldCancelled.id);
        expect(byCancel.body.items.every((o: { updatedAt: string }) => o.updatedAt.startsWith(today))).toBe(true);
        const day = oldCancelled.createdAt.slice(0, 10);
        const byPlacing = await h.call('GET', `/api/orders/search?status=cancelled&dateFrom=${day}&dateTo=${day}`);
        expect(byPlacing.body.items.map((o: { id: number }) => o.id)).toContain(oldCancelled.id);
        expect((await h.call('GET', '/api/orders/search?dateField=cancelled')).status).toBe(422);
      });

      it('lists only the lines of the part or category asked for, counting the others', async () => {
        type Line = { partId: number; amount: number; part: { category: string } };
        type Found = { id: number; totalAmount: number; lines: Line[]; otherLines?: number };
        const all: Found[] = (await h.call('GET', '/api/orders/search?size=100')).body.items;
        const mixed = all.filter((o) => new Set(o.lines.map((l) => l.part.category)).size > 1);
        expect(mixed.length).toBeGreaterThan(2);
        // Every category and part met on a mixed order, each asked for once.
        const categories = [...new Set(mixed.flatMap((o) => o.lines.map((l) => l.part.category)))];
        const parts = [...new Set(mixed.flatMap((o) => o.lines.map((l) => l.partId)))].slice(0, 8);
        const asks = [
          ...categories.map((c) => ({ query: `category=${c}`, keeps: (l: Line) => l.part.category === c })),
          ...parts.map((id) => ({ query: `partId=${id}`, keeps: (l: Line) => l.partId === id })),
        ];
        for (const ask of asks) {
          const found: Found[] = (await h.call('GET', `/api/orders/search?${ask.query}&size=100`)).body.items;
          expect(found.length, ask.query).toBeGreaterThan(0);
          for (const order of found) {
            const whole = (await h.call('GET', `/api/orders/${order.id}`)).body as Found;
            expect(order.lines).toEqual(whole.lines.filter(ask.keeps));
            expect(order.lines.length + (order.otherLines ?? 0)).toBe(whole.lines.length);
            expect(order.otherLines === undefined).toBe(order.lines.length === whole.lines.length);
            expect(order.totalAmount).toBe(whole.totalAmount);
          }
          // Every order with such a line is found, and no other.
          const expected = all.filter((o) => o.lines.some(ask.keeps)).map((o) => o.id);
          expect(found.map((o) => o.id).filter((id) => all.some((o) => o.id === id))).toEqual(expected);
        }
        const both = mixed[0];
        const [line] = both.lines;
        const narrowed: Found[] = (
          await h.call('GET', `/api/orders/search?partId=${line.partId}&category=${line.part.category}&size=100`)
        ).body.items;
        expect(narrowed.every((o) => o.lines.every((l) => l.partId === line.partId))).toBe(true);
        expect((await h.call('GET', '/api/orders/search?category=')).status).toBe(422);
      });
    });

    describe('inventory', () => {
      it('warns about parts at or below safety stock with a reorder suggestion in MOQ lots', async () => {
        const res = await h.call('GET', '/api/inventory/warning');
        expect(res.body.items.length).toBeGreaterThanOrEqual(5);
        for (const w of res.body.items) {
          expect(w.onHand).toBeLessThanOrEqual(w.safetyStock);
          expect(w.suggestedQuantity % w.moq).toBe(0);
          expect(w.suggestedQuantity).toBeGreaterThanOrEqual(
            Math.max(0, w.reorderPoint + w.safetyStock - w.onHand - w.onOrder),
          );
        }
        expect(res.body.items.map((w: { code: string }) => w.code)).toContain('TC-F7TC');
      });

      it('answers the stock of a category, low or not, and refuses a query without a filter with 422', async () => {
        const res = await h.call('GET', '/api/inventory?category=spark_plug');
        expect(res.status).toBe(200);
        expect(res.body.items.length).toBeGreaterThan(0);
        expect(res.body.items.every((w: { category: string }) => w.category === 'spark_plug')).toBe(true);
        expect(res.body.items.some((w: { onHand: number; safetyStock: number }) => w.onHand > w.safetyStock)).toBe(
          true,
        );
        expect((await h.call('GET', '/api/inventory')).status).toBe(422);
        expect((await h.call('GET', '/api/inventory?partId=abc')).status).toBe(422);
      });
    });

    describe('roles and projects', () => {
      it('lets a viewer read but not write', async () => {
        const read = await h.call('GET', '/api/orders/search', { token: h.tokens.viewer });
        expect(read.status).toBe(200);
        const write = await h.call('POST', '/api/orders/create', { body: createBody(), token: h.tokens.viewer });
        expect(write.status).toBe(403);
        const order = (await h.call('POST', '/api/orders/create', { body: createBody() })).body;
        expect(
          (
            await h.call('PUT', `/api/orders/update/${order.id}`, {
              body: { version: 1, note: 'x' },
              token: h.tokens.viewer,
            })
          ).status,
        ).toBe(403);
        expect(
          (await h.call('POST', `/api/orders/${order.id}/cancel`, { body: { version: 1 }, token: h.tokens.viewer }))
            .status,
        ).toBe(403);
      });

      it('keeps project A’s data out of project B', async () => {
        const order = (await h.call('POST', '/api/orders/create', { body: createBody() })).body;
        // zhangwei works in P002 only: P001's order, supplier and part ids are invisible to him.
        expect((await h.call('GET', `/api/orders/${order.id}`, { token: h.tokens.zhangwei })).status).toBe(404);
        expect((await h.call('GET', `/api/suppliers/${boschId}`, { token: h.tokens.zhangwei })).status).toBe(404);
        expect((await h.call('GET', `/api/parts/${boschF7tc.id}`, { token: h.tokens.zhangwei })).status).toBe(404);
        expect(
          (
            await h.call('PUT', `/api/orders/update/${order.id}`, {
              body: { version: 1, note: 'x' },
              token: h.tokens.zhangwei,
            })
          ).status,
        ).toBe(404);
        const p2orders = await h.call('GET', '/api/orders/search?size=100', { token: h.tokens.zhangwei });
        expect(p2orders.body.items.every((o: { projectId: string }) => o.projectId === 'P002')).toBe(true);
        const crossCreate = await h.call('POST', '/api/orders/create', {
          body: createBody(),
          token: h.tokens.zhangwei,
        });
        expect(crossCreate.status).toBe(422);
        // Asking for a project one does not belong to is 403; an admin of both may switch.
        expect((await h.call('GET', '/api/parts', { headers: { 'x-project-id': 'P002' } })).status).toBe(403);
        const admin = await h.call('GET', '/api/suppliers/search?name=bosch', {
          token: h.tokens.admin,
          headers: { 'x-project-id': 'P002' },
        });
        expect(admin.status).toBe(200);
        expect(admin.body.items[0].id).not.toBe(boschId);
      });
    });
  });
}
