import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quoteFormPath } from '../../src/api/index.ts';
import { RfqMail } from '../../src/mail/index.ts';
import { SUPPLIER_STYLES, SupplierMailDesk } from '../../src/suppliers/index.ts';
import { freePort } from '../../src/tools/index.ts';
import { type ErpHarness, startHarness } from '../erp/harness.ts';
import {
  awardIntoOneOrder,
  draftRfq,
  expectInjectionIgnored,
  expectQuotesAsSent,
  expectRepliesReadInTheirWays,
  expectSpoofRefused,
  invitationToken,
  sendSpoofedReply,
  supplierIds,
  until,
} from './rfq-judges.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted field by field
type Any = any;

const DOMAIN = 'procura.test';
/** Every simulated supplier is invited, so each way of answering arrives. */
const INVITED = Object.keys(SUPPLIER_STYLES);

describe('requests for quotation by mail: real SMTP both ways, simulated suppliers', () => {
  let h: ErpHarness;
  let mail: RfqMail;
  let desk: SupplierMailDesk;
  let deskDir: string;
  let inboundPort: number;
  let deskPort: number;
  let rfq: Any;
  let suppliers: Record<string, number>;

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
  const messages = async () => (await h.call('GET', `/api/rfqs/${rfq.id}/messages`)).body.items as Any[];

  beforeAll(async () => {
    h = await startHarness({ name: 'sqlite', enabled: true });
    deskDir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-desk-'));
    [inboundPort, deskPort] = [await freePort('127.0.0.1'), await freePort('127.0.0.1')];
    suppliers = await supplierIds(h.call);
    rfq = await draftRfq(h.call, {
      suppliers,
      invite: INVITED,
      quantity: 200,
      adminToken: h.tokens.admin,
      usdRate: 7.1,
    });
    mail = await startMail();
    // Two suppliers answer at once, the rest only after the restart below.
    desk = await startDesk({
      ...Object.fromEntries(INVITED.map((key) => [key, 2_500])),
      bosch: 100,
      champion: 100,
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
    expect(await mail.drain()).toBe(INVITED.length);
    expect(await mail.drain()).toBe(0);
    const now = await get();
    expect(now.status).toBe('collecting');
    expect(now.invitations.every((i: Any) => i.mail.status === 'sent' && i.mail.messageId)).toBe(true);
    await until('the desk to journal every invitation', async () => desk.journal().length === INVITED.length);
    const out = (await messages()).filter((m) => m.direction === 'out');
    expect(out).toHaveLength(INVITED.length);
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
      { lineNo: 2, quantity: rfq.lines[1].quantity },
    ]);
  });

  it('refuses a reply from an address the supplier has not registered', async () => {
    const token = await invitationToken(h.erp.database.db, rfq.id, suppliers.ngk);
    await sendSpoofedReply(`smtp://127.0.0.1:${inboundPort}`, token, DOMAIN);
    await expectSpoofRefused(h.call, rfq.id);
  });

  it('loses no reply and sends no mail twice across a restart mid-collection', async () => {
    await until('the first replies', async () => (await get()).quotes.length >= 2);
    // Both sides stop while five suppliers still owe their answer, and start again on the same data.
    await desk.close();
    await mail.close();
    mail = await startMail();
    desk = await startDesk({});
    expect(await mail.drain()).toBe(0);
    await until(
      'every supplier to answer',
      async () => desk.journal().filter((e) => e.answered).length === INVITED.length,
    );
    await until('every reply recorded', async () =>
      (await get()).invitations.every((i: Any) => i.status !== 'invited'),
    );
    const all = await messages();
    expect(all.filter((m) => m.direction === 'out')).toHaveLength(INVITED.length);
    const replies = all.filter((m) => m.direction === 'in' && m.outcome !== 'refused');
    expect(replies).toHaveLength(INVITED.length);
    expect(new Set(replies.map((m) => m.supplierId)).size).toBe(INVITED.length);
  });

  it('stores each quote as the supplier wrote it, in CNY at the asked quantity; flags what it could not read', async () => {
    const now = await get();
    expectQuotesAsSent(now, desk.journal(), suppliers, 7.1);
    expectRepliesReadInTheirWays(now, suppliers);
    // The instruction written into a reply changed nothing: still collecting, nothing awarded, no order.
    await expectInjectionIgnored(h.call, h.erp.database.db, rfq.id, suppliers.torch);
  });

  it('awards after the close: one purchase order, through the approval policy and an admin, written once', async () => {
    await awardIntoOneOrder(h.call, h.erp.database.db, {
      rfqId: rfq.id,
      supplierId: suppliers.bosch,
      adminToken: h.tokens.admin,
      key: 'award-mail-1',
    });
  });
});
