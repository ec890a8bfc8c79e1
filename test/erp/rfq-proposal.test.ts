import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, type ErpHarness, startHarness } from './harness.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted field by field
type Any = any;

const DAY_MS = 86_400_000;
const today = () => new Date().toISOString().slice(0, 10);
const inDays = (days: number) => new Date(Date.now() + days * DAY_MS);
const dayIn = (days: number) => inDays(days).toISOString().slice(0, 10);

/** A small seeded generator, so a failing ranking can be replayed from its seed. */
function mulberry32(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.enabled)(`RFQ award proposal on ${backend.name}`, () => {
    let h: ErpHarness;
    let f7tc: Any[];
    let suppliers: Any[];

    beforeAll(async () => {
      h = await startHarness(backend);
      f7tc = (await h.call('GET', '/api/parts/search?name=F7TC')).body.items;
      suppliers = (await h.call('GET', '/api/suppliers')).body.items;
    });
    afterAll(() => h?.close());

    const open = async (supplierIds: number[], quantity: number, requiredInDays: number) => {
      const created = await h.call('POST', '/api/rfqs', {
        body: {
          title: '火花塞询价',
          lines: [
            { partId: f7tc[0].id, quantity, requiredDate: dayIn(requiredInDays) },
            { item: '火花塞套筒扳手 16mm', quantity: 5, unit: '把', requiredDate: dayIn(requiredInDays) },
          ],
          supplierIds,
          replyDeadline: inDays(3).toISOString(),
        },
      });
      expect(created.status).toBe(201);
      const sent = await h.call('POST', `/api/rfqs/${created.body.id}/send`, { body: { version: 1 } });
      expect(sent.status).toBe(200);
      return sent.body;
    };
    const enter = async (rfqId: number, supplierId: number, reply: Any) => {
      const res = await h.call('POST', `/api/rfqs/${rfqId}/quotes`, { body: { supplierId, ...reply } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body;
    };
    /** A quote's validity ends yesterday, as time passing would make it. */
    const lapse = (rfqId: number, supplierId: number, lineNo: number) =>
      h.erp.database.db
        .updateTable('rfq_quotes')
        .set({ valid_until: dayIn(-1) })
        .where('rfq_id', '=', rfqId)
        .where('supplier_id', '=', supplierId)
        .where('line_no', '=', lineNo)
        .execute();
    const settings = async () => (await h.call('GET', '/api/sourcing-settings')).body;

    it('admins set the weights and the reminder time, validated and versioned; others cannot', async () => {
      const before = await settings();
      expect(before).toMatchObject({ version: 0, reminderHours: 24, weights: { cost: 50, leadTime: 20 } });
      const put = (body: unknown, token = h.tokens.admin) => h.call('PUT', '/api/sourcing-settings', { token, body });
      expect((await put({ version: 0, reminderHours: 12 }, h.tokens.laoxiao)).status).toBe(403);
      for (const weights of [
        { cost: 0, leadTime: 0, scorecard: 0, priceHistory: 0 },
        { cost: -1, leadTime: 1, scorecard: 1, priceHistory: 1 },
        { cost: 1, leadTime: 1, scorecard: 1 },
        { cost: 101, leadTime: 1, scorecard: 1, priceHistory: 1 },
      ])
        expect((await put({ version: 0, weights })).status).toBe(422);
      expect((await put({ version: 0, reminderHours: 0 })).status).toBe(422);
      const changed = await put({ version: 0, reminderHours: 12 });
      expect(changed.status).toBe(200);
      expect(changed.body).toMatchObject({ version: 1, reminderHours: 12, weights: before.weights });
      expect((await put({ version: 0, reminderHours: 6 })).status).toBe(409);
      const audit = await h.call('GET', `/api/audit?entity=sourcing_settings&entityId=${before.projectId}`, {
        token: h.tokens.admin,
      });
      expect(audit.body.items.map((e: Any) => e.action)).toContain('update');
    });

    it('ranks generated quotes at the asked quantity as an independent computation of the weighted criteria does', async () => {
      await h.call('PUT', '/api/exchange-rates/USD', { token: h.tokens.admin, body: { rateToCny: 7.1 } });
      const rates: Record<string, number> = { CNY: 1, USD: 7.1 };
      const invited = [...new Set(f7tc.map((p) => p.supplier.id as number))];
      expect(invited.length).toBeGreaterThanOrEqual(3);
      for (const seed of [1, 2, 3]) {
        const rnd = mulberry32(seed);
        const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
        const quantity = int(50, 500);
        const requiredIn = int(15, 40);
        const weights = { cost: int(0, 10), leadTime: int(0, 10), scorecard: int(0, 10), priceHistory: int(1, 10) };
        const current = await settings();
        expect(
          (
            await h.call('PUT', '/api/sourcing-settings', {
              token: h.tokens.admin,
              body: { version: current.version, weights },
            })
          ).status,
        ).toBe(200);
        const rfq = await open(invited, quantity, requiredIn);
        const generated = new Map<number, Any[]>();
        for (const supplierId of invited) {
          const lines = [1, 2].map((lineNo) => {
            const currency = rnd() < 0.3 ? 'USD' : 'CNY';
            const scale = currency === 'USD' ? 1 / 7.1 : 1;
            const unitPrice = Math.round((10 + rnd() * 20) * scale * 100) / 100;
            const breakAt = int(20, 600);
            return {
              lineNo,
              unitPrice,
              currency,
              priceBreaks: rnd() < 0.5 ? [{ minQty: breakAt, unitPrice: Math.round(unitPrice * 0.9 * 100) / 100 }] : [],
              leadTimeDays: int(1, requiredIn),
              validUntil: dayIn(int(5, 60)),
              freight: rnd() < 0.5 ? Math.round(rnd() * 200 * scale * 100) / 100 : undefined,
            };
          });
          generated.set(supplierId, lines);
          await enter(rfq.id, supplierId, { lines });
        }

        // The independent computation: from the generated quotes, the ERP's scorecards and its price checks.
        const qtyOf = (lineNo: number) => (lineNo === 1 ? quantity : 5);
        const expected = [];
        for (const supplierId of invited) {
          let landed = 0;
          const lead: number[] = [];
          const history: number[] = [];
          for (const q of generated.get(supplierId) as Any[]) {
            const qty = qtyOf(q.lineNo);
            const applied = q.priceBreaks.filter((b: Any) => b.minQty <= qty)[0];
            const unit = (applied ?? q).unitPrice * rates[q.currency];
            landed += Math.round((unit * qty + (q.freight ?? 0) * rates[q.currency]) * 100) / 100;
            lead.push((requiredIn - q.leadTimeDays) / requiredIn);
            if (q.lineNo === 1) {
              const unitCny = Math.round(unit * 10_000) / 10_000;
              const check = (await h.call('GET', `/api/parts/${f7tc[0].id}/price-check?unitPrice=${unitCny}`)).body;
              history.push(
                check.deviationPct === null ? 0.5 : Math.min(1, Math.max(0, 1 - Math.max(0, check.deviationPct) / 100)),
              );
            } else history.push(0.5);
          }
          const card = (await h.call('GET', `/api/suppliers/${supplierId}/scorecard`)).body;
          expected.push({
            supplierId,
            landed,
            lead: lead.reduce((a, b) => a + b) / lead.length,
            scorecard: card.delivery.onTimePct === null ? 0.5 : card.delivery.onTimePct / 100,
            history: history.reduce((a, b) => a + b) / history.length,
          });
        }
        const cheapest = Math.min(...expected.map((e) => e.landed));
        const sum = weights.cost + weights.leadTime + weights.scorecard + weights.priceHistory;
        const scored = expected
          .map((e) => ({
            ...e,
            score:
              (weights.cost * (cheapest / e.landed) +
                weights.leadTime * e.lead +
                weights.scorecard * e.scorecard +
                weights.priceHistory * e.history) /
              sum,
          }))
          .sort((a, b) => b.score - a.score || a.landed - b.landed);

        const proposal = (await h.call('GET', `/api/rfqs/${rfq.id}/proposal`)).body;
        expect(proposal.weights).toEqual(weights);
        expect(proposal.excluded).toEqual([]);
        // Scores within rounding: two suppliers closer than that may trade places, nothing else.
        proposal.ranking.forEach((r: Any, i: number) => {
          const mine = scored.find((s) => s.supplierId === r.supplier.id) as Any;
          expect(r.landedCostCny, `seed ${seed}`).toBeCloseTo(mine.landed, 1);
          expect(r.score, `seed ${seed}`).toBeCloseTo(mine.score, 3);
          expect(Math.abs(r.score - scored[i].score), `seed ${seed} rank ${i + 1}`).toBeLessThan(1e-3);
          expect(r.why.length).toBeGreaterThanOrEqual(4);
        });
        expect(proposal.recommended.id).toBe(proposal.ranking[0].supplier.id);
      }
    });

    it('flags ¥0 and far-below-median quotes both ways: out of the ranking with the reason, and their award needs a person', async () => {
      const suppliersOfF7tc = [...new Set(f7tc.map((p) => p.supplier.id as number))];
      const [zero, farBelow, atMedian, littleBelow] = suppliersOfF7tc;
      expect(littleBelow).toBeDefined();
      const check = async (unitPrice: number) =>
        (await h.call('GET', `/api/parts/${f7tc[0].id}/price-check?unitPrice=${unitPrice}`)).body;
      const median = (await check(1)).median12m as number;
      expect(median).toBeGreaterThan(0);
      const price = (share: number) => Math.round(median * share * 100) / 100;

      // The price check itself, both ways: far below is flagged with a reason, a little below is fine, above unchanged.
      const low = await check(price(0.35));
      expect(low.severity).toBe('critical');
      expect(low.deviationPct).toBeLessThan(-60);
      expect(low.reason).toMatch(/低.*须人工核实.*\/.*below.*a person must check it/);
      expect((await check(price(0.65))).severity).toBe('warn');
      expect((await check(price(0.9))).severity).toBe('ok');
      expect((await check(price(1.3))).severity).toBe('critical');

      const created = await h.call('POST', '/api/rfqs', {
        body: {
          title: '火花塞询价',
          lines: [{ partId: f7tc[0].id, quantity: 200, requiredDate: dayIn(20) }],
          supplierIds: [zero, farBelow, atMedian, littleBelow],
          replyDeadline: inDays(3).toISOString(),
        },
      });
      const rfq = (await h.call('POST', `/api/rfqs/${created.body.id}/send`, { body: { version: 1 } })).body;
      const quote = (unitPrice: number) => ({
        lines: [{ lineNo: 1, unitPrice, currency: 'CNY', leadTimeDays: 3, validUntil: dayIn(30) }],
      });
      await enter(rfq.id, zero, quote(0));
      await enter(rfq.id, farBelow, quote(price(0.35)));
      await enter(rfq.id, atMedian, quote(price(1)));
      await enter(rfq.id, littleBelow, quote(price(0.9)));

      const proposal = (await h.call('GET', `/api/rfqs/${rfq.id}/proposal`)).body;
      expect(proposal.ranking.map((r: Any) => r.supplier.id)).toEqual([littleBelow, atMedian]);
      expect(proposal.recommended.id).toBe(littleBelow);
      const left = proposal.excluded.map((e: Any) => [e.supplier.id, e.lineNo, e.reason]);
      expect(left).toEqual([
        [zero, 1, 'price_low'],
        [farBelow, 1, 'price_low'],
      ]);
      expect(proposal.excluded[0].detail).toContain('¥0');
      expect(proposal.excluded[1].detail).toMatch(/低 6\d(\.\d)?%/);

      // Awarding the ¥0 quote anyway writes an order that waits for an admin, never an auto-approved one.
      const { version } = (await h.call('GET', `/api/rfqs/${rfq.id}`)).body;
      const closed = await h.call('POST', `/api/rfqs/${rfq.id}/close`, { body: { version } });
      const awarded = await h.call('POST', `/api/rfqs/${rfq.id}/award`, {
        body: { version: closed.body.version, supplierId: zero, submit: true },
      });
      expect(awarded.status, JSON.stringify(awarded.body)).toBe(200);
      const { order } = awarded.body;
      expect(order.status).toBe('pending_approval');
      expect(order.approval.rule).toBe('needs-admin');
      expect(order.approval.reason).toContain('偏低');
      expect(order.lines[0].priceCheck.severity).toBe('critical');
    });

    it('lists every quote left out and why; the validity date is checked again at the award', async () => {
      const [s0, s1, s2, s3, s4, s5, s6] = suppliers.map((s) => s.id as number);
      const rfq = await open([s0, s1, s2, s3, s4, s5, s6], 200, 20);
      const good = { unitPrice: 12, currency: 'CNY', leadTimeDays: 5, validUntil: dayIn(30) };
      await enter(rfq.id, s1, { decline: true, remarks: '暂无货源' });
      await enter(rfq.id, s2, {
        lines: [{ lineNo: 2, ...good, validUntil: dayIn(1) }],
        flags: [{ lineNo: 1, reason: '单价看不清' }],
      });
      await enter(rfq.id, s3, {
        lines: [
          { lineNo: 1, ...good, moq: 500 },
          { lineNo: 2, ...good, leadTimeDays: 40 },
        ],
      });
      await enter(rfq.id, s4, {
        lines: [
          { lineNo: 1, ...good, currency: 'XAF' },
          { lineNo: 2, ...good },
        ],
      });
      await enter(rfq.id, s5, { lines: [1, 2].map((lineNo) => ({ lineNo, ...good })) });
      const { version: current } = (await h.call('GET', `/api/rfqs/${rfq.id}`)).body;
      const closed = await h.call('POST', `/api/rfqs/${rfq.id}/close`, { body: { version: current } });
      expect(closed.status, JSON.stringify(closed.body)).toBe(200);
      await enter(rfq.id, s6, { lines: [1, 2].map((lineNo) => ({ lineNo, ...good })) });
      // The validity of s2's line 2 lapses; the proposal judges it on the day it is asked.
      await lapse(rfq.id, s2, 2);

      const proposal = (await h.call('GET', `/api/rfqs/${rfq.id}/proposal`)).body;
      expect(proposal.ranking.map((r: Any) => r.supplier.id)).toEqual([s5]);
      expect(proposal.recommended.id).toBe(s5);
      const reasons = proposal.excluded.map((e: Any) => [e.supplier.id, e.lineNo, e.reason]);
      expect(reasons).toEqual([
        [s0, null, 'no_reply'],
        [s1, 1, 'declined'],
        [s1, 2, 'declined'],
        [s2, 1, 'unreadable'],
        [s2, 2, 'expired'],
        [s3, 1, 'moq'],
        [s3, 2, 'too_slow'],
        [s4, 1, 'no_rate'],
        [s6, 1, 'late'],
        [s6, 2, 'late'],
      ]);
      expect(proposal.excluded.every((e: Any) => e.detail.length > 0)).toBe(true);
      expect(proposal.asOf).toBe(today());

      // The recommended quote lapses between the proposal and the award: the award refuses it.
      await lapse(rfq.id, s5, 1);
      const version = (await h.call('GET', `/api/rfqs/${rfq.id}`)).body.version;
      const expired = await h.call('POST', `/api/rfqs/${rfq.id}/award`, { body: { version, supplierId: s5 } });
      expect(expired.status).toBe(422);
      expect(expired.body.errors).toContainEqual({
        field: 'lines[0]',
        message: `the quote was valid until ${dayIn(-1)}`,
      });
      expect((await h.call('GET', `/api/rfqs/${rfq.id}/proposal`, { token: h.tokens.zhangwei })).status).toBe(404);
    });
  });
}
