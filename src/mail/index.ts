export { ImapInbox, type ImapInboxOptions, imapMailbox, shownImapUrl } from './imap-inbox.ts';
export {
  type InboundResult,
  invitationMessageId,
  MAX_ATTACHMENT_BYTES,
  MAX_MESSAGE_BYTES,
  receiveReply,
  replyAddress,
} from './inbound.ts';
export { invitationText, RfqMail, type RfqMailOptions } from './mailer.ts';
export {
  csvRows,
  htmlRows,
  readQuoteRows,
  replyTemplate,
  TEMPLATE_HEADER,
  textRows,
  xlsxRows,
} from './quote-reader.ts';
