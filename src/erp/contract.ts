/**
 * The ERP's wire contract, once: zod schemas of what the ERP takes and returns, with the types derived from them.
 * No I/O. The ERP services return these types, the HTTP layer validates and documents with these schemas, and the
 * ERP tools (which the ERP MCP server serves) read and send these shapes.
 */
import { z } from 'zod';
import {
  NoControl,
  PRICE_SEVERITIES,
  type PriceSeverity,
  QUOTE_SOURCES,
  RfqInvitationViewSchema,
  RfqQuoteViewSchema,
  SupplierNameSchema,
} from '../protocol/index.ts';

export { QUOTE_SOURCES };

/** `partly_received`: some but not all of an ordered quantity has arrived (goods receipts, services/receipts.ts). */
export const ORDER_STATUSES = [
  'draft',
  'pending_approval',
  'approved',
  'ordered',
  'partly_received',
  'received',
  'cancelled',
] as const;

const MAX_INT = 2_147_483_647;
/** A row id as the ERP numbers them. */
export const Id = z.number().int().positive().max(MAX_INT);

/** Text fields refuse NUL and other C0 control characters (except tab/newline), which no ERP field needs. */
export const Text = (max: number) => z.string().max(max).regex(NoControl, 'control characters are not allowed');
export const SearchText = Text(100).trim().min(1);
/** An `Idempotency-Key`: a write retried under the same key gives the first answer again instead of writing twice. */
export const IdempotencyKey = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces');
export const IsoDate = z.iso.date();
/** A part category's code, as `category_list` gives it (e.g. `spark_plug`). */
export const CategoryCode = Text(40).trim().min(1);

export const OrderStatusSchema = z.enum(ORDER_STATUSES);
export type OrderStatus = z.infer<typeof OrderStatusSchema>;

/**
 * Which of an order's times an order search's date range reads: when it was created, or when it last changed. A
 * cancelled order never changes again, so for it the second is when it was cancelled.
 */
export const OrderDateFieldSchema = z.enum(['created', 'updated']);
export type OrderDateField = z.infer<typeof OrderDateFieldSchema>;

export const SupplierRefSchema = SupplierNameSchema;
export type SupplierRef = z.infer<typeof SupplierRefSchema>;

export const SupplierSchema = z.object({
  id: z.number(),
  key: z.string(),
  nameZh: z.string(),
  nameEn: z.string(),
  contact: z.object({ name: z.string(), phone: z.string(), email: z.string() }),
  region: z.object({ city: z.string(), province: z.string() }),
  rating: z.number(),
  leadTimeDays: z.number(),
  paymentTerms: z.string(),
});
export type Supplier = z.infer<typeof SupplierSchema>;

export const PartSchema = z.object({
  id: z.number(),
  code: z.string(),
  model: z.string(),
  category: z.string(),
  categoryName: z.string(),
  nameZh: z.string(),
  nameEn: z.string(),
  spec: z.string(),
  unit: z.string(),
  unitPrice: z.number(),
  currency: z.literal('CNY'),
  moq: z.number(),
  supplier: SupplierRefSchema,
});
export type Part = z.infer<typeof PartSchema>;

/** A part category of the project: the code parts carry, its names and the trade words buyers use for it. */
export const CategorySchema = z.object({
  code: z.string(),
  nameZh: z.string(),
  nameEn: z.string(),
  synonymsZh: z.array(z.string()),
  synonymsEn: z.array(z.string()),
  /** Parts of the project in the category. */
  parts: z.number(),
});
export type Category = z.infer<typeof CategorySchema>;

export { PRICE_SEVERITIES, type PriceSeverity };

/** A price against what the project actually paid for the same product over the last 12 months. */
export const PriceCheckSchema = z.object({
  partId: z.number(),
  unitPrice: z.number(),
  supplierId: z.number().nullable(),
  median12m: z.number().nullable(),
  minPrice12m: z.number().nullable(),
  /** Percent above (+) or below (−) the 12-month median. */
  deviationPct: z.number().nullable(),
  severity: z.enum(PRICE_SEVERITIES),
  /** Why the severity is what it is, Chinese first. */
  reason: z.string(),
  basis: z.object({ orders: z.number(), lines: z.number(), from: z.string(), to: z.string() }),
});
export type PriceCheck = z.infer<typeof PriceCheckSchema>;

/** Orders the project has actually placed: what it pays. Drafts, orders waiting for or past approval but not yet
 *  placed, and cancelled orders are not prices paid. */
export const PAID_ORDER_STATUSES = ['ordered', 'partly_received', 'received'] as const satisfies readonly OrderStatus[];

/** A price history groups the paid lines of one product per supplier, or across all its suppliers. */
export const PRICE_HISTORY_GROUPINGS = ['supplier', 'product'] as const;
export type PriceHistoryGrouping = (typeof PRICE_HISTORY_GROUPINGS)[number];
export const PRICE_HISTORY_MAX_MONTHS = 36;

export const PriceHistoryQuerySchema = z.strictObject({
  /** Calendar months (UTC) ending with the current one. */
  months: z.number().int().min(1).max(PRICE_HISTORY_MAX_MONTHS).default(12),
  by: z.enum(PRICE_HISTORY_GROUPINGS).default('supplier'),
});
export type PriceHistoryQuery = z.infer<typeof PriceHistoryQuerySchema>;

/** What a set of paid lines adds up to: Σ quantity × unit price over Σ quantity, with the count of lines. */
export const PaidLinesSchema = z.object({
  /** Quantity-weighted average unit price (yuan, the ERP's 4 decimals); null without lines. */
  avgUnitPrice: z.number().nullable(),
  lines: z.number(),
  quantity: z.number(),
  /** Σ quantity × unit price (yuan). */
  amount: z.number(),
});

