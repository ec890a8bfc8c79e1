import nodemailer from 'nodemailer';
import { expect } from 'vitest';
import type { Erp } from '../../src/erp/index.ts';
import { INJECTED_INSTRUCTION, type SupplierMailDesk } from '../../src/suppliers/index.ts';
import type { ErpHarness } from '../erp/harness.ts';

/**
 * What the RFQ mail tests judge, whichever way the mail travels (the embedded SMTP listener, or a real mail server
 * and IMAP): the quotes against what the simulated suppliers sent, a spoofed sender, an injected instruction, and
 * the award into one purchase order.
 */

// biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted field by field
type Any = any;
export type ErpCall = ErpHarness['call'];
type Db = Erp['database']['db'];

/** The demo suppliers' ids by key (`bosch`, `denso`, …). */
export async function supplierIds(call: ErpCall): Promise<Record<string, number>> {
  const items = (await call('GET', '/api/suppliers')).body.items as Any[];
  return Object.fromEntries(items.map((s) => [s.key, s.id]));
}

/**
 * A draft RFQ for two of Bosch's catalogue parts — the first at `quantity`, the second at its catalogue MOQ so an
 * awarded order's lines are valid — to the suppliers named, replies due in two days (no reminder falls due while a
 * test runs); the project's USD rate is set for the quotes in dollars.
 */
export async function draftRfq(
  call: ErpCall,
  options: {
    suppliers: Record<string, number>;
    invite: string[];
    quantity: number;
    adminToken: string;
    usdRate: number;
  },
): Promise<Any> {
  const parts = (await call('GET', `/api/parts/supplier/${options.suppliers.bosch}`)).body.items as Any[];
  const required = new Date(Date.now() + 20 * 86_400_000).toISOString().slice(0, 10);
  const draft = await call('POST', '/api/rfqs', {
    body: {
      title: `F7TC 火花塞 ${options.quantity} 个`,
      lines: [
        { partId: parts[0].id, quantity: options.quantity, requiredDate: required },
        { partId: parts[1].id, quantity: parts[1].moq, requiredDate: required },
      ],
      supplierIds: options.invite.map((k) => options.suppliers[k]),
      replyDeadline: new Date(Date.now() + 2 * 86_400_000).toISOString(),
    },
  });
  expect(draft.status, JSON.stringify(draft.body)).toBe(201);
  const rate = await call('PUT', '/api/exchange-rates/USD', {
    token: options.adminToken,
    body: { rateToCny: options.usdRate },
  });
  expect(rate.status).toBe(200);
  return draft.body;
}

