import { z } from '@hono/zod-openapi';
import { ROLES } from '../../protocol/index.ts';
import * as shared from '../../shared/index.ts';
import * as contract from '../contract.ts';

/** The ERP's HTTP face of its contract (`../contract.ts`): handlers validate with these and `/openapi.json` is generated from them. */

/** Ids in paths and query strings arrive as text. */
export const Id = z.coerce.number().int().positive().max(2_147_483_647);
const Page = z.coerce.number().int().min(1).max(100_000).default(1);
const Size = z.coerce.number().int().min(1).max(100).default(20);
/**
 * A contract schema that takes OpenAPI metadata: schemas built before the OpenAPI extension loaded lack `.openapi`,
 * and a copy made now has it.
 */
const documented = <T extends z.ZodType>(schema: T): T => schema.clone() as T;
const { Text } = contract;
const SearchText = documented(contract.SearchText);
const IsoDate = documented(contract.IsoDate);

export const IdParam = z.object({ id: Id.openapi({ param: { name: 'id', in: 'path' }, example: 1 }) });
export const OrderIdParam = z.object({ orderId: Id.openapi({ param: { name: 'orderId', in: 'path' }, example: 1 }) });
export const NameQuery = z.object({ name: SearchText.openapi({ example: '火花塞' }) });
export const PartSearchQuery = NameQuery.extend({ limit: z.coerce.number().int().min(1).max(100).default(50) });

export const PartListQuery = z.object({
  page: Page,
  size: Size,
  name: SearchText.optional(),
  category: Text(40).optional().openapi({ example: 'spark_plug' }),
  supplierId: Id.optional(),
});

export const OrderStatusSchema = documented(contract.OrderStatusSchema).openapi('OrderStatus');

export const OrderSearchQuery = z.object({
  page: Page,
  size: Size,
  keyword: SearchText.optional(),
  status: OrderStatusSchema.optional(),
  supplierId: Id.optional(),
  partId: Id.optional(),
  category: documented(contract.CategoryCode).optional().openapi({
    example: 'spark_plug',
    description:
      'orders with a line of this category; with partId or category, only the lines asked for are listed (otherLines counts the rest)',
  }),
  traceIds: z
    .string()
    .regex(/^[\w.:-]{1,128}(,[\w.:-]{1,128}){0,99}$/, 'up to 100 comma-separated trace ids')
    .transform((v) => v.split(','))
    .optional()
    .openapi({ description: 'orders created by requests with these x-trace-id values (comma-separated)' }),
  dateFrom: IsoDate.optional().openapi({ example: '2026-01-01' }),
  dateTo: IsoDate.optional().openapi({ example: '2026-12-31' }),
  dateField: documented(contract.OrderDateFieldSchema).optional().openapi({
    description:
      'the time dateFrom/dateTo read: created (default) or updated (a cancelled order: when it was cancelled)',
  }),
});

export const CreateOrderBody = documented(contract.CreateOrderInputSchema).openapi('CreateOrder');
export const UpdateOrderBody = documented(contract.UpdateOrderInputSchema).openapi('UpdateOrder');
export const CancelOrderBody = documented(contract.CancelOrderInputSchema).openapi('CancelOrder');

export const PriceCheckQuery = z.object({
  unitPrice: z.coerce.number().positive().max(10_000_000).openapi({ example: 16.5 }),
  supplierId: Id.optional(),
});
export const PriceHistoryQuery = z.object({
  months: z.coerce
    .number()
    .int()
    .min(1)
    .max(contract.PRICE_HISTORY_MAX_MONTHS)
    .default(12)
    .openapi({ description: 'calendar months (UTC) ending with the current one' }),
  by: z
    .enum(contract.PRICE_HISTORY_GROUPINGS)
    .default('supplier')
    .openapi({ description: 'supplier: one series per supplier of the product; product: one series across them' }),
}) satisfies z.ZodType<contract.PriceHistoryQuery, unknown>;
export const ScorecardQuery = z.object({ months: z.coerce.number().int().min(1).max(36).default(12) });
export const UpdatePolicyBody = documented(contract.UpdatePolicyInputSchema).openapi('UpdateApprovalPolicy');
export const ConfirmPolicyBody = documented(contract.ConfirmPolicyInputSchema).openapi('ConfirmApprovalPolicy');
export const OrderDecisionBody = documented(contract.OrderDecisionInputSchema).openapi('OrderDecision');