export const PriceHistoryMonthSchema = PaidLinesSchema.extend({
  /** `YYYY-MM`, by the order's date (UTC). */
  month: z.string(),
  avgUnitPrice: z.number(),
});

export const PriceHistorySeriesSchema = z.object({
  /** The supplier of this series; null for the series across every supplier of the product. */
  supplier: SupplierRefSchema.nullable(),
  /** The catalogue parts whose lines the series counts. */
  parts: z.array(z.object({ id: z.number(), code: z.string() })),
  /** Only months with paid lines, oldest first. */
  months: z.array(PriceHistoryMonthSchema),
  total: PaidLinesSchema,
});

/** A month of the like-for-like price index: prices of the same parts (each a part of one supplier) only. */
export const PriceIndexMonthSchema = z.object({
  /** `YYYY-MM`, a month with paid lines. */
  month: z.string(),
  /** The chained index, the first month with paid lines = 100 (2 decimals); null when no part bought this month was
   *  bought in an earlier month with an index. */
  index: z.number().nullable(),
  /** The month this one is chained to: the latest earlier month with an index sharing parts with it; null for the
   *  first month and for a month without an index. */
  linkedTo: z.string().nullable(),
  /** How many parts (part × supplier) were bought in both months: what the link rests on. */
  pairs: z.number(),
});

/** From the first month with paid lines to the last with an index: the price change and the mix effect apart. */
export const PriceIndexChangeSchema = z.object({
  from: z.string(),
  to: z.string(),
  /** The index's change in percent (2 decimals): what the same parts cost more or less. */
  indexPct: z.number(),
  /** The change of the plain (quantity-weighted, every supplier) average paid price in percent (2 decimals), from the
   *  months' 4-decimal averages. */
  averagePct: z.number(),
  /** averagePct − indexPct (percentage points): what buying from other suppliers did to the average. */
  mixPct: z.number(),
  /** The supplier whose share of the quantity grew most between the two months (shares in percent, 2 decimals);
   *  null when no share grew. */
  grew: z.object({ supplier: SupplierRefSchema, fromSharePct: z.number(), toSharePct: z.number() }).nullable(),
});

export const PriceIndexSchema = z.object({
  method: z.literal('chained'),
  months: z.array(PriceIndexMonthSchema),
  /** Null with fewer than two months with an index. */
  change: PriceIndexChangeSchema.nullable(),
});
export type PriceIndex = z.infer<typeof PriceIndexSchema>;

/** What the project paid for one product, month by month: the trend an analysis shows, computed by the ERP. */
export const PriceHistorySchema = z.object({
  partId: z.number(),
  /** The product: every part with the same model and category, whichever supplier lists it. */
  product: z.object({ model: z.string(), category: z.string() }),
  by: z.enum(PRICE_HISTORY_GROUPINGS),
  period: z.object({ from: z.string(), to: z.string(), months: z.number() }),
  /** The order statuses whose lines count. */
  statuses: z.array(OrderStatusSchema),
  /** How every figure of this answer is computed, Chinese first. */
  definition: z.string(),
  /** By supplier: one series per supplier listing the product (also those without paid lines); by product: one. */
  series: z.array(PriceHistorySeriesSchema),
  /** Like-for-like prices across every supplier of the product, whichever grouping was asked. */
  index: PriceIndexSchema,
});
export type PriceHistory = z.infer<typeof PriceHistorySchema>;
export type PriceHistorySeries = z.infer<typeof PriceHistorySeriesSchema>;
export type PaidLines = z.infer<typeof PaidLinesSchema>;

/** The approval policy's decision on a submitted order, then the admin's. */
export const ApprovalDecisionSchema = z.object({
  rule: z.enum(['auto-approved', 'needs-admin', 'admin-approved', 'admin-rejected']),
  reason: z.string(),
});
export type ApprovalDecision = z.infer<typeof ApprovalDecisionSchema>;

/** An order's approval as it reads back: the decision, and for an admin's decision who made it, when, and their comment. */
export const OrderApprovalSchema = ApprovalDecisionSchema.extend({
  /** The admin's username; null for the policy's own decision. */
  decidedBy: z.string().nullable(),
  decidedAt: z.string().nullable(),
  comment: z.string().nullable(),
});
export type OrderApproval = z.infer<typeof OrderApprovalSchema>;

/** Percent above the 12-month median at which a price check says `info`, `warn` and `critical`. */
export const PriceThresholdsSchema = z.strictObject({
  infoPct: z.number().min(0).max(1000),
  warnPct: z.number().min(0).max(1000),
  criticalPct: z.number().min(0).max(1000),
});
export type PriceThresholds = z.infer<typeof PriceThresholdsSchema>;

/**
 * How far a supplier invoice may stray from its order and receipts and still match: unit price up to `pricePct`
 * above the order's, invoiced quantity up to `quantityPct` above what was received; an invoice of the same amount
 * for the same order within `duplicateWindowDays` of another is held as a possible duplicate.
 */
export const InvoiceMatchTolerancesSchema = z.strictObject({
  pricePct: z.number().min(0).max(100),
  quantityPct: z.number().min(0).max(100),
  duplicateWindowDays: z.number().int().min(0).max(366),
});
export type InvoiceMatchTolerances = z.infer<typeof InvoiceMatchTolerancesSchema>;

export const UpdatePolicyInputSchema = z.strictObject({
  version: z.number().int().min(0),
  buyerLimit: z.number().min(0).max(1_000_000_000).optional(),
  adminSuppliers: z.array(Id).max(500).optional(),
  adminCategories: z.array(Text(40).min(1)).max(100).optional(),
  priceThresholds: PriceThresholdsSchema.optional(),
  fourEyes: z.boolean().optional(),
  invoiceMatch: InvoiceMatchTolerancesSchema.optional(),
});
export type UpdatePolicyInput = z.infer<typeof UpdatePolicyInputSchema>;

