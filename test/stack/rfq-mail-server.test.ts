import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ImapFlow } from 'imapflow';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StartedStack, startStack } from '../../bench/eval/stack.ts';
import { DEMO_SUPPLIERS } from '../../src/erp/index.ts';
import { imapMailbox, MAX_MESSAGE_BYTES, shownImapUrl } from '../../src/mail/index.ts';
import { SupplierMailDesk } from '../../src/suppliers/index.ts';
import { jsonCall } from '../http-call.ts';
import {
  awardIntoOneOrder,
  draftRfq,
  type ErpCall,
  expectInjectionIgnored,
  expectQuotesAsSent,
  expectRepliesReadInTheirWays,
  expectSpoofRefused,
  invitationToken,
  sendSpoofedReply,
  supplierIds,
  until,
} from '../mail/rfq-judges.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted field by field
type Any = any;

// The mail server .ci/mail-server.sh starts (Debian's postfix and dovecot on loopback) and the addresses it prints.
const SMTP_URL = process.env.PROCURA_TEST_SMTP_URL ?? '';
const IMAP_URL = process.env.PROCURA_TEST_IMAP_URL ?? '';
const DOMAIN = process.env.PROCURA_TEST_MAIL_DOMAIN ?? '';
/** Where the mail server relays every other domain: the simulated suppliers' SMTP desk listens there. */
const SUPPLIER_PORT = Number(process.env.PROCURA_TEST_SUPPLIER_SMTP_PORT);
/** postfix's log: one `message-id=` line for each message it accepted. */
const MAIL_LOG = process.env.PROCURA_TEST_MAIL_LOG ?? '';
const enabled = Boolean(SMTP_URL && IMAP_URL && DOMAIN && SUPPLIER_PORT && MAIL_LOG);
if (!enabled)
  console.warn(
    '[rfq mail server] PROCURA_TEST_SMTP_URL, PROCURA_TEST_IMAP_URL, PROCURA_TEST_MAIL_DOMAIN, PROCURA_TEST_SUPPLIER_SMTP_PORT and PROCURA_TEST_MAIL_LOG are not all set (`eval "$(.ci/mail-server.sh)"` starts postfix and dovecot and sets them): the suite against a real mail server is skipped',
  );

/**
 * Six suppliers, each answering its own way: a body table with price breaks (Bosch), its own spreadsheet in USD
 * (Denso), a CSV with a MOQ above the asked quantity (Delphi), a text PDF (Brembo), a decline (Champion), and a
 * partial quote carrying an instruction to the agent (Torch). Bosch and Champion answer at once, the others only
 * after Procura has been stopped.
 */
const INVITED = ['bosch', 'denso', 'delphi', 'brembo', 'champion', 'torch'];
const LATE_MS = 8_000;
const BOSCH_EMAIL = DEMO_SUPPLIERS.find((s) => s.key === 'bosch')?.contactEmail;
const USD_RATE = 7.1;

/** The test's own session on the mailbox Procura reads. */
async function onMailbox<T>(use: (client: ImapFlow, messages: number) => Promise<T>): Promise<T> {
  const { host, port, secure, user, pass, mailbox } = imapMailbox(IMAP_URL);
  const client = new ImapFlow({ host, port, secure, auth: { user, pass }, logger: false });
  await client.connect();
  try {
    const opened = await client.mailboxOpen(mailbox);
    return await use(client, opened.exists);
  } finally {
    await client.logout();
  }
}

/** Every message in the mailbox: who sent it, what it answers, and whether it was marked seen. */
const mailboxMessages = () =>
  onMailbox(async (client, count) => {
    const found: Array<{ from: string; subject: string; inReplyTo: string; seen: boolean }> = [];
    if (!count) return found;
    for await (const m of client.fetch('1:*', { envelope: true, flags: true }))
      found.push({
        from: m.envelope?.from?.[0]?.address ?? '',
        subject: m.envelope?.subject ?? '',
        inReplyTo: m.envelope?.inReplyTo ?? '',
        seen: Boolean(m.flags?.has('\\Seen')),
      });
    return found;
  });

/** How many times postfix accepted a message under this Message-ID. */
const acceptedTimes = (messageId: string) =>
  fs
    .readFileSync(MAIL_LOG, 'utf8')
    .split('\n')
    .filter((line) => line.includes(`message-id=${messageId}`)).length;

/**
 * Requests for quotation through a real mail server: the started stack mails the invitations through postfix
 * (`SMTP_URL`), postfix relays them to the simulated suppliers, their replies go back through postfix into the
 * dovecot mailbox of the reply domain, and Procura reads them over IMAP (`PROCURA_IMAP_URL`).
 */
