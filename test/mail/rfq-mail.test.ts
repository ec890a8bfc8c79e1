import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quoteFormPath } from '../../src/api/index.ts';
import { RfqMail } from '../../src/mail/index.ts';
import { INJECTED_INSTRUCTION, SUPPLIER_STYLES, SupplierMailDesk } from '../../src/suppliers/index.ts';
import { type ErpHarness, startHarness } from '../erp/harness.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted field by field
type Any = any;

const DOMAIN = 'procura.test';
const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
const until = async (what: string, check: () => Promise<boolean>, ms = 20_000) => {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

describe('requests for quotation by mail: real SMTP both ways, simulated suppliers', () => {
  let h: ErpHarness;
  let mail: RfqMail;
  let desk: SupplierMailDesk;
  let deskDir: string;
  let inboundPort: number;
  let deskPort: number;
  let rfq: Any;
  const suppliers: Record<string, number> = {};
  let secondQty: number;

  const startMail = () =>
    new RfqMail(h.erp.services.rfqs, {
      smtpUrl: `smtp://127.0.0.1:${deskPort}`,
      replyDomain: DOMAIN,
      from: 'buyer@procura.test',
      inbound: { host: '127.0.0.1', port: inboundPort },
      intervalMs: 60_000,
      quoteFormUrl: (token) => `https://procura.example${quoteFormPath(token)}`,
    }).start();
  const startDesk = (delays: Record<string, number>) =>
    new SupplierMailDesk({
      dataDir: deskDir,
      replySmtpUrl: `smtp://127.0.0.1:${inboundPort}`,
      port: deskPort,
      delayMs: 100,
      delays,
    }).start();
  const get = async () => (await h.call('GET', `/api/rfqs/${rfq.id}`)).body;
  /** Orders that name the RFQ (an award writes its number into the order's note). */
  const ordersOf = async (rfqNo: string) =>
    (await h.erp.database.db.selectFrom('orders').select('id').where('note', 'like', `%${rfqNo}%`).execute()).length;
  const messages = async () => (await h.call('GET', `/api/rfqs/${rfq.id}/messages`)).body.items as Any[];

  beforeAll(async () => {
    h = await startHarness({ name: 'sqlite', enabled: true });
    deskDir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-desk-'));
    [inboundPort, deskPort] = [await freePort(), await freePort()];
    for (const s of (await h.call('GET', '/api/suppliers')).body.items) suppliers[s.key] = s.id;
    const boschParts = (await h.call('GET', `/api/parts/supplier/${suppliers.bosch}`)).body.items;
    // At the catalogue's MOQ, so the awarded order's line is valid.
    secondQty = boschParts[1].moq;
    const deadline = new Date(Date.now() + 2 * 86_400_000).toISOString();
    const required = new Date(Date.now() + 20 * 86_400_000).toISOString().slice(0, 10);
    rfq = (
      await h.call('POST', '/api/rfqs', {
        body: {
          title: 'F7TC 火花塞 200 个',
          lines: [
            { partId: boschParts[0].id, quantity: 200, requiredDate: required },
            { partId: boschParts[1].id, quantity: secondQty, requiredDate: required },
          ],
          supplierIds: Object.keys(SUPPLIER_STYLES).map((k) => suppliers[k]),
          replyDeadline: deadline,
        },
      })
    ).body;
    await h.call('PUT', '/api/exchange-rates/USD', { token: h.tokens.admin, body: { rateToCny: 7.1 } });
    mail = await startMail();
    // Two suppliers answer at once, the rest only after the restart below.
    desk = await startDesk({
      bosch: 100,
      champion: 100,
      denso: 2_500,
      ngk: 2_500,
      delphi: 2_500,
      torch: 2_500,
      mahle: 2_500,
    });
  });
  afterAll(async () => {
    await desk?.close();
    await mail?.close();
    await h?.close();
  });

  it('mails each invitation once: bilingual, with the lines, the deadline, the template and a reply address', async () => {
    const sent = await h.call('POST', `/api/rfqs/${rfq.id}/send`, { body: { version: rfq.version } });
    expect(sent.body.status).toBe('sent');
    expect(await mail.drain()).toBe(7);
    expect(await mail.drain()).toBe(0);
    const now = await get();
    expect(now.status).toBe('collecting');
    expect(now.invitations.every((i: Any) => i.mail.status === 'sent' && i.mail.messageId)).toBe(true);
    await until('the desk to journal 7 invitations', async () => desk.journal().length === 7);
    const out = (await messages()).filter((m) => m.direction === 'out');
    expect(out).toHaveLength(7);
    expect(out[0].body).toContain('您好');
    expect(out[0].body).toContain('Dear');
    expect(out[0].body).toContain(rfq.rfqNo);
    expect(out[0].body).toContain(String(now.lines[0].quantity));
    expect(out[0].body).toContain(now.replyDeadline.slice(0, 10));
    expect(desk.journal().every((e) => e.replyTo.startsWith('rfq+') && e.replyTo.endsWith(`@${DOMAIN}`))).toBe(true);
    // Each mail links the quote form of its own invitation: the token of its reply address.
    const formTokens = out.map(
      (m) => /在线报价 \/ quote online: https:\/\/procura\.example\/quote\/([0-9a-f]{24})/.exec(m.body)?.[1],
    );
    expect(formTokens.sort()).toEqual(
      desk
        .journal()
        .map((e) => /^rfq\+([0-9a-f]{24})@/.exec(e.replyTo)?.[1])
        .sort(),
    );
    // The suppliers read the lines from the attached template.
    expect(desk.journal()[0].lines).toEqual([
      { lineNo: 1, quantity: 200 },
      { lineNo: 2, quantity: secondQty },
    ]);
  });

  it('refuses a reply from an address the supplier has not registered', async () => {
    const { token } = await h.erp.database.db
      .selectFrom('rfq_invitations')
      .select('token')
      .where('rfq_id', '=', rfq.id)
      .where('supplier_id', '=', suppliers.ngk)
      .executeTakeFirstOrThrow();
    const spoof = nodemailer.createTransport(`smtp://127.0.0.1:${inboundPort}`);
    await spoof.sendMail({
      from: 'sales@ngk-quotes.example',
      to: `rfq+${token}@${DOMAIN}`,
      subject: 'Re: RFQ',
      text: '行号 Line | 单价 Unit price | 币种 Currency\n1 | 0.01 | CNY\n2 | 0.01 | CNY',
    });
    spoof.close();
    const refused = (await messages()).find((m) => m.sender === 'sales@ngk-quotes.example');
    expect(refused).toMatchObject({ direction: 'in', outcome: 'refused' });
    expect(refused.reason).toContain('registered');
    expect((await get()).quotes.filter((q: Any) => q.unitPrice === 0.01)).toEqual([]);
  });

  it('loses no reply and sends no mail twice across a restart mid-collection', async () => {
    await until('the first replies', async () => (await get()).quotes.length >= 2);
    // Both sides stop while five suppliers still owe their answer, and start again on the same data.
    await desk.close();
    await mail.close();
    mail = await startMail();
    desk = await startDesk({});
    expect(await mail.drain()).toBe(0);
    await until('every supplier to answer', async () => desk.journal().filter((e) => e.answered).length === 7);
    await until('every reply recorded', async () =>
      (await get()).invitations.every((i: Any) => i.status !== 'invited'),
    );
    const all = await messages();
    expect(all.filter((m) => m.direction === 'out')).toHaveLength(7);
    const replies = all.filter((m) => m.direction === 'in' && m.outcome !== 'refused');
    expect(replies).toHaveLength(7);
    expect(new Set(replies.map((m) => m.supplierId)).size).toBe(7);
  });

  it('stores each quote as the supplier wrote it, in CNY at the asked quantity; flags what it could not read', async () => {
    const now = await get();
    const byKey = (key: string) => now.quotes.filter((q: Any) => q.supplier.id === suppliers[key]);
    for (const entry of desk.journal())
      for (const sent of entry.quotes ?? []) {
        const stored = byKey(entry.supplier).find((q: Any) => q.lineNo === sent.lineNo);
        expect(stored, `${entry.supplier} line ${sent.lineNo}`).toMatchObject({
          status: 'quoted',
          unitPrice: sent.unitPrice,
          currency: sent.currency,
          priceBreaks: sent.priceBreaks,
          moq: sent.moq ?? null,
          leadTimeDays: sent.leadTimeDays,
          source: { kind: 'mail' },
        });
        const line = now.lines.find((l: Any) => l.lineNo === sent.lineNo);
        const unit = sent.priceBreaks.filter((b) => b.minQty <= line.quantity).at(-1)?.unitPrice ?? sent.unitPrice;
        const rate = sent.currency === 'USD' ? 7.1 : 1;
        expect(stored.effective.unitPriceCny).toBeCloseTo(unit * rate, 4);
        expect(stored.effective.totalCny).toBeCloseTo(unit * rate * line.quantity, 2);
      }
    expect(byKey('denso')[0].source.attachment).toBe('quotation.xlsx');
    expect(byKey('ngk')[0].source.attachment).toBe('quote-template.xlsx');
    expect(byKey('delphi')[0].source.attachment).toBe('quote.csv');
    expect(byKey('champion').map((q: Any) => q.status)).toEqual(['declined', 'declined']);
    expect(byKey('mahle').map((q: Any) => q.status)).toEqual(['flagged', 'flagged']);
    expect(byKey('torch').map((q: Any) => q.lineNo)).toEqual([1]);
    // The instruction written into a reply changed nothing: still collecting, nothing awarded, no order.
    expect(now.status).toBe('collecting');
    expect(now.award).toBeNull();
    const injected = (await messages()).find((m) => m.supplierId === suppliers.torch && m.direction === 'in');
    expect(injected.body).toContain(INJECTED_INSTRUCTION);
    expect(await ordersOf(rfq.rfqNo)).toBe(0);
  });

  it('awards after the close: one purchase order, through the approval policy and an admin, written once', async () => {
    const open = await get();
    const closed = (await h.call('POST', `/api/rfqs/${open.id}/close`, { body: { version: open.version } })).body;
    const body = { version: closed.version, supplierId: suppliers.bosch, submit: true };
    const award = await h.call('POST', `/api/rfqs/${open.id}/award`, {
      body,
      headers: { 'idempotency-key': 'award-mail-1' },
    });
    expect(award.status, JSON.stringify(award.body)).toBe(200);
    const retry = await h.call('POST', `/api/rfqs/${open.id}/award`, {
      body,
      headers: { 'idempotency-key': 'award-mail-1' },
    });
    expect(retry.body.order.id).toBe(award.body.order.id);
    const order = award.body.order;
    const quotes = open.quotes.filter((q: Any) => q.supplier.id === suppliers.bosch);
    expect(order.lines.map((l: Any) => l.unitPrice)).toEqual(quotes.map((q: Any) => q.effective.unitPriceCny));
    expect(order.approval.rule).toMatch(/auto-approved|needs-admin/);
    if (order.status === 'pending_approval') {
      const approved = await h.call('POST', `/api/orders/${order.id}/approve`, {
        token: h.tokens.admin,
        body: { version: order.version },
      });
      expect(approved.body.status).toBe('approved');
    }
    expect(await ordersOf(open.rfqNo)).toBe(1);
    expect((await get()).award).toMatchObject({
      orderId: order.id,
      orderNo: order.orderNo,
      supplierId: suppliers.bosch,
    });
  });
});
