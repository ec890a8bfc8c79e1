import type { Socket } from 'node:net';
import nodemailer, { type SendMailOptions } from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import type { Rfq, RfqBook, RfqMessage } from '../erp/index.ts';
import type { Logger } from '../shared/index.ts';
import { ImapInbox } from './imap-inbox.ts';
import { invitationMessageId, MAX_MESSAGE_BYTES, receiveReply, reminderMessageId, replyAddress } from './inbound.ts';
import { replyTemplate } from './quote-reader.ts';

/** How long a refused oversized message's connection stays half-open for its 552 answer to be read. */
const OVERSIZED_GRACE_MS = 2_000;

export interface RfqMailOptions {
  /** The relay invitations go out through, e.g. `smtp://user:pass@smtp.example.com:587`. */
  smtpUrl: string;
  /** The domain of reply addresses (`rfq+<token>@domain`): mail to it must reach the inbound listener or mailbox. */
  replyDomain: string;
  from: string;
  /** The quote form of an invitation (a page under the chat API). */
  quoteFormUrl?: (token: string) => string;
  /**
   * Where replies come in: the embedded SMTP listener (default 127.0.0.1:2525), an IMAP mailbox the relay delivers
   * them to (`imaps://user:pass@host:993/INBOX`), or `false` for neither.
   */
  inbound?: { host: string; port: number } | { imapUrl: string; pollMs?: number } | false;
  /** How often the outbox is drained and deadlines are swept (ms). */
  intervalMs?: number;
  log?: Logger;
}

const fmtDeadline = (iso: string) => `${iso.replace('T', ' ').slice(0, 16)} UTC`;

/** The invitation mail: Chinese then English, the lines as a table, the deadline, the reply template and form link. */
export function invitationText(rfq: Rfq, supplierName: string, formUrl?: string): { text: string; html: string } {
  const rows = rfq.lines.map((l) => [l.lineNo, l.item, l.quantity, l.unit, l.requiredDate]);
  const header = ['行号 Line', '物料 Item', '数量 Qty', '单位 Unit', '需求日期 Required'];
  const text = [
    `${supplierName}：`,
    `您好！我司就以下物料询价（${rfq.rfqNo}），请在 ${fmtDeadline(rfq.replyDeadline)} 前回复报价（币种 ${rfq.currency}，贸易术语 ${rfq.incoterm}）。`,
    '请直接填写附件报价模板回复本邮件，或在正文中按下表列出：行号、单价、币种、阶梯价、MOQ、交期(天)、有效期、运费、备注。',
    '',
    `Dear ${supplierName}, please quote the lines below (${rfq.rfqNo}) by ${fmtDeadline(rfq.replyDeadline)}, in ${rfq.currency}, ${rfq.incoterm}.`,
    'Reply to this mail with the attached template filled in, or list per line: line, unit price, currency, price breaks, MOQ, lead time (days), validity, freight, remarks.',
    '',
    header.join(' | '),
    ...rows.map((r) => r.join(' | ')),
    '',
    ...(formUrl ? [`在线报价 / quote online: ${formUrl}`] : []),
  ].join('\n');
  const cell = (v: unknown) => String(v).replace(/[&<>]/g, (c) => `&#${c.charCodeAt(0)};`);
  const html = `<p>${cell(text.split('\n\n')[0]).replace(/\n/g, '<br>')}</p><table border="1" cellpadding="4"><tr>${header.map((h) => `<th>${h}</th>`).join('')}</tr>${rows.map((r) => `<tr>${r.map((v) => `<td>${cell(v)}</td>`).join('')}</tr>`).join('')}</table>${formUrl ? `<p><a href="${cell(formUrl)}">在线报价 / quote online</a></p>` : ''}`;
  return { text, html };
}

/**
 * RFQ mail: drains the ERP's outbox through the SMTP relay (each invitation once, under a Message-ID that never
 * changes, so a resend after a crash is recognisable as the same mail), reminds suppliers who have not answered,
 * closes RFQs at their deadline, and takes replies on an embedded SMTP listener or from an IMAP mailbox.
 */
export class RfqMail {
  private readonly transport;
  private server?: SMTPServer;
  private inbox?: ImapInbox;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  /** Where the embedded listener listens, once started. */
  inboundAddress?: { host: string; port: number };
  /** The IMAP mailbox replies are read from, once started (without its password). */
  mailboxAddress?: string;

  constructor(
    private readonly rfqs: RfqBook,
    private readonly options: RfqMailOptions,
  ) {
    this.transport = nodemailer.createTransport(options.smtpUrl);
  }

