/**
 * Requests for quotation as the chat API hands them to the browser and the terminal: the ERP's own answers (its
 * `effective` CNY figures untouched, never recomputed by a client), with the mails each quote came from and what the
 * signed-in user may do. The fields here are those the clients read; the ERP's answers carry at least these.
 */

export const RFQ_STATUS_LABELS: Record<string, { zh: string; en: string }> = {
  draft: { zh: '草稿', en: 'draft' },
  sent: { zh: '已发出', en: 'sent' },
  collecting: { zh: '收集报价中', en: 'collecting' },
  closed: { zh: '已截止', en: 'closed' },
  awarded: { zh: '已授标', en: 'awarded' },
  cancelled: { zh: '已取消', en: 'cancelled' },
};

/** The RFQs that are out with suppliers: what a digest of open RFQs lists. */
export const OPEN_RFQ_STATUSES = ['sent', 'collecting'] as const;

export interface SupplierName {
  id: number;
  nameZh: string;
  nameEn: string;
}

/** A row of `GET /api/v1/rfqs`. */
export interface RfqSummaryView {
  id: number;
  rfqNo: string;
  title: string;
  status: string;
  replyDeadline: string;
  createdAt: string;
  /** Lines, invited suppliers, and those who answered (quoted or declined). */
  lines: number;
  invited: number;
  replied: number;
}

export interface RfqPage {
  items: RfqSummaryView[];
  total: number;
  page: number;
  size: number;
}

/** A quote as the ERP keeps it, with its figures in CNY at the asked quantity (null without an exchange rate). */
export interface RfqQuoteView {
  supplier: SupplierName;
  lineNo: number;
  status: 'quoted' | 'declined' | 'flagged';
  unitPrice: number | null;
  currency: string | null;
  priceBreaks: Array<{ minQty: number; unitPrice: number }>;
  moq: number | null;
  leadTimeDays: number | null;
  validUntil: string | null;
  freight: number | null;
  remarks: string | null;
  flag: string | null;
  late: boolean;
  source: {
    kind: 'mail' | 'form' | 'manual';
    messageId: string | null;
    attachment: string | null;
    from: string | null;
  };
  receivedAt: string;
  effective: { unitPriceCny: number; totalCny: number; priceBreakMinQty: number | null; rateToCny: number } | null;
  effectiveReason: string | null;
}

/** One mail in or out of an RFQ (or a quote form submission), listed without its text. */
export interface RfqMessageSummary {
  id: number;
  direction: 'in' | 'out';
  messageId: string;
  supplierId: number | null;
  sender: string;
  subject: string;
  outcome: string;
  reason: string | null;
  /** `stored`: kept, so it can be downloaded (an attachment a quote may be read from). */
  attachments: Array<{ name: string; type: string; size: number; stored: boolean }>;
  at: string;
}

/** `GET /api/v1/rfqs/{id}/messages/{message}`: the mail with its text. */
export interface RfqMessageView extends RfqMessageSummary {
  body: string;
}

/** `GET /api/v1/rfqs/{id|number}`: the RFQ, its mails, and whether the signed-in user may award it. */
export interface RfqDetailView {
  id: number;
  rfqNo: string;
  title: string;
  status: string;
  version: number;
  currency: string;
  incoterm: string;
  replyDeadline: string;
  note: string;
  createdBy: { id: number; username: string };
  createdAt: string;
  award: { supplierId: number; orderId: number; orderNo: string; awardedBy: string; awardedAt: string } | null;
  lines: Array<{
    lineNo: number;
    part: { code: string; model: string } | null;
    item: string;
    quantity: number;
    unit: string;
    requiredDate: string;
  }>;
  invitations: Array<{
    supplier: SupplierName & { email: string };
    status: 'invited' | 'replied' | 'declined';
    mail: {
      status: 'none' | 'queued' | 'sent';
      messageId: string | null;
      sentAt: string | null;
      remindedAt: string | null;
    };
    repliedAt: string | null;
  }>;
  quotes: RfqQuoteView[];
  messages: RfqMessageSummary[];
  /** Awarding is asked of the sourcing agent, whose write waits for the person's approval; null reason: allowed. */
  permissions: { award: boolean; reason: string | null };
}

/** `GET /api/v1/rfqs/{id|number}/proposal`: the ERP's award proposal. */
export interface RfqProposalView {
  rfqId: number;
  rfqNo: string;
  status: string;
  asOf: string;
  weights: Record<string, number>;
  ranking: Array<{
    rank: number;
    supplier: SupplierName;
    score: number;
    scores: Record<string, number>;
    landedCostCny: number;
    onTimePct: number | null;
    why: string[];
  }>;
  recommended: SupplierName | null;
  excluded: Array<{ supplier: SupplierName; lineNo: number | null; reason: string; detail: string }>;
}

/** The mail (or form submission) a quote came from, if the RFQ's log holds it. */
export function quoteMessage(rfq: RfqDetailView, quote: RfqQuoteView): RfqMessageSummary | undefined {
  return quote.source.messageId ? rfq.messages.find((m) => m.messageId === quote.source.messageId) : undefined;
}

/**
 * The quotes of an RFQ as one table, the browser's and the terminal's: by line, the cheapest effective total first,
 * quotes without one (declined, unreadable, no rate) after them. The figures are the ERP's, as it sent them.
 */
export function quoteRows(rfq: RfqDetailView): RfqQuoteView[] {
  const total = (q: RfqQuoteView) => q.effective?.totalCny ?? Number.POSITIVE_INFINITY;
  return [...rfq.quotes].sort((a, b) => a.lineNo - b.lineNo || total(a) - total(b) || a.supplier.id - b.supplier.id);
}

/**
 * What awarding an RFQ asks the sourcing agent, in the user's language: it closes the RFQ if it is still out, then
 * awards it, each write waiting for the user's approval like every other.
 */
export function awardRequest(rfqNo: string, supplier: SupplierName, english: boolean): string {
  return english ? `Award ${rfqNo} to ${supplier.nameEn}` : `把 ${rfqNo} 授标给${supplier.nameZh}`;
}
