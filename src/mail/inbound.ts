import { createHash } from 'node:crypto';
import { simpleParser } from 'mailparser';
import type { contract, RfqBook, RfqMessage } from '../erp/index.ts';
import { csvRows, htmlRows, pdfText, readQuoteRows, textRows, xlsxRows } from './quote-reader.ts';

/** Attachments read as quotes; anything else is listed and ignored. */
const READABLE = [
  { kind: 'xlsx', types: ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'], ext: /\.xlsx$/i },
  { kind: 'csv', types: ['text/csv', 'application/csv'], ext: /\.csv$/i },
  { kind: 'pdf', types: ['application/pdf'], ext: /\.pdf$/i },
] as const;
export const MAX_ATTACHMENT_BYTES = 5 * 1024 * 1024;
export const MAX_MESSAGE_BYTES = 15 * 1024 * 1024;
const MAX_ATTACHMENTS = 5;
/** Words a supplier declines with, when the reply quotes nothing. */
const DECLINE = /无法报价|不予报价|不参与|谢绝|婉拒|decline|regret|unable to quote|cannot quote|not able to quote/i;

/** The reply address of an invitation: its token names the RFQ and the supplier. */
export const replyAddress = (token: string, domain: string) => `rfq+${token}@${domain}`;
/** The Message-ID an invitation goes out under: a reply's In-Reply-To leads back to it, and it never changes. */
export const invitationMessageId = (token: string, domain: string) => `<rfq-${token}@${domain}>`;
export const reminderMessageId = (token: string, domain: string) => `<rfq-${token}-reminder@${domain}>`;

const TOKEN_IN_ADDRESS = /rfq\+([0-9a-f]{24})@/i;
const TOKEN_IN_MESSAGE_ID = /<rfq-([0-9a-f]{24})(?:-reminder)?@/i;

export interface InboundResult {
  outcome: 'recorded' | 'duplicate' | 'refused' | 'flagged';
  reason?: string;
  rfqId?: number;
}

/**
 * One incoming mail, untrusted: it counts only for the invitation its address (or In-Reply-To) names, only when it
 * comes from that supplier's registered address, and only for the figures read from it with confidence — quote
 * tables in XLSX/CSV attachments, text PDFs or the body. What cannot be read is flagged for the buyer; nothing else in
 * the mail is acted on (it cannot close, award or approve anything). Each Message-ID is handled once.
 */
export async function receiveReply(
  rfqs: RfqBook,
  raw: Buffer,
  envelope: { recipients?: string[] } = {},
): Promise<InboundResult> {
  if (raw.length > MAX_MESSAGE_BYTES)
    return { outcome: 'refused', reason: `邮件超过 ${MAX_MESSAGE_BYTES / 1024 / 1024} MiB / message too large` };
  const mail = await simpleParser(raw, { skipImageLinks: true, skipTextLinks: true });
  const messageId = mail.messageId ?? `<sha256-${createHash('sha256').update(raw).digest('hex')}@inbound>`;
  const sender = (mail.from?.value[0]?.address ?? '').toLowerCase();
  const addresses = [
    ...(envelope.recipients ?? []),
    ...[mail.to, mail.cc].flatMap((a) =>
      a ? (Array.isArray(a) ? a : [a]).flatMap((x) => x.value.map((v) => v.address ?? '')) : [],
    ),
    String(mail.headers.get('delivered-to') ?? ''),
    String(mail.headers.get('x-original-to') ?? ''),
  ];
  const token =
    addresses.map((a) => TOKEN_IN_ADDRESS.exec(a)?.[1]).find(Boolean) ??
    [mail.inReplyTo ?? '', ...[mail.references ?? []].flat()]
      .map((r) => TOKEN_IN_MESSAGE_ID.exec(r)?.[1])
      .find(Boolean);
  const attachments = mail.attachments.map((a) => ({
    name: a.filename ?? '(unnamed)',
    type: a.contentType,
    size: a.size,
  }));
  // Those a quote may be read from are kept, so the buyer can open the source of a figure.
  const files = mail.attachments
    .map((a, position) => ({ position, content: a.content, kind: readableKind(a), size: a.size }))
    .filter((f) => f.kind && f.size <= MAX_ATTACHMENT_BYTES)
    .slice(0, MAX_ATTACHMENTS)
    .map(({ position, content }) => ({ position, content }));
  const message = (outcome: string, reason?: string): RfqMessage => ({
    messageId,
    direction: 'in',
    sender,
    subject: mail.subject ?? '',
    outcome,
    reason,
    body: mail.text ?? '',
    attachments,
    // A refused mail's attachments are listed, never kept.
    ...(outcome !== 'refused' && { files }),
  });
  const refuse = async (reason: string, known: string | null): Promise<InboundResult> => {
    await rfqs.keepMessage(known, message('refused', reason));
    return { outcome: 'refused', reason };
  };
  if (!token) return refuse('没有对应的询价邀请 / no invitation named by the address', null);
  let invitation: Awaited<ReturnType<RfqBook['invitation']>>;
  try {
    invitation = await rfqs.invitation(token.toLowerCase());
  } catch {
    return refuse('没有对应的询价邀请 / no invitation named by the address', null);
  }
  if (!sender || sender !== invitation.supplier.email.toLowerCase())
    return refuse(
      `发件人 ${sender || '(none)'} 不是 ${invitation.supplier.nameZh} 登记的邮箱 / sender is not the supplier’s registered address`,
      invitation.token,
    );

  const read = await readMail(mail, invitation.rfq.currency);
  const reply: contract.QuoteReplyInput = {
    decline:
      read.lines.length === 0 && read.flags.length === 0 && DECLINE.test(`${mail.subject ?? ''}\n${mail.text ?? ''}`),
    lines: read.lines,
    flags: read.flags,
    source: { kind: 'mail', messageId, attachment: read.attachment, from: sender },
  };
  let outcome: InboundResult['outcome'] = 'recorded';
  let reason: string | undefined;
  if (!reply.decline && read.lines.length === 0) {
    outcome = 'flagged';
    const why = read.flags.length
      ? '报价无法确认，请人工核对 / the quote could not be read with confidence'
      : '邮件中没有可识别的报价表 / no quote table found in the mail';
    reason = why;
    // Every line of the RFQ shows the buyer that this supplier answered with something unreadable.
    if (!read.flags.length) reply.flags = invitation.rfq.lines.map((l) => ({ lineNo: l.lineNo, reason: why }));
  } else if (read.flags.length) outcome = 'flagged';
  if (read.ignored.length)
    reason = [reason, `已忽略附件 / ignored: ${read.ignored.join(', ')}`].filter(Boolean).join('; ');
  try {
    const result = await rfqs.recordReply(invitation.token, reply, message(outcome, reason));
    return result.outcome === 'duplicate'
      ? { outcome: 'duplicate', rfqId: result.rfqId }
      : { outcome, reason, rfqId: result.rfqId };
  } catch (error) {
    return refuse((error as Error).message, invitation.token);
  }
}

/** Which readable kind an attachment is (by its type or its name), if any. */
function readableKind(a: { contentType: string; filename?: string }) {
  return READABLE.find((r) => (r.types as readonly string[]).includes(a.contentType) || r.ext.test(a.filename ?? ''))
    ?.kind;
}

/** The quote in a mail: the first attachment with a quote table, else the body's HTML or text table. */
async function readMail(mail: Awaited<ReturnType<typeof simpleParser>>, currency: string) {
  const ignored: string[] = [];
  let checked = 0;
  for (const a of mail.attachments) {
    const kind = readableKind(a);
    const name = a.filename ?? '(unnamed)';
    if (!kind || a.size > MAX_ATTACHMENT_BYTES || checked >= MAX_ATTACHMENTS) {
      if (a.contentDisposition === 'attachment' || kind) ignored.push(name);
      continue;
    }
    checked++;
    try {
      const rows =
        kind === 'xlsx'
          ? await xlsxRows(a.content)
          : kind === 'csv'
            ? csvRows(a.content.toString('utf8'))
            : textRows(await pdfText(a.content));
      const read = readQuoteRows(rows, currency);
      if (read.lines.length || read.flags.length) return { ...read, attachment: name, ignored };
    } catch {
      ignored.push(`${name} (unreadable)`);
    }
  }
  for (const rows of [typeof mail.html === 'string' ? htmlRows(mail.html) : [], textRows(mail.text ?? '')]) {
    const read = readQuoteRows(rows, currency);
    if (read.lines.length || read.flags.length) return { ...read, attachment: undefined, ignored };
  }
  return { lines: [], flags: [], attachment: undefined, ignored };
}