/** Waits until `check` holds, polling; fails naming what it waited for. */
export async function until(what: string, check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The token of a supplier's invitation to an RFQ: its reply address names it. */
export async function invitationToken(db: Db, rfqId: number, supplierId: number): Promise<string> {
  const row = await db
    .selectFrom('rfq_invitations')
    .select('token')
    .where('rfq_id', '=', rfqId)
    .where('supplier_id', '=', supplierId)
    .executeTakeFirstOrThrow();
  return row.token;
}

/** Orders that name the RFQ (an award writes its number into the order's note). */
export async function ordersOf(db: Db, rfqNo: string): Promise<number> {
  return (await db.selectFrom('orders').select('id').where('note', 'like', `%${rfqNo}%`).execute()).length;
}

export const SPOOFED_SENDER = 'sales@ngk-quotes.example';

/** A reply to an invitation from an address its supplier never registered, quoting a price nobody would. */
export async function sendSpoofedReply(smtpUrl: string, token: string, domain: string): Promise<void> {
  const spoof = nodemailer.createTransport(smtpUrl);
  try {
    await spoof.sendMail({
      from: SPOOFED_SENDER,
      to: `rfq+${token}@${domain}`,
      subject: 'Re: RFQ',
      text: '行号 Line | 单价 Unit price | 币种 Currency\n1 | 0.01 | CNY\n2 | 0.01 | CNY',
    });
  } finally {
    spoof.close();
  }
}

/** The spoofed reply was kept as refused, naming the registered address, and quoted nothing. */
export async function expectSpoofRefused(call: ErpCall, rfqId: number): Promise<void> {
  const messages = (await call('GET', `/api/rfqs/${rfqId}/messages`)).body.items as Any[];
  const refused = messages.filter((m) => m.sender === SPOOFED_SENDER);
  expect(refused).toHaveLength(1);
  expect(refused[0]).toMatchObject({ direction: 'in', outcome: 'refused' });
  expect(refused[0].reason).toContain('registered');
  expect((await call('GET', `/api/rfqs/${rfqId}`)).body.quotes.filter((q: Any) => q.unitPrice === 0.01)).toEqual([]);
}

/**
 * Each quote as the supplier wrote it (the desk's journal keeps what it sent), and in CNY at the asked quantity:
 * the price break that applies, at the project's USD rate.
 */
export function expectQuotesAsSent(
  rfq: Any,
  journal: ReturnType<SupplierMailDesk['journal']>,
  suppliers: Record<string, number>,
  usdRate: number,
): void {
  expect(journal.every((e) => e.answered)).toBe(true);
  for (const entry of journal)
    for (const sent of entry.quotes ?? []) {
      const stored = rfq.quotes.find(
        (q: Any) => q.supplier.id === suppliers[entry.supplier] && q.lineNo === sent.lineNo,
      );
      expect(stored, `${entry.supplier} line ${sent.lineNo}`).toMatchObject({
        status: 'quoted',
        unitPrice: sent.unitPrice,
        currency: sent.currency,
        priceBreaks: sent.priceBreaks,
        moq: sent.moq ?? null,
        leadTimeDays: sent.leadTimeDays,
        source: { kind: 'mail' },
      });
      const line = rfq.lines.find((l: Any) => l.lineNo === sent.lineNo);
      const unit = sent.priceBreaks.filter((b) => b.minQty <= line.quantity).at(-1)?.unitPrice ?? sent.unitPrice;
      const rate = sent.currency === 'USD' ? usdRate : 1;
      expect(stored.effective.unitPriceCny).toBeCloseTo(unit * rate, 4);
      expect(stored.effective.totalCny).toBeCloseTo(unit * rate * line.quantity, 2);
    }
}

/** How each supplier's way of answering reads in the ERP (for the suppliers the RFQ invited). */
export function expectRepliesReadInTheirWays(rfq: Any, suppliers: Record<string, number>): void {
  const lines = rfq.lines.map((l: Any) => l.lineNo);
  const of = (key: string) => rfq.quotes.filter((q: Any) => q.supplier.id === suppliers[key]);
  const invited = (key: string) => rfq.invitations.some((i: Any) => i.supplier.id === suppliers[key]);
  const ways: Record<string, () => void> = {
    denso: () => expect(of('denso')[0].source.attachment).toBe('quotation.xlsx'),
    ngk: () => expect(of('ngk')[0].source.attachment).toBe('quote-template.xlsx'),
    delphi: () => expect(of('delphi')[0].source.attachment).toBe('quote.csv'),
    brembo: () => expect(of('brembo')[0].source.attachment).toBe('quotation.pdf'),
    champion: () => expect(of('champion').map((q: Any) => q.status)).toEqual(lines.map(() => 'declined')),
    mahle: () => expect(of('mahle').map((q: Any) => q.status)).toEqual(lines.map(() => 'flagged')),
    torch: () => expect(of('torch').map((q: Any) => q.lineNo)).toEqual([1]),
  };
  for (const [key, check] of Object.entries(ways)) if (invited(key)) check();
}

/** The instruction a supplier wrote into its reply is stored as what it said, and changed nothing. */
export async function expectInjectionIgnored(call: ErpCall, db: Db, rfqId: number, torchId: number): Promise<void> {
  const rfq = (await call('GET', `/api/rfqs/${rfqId}`)).body;
  expect(rfq.status).toBe('collecting');
  expect(rfq.award).toBeNull();
  const messages = (await call('GET', `/api/rfqs/${rfqId}/messages`)).body.items as Any[];
  const injected = messages.find((m) => m.supplierId === torchId && m.direction === 'in');
  expect(injected.body).toContain(INJECTED_INSTRUCTION);
  expect(await ordersOf(db, rfq.rfqNo)).toBe(0);
}

/**
 * Closes the RFQ and awards it to the supplier, submitting the order to the approval policy (an admin approves it
 * when the policy asks): one purchase order at the quotes' CNY prices, linked to the RFQ, the same on a retry.
 * Returns the order as the award submitted it.
 */
export async function awardIntoOneOrder(
  call: ErpCall,
  db: Db,
  options: { rfqId: number; supplierId: number; adminToken: string; key: string },
): Promise<Any> {
  const open = (await call('GET', `/api/rfqs/${options.rfqId}`)).body;
  const closed =
    open.status === 'closed'
      ? open
      : (await call('POST', `/api/rfqs/${open.id}/close`, { body: { version: open.version } })).body;
  const body = { version: closed.version, supplierId: options.supplierId, submit: true };
  const headers = { 'idempotency-key': options.key };
  const award = await call('POST', `/api/rfqs/${open.id}/award`, { body, headers });
  expect(award.status, JSON.stringify(award.body)).toBe(200);
  const retry = await call('POST', `/api/rfqs/${open.id}/award`, { body, headers });
  expect(retry.body.order.id).toBe(award.body.order.id);
  const order = award.body.order;
  const quotes = open.quotes.filter((q: Any) => q.supplier.id === options.supplierId);
  expect(order.lines.map((l: Any) => l.unitPrice)).toEqual(quotes.map((q: Any) => q.effective.unitPriceCny));
  expect(order.approval.rule).toMatch(/auto-approved|needs-admin/);
  if (order.status === 'pending_approval') {
    const approved = await call('POST', `/api/orders/${order.id}/approve`, {
      token: options.adminToken,
      body: { version: order.version },
    });
    expect(approved.body.status).toBe('approved');
  }
  expect(await ordersOf(db, open.rfqNo)).toBe(1);
  expect((await call('GET', `/api/rfqs/${open.id}`)).body.award).toMatchObject({
    orderId: order.id,
    orderNo: order.orderNo,
    supplierId: options.supplierId,
  });
  return order;
}

/**
 * An RFQ for `quantity` of the first F7TC part, sent on a started stack to five simulated suppliers (a USD rate set,
 * so a dollar quote converts), returned once every invitation was answered or after a minute.
 */
export async function rfqWithReplies(
  erp: (method: string, path: string, body?: unknown, token?: string) => Promise<Any>,
  adminToken: string,
  quantity: number,
): Promise<Any> {
  const suppliers = (await erp('GET', '/suppliers')).items as Any[];
  const part = (await erp('GET', '/parts/search?name=F7TC')).items[0];
  await erp('PUT', '/exchange-rates/USD', { rateToCny: 7.1 }, adminToken);
  const draft = await erp('POST', '/rfqs', {
    title: `F7TC 火花塞 ${quantity} 个`,
    lines: [
      { partId: part.id, quantity, requiredDate: new Date(Date.now() + 16 * 86_400_000).toISOString().slice(0, 10) },
    ],
    supplierIds: ['bosch', 'denso', 'ngk', 'delphi', 'champion'].map((k) => suppliers.find((s) => s.key === k).id),
    replyDeadline: new Date(Date.now() + 86_400_000).toISOString(),
  });
  await erp('POST', `/rfqs/${draft.id}/send`, { version: draft.version });
  // The simulated suppliers answer by mail; the RFQ mail collects their replies.
  const end = Date.now() + 60_000;
  let rfq: Any;
  do {
    await new Promise((r) => setTimeout(r, 500));
    rfq = await erp('GET', `/rfqs/${draft.id}`);
  } while (rfq.invitations.some((i: Any) => i.status === 'invited') && Date.now() < end);
  return rfq;
}