/**
 * A change of the policy that loosens a control (four eyes off, a higher buyer limit or price threshold, a supplier
 * or category no longer forced to an admin): proposed by one admin, applied only when another confirms it.
 */
export const PolicyProposalSchema = z.object({
  id: z.string(),
  /** The fields of the update as proposed. */
  changes: UpdatePolicyInputSchema.omit({ version: true }),
  /** Each control it loosens, in words (Chinese / English). */
  loosens: z.array(z.string()),
  /** The policy version it was proposed on: a policy changed since voids it. */
  baseVersion: z.number(),
  proposedBy: z.string(),
  proposedAt: z.string(),
});
export type PolicyProposal = z.infer<typeof PolicyProposalSchema>;

export const ConfirmPolicyInputSchema = z.strictObject({ proposalId: z.string().min(1).max(64) });
export type ConfirmPolicyInput = z.infer<typeof ConfirmPolicyInputSchema>;

export const ApprovalPolicySchema = z.object({
  projectId: z.string(),
  /** Orders up to this total (yuan) with no flag are approved at once when a buyer submits them. */
  buyerLimit: z.number(),
  /** Suppliers whose orders always need an admin. */
  adminSuppliers: z.array(z.number()),
  /** Part categories whose orders always need an admin. */
  adminCategories: z.array(z.string()),
  priceThresholds: PriceThresholdsSchema,
  /** Four eyes: only an order's creator or an admin changes or cancels it, and neither its creator nor its last
   *  editor approves it (admins included). On unless an admin switches it off. */
  fourEyes: z.boolean(),
  /** The three-way match's tolerances for supplier invoices. */
  invoiceMatch: InvoiceMatchTolerancesSchema,
  /** 0 while the project runs on the defaults. */
  version: z.number(),
  updatedAt: z.string().nullable(),
  /** A loosening change waiting for a second admin, if any. */
  pendingChange: PolicyProposalSchema.nullable(),
});
export type ApprovalPolicy = z.infer<typeof ApprovalPolicySchema>;

export const OrderDecisionInputSchema = z.strictObject({
  version: z.number().int().positive(),
  comment: Text(500).optional(),
});

/** How a supplier has served the project: delivery, price, volume and cancellations over a period. */
export const SupplierScorecardSchema = z.object({
  supplier: SupplierRefSchema,
  period: z.object({ from: z.string(), to: z.string(), months: z.number() }),
  delivery: z.object({
    /** Received orders that had an expected date. */
    received: z.number(),
    onTime: z.number(),
    /** Percent received on or before the expected date; null without deliveries. */
    onTimePct: z.number().nullable(),
    /** Mean days late of the late ones. */
    avgDaysLate: z.number().nullable(),
  }),
  price: z.object({
    /** The supplier's parts whose product (model and category) other suppliers also list. */
    partsCompared: z.number(),
    /** Mean percent of its list prices against the median list price of the same product (− is cheaper). */
    vsMarketMedianPct: z.number().nullable(),
    /** Percent of compared parts at or below that median. */
    atOrBelowMedianPct: z.number().nullable(),
  }),
  volume: z.object({ orders: z.number(), lines: z.number(), amount: z.number() }),
  cancellations: z.object({ count: z.number(), pct: z.number().nullable() }),
});
export type SupplierScorecard = z.infer<typeof SupplierScorecardSchema>;

export const OrderLineSchema = z.object({
  lineNo: z.number(),
  partId: z.number(),
  part: z.object({
    code: z.string(),
    model: z.string(),
    nameZh: z.string(),
    nameEn: z.string(),
    unit: z.string(),
    category: z.string(),
  }),
  quantity: z.number(),
  unitPrice: z.number(),
  amount: z.number(),
  /** The line's price against the 12-month history, computed when the line was written (null for older lines). */
  priceCheck: PriceCheckSchema.nullable(),
});
export type OrderLine = z.infer<typeof OrderLineSchema>;

export const OrderSchema = z.object({
  id: z.number(),
  orderNo: z.string(),
  projectId: z.string(),
  status: OrderStatusSchema,
  version: z.number(),
  supplier: SupplierRefSchema,
  expectedDate: z.string().nullable(),
  note: z.string(),
  createdBy: z.object({ id: z.number(), username: z.string() }),
  /** Who last changed the lines, date or note, or submitted the order (its creator until someone else does). */
  lastEditedBy: z.object({ id: z.number(), username: z.string() }),
  /** What the requesting user may do with the order now, under roles, its status and the four-eyes policy; `reason`
   *  says why not (Chinese / English) when either is refused. */
  permissions: z.object({ change: z.boolean(), approve: z.boolean(), reason: z.string().nullable() }),
  createdAt: z.string(),
  updatedAt: z.string(),
  currency: z.literal('CNY'),
  totalAmount: z.number(),
  /** The approval policy's decision when the order was submitted, then the admin's; null for drafts. */
  approval: OrderApprovalSchema.nullable(),
  /** The `x-trace-id` of the request that created the order: the client that drafted it finds it again by it. */
  traceId: z.string().nullable(),
  receivedAt: z.string().nullable(),
  lines: z.array(OrderLineSchema),
  /** Lines of this order left out of `lines` because a search asked for one part or category; the total still counts
   *  them. Absent when every line is shown. */
  otherLines: z.number().optional(),
});
export type Order = z.infer<typeof OrderSchema>;

/**
 * What creating an order would write, without writing it: each line priced (list price unless given) and checked
 * against the 12-month history, the total, and the approval policy's decision had the order been submitted now.
 */