describe.skipIf(!enabled)('requests for quotation through postfix and dovecot', { timeout: 90_000 }, () => {
  let stack: StartedStack;
  let call: ErpCall;
  let desk: SupplierMailDesk;
  let dataDir: string;
  let deskDir: string;
  let suppliers: Record<string, number>;
  let rfq: Any;
  const get = async () => (await call('GET', `/api/rfqs/${rfq.id}`)).body;
  const messages = async () => (await call('GET', `/api/rfqs/${rfq.id}/messages`)).body.items as Any[];
  const start = async () => {
    stack = await startStack({ dataDir, settings: { smtpUrl: SMTP_URL, imapUrl: IMAP_URL, mailDomain: DOMAIN } });
    call = jsonCall(new URL(stack.erpUrl).origin, stack.tokens.laoxiao);
  };

  beforeAll(async () => {
    // The mailbox is this suite's: what an earlier run left there goes.
    await onMailbox(async (client, count) => {
      if (count) await client.messageDelete('1:*');
    });
    deskDir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-desk-'));
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-mail-server-'));
    desk = await new SupplierMailDesk({
      dataDir: deskDir,
      replySmtpUrl: SMTP_URL,
      port: SUPPLIER_PORT,
      delays: { bosch: 100, champion: 100, denso: LATE_MS, delphi: LATE_MS, brembo: LATE_MS, torch: LATE_MS },
    }).start();
    await start();
    suppliers = await supplierIds(call);
    // Over the buyer's approval limit: the awarded order goes to an admin.
    rfq = await draftRfq(call, {
      suppliers,
      invite: INVITED,
      quantity: 800,
      adminToken: stack.tokens.admin,
      usdRate: USD_RATE,
    });
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
    await desk?.close();
    for (const dir of [dataDir, deskDir]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('mails each invitation once through the mail server to the suppliers, and says where replies are read', async () => {
    const part = stack.parts.get('RFQ mail');
    expect(part?.url).toBe(shownImapUrl(IMAP_URL));
    expect(part?.url).not.toContain(imapMailbox(IMAP_URL).pass);
    expect(part?.detail).toMatch(/replies read over IMAP/);
    const sent = await call('POST', `/api/rfqs/${rfq.id}/send`, { body: { version: rfq.version } });
    expect(sent.body.status).toBe('sent');
    await until('the invitations to be mailed', async () =>
      (await get()).invitations.every((i: Any) => i.mail.status === 'sent'),
    );
    await until('the suppliers to receive them through postfix', async () => desk.journal().length === INVITED.length);
    for (const i of (await get()).invitations) expect(acceptedTimes(i.mail.messageId), i.supplier.nameEn).toBe(1);
  });

  it('loses no reply and records none twice across a restart mid-collection; sends no invitation twice', async () => {
    await until('the first replies', async () => (await get()).invitations.some((i: Any) => i.status !== 'invited'));
    await stack.close();
    const stoppedAt = new Date().toISOString();
    // As if Procura had stopped after storing each reply but before marking it: every message is unread again.
    await onMailbox((client) => client.messageFlagsRemove('1:*', ['\\Seen']));
    await until('every supplier to answer while Procura is stopped', async () =>
      desk.journal().every((e) => e.answered),
    );
    await start();
    await until('every reply recorded', async () =>
      (await get()).invitations.every((i: Any) => i.status !== 'invited'),
    );
    const all = await messages();
    const replies = all.filter((m) => m.direction === 'in' && m.outcome !== 'refused');
    expect(replies.map((m) => m.supplierId).sort()).toEqual(INVITED.map((k) => suppliers[k]).sort());
    // Mid-collection indeed: some replies were read only after the restart.
    expect(replies.filter((m) => m.at > stoppedAt).length).toBeGreaterThan(0);
    expect(all.filter((m) => m.direction === 'out')).toHaveLength(INVITED.length);
    const now = await get();
    for (const i of now.invitations) expect(acceptedTimes(i.mail.messageId), i.supplier.nameEn).toBe(1);
    // In the mailbox: each supplier's reply once, and the spoof; every one marked read once stored.
    await until('every message marked read', async () => (await mailboxMessages()).every((m) => m.seen));
    const inbox = await mailboxMessages();
    const invitationIds = now.invitations.map((i: Any) => i.mail.messageId);
    expect(inbox.filter((m) => invitationIds.includes(m.inReplyTo))).toHaveLength(INVITED.length);
    expect(inbox).toHaveLength(INVITED.length);
  });

  it('refuses a reply from an address the supplier has not registered', async () => {
    const token = await invitationToken(stack.erp.database.db, rfq.id, suppliers.bosch);
    await sendSpoofedReply(SMTP_URL, token, DOMAIN);
    await until('the spoofed reply to be read', async () =>
      (await messages()).some((m) => m.direction === 'in' && m.outcome === 'refused'),
    );
    await expectSpoofRefused(call, rfq.id);
  });

  it('does not read a message over the size limit: marked as handled, recorded nowhere', async () => {
    const token = await invitationToken(stack.erp.database.db, rfq.id, suppliers.bosch);
    const raw = [
      `From: ${BOSCH_EMAIL}`,
      `To: rfq+${token}@${DOMAIN}`,
      'Subject: Re: RFQ (oversized)',
      `Message-ID: <oversized-${token}@${DOMAIN}>`,
      'Content-Type: text/plain; charset=utf-8',
      '',
      '行号 Line | 单价 Unit price | 币种 Currency',
      '1 | 0.02 | CNY',
      // Past the 15 MiB a reply may have; a relay would refuse it, so it is put straight into the mailbox.
      'x'
        .repeat(76)
        .concat('\r\n')
        .repeat(Math.ceil((MAX_MESSAGE_BYTES + 1024) / 78)),
    ].join('\r\n');
    await onMailbox((client) => client.append(imapMailbox(IMAP_URL).mailbox, raw));
    await until('the oversized message to be marked', async () =>
      (await mailboxMessages()).some((m) => m.subject.includes('oversized') && m.seen),
    );
    expect((await messages()).filter((m) => m.subject.includes('oversized'))).toEqual([]);
    expect((await get()).quotes.filter((q: Any) => q.unitPrice === 0.02)).toEqual([]);
  });

  it('shows each quote as the supplier wrote it, in CNY at the asked quantity; an injected instruction changes nothing', async () => {
    const now = await get();
    expectQuotesAsSent(now, desk.journal(), suppliers, USD_RATE);
    expectRepliesReadInTheirWays(now, suppliers);
    await expectInjectionIgnored(call, stack.erp.database.db, rfq.id, suppliers.torch);
  });

  it('keeps a reply that comes after the close, marked late and left out of the proposal', async () => {
    const open = await get();
    const closed = await call('POST', `/api/rfqs/${rfq.id}/close`, { body: { version: open.version } });
    expect(closed.body.status).toBe('closed');
    const before = await get();
    // Champion declined; after the close it thinks again and quotes, from its registered address.
    const token = await invitationToken(stack.erp.database.db, rfq.id, suppliers.champion);
    const champion = DEMO_SUPPLIERS.find((s) => s.key === 'champion')?.contactEmail;
    const late = nodemailer.createTransport(SMTP_URL);
    try {
      await late.sendMail({
        from: champion,
        to: `rfq+${token}@${DOMAIN}`,
        subject: 'Re: RFQ — 重新报价 / revised',
        text: [
          '行号 Line | 单价 Unit price | 币种 Currency',
          ...before.lines.map((l: Any) => `${l.lineNo} | 9.90 | CNY`),
        ].join('\n'),
      });
    } finally {
      late.close();
    }
    await until('the late reply to be recorded', async () =>
      (await get()).quotes.some((q: Any) => q.supplier.id === suppliers.champion && q.late),
    );
    const now = await get();
    const quotes = now.quotes.filter((q: Any) => q.supplier.id === suppliers.champion);
    expect(quotes.map((q: Any) => [q.lineNo, q.unitPrice, q.late])).toEqual(
      before.lines.map((l: Any) => [l.lineNo, 9.9, true]),
    );
    expect(now.status).toBe('closed');
    expect(now.award).toBeNull();
    const proposal = (await call('GET', `/api/rfqs/${rfq.id}/proposal`)).body;
    const excluded = proposal.excluded.filter((e: Any) => e.supplier.id === suppliers.champion);
    expect(excluded.map((e: Any) => e.reason)).toEqual(before.lines.map(() => 'late'));
  });

  it('awards after the close into one purchase order, approved by an admin, linked to the RFQ', async () => {
    const order = await awardIntoOneOrder(call, stack.erp.database.db, {
      rfqId: rfq.id,
      supplierId: suppliers.bosch,
      adminToken: stack.tokens.admin,
      key: 'award-mail-server-1',
    });
    expect(order.status).toBe('pending_approval');
    expect(order.approval.rule).toBe('needs-admin');
  });
});