// Procure to pay
export const RecordReceiptBody = documented(contract.RecordReceiptInputSchema).openapi('RecordReceipt');
export const ReceiptResultSchema = documented(contract.ReceiptResultSchema).openapi('ReceiptResult');
export const OrderReceivingSchema = documented(contract.OrderReceivingSchema).openapi('OrderReceiving');
export const RecordInvoiceBody = documented(contract.RecordInvoiceInputSchema).openapi('RecordInvoice');
export const InvoiceActionBody = documented(contract.InvoiceActionInputSchema).openapi('InvoiceAction');
export const SupplierInvoiceSchema = documented(contract.SupplierInvoiceSchema).openapi('SupplierInvoice');
export const InvoiceListQuery = z.object({
  page: Page,
  size: Size,
  status: documented(contract.InvoiceStatusSchema).optional(),
  orderId: Id.optional(),
  supplierId: Id.optional(),
});

export const IdempotencyHeader = z.object({
  'idempotency-key': documented(contract.IdempotencyKey)
    .optional()
    .openapi({ description: 'Idempotency-Key: retries with the same key return the same order' }),
});

export const SupplierSchema = documented(contract.SupplierSchema).openapi('Supplier');
// The category is a code of the project's categories (GET /categories): data, not a fixed enum.
export const PartSchema = documented(contract.PartSchema).openapi('Part');
export const CategorySchema = documented(contract.CategorySchema).openapi('Category');
export const OrderSchema = documented(contract.OrderSchema).openapi('Order');
export const OrderPreviewSchema = documented(contract.OrderPreviewSchema).openapi('OrderPreview');
export const InventoryWarningSchema = documented(contract.InventoryWarningSchema).openapi('InventoryWarning');
export const PriceCheckSchema = documented(contract.PriceCheckSchema).openapi('PriceCheck');
export const ApprovalPolicySchema = documented(contract.ApprovalPolicySchema).openapi('ApprovalPolicy');
export const PriceHistorySchema = documented(contract.PriceHistorySchema).openapi('PriceHistory');
export const ScorecardSchema = documented(contract.SupplierScorecardSchema).openapi('SupplierScorecard');

export const AuditQuery = z.object({ entity: Text(40), entityId: Text(40) });
/** At least one filter: the whole stock table is not one answer. */
export const InventoryQuery = z
  .object({
    category: Text(40).optional(),
    supplierId: z.coerce.number().int().positive().optional(),
    partId: z.coerce.number().int().positive().optional(),
  })
  .refine((q) => q.category !== undefined || q.supplierId !== undefined || q.partId !== undefined, {
    message: '需要 category、supplierId 或 partId / give a category, supplierId or partId',
  });
export const AuditEntrySchema = z
  .object({
    id: z.number(),
    at: z.string(),
    userId: z.number(),
    projectId: z.string(),
    entity: z.string(),
    entityId: z.string(),
    action: z.string(),
    before: z.unknown(),
    after: z.unknown(),
    traceId: z.string().nullable(),
  })
  .openapi('AuditEntry');

export const MeSchema = z
  .object({
    id: z.number(),
    username: z.string(),
    displayName: z.string(),
    role: z.enum(ROLES),
    projectIds: z.array(z.string()),
    projectId: z.string().openapi({ description: 'the project this request works in (x-project-id or the first)' }),
  })
  .openapi('Me');

export const ProblemSchema = documented(shared.ProblemSchema).openapi('Problem');

export const itemsOf = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item) });
export const { pageOf } = contract;