export const OrderPreviewSchema = z.object({
  supplier: SupplierRefSchema,
  lines: z.array(OrderLineSchema),
  totalAmount: z.number(),
  approval: ApprovalDecisionSchema,
});
export type OrderPreview = z.infer<typeof OrderPreviewSchema>;

export const InventoryWarningSchema = z.object({
  partId: z.number(),
  code: z.string(),
  nameZh: z.string(),
  nameEn: z.string(),
  category: z.string(),
  unit: z.string(),
  supplier: SupplierRefSchema,
  onHand: z.number(),
  safetyStock: z.number(),
  reorderPoint: z.number(),
  onOrder: z.number(),
  moq: z.number(),
  location: z.string(),
  /** Enough to bring stock back to reorder point + safety stock, counting open orders, in whole MOQ lots. */
  suggestedQuantity: z.number(),
});
export type InventoryWarning = z.infer<typeof InventoryWarningSchema>;

/** A page of results. */
export const pageOf = <T extends z.ZodType>(item: T) =>
  z.object({
    items: z.array(item),
    /** Exact up to the list's cap; when `totalCapped` is set there are more than `total`. */
    total: z.number(),
    totalCapped: z.boolean(),
    page: z.number(),
    size: z.number(),
  });
export type Page<T> = { items: T[] } & Omit<z.infer<ReturnType<typeof pageOf<z.ZodNever>>>, 'items'>;

/** The highest unit price a part or an order line may carry (CNY): prices are stored in 1/10,000 yuan as 32-bit
 *  integers on PostgreSQL, which end at about ¥214,748. */
export const MAX_UNIT_PRICE = 100_000;

export const OrderLineInputSchema = z.strictObject({
  partId: Id,
  quantity: z.number().int().positive().max(10_000_000),
  unitPrice: z.number().nonnegative().max(MAX_UNIT_PRICE).optional(),
});
export type OrderLineInput = z.infer<typeof OrderLineInputSchema>;

export const CreateOrderInputSchema = z.strictObject({
  supplierId: Id,
  lines: z.array(OrderLineInputSchema).min(1).max(200),
  expectedDate: IsoDate.optional(),
  note: Text(2000).optional(),
  status: z.enum(['draft', 'pending_approval']).optional(),
});
export type CreateOrderInput = z.infer<typeof CreateOrderInputSchema>;

export const UpdateOrderInputSchema = z.strictObject({
  version: z.number().int().positive(),
  status: OrderStatusSchema.optional(),
  lines: z.array(OrderLineInputSchema).min(1).max(200).optional(),
  expectedDate: IsoDate.nullable().optional(),
  note: Text(2000).optional(),
});
export type UpdateOrderInput = z.infer<typeof UpdateOrderInputSchema>;

export const CancelOrderInputSchema = z.strictObject({
  version: z.number().int().positive(),
  reason: Text(500).optional(),
});
export type CancelOrderInput = z.infer<typeof CancelOrderInputSchema>;

/*
 * What the ERP tools answer (the ERP MCP server's `outputSchema`s): compact views of the shapes above, the facts a
 * model reasons with and nothing nested it would not read. A company's own ERP MCP server answers the same shapes.
 */

/** A name in English beside the Chinese `name`, for answers in English. Optional: a company's own ERP MCP server
 *  may keep one name only. */
const NameEn = z.string().optional();
/** A supplier as the views name it: its id and its Chinese and English names. */
const NamedRef = z.object({ id: z.number(), name: z.string(), nameEn: NameEn });

export const SupplierViewSchema = z.object({
  id: SupplierSchema.shape.id,
  name: SupplierSchema.shape.nameZh,
  nameEn: SupplierSchema.shape.nameEn,
  /** Province and city. */
  city: z.string(),
  rating: SupplierSchema.shape.rating,
  leadTimeDays: SupplierSchema.shape.leadTimeDays,
  paymentTerms: SupplierSchema.shape.paymentTerms,
  /** Contact name and phone. */
  contact: z.string(),
});
export type SupplierView = z.infer<typeof SupplierViewSchema>;

export const SupplierDetailViewSchema = SupplierViewSchema.extend({
  contact: SupplierSchema.shape.contact,
  key: SupplierSchema.shape.key,
});

export const PartViewSchema = z.object({
  id: PartSchema.shape.id,
  code: PartSchema.shape.code,
  model: PartSchema.shape.model,
  name: PartSchema.shape.nameZh,
  nameEn: NameEn,
  category: PartSchema.shape.category,
  spec: PartSchema.shape.spec,
  unit: PartSchema.shape.unit,
  unitPrice: PartSchema.shape.unitPrice,
  moq: PartSchema.shape.moq,
  supplier: NamedRef,
});
export type PartView = z.infer<typeof PartViewSchema>;

export const PriceCheckViewSchema = PriceCheckSchema.pick({
  severity: true,
  deviationPct: true,
  median12m: true,
  minPrice12m: true,
  reason: true,
});

export const OrderViewSchema = z.object({
  id: OrderSchema.shape.id,
  orderNo: OrderSchema.shape.orderNo,
  status: OrderStatusSchema,
  version: OrderSchema.shape.version,
  supplier: NamedRef,
  totalAmount: OrderSchema.shape.totalAmount,
  expectedDate: OrderSchema.shape.expectedDate,
  note: z.string().optional(),
  /** The creator's username. */
  createdBy: z.string(),
  /** Who last changed the lines, date or note, or submitted it (four eyes: they may not approve it). */
  lastEditedBy: z.string(),
  /** What the reading user may do with the order under roles and four eyes. */
  permissions: OrderSchema.shape.permissions,
  createdAt: OrderSchema.shape.createdAt,
  /** When the order last changed: a cancelled order's cancel time. */
  updatedAt: OrderSchema.shape.updatedAt,
  lines: z.array(
    z.object({
      lineNo: z.number(),
      partId: z.number(),
      code: z.string(),
      name: z.string(),
      nameEn: NameEn,
      quantity: z.number(),
      unit: z.string(),
      unitPrice: z.number(),
      amount: z.number(),
      priceCheck: PriceCheckViewSchema.optional(),
    }),
  ),
  approval: OrderApprovalSchema.optional(),
  otherLines: OrderSchema.shape.otherLines,
});
export type OrderView = z.infer<typeof OrderViewSchema>;

