import { z } from 'zod';

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

export const SupplierNameSchema = z.object({ id: z.number().int(), nameZh: z.string(), nameEn: z.string() });
export type SupplierName = z.infer<typeof SupplierNameSchema>;

/** A row of `GET /api/v1/rfqs`. */
export const RfqSummaryViewSchema = z.object({
  id: z.number().int(),
  rfqNo: z.string(),
  title: z.string(),
  status: z.string(),
  replyDeadline: z.string(),
  createdAt: z.string(),
  /** Lines, invited suppliers, and those who answered (quoted or declined). */
  lines: z.number().int(),
  invited: z.number().int(),
  replied: z.number().int(),
});
export type RfqSummaryView = z.infer<typeof RfqSummaryViewSchema>;

export const RfqPageSchema = z.object({
  items: z.array(RfqSummaryViewSchema),
  total: z.number().int().nonnegative(),
  page: z.number().int().positive(),
  size: z.number().int().positive(),
});
export type RfqPage = z.infer<typeof RfqPageSchema>;

/** Where a quote came from: a supplier's mail, the quote form, or typed in by a buyer. */
export const QUOTE_SOURCES = ['mail', 'form', 'manual'] as const;

/** A quote as the ERP keeps it, with its figures in CNY at the asked quantity (null without an exchange rate). */
export const RfqQuoteViewSchema = z.object({
  supplier: SupplierNameSchema,
  lineNo: z.number().int(),
  status: z.enum(['quoted', 'declined', 'flagged']),
  unitPrice: z.number().nullable(),
  currency: z.string().nullable(),
  priceBreaks: z.array(z.object({ minQty: z.number(), unitPrice: z.number() })),
  moq: z.number().nullable(),
  leadTimeDays: z.number().nullable(),
  validUntil: z.string().nullable(),
  freight: z.number().nullable(),
  remarks: z.string().nullable(),
  /** Why it could not be read with confidence (status `flagged`). */
  flag: z.string().nullable(),
  /** After the reply deadline. */
  late: z.boolean(),
  source: z.object({
    kind: z.enum(QUOTE_SOURCES),
    messageId: z.string().nullable(),
    attachment: z.string().nullable(),
    from: z.string().nullable(),
  }),
  receivedAt: z.string(),
  /** In CNY at the asked quantity (price break applied, freight included in the total); null without a rate. */
  effective: z
    .object({
      unitPriceCny: z.number(),
      totalCny: z.number(),
      /** The price break applied (its minimum quantity), if any. */
      priceBreakMinQty: z.number().nullable(),
      rateToCny: z.number(),
    })
    .nullable(),
  /** Why there is no effective price (no exchange rate for the currency). */
  effectiveReason: z.string().nullable(),
});
export type RfqQuoteView = z.infer<typeof RfqQuoteViewSchema>;

/** One mail in or out of an RFQ (or a quote form submission), listed without its text. */
export const RfqMessageSummarySchema = z.object({
  id: z.number().int(),
  direction: z.enum(['in', 'out']),
  messageId: z.string(),
  supplierId: z.number().int().nullable(),
  sender: z.string(),
  subject: z.string(),
  outcome: z.string(),
  reason: z.string().nullable(),
  /** `stored`: kept, so it can be downloaded (an attachment a quote may be read from). */
  attachments: z.array(z.object({ name: z.string(), type: z.string(), size: z.number(), stored: z.boolean() })),
  at: z.string(),
});
export type RfqMessageSummary = z.infer<typeof RfqMessageSummarySchema>;

/** `GET /api/v1/rfqs/{id}/messages/{message}`: the mail with its text. */
export const RfqMessageViewSchema = RfqMessageSummarySchema.extend({ body: z.string() });
export type RfqMessageView = z.infer<typeof RfqMessageViewSchema>;

/** A supplier invited to an RFQ, with its invitation mail and whether it replied. */
export const RfqInvitationViewSchema = z.object({
  supplier: SupplierNameSchema.extend({ email: z.string() }),
  status: z.enum(['invited', 'replied', 'declined']),
  /** The invitation mail: queued once the RFQ is sent, then sent (once). */
  mail: z.object({
    status: z.enum(['none', 'queued', 'sent']),
    messageId: z.string().nullable(),
    sentAt: z.string().nullable(),
    remindedAt: z.string().nullable(),
  }),
  repliedAt: z.string().nullable(),
});

/** `GET /api/v1/rfqs/{id|number}`: the RFQ, its mails, and whether the signed-in user may award it. */
export const RfqDetailViewSchema = z.object({
  id: z.number().int(),
  rfqNo: z.string(),
  title: z.string(),
  status: z.string(),
  version: z.number().int(),
  currency: z.string(),
  incoterm: z.string(),
  replyDeadline: z.string(),
  note: z.string(),
  createdBy: z.object({ id: z.number().int(), username: z.string() }),
  createdAt: z.string(),
  award: z
    .object({
      supplierId: z.number().int(),
      orderId: z.number().int(),
      orderNo: z.string(),
      awardedBy: z.string(),
      awardedAt: z.string(),
    })
    .nullable(),
  lines: z.array(
    z.object({
      lineNo: z.number().int(),
      part: z.object({ code: z.string(), model: z.string() }).nullable(),
      item: z.string(),
      quantity: z.number(),
      unit: z.string(),
      requiredDate: z.string(),
    }),
  ),
  invitations: z.array(RfqInvitationViewSchema),
  quotes: z.array(RfqQuoteViewSchema),
  messages: z.array(RfqMessageSummarySchema),
  /** Awarding is asked of the sourcing agent, whose write waits for the person's approval; null reason: allowed. */
  permissions: z.object({ award: z.boolean(), reason: z.string().nullable() }),
});
export type RfqDetailView = z.infer<typeof RfqDetailViewSchema>;

/** `GET /api/v1/rfqs/{id|number}/proposal`: the ERP's award proposal. */
export const RfqProposalViewSchema = z.object({
  rfqId: z.number().int(),
  rfqNo: z.string(),
  status: z.string(),
  asOf: z.string(),
  weights: z.record(z.string(), z.number()),
  ranking: z.array(
    z.object({
      rank: z.number().int(),
      supplier: SupplierNameSchema,
      score: z.number(),
      scores: z.record(z.string(), z.number()),
      landedCostCny: z.number(),
      onTimePct: z.number().nullable(),
      why: z.array(z.string()),
    }),
  ),
  recommended: SupplierNameSchema.nullable(),
  excluded: z.array(
    z.object({
      supplier: SupplierNameSchema,
      lineNo: z.number().int().nullable(),
      reason: z.string(),
      detail: z.string(),
    }),
  ),
});
export type RfqProposalView = z.infer<typeof RfqProposalViewSchema>;

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
