import { createHash } from 'node:crypto';
import type { contract, RfqBook, RfqMessage } from '../erp/index.ts';
import { readMailOutside, UnreadInput } from './bounded-reader.ts';
import { type AskedQuote, readQuoteRows } from './quote-reader.ts';
import type { ReplyTables } from './reply-tables.ts';

export { MAX_ATTACHMENT_BYTES } from './reply-tables.ts';
export const MAX_MESSAGE_BYTES = 15 * 1024 * 1024;
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
  // Parsed outside this process, under the reader's limits: a bomb stalls and bloats only the reading process.
  let read: Awaited<ReturnType<typeof readMailOutside>>;
  try {
    read = await readMailOutside(raw);
  } catch (error) {
    if (error instanceof UnreadInput) return { outcome: 'refused', reason: error.message };
    throw error;
  }
  const { reply: mail, tables } = read;
  const messageId = mail.messageId ?? `<sha256-${createHash('sha256').update(raw).digest('hex')}@inbound>`;
  const sender = mail.sender;
  const token =
    [...(envelope.recipients ?? []), ...mail.addresses].map((a) => TOKEN_IN_ADDRESS.exec(a)?.[1]).find(Boolean) ??
    mail.references.map((r) => TOKEN_IN_MESSAGE_ID.exec(r)?.[1]).find(Boolean);
  const attachments = mail.attachments;
  const files = mail.files.map(({ position, content }) => ({ position, content: Buffer.from(content) }));
  const message = (outcome: string, reason?: string): RfqMessage => ({
    messageId,
    direction: 'in',
    sender,
    subject: mail.subject,
    outcome,
    reason,
    body: mail.text,
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

  const quote = readQuote(tables, invitation.rfq);
  const reply: contract.QuoteReplyInput = {
    decline:
      quote.lines.length === 0 &&
      quote.flags.length === 0 &&
      tables.refused.length === 0 &&
      DECLINE.test(`${mail.subject}\n${mail.text}`),
    lines: quote.lines,
    flags: quote.flags,
    source: { kind: 'mail', messageId, attachment: quote.attachment, from: sender },
  };
  let outcome: InboundResult['outcome'] = 'recorded';
  let reason: string | undefined;
  if (!reply.decline && quote.lines.length === 0) {
    outcome = 'flagged';
    const why = tables.refused.length
      ? `附件超出读取限制，未读取，请人工核对 / an attachment was over the reading limits: not read, check by hand (${tables.refused.join('; ')})`
      : quote.flags.length
        ? '报价无法确认，请人工核对 / the quote could not be read with confidence'
        : '邮件中没有可识别的报价表 / no quote table found in the mail';
    reason = why;
    // Every line of the RFQ shows the buyer that this supplier answered with something unreadable.
    if (!quote.flags.length)
      reply.flags = invitation.rfq.lines.map((l) => ({ lineNo: l.lineNo, reason: why.slice(0, 500) }));
  } else if (quote.flags.length) outcome = 'flagged';
  if (tables.ignored.length)
    reason = [reason, `已忽略附件 / ignored: ${tables.ignored.join(', ')}`].filter(Boolean).join('; ');
  try {
    const result = await rfqs.recordReply(invitation.token, reply, message(outcome, reason));
    return result.outcome === 'duplicate'
      ? { outcome: 'duplicate', rfqId: result.rfqId }
      : { outcome, reason, rfqId: result.rfqId };
  } catch (error) {
    return refuse((error as Error).message, invitation.token);
  }
}

/** The quote in a mail's tables: the first that holds quote lines or flags (attachments come before the body). */
function readQuote(tables: ReplyTables, asked: AskedQuote) {
  for (const table of tables.tables) {
    const read = readQuoteRows(table.rows, asked);
    if (read.lines.length || read.flags.length) return { ...read, attachment: table.attachment };
  }
  return { lines: [], flags: [], attachment: undefined };
}