/** A write's answer: `stateChanged` is false when the call replayed an earlier one under the same idempotency key. */
export const OrderWriteResultSchema = z.object({
  success: z.literal(true),
  stateChanged: z.boolean(),
  order: OrderViewSchema,
  traceId: z.string(),
});

/** `order_preview`'s answer: the order as the ERP would write it, in the compact shape of an order's view. */
export const OrderPreviewViewSchema = z.object({
  supplier: NamedRef,
  lines: OrderViewSchema.shape.lines,
  totalAmount: OrderPreviewSchema.shape.totalAmount,
  approval: ApprovalDecisionSchema,
});

export const PriceCheckResultSchema = PriceCheckViewSchema.extend({
  partId: z.number(),
  unitPrice: z.number(),
  basis: PriceCheckSchema.shape.basis,
});

export const InventoryWarningViewSchema = InventoryWarningSchema.pick({
  partId: true,
  code: true,
  unit: true,
  onHand: true,
  safetyStock: true,
  reorderPoint: true,
  onOrder: true,
  moq: true,
  suggestedQuantity: true,
}).extend({ name: InventoryWarningSchema.shape.nameZh, nameEn: NameEn, supplier: NamedRef });
export type InventoryWarningView = z.infer<typeof InventoryWarningViewSchema>;

const PaidView = PaidLinesSchema.pick({ avgUnitPrice: true, lines: true, quantity: true });
/** `part_price_history`'s answer: each series named by its supplier (or across all), months as figures only. */
export const PriceHistoryViewSchema = PriceHistorySchema.pick({
  partId: true,
  product: true,
  by: true,
  period: true,
  definition: true,
}).extend({
  series: z.array(
    z.object({
      supplierId: z.number().nullable(),
      label: z.string(),
      /** The supplier's English name; absent for the series across suppliers, whose label is in both languages. */
      labelEn: NameEn,
      parts: z.array(z.string()),
      months: z.array(PriceHistoryMonthSchema.pick({ month: true, avgUnitPrice: true, lines: true, quantity: true })),
      total: PaidView,
    }),
  ),
  index: PriceIndexSchema.extend({
    change: PriceIndexChangeSchema.extend({
      grew: z
        .object({
          supplierId: z.number(),
          label: z.string(),
          labelEn: NameEn,
          fromSharePct: z.number(),
          toSharePct: z.number(),
        })
        .nullable(),
    }).nullable(),
  }),
});

/** A tool result with the ERP's trace id of the answer it came from (what its figures are traced back to). */
export const traced = <T extends z.ZodObject>(result: T) =>
  result.extend({ traceId: z.string().describe('ERP 应答的 x-trace-id / the ERP answer’s trace id') });

/** Every item at once. */
export const listOf = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), total: z.number() });

/** One page of a longer list, with a hint naming the next page when there is one. */
export const pagedViewOf = <T extends z.ZodType>(item: T) =>
  z.object({
    items: z.array(item),
    total: z.number(),
    /** Present (true) when there are more than `total`. */
    totalCapped: z.literal(true).optional(),
    page: z.number(),
    size: z.number(),
    hint: z.string().optional(),
  });

/*
 * Requests for quotation: a buyer asks several suppliers for prices on some lines, collects their quotes (by mail or
 * the quote form), compares them in CNY at the asked quantity and awards one supplier, which drafts a purchase order.
 */

export const RFQ_STATUSES = ['draft', 'sent', 'collecting', 'closed', 'awarded', 'cancelled'] as const;
export const RfqStatusSchema = z.enum(RFQ_STATUSES);
export type RfqStatus = z.infer<typeof RfqStatusSchema>;
export const INCOTERMS = ['EXW', 'FCA', 'FAS', 'FOB', 'CFR', 'CIF', 'CPT', 'CIP', 'DAP', 'DPU', 'DDP'] as const;
/** An ISO 4217 currency code. */
export const CurrencySchema = z
  .string()
  .trim()
  .toUpperCase()
  .regex(/^[A-Z]{3}$/, 'ISO 4217 code such as CNY, USD, EUR');
const Quantity = z.number().int().positive().max(10_000_000);
const Price = z.number().nonnegative().max(MAX_UNIT_PRICE);

export const RfqLineInputSchema = z
  .strictObject({
    /** A catalogue part, or `item` for something not in the catalogue. */
    partId: Id.optional(),
    item: Text(200).trim().min(1).optional(),
    quantity: Quantity,
    /** Defaults to the part's unit (pcs for a free-text item). */
    unit: Text(20).trim().min(1).optional(),
    requiredDate: IsoDate,
  })
  .refine((l) => l.partId !== undefined || l.item !== undefined, {
    message: 'a line names a partId or an item',
    path: ['item'],
  });
export type RfqLineInput = z.infer<typeof RfqLineInputSchema>;

