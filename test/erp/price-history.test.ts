import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PriceHistory } from '../../src/erp/index.ts';
import { BACKENDS, type ErpHarness, startHarness } from './harness.ts';

interface PartRow {
  id: number;
  code: string;
  model: string;
  category: string;
  moq: number;
  unitPrice: number;
  supplier: { id: number };
}

interface Figures {
  lines: number;
  quantity: number;
  avgUnitPrice: number;
}

/** The first instant of the calendar month `months - 1` months back (UTC). */
const periodStart = (months: number, now = new Date()) =>
  new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - (months - 1), 1)).toISOString();

for (const backend of BACKENDS) {
  describe.skipIf(!backend.enabled)(`price history on ${backend.name}`, () => {
    let h: ErpHarness;
    let parts: PartRow[];

    /**
     * What the project paid for a product per (supplier, month), read straight from the tables and summed here: every
     * line of every order, the statuses and dates filtered in this test, not in SQL.
     */
    const paidFromTables = async (model: string, category: string, months: number, project = 'P001') => {
      const rows = await h.erp.database.db
        .selectFrom('order_lines')
        .innerJoin('orders', 'orders.id', 'order_lines.order_id')
        .innerJoin('parts', 'parts.id', 'order_lines.part_id')
        .select([
          'orders.status',
          'orders.created_at',
          'orders.project_id',
          'parts.supplier_id',
          'parts.model',
          'parts.category',
          'order_lines.quantity',
          'order_lines.unit_price_e4',
        ])
        .execute();
      const from = periodStart(months);
      const sums = new Map<string, { lines: number; quantity: number; amount: number }>();
      for (const r of rows) {
        if (r.project_id !== project || r.model !== model || r.category !== category) continue;
        if (!['ordered', 'partly_received', 'received'].includes(r.status)) continue;
        if (r.created_at < from) continue;
        for (const key of [`${r.supplier_id}|${r.created_at.slice(0, 7)}`, `all|${r.created_at.slice(0, 7)}`]) {
          const s = sums.get(key) ?? { lines: 0, quantity: 0, amount: 0 };
          s.lines++;
          s.quantity += Number(r.quantity);
          s.amount += Number(r.quantity) * Number(r.unit_price_e4);
          sums.set(key, s);
        }
      }
      const figures = new Map<string, Figures>();
      for (const [key, s] of sums)
        figures.set(key, { lines: s.lines, quantity: s.quantity, avgUnitPrice: s.amount / s.quantity / 10_000 });
      return figures;
    };

    /** The ERP's answer as the same (supplier|all, month) → figures map. */
    const answered = (history: PriceHistory) => {
      const figures = new Map<string, Figures>();
      for (const s of history.series)
        for (const m of s.months)
          figures.set(`${s.supplier?.id ?? 'all'}|${m.month}`, {
            lines: m.lines,
            quantity: m.quantity,
            avgUnitPrice: m.avgUnitPrice,
          });
      return figures;
    };

    const history = async (partId: number, query: string, token?: string) => {
      const res = await h.call('GET', `/api/parts/${partId}/price-history?${query}`, token ? { token } : {});
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body as PriceHistory;
    };

    /** Both groupings of a product's history, as one map. */
    const both = async (partId: number, months: number) => {
      const [bySupplier, byProduct] = await Promise.all([
        history(partId, `months=${months}&by=supplier`),
        history(partId, `months=${months}&by=product`),
      ]);
      return new Map([...answered(bySupplier), ...answered(byProduct)]);
    };

    const expectSameFigures = (actual: Map<string, Figures>, expected: Map<string, Figures>) => {
      expect([...actual.keys()].sort()).toEqual([...expected.keys()].sort());
      for (const [key, e] of expected) {
        const a = actual.get(key)!;
        expect({ key, lines: a.lines, quantity: a.quantity }).toEqual({ key, lines: e.lines, quantity: e.quantity });
        expect(Math.abs(a.avgUnitPrice - e.avgUnitPrice), key).toBeLessThanOrEqual(0.0000501); // rounded to the ERP’s 4 decimals
      }
    };

    beforeAll(async () => {
      h = await startHarness(backend);
      parts = (await h.call('GET', '/api/parts?page=1&size=100')).body.items as PartRow[];
    });
    afterAll(() => h?.close());

    it('answers, for every product and period, what the tables say was paid: per supplier and across suppliers', async () => {
      const products = new Map(parts.map((p) => [`${p.category}|${p.model}`, p]));
      expect(products.size).toBeGreaterThan(10);
      for (const months of [12, 3, 1]) {
        for (const part of products.values()) {
          const expected = await paidFromTables(part.model, part.category, months);
          expectSameFigures(await both(part.id, months), expected);
        }
      }
    });

    it('names the product, the period, the statuses and the definition; lists each supplier of the product once', async () => {
      const part = parts.find((p) => parts.filter((q) => q.model === p.model).length >= 3)!;
      const res = await history(part.id, 'months=12&by=supplier');
      expect(res).toMatchObject({
        partId: part.id,
        product: { model: part.model, category: part.category },
        by: 'supplier',
        period: { from: periodStart(12).slice(0, 10), to: new Date().toISOString().slice(0, 10), months: 12 },
        statuses: ['ordered', 'partly_received', 'received'],
      });
      expect(res.definition).toMatch(/加权.*quantity-weighted/s);
      expect(res.definition).toMatch(/cancelled/);
      const suppliers = parts.filter((p) => p.model === part.model && p.category === part.category);
      expect(res.series.map((s) => s.supplier?.id)).toEqual(
        [...new Set(suppliers.map((p) => p.supplier.id))].sort((a, b) => a - b),
      );
      for (const s of res.series) {
        expect(s.months.map((m) => m.month)).toEqual([...s.months.map((m) => m.month)].sort());
        const lines = s.months.reduce((n, m) => n + m.lines, 0);
        const quantity = s.months.reduce((n, m) => n + m.quantity, 0);
        const amount = s.months.reduce((n, m) => n + m.amount, 0);
        expect(s.total).toMatchObject({ lines, quantity });
        expect(s.total.amount).toBeCloseTo(amount, 2);
        expect(s.total.avgUnitPrice).toBeCloseTo(quantity ? amount / quantity : Number.NaN, 3);
      }
      const across = await history(part.id, 'by=product');
      expect(across.period.months).toBe(12);
      expect((await history(part.id, 'months=2')).by).toBe('supplier');
      expect(across.series).toHaveLength(1);
      expect(across.series[0].supplier).toBeNull();
      expect(across.series[0].parts.map((p) => p.code).sort()).toEqual(suppliers.map((p) => p.code).sort());
    });

    describe('only ordered and received lines count', () => {
      let part: PartRow;
      let before: Map<string, Figures>;
      const create = async (lines: Array<{ quantity: number; unitPrice: number }>, status = 'draft') => {
        const res = await h.call('POST', '/api/orders/create', {
          body: { supplierId: part.supplier.id, lines: lines.map((l) => ({ partId: part.id, ...l })), status },
        });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        return res.body as { id: number; version: number; status: string };
      };
      const move = async (order: { id: number; version: number }, status: string, token = h.tokens.laoxiao) => {
        const res = await h.call('PUT', `/api/orders/update/${order.id}`, {
          body: { version: order.version, status },
          token,
        });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        return res.body as { id: number; version: number; status: string };
      };
      /** An admin's approval, unless the approval policy already gave it on submission. */
      const approve = async (order: { id: number; version: number; status: string }) => {
        if (order.status === 'approved') return order;
        const res = await h.call('POST', `/api/orders/${order.id}/approve`, {
          body: { version: order.version },
          token: h.tokens.admin,
        });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        return res.body as { id: number; version: number; status: string };
      };
      /** Puts an order's date `monthsAgo` calendar months back, as if it had been made then. */
      const backdate = async (orderId: number, monthsAgo: number) => {
        const at = new Date(periodStart(monthsAgo + 1));
        at.setUTCDate(15);
        await h.erp.database.db
          .updateTable('orders')
          .set({ created_at: at.toISOString() })
          .where('id', '=', orderId)
          .execute();
        return at.toISOString().slice(0, 7);
      };

      beforeAll(async () => {
        // A product with paid history this year and several suppliers.
        for (const p of parts) {
          const paid = await paidFromTables(p.model, p.category, 12);
          if (paid.size >= 6 && parts.filter((q) => q.model === p.model).length >= 2) {
            part = p;
            break;
          }
        }
        expect(part).toBeDefined();
        before = await both(part.id, 24);
      });

      it('drafts, pending, approved-not-ordered and cancelled orders never move a month', async () => {
        const absurd = Math.round(part.unitPrice * 9 * 100) / 100;
        const draft = await create([{ quantity: part.moq * 50, unitPrice: absurd }]);
        const pending = await create([{ quantity: part.moq * 40, unitPrice: absurd }], 'pending_approval');
        expect(pending.status).toBe('pending_approval');
        const approved = await approve(await create([{ quantity: part.moq, unitPrice: absurd }], 'pending_approval'));
        expect(approved.status).toBe('approved');
        const cancelled = await move(await create([{ quantity: part.moq * 30, unitPrice: absurd }]), 'cancelled');
        // An order placed and then cancelled was never paid either.
        const placed = await create([{ quantity: part.moq * 20, unitPrice: absurd }], 'pending_approval');
        await move(await move(await approve(placed), 'ordered'), 'cancelled');
        expect(draft.status).toBe('draft');
        expectSameFigures(await both(part.id, 24), before);
        // The same orders in a month with no paid lines at all: the month does not appear.
        let empty = '';
        for (const order of [cancelled, draft, pending, approved, placed]) empty = await backdate(order.id, 18);
        const after = await both(part.id, 24);
        expect([...after.keys()].filter((k) => k.endsWith(`|${empty}`))).toEqual([]);
        expectSameFigures(after, before);
      });

      it('a received order adds its lines, quantity-weighted, to its own month', async () => {
        const order = await create(
          [
            { quantity: part.moq * 100, unitPrice: 10 },
            { quantity: part.moq * 300, unitPrice: 14 },
          ],
          'pending_approval',
        );
        const received = await move(await move(await approve(order), 'ordered'), 'received');
        expect(received.status).toBe('received');
        const month = await backdate(order.id, 20);
        const after = await both(part.id, 24);
        const figures = { lines: 2, quantity: part.moq * 400, avgUnitPrice: 13 };
        expect(after.get(`${part.supplier.id}|${month}`)).toEqual(figures);
        expect(after.get(`all|${month}`)).toEqual(figures);
        // Not the unweighted mean of the two prices (12), and nothing else moved.
        after.delete(`${part.supplier.id}|${month}`);
        after.delete(`all|${month}`);
        expectSameFigures(after, before);
      });
    });

    describe('the like-for-like price index', () => {
      let userId: number;
      let suppliers: number[];
      /** A product of its own (parts inserted for the test), so only the lines below count. */
      const product = async (model: string, count: number) => {
        const template = parts[0];
        const ids: number[] = [];
        for (const supplierId of suppliers.slice(0, count)) {
          const row = await h.erp.database.db
            .insertInto('parts')
            .values({
              project_id: 'P001',
              supplier_id: supplierId,
              code: `${model}-${supplierId}`,
              model,
              category: template.category,
              name_zh: '测试件',
              name_en: 'test part',
              spec: '',
              unit: '个',
              unit_price_e4: 300_000,
              moq: 1,
            })
            .returning('id')
            .executeTakeFirstOrThrow();
          ids.push(Number(row.id));
        }
        return ids;
      };
      /** A received order of one line, dated the 15th of the month `monthsAgo` months back. */
      const paidLine = async (
        partId: number,
        supplierId: number,
        monthsAgo: number,
        quantity: number,
        price: number,
      ) => {
        const at = new Date(periodStart(monthsAgo + 1));
        at.setUTCDate(15);
        const order = await h.erp.database.db
          .insertInto('orders')
          .values({
            project_id: 'P001',
            order_no: `IDX-${partId}-${monthsAgo}`,
            supplier_id: supplierId,
            status: 'received',
            expected_date: null,
            note: '',
            version: 1,
            created_by: userId,
            last_edited_by: null,
            created_at: at.toISOString(),
            updated_at: at.toISOString(),
            received_at: at.toISOString(),
            approval_rule: null,
            approval_reason: null,
            approval_by: null,
            approval_at: null,
            approval_comment: null,
            trace_id: null,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        await h.erp.database.db
          .insertInto('order_lines')
          .values({
            order_id: Number(order.id),
            line_no: 1,
            part_id: partId,
            quantity,
            unit_price_e4: Math.round(price * 10_000),
            price_check: null,
          })
          .execute();
        return at.toISOString().slice(0, 7);
      };

      beforeAll(async () => {
        userId = Number((await h.erp.database.db.selectFrom('users').select('id').executeTakeFirstOrThrow()).id);
        suppliers = [...new Set(parts.map((p) => p.supplier.id))].slice(0, 3);
      });

      it('stays flat when only the mix moves: the average rises, the index does not, and the mix is named', async () => {
        const [cheap, dear] = await product('IDX-MIX', 2);
        // Each supplier's price never changes; the buyer moves from the cheap supplier to the dear one, skipping a month.
        const plan = [
          { ago: 6, cheap: 90, dear: 10 },
          { ago: 5, cheap: 60, dear: 40 },
          { ago: 3, cheap: 30, dear: 70 },
          { ago: 2, cheap: 10, dear: 90 },
        ];
        const months: string[] = [];
        for (const m of plan) {
          months.push(await paidLine(cheap, suppliers[0], m.ago, m.cheap, 30.5));
          await paidLine(dear, suppliers[1], m.ago, m.dear, 50.25);
        }
        const res = await history(cheap, 'months=12&by=product');
        const across = res.series[0].months;
        expect(across.map((m) => m.month)).toEqual(months);
        // What a plain average says: from 32.475 to 48.275, +48.65 %.
        expect(across[0].avgUnitPrice).toBe(32.475);
        expect(across.at(-1)?.avgUnitPrice).toBe(48.275);
        // The month without purchases is absent, not interpolated; every month rests on both parts.
        expect(res.index.method).toBe('chained');
        expect(res.index.months.map((m) => m.month)).toEqual(months);
        for (const m of res.index.months) {
          expect(Math.abs((m.index as number) - 100), m.month).toBeLessThanOrEqual(1);
          expect(m.pairs).toBe(2);
        }
        expect(res.index.months.map((m) => m.linkedTo)).toEqual([null, ...months.slice(0, -1)]);
        const change = res.index.change!;
        expect(change).toMatchObject({ from: months[0], to: months.at(-1), indexPct: 0, averagePct: 48.65 });
        expect(change.mixPct).toBe(48.65);
        expect(change.grew).toEqual({
          supplier: expect.objectContaining({ id: suppliers[1] }),
          fromSharePct: 10,
          toSharePct: 90,
        });
        // The same index whichever grouping is asked; each supplier's own line stays flat.
        const bySupplier = await history(dear, 'months=12&by=supplier');
        expect(bySupplier.index).toEqual(res.index);
        expect(bySupplier.series.map((s) => [...new Set(s.months.map((m) => m.avgUnitPrice))])).toEqual([
          [30.5],
          [50.25],
        ]);
        expect(res.definition).toMatch(/链式.*chained/s);
      });

      it('equals the price move when every price moves alike and the mix stays', async () => {
        const ids = await product('IDX-MOVE', 3);
        const base = [20, 35.5, 61];
        const quantities = [50, 30, 20];
        // +5 %, then +10 % on the first month; a part missing one month leaves the link on the two others.
        const steps = [
          { ago: 8, factor: 1, skip: -1 },
          { ago: 7, factor: 1.05, skip: 2 },
          { ago: 5, factor: 1.1, skip: -1 },
        ];
        for (const step of steps)
          for (const [i, id] of ids.entries())
            if (i !== step.skip) await paidLine(id, suppliers[i], step.ago, quantities[i], base[i] * step.factor);
        const res = await history(ids[0], 'months=12&by=product');
        expect(res.index.months.map((m) => [m.index, m.pairs])).toEqual([
          [100, 3],
          [105, 2],
          [110, 2],
        ]);
        expect(res.index.change).toMatchObject({ indexPct: 10, averagePct: 10, mixPct: 0 });
        // Re-derived from the tables: the second month links on the two parts bought in both, at the first's quantities.
        const link = (20 * 1.05 * 50 + 35.5 * 1.05 * 30) / (20 * 50 + 35.5 * 30);
        expect(res.index.months[1].index).toBeCloseTo(100 * link, 2);
      });
    });

    it('serves every role of the project, only inside the user’s projects', async () => {
      const part = parts[0];
      const asBuyer = await history(part.id, 'months=6');
      expect(await history(part.id, 'months=6', h.tokens.viewer)).toEqual(asBuyer);
      const other = await h.call('GET', '/api/parts?page=1&size=1', {
        token: h.tokens.admin,
        headers: { 'x-project-id': 'P002' },
      });
      const foreign = other.body.items[0] as PartRow;
      expect((await h.call('GET', `/api/parts/${foreign.id}/price-history`)).status).toBe(404);
      expect(
        (await h.call('GET', `/api/parts/${foreign.id}/price-history`, { headers: { 'x-project-id': 'P002' } })).status,
      ).toBe(403);
      const inP002 = await h.call('GET', `/api/parts/${foreign.id}/price-history`, {
        token: h.tokens.admin,
        headers: { 'x-project-id': 'P002' },
      });
      expect(inP002.status).toBe(200);
      expect(inP002.body.series.flatMap((s: { parts: Array<{ id: number }> }) => s.parts.map((p) => p.id))).toContain(
        foreign.id,
      );
      expect((await h.call('GET', `/api/parts/${part.id}/price-history`, { token: null })).status).toBe(401);
    });

    it('refuses bad input with 4xx, naming the field', async () => {
      const id = parts[0].id;
      for (const query of ['months=0', 'months=37', 'months=1.5', 'months=abc', 'by=month', 'by=']) {
        const res = await h.call('GET', `/api/parts/${id}/price-history?${query}`);
        expect(res.status, query).toBe(422);
        expect(res.body.errors[0].field, query).toMatch(/months|by/);
      }
      expect((await h.call('GET', '/api/parts/0/price-history')).status).toBe(422);
      expect((await h.call('GET', '/api/parts/x/price-history')).status).toBe(422);
      expect((await h.call('GET', '/api/parts/99999999/price-history')).status).toBe(404);
    });

    it('is documented in the OpenAPI document', async () => {
      const doc = (await h.call('GET', '/api/openapi.json', { token: null })).body;
      const op = doc.paths['/parts/{id}/price-history'].get;
      // Besides the headers every operation declares by reference (x-project-id, x-trace-id).
      const names = (op.parameters as Array<{ name?: string }>).flatMap((p) => (p.name ? [p.name] : []));
      expect(names.sort()).toEqual(['by', 'id', 'months']);
      expect(doc.components.schemas.PriceHistory.properties.definition).toBeDefined();
    });
  });
}
