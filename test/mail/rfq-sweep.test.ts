import type net from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RfqMail } from '../../src/mail/index.ts';
import { type ErpHarness, startHarness } from '../erp/harness.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted field by field
type Any = any;

const HOUR_MS = 3_600_000;

describe('reminders before the deadline and the close at it', () => {
  let h: ErpHarness;
  let relay: SMTPServer;
  let mail: RfqMail;
  let rfq: Any;
  let deadline: Date;
  const delivered: Array<{ to: string; subject: string; inReplyTo?: string }> = [];

  beforeAll(async () => {
    h = await startHarness({ name: 'sqlite', enabled: true });
    // The relay: a real SMTP server on loopback that keeps what it is handed.
    relay = new SMTPServer({
      authOptional: true,
      disabledCommands: ['AUTH', 'STARTTLS'],
      logger: false,
      onData: (stream, _session, callback) => {
        simpleParser(stream).then((m) => {
          delivered.push({ to: m.to ? [m.to].flat()[0].text : '', subject: m.subject ?? '', inReplyTo: m.inReplyTo });
          callback();
        }, callback);
      },
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', () => resolve()));
    const { port } = (relay as unknown as { server: net.Server }).server.address() as net.AddressInfo;
    mail = await new RfqMail(h.erp.services.rfqs, {
      smtpUrl: `smtp://127.0.0.1:${port}`,
      replyDomain: 'procura.test',
      from: 'buyer@procura.test',
      inbound: false,
      intervalMs: 3_600_000,
    }).start();
    const suppliers = (await h.call('GET', '/api/suppliers')).body.items.slice(0, 3);
    const part = (await h.call('GET', '/api/parts/search?name=F7TC')).body.items[0];
    deadline = new Date(Date.now() + 48 * HOUR_MS);
    rfq = (
      await h.call('POST', '/api/rfqs', {
        body: {
          title: '火花塞询价',
          lines: [
            {
              partId: part.id,
              quantity: 200,
              requiredDate: new Date(Date.now() + 20 * 86_400_000).toISOString().slice(0, 10),
            },
          ],
          supplierIds: suppliers.map((s: Any) => s.id),
          replyDeadline: deadline.toISOString(),
        },
      })
    ).body;
    await h.call('POST', `/api/rfqs/${rfq.id}/send`, { body: { version: 1 } });
    expect(await mail.drain()).toBe(3);
  });
  afterAll(async () => {
    await mail?.close();
    await new Promise<void>((resolve) => relay.close(() => resolve()));
    await h?.close();
  });

  const reminders = () => delivered.filter((d) => d.subject.startsWith('提醒 Reminder'));

  it('reminds, once, each supplier without a reply at the configured time before the deadline', async () => {
    const first = rfq.invitations[0].supplier;
    const { token } = await h.erp.database.db
      .selectFrom('rfq_invitations')
      .select('token')
      .where('rfq_id', '=', rfq.id)
      .where('supplier_id', '=', first.id)
      .executeTakeFirstOrThrow();
    const replied = await h.call('POST', `/api/quote-invitations/${token}`, {
      token: null,
      body: { lines: [{ lineNo: 1, unitPrice: 12.5, currency: 'CNY' }] },
    });
    expect(replied.status).toBe(200);

    // Default 24 h before the deadline: at 30 h before, nobody is due yet.
    await mail.sweep(new Date(deadline.getTime() - 30 * HOUR_MS));
    expect(reminders()).toEqual([]);
    // An admin moves the reminder to 36 h before the deadline.
    const settings = (await h.call('GET', '/api/sourcing-settings')).body;
    const put = await h.call('PUT', '/api/sourcing-settings', {
      token: h.tokens.admin,
      body: { version: settings.version, reminderHours: 36 },
    });
    expect(put.status).toBe(200);
    await mail.sweep(new Date(deadline.getTime() - 36 * HOUR_MS - 60_000));
    expect(reminders()).toEqual([]);
    await mail.sweep(new Date(deadline.getTime() - 30 * HOUR_MS));
    const others = rfq.invitations.slice(1).map((i: Any) => i.supplier.email);
    expect(
      reminders()
        .map((r) => r.to)
        .sort(),
    ).toEqual(others.sort());
    const invitationIds = (await h.call('GET', `/api/rfqs/${rfq.id}`)).body.invitations.map(
      (i: Any) => i.mail.messageId,
    );
    expect(reminders().every((r) => invitationIds.slice(1).includes(r.inReplyTo))).toBe(true);
    // Later rounds remind nobody again.
    await mail.sweep(new Date(deadline.getTime() - 2 * HOUR_MS));
    expect(reminders()).toHaveLength(2);
    const got = (await h.call('GET', `/api/rfqs/${rfq.id}`)).body;
    expect(got.status).toBe('collecting');
    expect(got.invitations.map((i: Any) => i.mail.remindedAt !== null)).toEqual([false, true, true]);
    const log = (await h.call('GET', `/api/rfqs/${rfq.id}/messages`)).body.items;
    expect(log.filter((m: Any) => m.subject.startsWith('提醒 Reminder'))).toHaveLength(2);
  });

  it('closes the RFQ at its deadline, audited, and sends nothing more', async () => {
    await mail.sweep(new Date(deadline.getTime() - 1_000));
    expect((await h.call('GET', `/api/rfqs/${rfq.id}`)).body.status).toBe('collecting');
    const before = delivered.length;
    await mail.sweep(new Date(deadline.getTime()));
    const closed = (await h.call('GET', `/api/rfqs/${rfq.id}`)).body;
    expect(closed.status).toBe('closed');
    expect(delivered).toHaveLength(before);
    const audit = await h.call('GET', `/api/audit?entity=rfq&entityId=${rfq.id}`, { token: h.tokens.admin });
    expect(audit.body.items.map((e: Any) => e.action)).toContain('closed_at_deadline');
    await mail.sweep(new Date(deadline.getTime() + HOUR_MS));
    expect((await h.call('GET', `/api/rfqs/${rfq.id}`)).body.version).toBe(closed.version);
  });
});