export const CreateRfqInputSchema = z.strictObject({
  title: Text(200).trim().min(1),
  lines: z.array(RfqLineInputSchema).min(1).max(50),
  supplierIds: z.array(Id).min(1).max(20),
  /** When replies stop being accepted (ISO date-time, in the future). */
  replyDeadline: z.iso.datetime({ offset: true }),
  currency: CurrencySchema.default('CNY'),
  incoterm: z.enum(INCOTERMS).default('DAP'),
  note: Text(2000).optional(),
});
export type CreateRfqInput = z.infer<typeof CreateRfqInputSchema>;

/** A status change of an RFQ: needs the current version, like orders. */
export const RfqActionInputSchema = z.strictObject({
  version: z.number().int().positive(),
  reason: Text(500).optional(),
});
export type RfqActionInput = z.infer<typeof RfqActionInputSchema>;

export const AwardRfqInputSchema = z.strictObject({
  version: z.number().int().positive(),
  supplierId: Id,
  /** true: the order goes to the approval policy at once (pending_approval); false: it stays a draft. */
  submit: z.boolean().default(false),
  /** true: an RFQ still taking replies is closed first, in the same write (one decision for both steps). */
  close: z.boolean().default(false),
  note: Text(500).optional(),
});
export type AwardRfqInput = z.infer<typeof AwardRfqInputSchema>;

export const PriceBreakSchema = z.strictObject({ minQty: Quantity, unitPrice: Price });

/** One quoted line as a reply states it, in the supplier's currency. */
export const QuoteLineInputSchema = z.strictObject({
  lineNo: z.number().int().min(1).max(50),
  unitPrice: Price,
  currency: CurrencySchema,
  priceBreaks: z.array(PriceBreakSchema).max(10).default([]),
  moq: Quantity.optional(),
  leadTimeDays: z.number().int().min(0).max(365).optional(),
  validUntil: IsoDate.optional(),
  /** Freight for the whole line, in the quote's currency. */
  freight: Price.optional(),
  remarks: Text(1000).optional(),
});
export type QuoteLineInput = z.infer<typeof QuoteLineInputSchema>;

/** A supplier's reply to an invitation: quoted lines, a decline, and what could not be read with confidence. */
export const QuoteReplyInputSchema = z.strictObject({
  decline: z.boolean().default(false),
  lines: z.array(QuoteLineInputSchema).max(50).default([]),
  /** Parts of the reply that were not read with confidence: shown to the buyer, never guessed. */
  flags: z
    .array(z.strictObject({ lineNo: z.number().int().min(1).max(50).optional(), reason: Text(500) }))
    .max(50)
    .default([]),
  source: z.strictObject({
    kind: z.enum(QUOTE_SOURCES),
    /** The mail's Message-ID, and the attachment the figures were read from. */
    messageId: Text(300).optional(),
    attachment: Text(200).optional(),
    from: Text(300).optional(),
  }),
  remarks: Text(2000).optional(),
});
export type QuoteReplyInput = z.input<typeof QuoteReplyInputSchema>;

/** A buyer entering a supplier's reply by hand (a phone call, a fax). */
export const ManualQuoteInputSchema = QuoteReplyInputSchema.omit({ source: true }).extend({ supplierId: Id });

export const ExchangeRateSchema = z.object({
  currency: z.string(),
  /** CNY for one unit of the currency. */
  rateToCny: z.number(),
  updatedAt: z.string().nullable(),
  updatedBy: z.string().nullable(),
});
export type ExchangeRate = z.infer<typeof ExchangeRateSchema>;
export const SetExchangeRateInputSchema = z.strictObject({ rateToCny: z.number().positive().max(100_000) });

export const RfqLineSchema = z.object({
  lineNo: z.number(),
  partId: z.number().nullable(),
  part: z.object({ code: z.string(), model: z.string(), category: z.string(), nameZh: z.string() }).nullable(),
  /** What is asked for: the part's name and model, or the free text. */
  item: z.string(),
  quantity: z.number(),
  unit: z.string(),
  requiredDate: z.string(),
});

export const RfqInvitationSchema = RfqInvitationViewSchema;

/** A quote as stored, with its effective unit price and total in CNY at the asked quantity (its wire shape). */
export const RfqQuoteSchema = RfqQuoteViewSchema;
export type RfqQuote = z.infer<typeof RfqQuoteSchema>;

export const RfqSchema = z.object({
  id: z.number(),
  rfqNo: z.string(),
  projectId: z.string(),
  title: z.string(),
  status: RfqStatusSchema,
  version: z.number(),
  currency: z.string(),
  incoterm: z.enum(INCOTERMS),
  replyDeadline: z.string(),
  note: z.string(),
  createdBy: z.object({ id: z.number(), username: z.string() }),
  createdAt: z.string(),
  updatedAt: z.string(),
  traceId: z.string().nullable(),
  /** The award: the supplier and the purchase order it drafted. */
  award: z
    .object({
      supplierId: z.number(),
      orderId: z.number(),
      orderNo: z.string(),
      awardedBy: z.string(),
      awardedAt: z.string(),
    })
    .nullable(),
  lines: z.array(RfqLineSchema),
  invitations: z.array(RfqInvitationSchema),
  quotes: z.array(RfqQuoteSchema),
});
export type Rfq = z.infer<typeof RfqSchema>;
export type RfqLine = z.infer<typeof RfqLineSchema>;

export const RfqSummarySchema = RfqSchema.pick({
  id: true,
  rfqNo: true,
  title: true,
  status: true,
  version: true,
  replyDeadline: true,
  createdAt: true,
}).extend({ lines: z.number(), invited: z.number(), replied: z.number() });
export type RfqSummary = z.infer<typeof RfqSummarySchema>;

/** An award's answer: the RFQ as it now stands and the purchase order it drafted. */
export const RfqAwardSchema = z.object({ rfq: RfqSchema, order: OrderSchema });

/**
 * Sourcing settings: how an RFQ's quotes are weighed in the award proposal, and when suppliers without a reply are
 * reminded. Admins change them (optimistic version, audited).
 */