  async start(): Promise<this> {
    const inbound = this.options.inbound ?? { host: '127.0.0.1', port: 2525 };
    if (inbound && 'imapUrl' in inbound) {
      this.inbox = await new ImapInbox(this.rfqs, {
        url: inbound.imapUrl,
        pollMs: inbound.pollMs,
        log: this.options.log,
      }).start();
      this.mailboxAddress = this.inbox.address;
    } else if (inbound) {
      const { host, port } = inbound;
      this.server = new SMTPServer({
        authOptional: true,
        disabledCommands: ['AUTH', 'STARTTLS'],
        size: MAX_MESSAGE_BYTES,
        logger: false,
        onRcptTo: (address, _session, callback) =>
          address.address.toLowerCase().endsWith(`@${this.options.replyDomain.toLowerCase()}`)
            ? callback()
            : callback(Object.assign(new Error('relay denied'), { responseCode: 550 })),
        onData: (stream, session, callback) => {
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => {
            // Past the limit nothing more is read or kept: the sender is told and the connection closed, instead of
            // draining (and buffering) the rest of an oversized message.
            if ((stream as { sizeExceeded?: boolean }).sizeExceeded) return this.refuseOversized(stream, session);
            chunks.push(c);
          });
          stream.on('end', () => {
            if ((stream as { sizeExceeded?: boolean }).sizeExceeded)
              return callback(Object.assign(new Error('message too large'), { responseCode: 552 }));
            // Accepted only once it is stored: a crash before this answer makes the sender try again.
            receiveReply(this.rfqs, Buffer.concat(chunks), {
              recipients: session.envelope.rcptTo.map((r) => r.address),
            }).then(
              (result) => {
                this.options.log?.info({ result }, 'rfq reply');
                callback();
              },
              (error: Error) => {
                this.options.log?.warn({ err: error }, 'rfq reply failed');
                callback(Object.assign(new Error('try again later'), { responseCode: 451 }));
              },
            );
          });
        },
      });
      await new Promise<void>((resolve, reject) => {
        this.server?.once('error', reject);
        this.server?.listen(port, host, () => resolve());
      });
      const address = (this.server as unknown as { server: import('node:net').Server }).server.address();
      this.inboundAddress = { host, port: typeof address === 'object' && address ? address.port : port };
    }
    const every = this.options.intervalMs ?? 5_000;
    this.timer = setInterval(() => void this.tick(), every);
    this.timer.unref();
    return this;
  }

  /** One round: outbox, deadlines and reminders. Rounds never overlap. */
  tick(): Promise<void> {
    this.running ??= this.round().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /**
   * Ends the SMTP session of a message that went past the size limit: the 552 answer, then the connection closed
   * without reading further. smtp-server would otherwise drain the rest of the message before answering.
   */
  private refuseOversized(stream: NodeJS.ReadableStream, session: { id: string }) {
    stream.removeAllListeners('data');
    const connections = (this.server as unknown as { connections: Set<{ session: { id: string }; _socket: Socket }> })
      .connections;
    const socket = [...connections].find((c) => c.session.id === session.id)?._socket;
    if (!socket || socket.destroyed) return;
    socket.unpipe();
    socket.pause();
    socket.end(`552 5.3.4 Error: message exceeds fixed maximum message size ${MAX_MESSAGE_BYTES}\r\n`);
    // Destroyed only after a grace period: a reset right away could discard the answer before the sender reads it.
    setTimeout(() => socket.destroy(), OVERSIZED_GRACE_MS).unref();
    this.options.log?.warn({ session: session.id }, 'rfq mail over the size limit: connection closed');
  }

  private async round() {
    try {
      await this.drain();
      await this.sweep();
    } catch (error) {
      this.options.log?.warn({ err: error }, 'rfq mail round failed');
    }
  }

  /** Sends every queued invitation, each once. */
  async drain(): Promise<number> {
    let sent = 0;
    for (const token of await this.rfqs.queuedMail()) {
      const invitation = await this.rfqs.invitation(token);
      if (invitation.mail.status !== 'queued') continue;
      const messageId = invitationMessageId(token, this.options.replyDomain);
      const formUrl = this.options.quoteFormUrl?.(token);
      const { text, html } = invitationText(invitation.rfq, invitation.supplier.nameZh, formUrl);
      const subject = `询价 RFQ ${invitation.rfq.rfqNo}：${invitation.rfq.title}`;
      const message = await this.mailSupplier(token, invitation.supplier.email, {
        subject,
        messageId,
        text,
        html,
        attachments: [
          {
            filename: `${invitation.rfq.rfqNo}-quote.xlsx`,
            content: await replyTemplate(invitation.rfq),
            contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
          },
        ],
      });
      if (await this.rfqs.markMailed(token, message)) sent++;
    }
    return sent;
  }

  /** Closes RFQs past their deadline and reminds, once, suppliers who have not answered close to it. */
  async sweep(now = new Date()): Promise<void> {
    const { remind } = await this.rfqs.sweep(now);
    for (const token of remind) {
      const invitation = await this.rfqs.invitation(token);
      const messageId = reminderMessageId(token, this.options.replyDomain);
      const subject = `提醒 Reminder：询价 RFQ ${invitation.rfq.rfqNo} 将于 ${fmtDeadline(invitation.rfq.replyDeadline)} 截止`;
      const text = `${invitation.supplier.nameZh}：询价 ${invitation.rfq.rfqNo} 尚未收到您的报价，截止时间 ${fmtDeadline(invitation.rfq.replyDeadline)}。\nWe have not yet received your quote for ${invitation.rfq.rfqNo}; it closes ${fmtDeadline(invitation.rfq.replyDeadline)}.`;
      const message = await this.mailSupplier(token, invitation.supplier.email, {
        subject,
        messageId,
        inReplyTo: invitationMessageId(token, this.options.replyDomain),
        text,
      });
      await this.rfqs.markReminded(token, message);
    }
  }

  /**
   * Sends one mail of an invitation to its supplier, with replies addressed to that invitation, and returns the mail
   * as the RFQ's message log keeps it: its text, without attachments.
   */
  private async mailSupplier(
    token: string,
    to: string,
    mail: { subject: string; messageId: string; text: string } & Pick<
      SendMailOptions,
      'html' | 'inReplyTo' | 'attachments'
    >,
  ): Promise<RfqMessage> {
    await this.transport.sendMail({
      from: this.options.from,
      to,
      replyTo: replyAddress(token, this.options.replyDomain),
      ...mail,
    });
    return {
      messageId: mail.messageId,
      direction: 'out',
      sender: this.options.from,
      subject: mail.subject,
      outcome: 'sent',
      body: mail.text,
      attachments: [],
    };
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
    await this.inbox?.close();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.transport.close();
  }
}