// Requests for quotation
export const RfqStatusSchema = documented(contract.RfqStatusSchema).openapi('RfqStatus');
export const RfqListQuery = z.object({ status: RfqStatusSchema.optional(), page: Page, size: Size });
export const CreateRfqBody = documented(contract.CreateRfqInputSchema).openapi('CreateRfq');
export const RfqActionBody = documented(contract.RfqActionInputSchema).openapi('RfqAction');
export const AwardRfqBody = documented(contract.AwardRfqInputSchema).openapi('AwardRfq');
export const ManualQuoteBody = documented(contract.ManualQuoteInputSchema).openapi('ManualQuote');
/** What a supplier sends through the quote form: a reply without a source (the form is its source). */
export const QuoteFormBody = documented(contract.QuoteReplyInputSchema.omit({ source: true })).openapi('QuoteForm');
export const UpdateSourcingSettingsBody = documented(contract.UpdateSourcingSettingsInputSchema).openapi(
  'UpdateSourcingSettings',
);
export const SetExchangeRateBody = documented(contract.SetExchangeRateInputSchema).openapi('SetExchangeRate');
export const CurrencyParam = z.object({
  currency: documented(contract.CurrencySchema).openapi({ param: { name: 'currency', in: 'path' }, example: 'USD' }),
});
export const TokenParam = z.object({
  token: z
    .string()
    .regex(/^[0-9a-f]{24}$/, 'an invitation token')
    .openapi({ param: { name: 'token', in: 'path' } }),
});
export const RfqSchema = documented(contract.RfqSchema).openapi('Rfq');
export const RfqSummarySchema = documented(contract.RfqSummarySchema).openapi('RfqSummary');
export const RfqAwardSchema = documented(contract.RfqAwardSchema).openapi('RfqAward');
export const RfqAwardPreviewSchema = documented(contract.RfqAwardPreviewSchema).openapi('RfqAwardPreview');
export const SourcingSettingsSchema = documented(contract.SourcingSettingsSchema).openapi('SourcingSettings');
export const RfqProposalSchema = documented(contract.RfqProposalSchema).openapi('RfqProposal');
export const ExchangeRateSchema = documented(contract.ExchangeRateSchema).openapi('ExchangeRate');
export const RfqMessageSchema = z
  .object({
    id: z.number(),
    direction: z.enum(['in', 'out']),
    messageId: z.string(),
    supplierId: z.number().nullable(),
    sender: z.string(),
    subject: z.string(),
    outcome: z.string(),
    reason: z.string().nullable(),
    body: z.string(),
    /** `stored`: its content is kept (an attachment a quote may be read from) and can be downloaded. */
    attachments: z.array(z.object({ name: z.string(), type: z.string(), size: z.number(), stored: z.boolean() })),
    at: z.string(),
  })
  .openapi('RfqMessage');
export const RfqAttachmentParams = z.object({
  id: z.coerce
    .number()
    .int()
    .positive()
    .openapi({ param: { name: 'id', in: 'path' } }),
  message: z.coerce
    .number()
    .int()
    .positive()
    .openapi({ param: { name: 'message', in: 'path' } }),
  position: z.coerce
    .number()
    .int()
    .min(0)
    .max(100)
    .openapi({ param: { name: 'position', in: 'path' } }),
});
/** What the quote form shows a supplier: the RFQ's lines and terms, nothing about other suppliers. */
export const QuoteInvitationSchema = z
  .object({
    rfqNo: z.string(),
    title: z.string(),
    status: RfqStatusSchema,
    replyDeadline: z.string(),
    currency: z.string(),
    incoterm: z.string(),
    supplier: z.object({ nameZh: z.string(), nameEn: z.string() }),
    lines: z.array(
      documented(contract.RfqLineSchema).pick({
        lineNo: true,
        item: true,
        quantity: true,
        unit: true,
        requiredDate: true,
      }),
    ),
    replied: z.boolean(),
  })
  .openapi('QuoteInvitation');