export const SOURCING_CRITERIA = ['cost', 'leadTime', 'scorecard', 'priceHistory'] as const;
const Weight = z.number().min(0).max(100);
export const SourcingWeightsSchema = z
  .strictObject({
    /** Landed cost in CNY at the asked quantity (freight included): the cheapest scores 1, others cheapest ÷ own. */
    cost: Weight,
    /** Days to spare between the promised arrival (today + lead time) and the required date, as a share of the
     *  days available. */
    leadTime: Weight,
    /** The supplier's on-time delivery rate over 12 months (neutral 0.5 without deliveries). */
    scorecard: Weight,
    /** The price against the 12-month median paid for the product (1 at or below it, 0 at twice it; neutral 0.5
     *  without enough history). */
    priceHistory: Weight,
  })
  .refine((w) => SOURCING_CRITERIA.some((k) => w[k] > 0), { message: 'at least one weight above 0' });
export type SourcingWeights = z.infer<typeof SourcingWeightsSchema>;
export const SourcingSettingsSchema = z.object({
  projectId: z.string(),
  weights: SourcingWeightsSchema,
  /** Hours before the reply deadline at which suppliers without a reply get one reminder. */
  reminderHours: z.number(),
  /** 0 while the project is on the defaults. */
  version: z.number(),
  updatedBy: z.string().nullable(),
  updatedAt: z.string().nullable(),
});
export type SourcingSettings = z.infer<typeof SourcingSettingsSchema>;
export const UpdateSourcingSettingsInputSchema = z.strictObject({
  version: z.number().int().min(0),
  weights: SourcingWeightsSchema.optional(),
  reminderHours: z.number().int().min(1).max(720).optional(),
});
export type UpdateSourcingSettingsInput = z.infer<typeof UpdateSourcingSettingsInputSchema>;

/** Why a supplier's quote for a line is left out of the proposal. */
export const PROPOSAL_EXCLUSIONS = [
  'no_reply',
  'declined',
  'unreadable',
  'late',
  'expired',
  'moq',
  'too_slow',
  'no_rate',
  /** ¥0, or far below the 12-month median paid: a risk to check, not a saving. */
  'price_low',
] as const;
export const RfqProposalSchema = z.object({
  rfqId: z.number(),
  rfqNo: z.string(),
  status: RfqStatusSchema,
  /** The day dates (validity, arrival) were judged on. */
  asOf: z.string(),
  weights: SourcingWeightsSchema,
  /** Suppliers with a usable quote for every line, best first. */
  ranking: z.array(
    z.object({
      rank: z.number(),
      supplier: SupplierRefSchema,
      /** Σ weight × criterion score ÷ Σ weights, 0–1. */
      score: z.number(),
      scores: z.object({ cost: z.number(), leadTime: z.number(), scorecard: z.number(), priceHistory: z.number() }),
      landedCostCny: z.number(),
      onTimePct: z.number().nullable(),
      lines: z.array(
        z.object({
          lineNo: z.number(),
          unitPriceCny: z.number(),
          totalCny: z.number(),
          leadTimeDays: z.number().nullable(),
          arrivalDate: z.string().nullable(),
          requiredDate: z.string(),
          validUntil: z.string().nullable(),
          median12m: z.number().nullable(),
          deviationPct: z.number().nullable(),
        }),
      ),
      /** Why it ranks where it does, one sentence per criterion (Chinese / English). */
      why: z.array(z.string()),
    }),
  ),
  /** The first of the ranking, or null when no supplier can be awarded. */
  recommended: SupplierRefSchema.nullable(),
  excluded: z.array(
    z.object({
      supplier: SupplierRefSchema,
      lineNo: z.number().nullable(),
      reason: z.enum(PROPOSAL_EXCLUSIONS),
      detail: z.string(),
    }),
  ),
});
export type RfqProposal = z.infer<typeof RfqProposalSchema>;

/**
 * What awarding an RFQ would write, without writing it: whether it closes the RFQ first, the purchase order as the
 * ERP would write it (lines at the supplier's CNY prices, each checked, the total, the approval policy's decision as
 * submitted), and where the proposal ranks the supplier and why.
 */
export const RfqAwardPreviewSchema = z.object({
  rfqNo: z.string(),
  closes: z.boolean(),
  order: OrderPreviewSchema,
  /** The supplier's place in the award proposal (null: not ranked, e.g. a quote left out), of `ranked`. */
  rank: z.number().nullable(),
  ranked: z.number(),
  why: z.array(z.string()),
});
export type RfqAwardPreview = z.infer<typeof RfqAwardPreviewSchema>;

/*
 * Procure to pay: goods received against an order's lines, supplier invoices against the order and what was
 * received (the three-way match), and the release of a matched invoice for payment.
 */

const ReceiptNo = Text(60)
  .trim()
  .min(1)
  .regex(/^[\w./-]+$/, 'letters, digits and . / - _');

/** What arrived: quantities per order line (only those that arrived), who entered it is the requesting user. */
export const RecordReceiptInputSchema = z.strictObject({
  lines: z
    .array(z.strictObject({ lineNo: z.number().int().min(1).max(200), quantity: Quantity }))
    .min(1)
    .max(200),
  /** The receipt's number (e.g. the delivery note's); the ERP numbers it when absent. Recording the same number
   *  again with the same lines is a retry and writes nothing; with other lines it is refused. */
  receiptNo: ReceiptNo.optional(),
  /** When the goods arrived (default: now); never in the future. */
  receivedAt: z.iso.datetime({ offset: true }).optional(),
  note: Text(500).optional(),
});
export type RecordReceiptInput = z.infer<typeof RecordReceiptInputSchema>;

export const GoodsReceiptSchema = z.object({
  id: z.number(),
  receiptNo: z.string(),
  orderId: z.number(),
  receivedBy: z.object({ id: z.number(), username: z.string() }),
  receivedAt: z.string(),
  recordedAt: z.string(),
  note: z.string(),
  lines: z.array(z.object({ lineNo: z.number(), partId: z.number(), quantity: z.number() })),
});
export type GoodsReceipt = z.infer<typeof GoodsReceiptSchema>;

/** An order's receiving and invoicing per line: ordered, received so far, and invoiced on invoices not rejected. */
export const OrderReceivingSchema = z.object({
  order: z.object({ id: z.number(), orderNo: z.string(), status: OrderStatusSchema, version: z.number() }),
  lines: z.array(
    z.object({
      lineNo: z.number(),
      partId: z.number(),
      code: z.string(),
      ordered: z.number(),
      received: z.number(),
      invoiced: z.number(),
    }),
  ),
  receipts: z.array(GoodsReceiptSchema),
});
export type OrderReceiving = z.infer<typeof OrderReceivingSchema>;

/** A receipt's answer: the receipt and the order's receiving as it now stands. */
export const ReceiptResultSchema = OrderReceivingSchema.omit({ receipts: true }).extend({
  receipt: GoodsReceiptSchema,
});
export type ReceiptResult = z.infer<typeof ReceiptResultSchema>;

/** Money as the invoice states it: an integer count of the currency's minor unit (分 fen for CNY, cents for USD). */
const MinorAmount = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

export const InvoiceLineInputSchema = z.strictObject({
  partId: Id,
  /** The order line it bills, when the order has the part on several lines. */
  lineNo: z.number().int().min(1).max(200).optional(),
  quantity: Quantity,
  unitPriceMinor: MinorAmount.max(10_000_000_000),
});

/** A supplier invoice entered in the ERP. The currency is stated, never assumed. */
export const RecordInvoiceInputSchema = z.strictObject({
  supplierId: Id,
  invoiceNo: Text(60).trim().min(1),
  orderNo: Text(40).trim().min(1),
  currency: CurrencySchema,
  invoiceDate: IsoDate,
  lines: z.array(InvoiceLineInputSchema).min(1).max(200),
  /** The total printed on the invoice (minor units); when given, the lines must add up to it. */
  totalMinor: MinorAmount.optional(),
  note: Text(500).optional(),
});
export type RecordInvoiceInput = z.infer<typeof RecordInvoiceInputSchema>;

export const INVOICE_STATUSES = ['matched', 'held', 'released'] as const;
export const InvoiceStatusSchema = z.enum(INVOICE_STATUSES);
export type InvoiceStatus = z.infer<typeof InvoiceStatusSchema>;

/** Why a three-way match holds an invoice. */
export const HOLD_CODES = [
  /** The order is not placed (draft, waiting for approval, approved) or cancelled. */
  'order_status',
  /** The invoice's supplier is not the order's. */
  'supplier_mismatch',
  /** The invoiced part is not on the order (or not on the line named). */
  'not_on_order',
  /** The order has the part on several lines and the invoice line names none. */
  'line_ambiguous',
  /** Unit price above the order's beyond the price tolerance (in CNY, at the declared rate for another currency). */
  'price_above_order',
  /** Quantity invoiced (with earlier invoices) above what was received, beyond the quantity tolerance. */
  'quantity_above_received',
  /** The lines do not add up to the invoice's stated total. */
  'total_mismatch',
  /** Another invoice of the same amount for the same order within the duplicate window. */
  'possible_duplicate',
] as const;

export const HoldReasonSchema = z.object({
  code: z.enum(HOLD_CODES),
  /** The invoice line (1-based) it concerns; null for the invoice as a whole. */
  line: z.number().nullable(),
  expected: z.union([z.number(), z.string()]).nullable(),
  actual: z.union([z.number(), z.string()]).nullable(),
  /** The reason in words, Chinese first. */
  message: z.string(),
});
export type HoldReason = z.infer<typeof HoldReasonSchema>;

export const InvoiceMatchSchema = z.object({
  result: z.enum(['matched', 'held']),
  reasons: z.array(HoldReasonSchema),
  tolerances: InvoiceMatchTolerancesSchema,
  checkedAt: z.string(),
});
export type InvoiceMatch = z.infer<typeof InvoiceMatchSchema>;

export const SupplierInvoiceSchema = z.object({
  id: z.number(),
  invoiceNo: z.string(),
  supplier: SupplierRefSchema,
  order: z.object({ id: z.number(), orderNo: z.string() }),
  currency: z.string(),
  /** CNY for one unit of the currency, as declared in the ERP when the invoice was entered (1 for CNY). */
  rateToCny: z.number(),
  invoiceDate: z.string(),
  status: InvoiceStatusSchema,
  version: z.number(),
  totalMinor: z.number(),
  lines: z.array(
    z.object({
      lineNo: z.number(),
      partId: z.number(),
      /** The order line it was matched to; null when none could be. */
      orderLineNo: z.number().nullable(),
      quantity: z.number(),
      unitPriceMinor: z.number(),
      amountMinor: z.number(),
    }),
  ),
  match: InvoiceMatchSchema,
  note: z.string(),
  enteredBy: z.string(),
  enteredAt: z.string(),
  releasedBy: z.string().nullable(),
  releasedAt: z.string().nullable(),
  traceId: z.string().nullable(),
});
export type SupplierInvoice = z.infer<typeof SupplierInvoiceSchema>;

export const InvoiceActionInputSchema = z.strictObject({ version: z.number().int().positive() });
export type InvoiceActionInput = z.infer<typeof InvoiceActionInputSchema>;
