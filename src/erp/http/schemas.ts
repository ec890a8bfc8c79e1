import { z } from '@hono/zod-openapi';
import { ROLES } from '../../protocol/index.ts';
import { PART_CATEGORIES } from '../catalog.ts';
import { ORDER_STATUSES } from '../db/schema.ts';

/** The ERP's wire contract. Handlers validate with these and `/openapi.json` is generated from them. */

const MAX_INT = 2_147_483_647;
export const Id = z.coerce.number().int().positive().max(MAX_INT);
const Page = z.coerce.number().int().min(1).max(100_000).default(1);
const Size = z.coerce.number().int().min(1).max(100).default(20);
/** Text fields refuse NUL and other C0 control characters (except tab/newline), which no ERP field needs. */
const Text = (max: number) =>
  z
    .string()
    .max(max)
    // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
    .regex(/^[^\u0000-\u0008\u000b\u000c\u000e-\u001f]*$/, 'control characters are not allowed');
const SearchText = Text(100).trim().min(1);
const IsoDate = z.iso.date();

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

export const OrderStatusSchema = z.enum(ORDER_STATUSES).openapi('OrderStatus');

export const OrderSearchQuery = z.object({
  page: Page,
  size: Size,
  keyword: SearchText.optional(),
  status: OrderStatusSchema.optional(),
  supplierId: Id.optional(),
  partId: Id.optional(),
  dateFrom: IsoDate.optional().openapi({ example: '2026-01-01' }),
  dateTo: IsoDate.optional().openapi({ example: '2026-12-31' }),
});

const OrderLineInput = z.strictObject({
  partId: Id,
  quantity: z.number().int().positive().max(10_000_000),
  unitPrice: z.number().nonnegative().max(100_000).optional(),
});

export const CreateOrderBody = z
  .strictObject({
    supplierId: Id,
    lines: z.array(OrderLineInput).min(1).max(200),
    expectedDate: IsoDate.optional(),
    note: Text(2000).optional(),
    status: z.enum(['draft', 'pending_approval']).optional(),
  })
  .openapi('CreateOrder');

export const UpdateOrderBody = z
  .strictObject({
    version: z.number().int().positive(),
    status: OrderStatusSchema.optional(),
    lines: z.array(OrderLineInput).min(1).max(200).optional(),
    expectedDate: IsoDate.nullable().optional(),
    note: Text(2000).optional(),
  })
  .openapi('UpdateOrder');

export const CancelOrderBody = z
  .strictObject({ version: z.number().int().positive(), reason: Text(500).optional() })
  .openapi('CancelOrder');

export const IdempotencyHeader = z.object({
  'idempotency-key': z
    .string()
    .min(1)
    .max(200)
    .regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces')
    .optional()
    .openapi({ description: 'Idempotency-Key: retries with the same key return the same order' }),
});

const SupplierRef = z.object({ id: z.number(), nameZh: z.string(), nameEn: z.string() });

export const SupplierSchema = z
  .object({
    id: z.number(),
    key: z.string(),
    nameZh: z.string(),
    nameEn: z.string(),
    contact: z.object({ name: z.string(), phone: z.string(), email: z.string() }),
    region: z.object({ city: z.string(), province: z.string() }),
    rating: z.number(),
    leadTimeDays: z.number(),
    paymentTerms: z.string(),
  })
  .openapi('Supplier');

export const PartSchema = z
  .object({
    id: z.number(),
    code: z.string(),
    model: z.string(),
    category: z.string().openapi({ enum: PART_CATEGORIES.map((c) => c.code) }),
    categoryName: z.string(),
    nameZh: z.string(),
    nameEn: z.string(),
    spec: z.string(),
    unit: z.string(),
    unitPrice: z.number(),
    currency: z.literal('CNY'),
    moq: z.number(),
    supplier: SupplierRef,
  })
  .openapi('Part');

export const CategorySchema = z
  .object({ code: z.string(), nameZh: z.string(), nameEn: z.string(), parts: z.number() })
  .openapi('Category');

export const OrderSchema = z
  .object({
    id: z.number(),
    orderNo: z.string(),
    projectId: z.string(),
    status: OrderStatusSchema,
    version: z.number(),
    supplier: SupplierRef,
    expectedDate: z.string().nullable(),
    note: z.string(),
    createdBy: z.object({ id: z.number(), username: z.string() }),
    createdAt: z.string(),
    updatedAt: z.string(),
    currency: z.literal('CNY'),
    totalAmount: z.number(),
    lines: z.array(
      z.object({
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
      }),
    ),
  })
  .openapi('Order');

export const InventoryWarningSchema = z
  .object({
    partId: z.number(),
    code: z.string(),
    nameZh: z.string(),
    nameEn: z.string(),
    category: z.string(),
    unit: z.string(),
    supplier: SupplierRef,
    onHand: z.number(),
    safetyStock: z.number(),
    reorderPoint: z.number(),
    onOrder: z.number(),
    moq: z.number(),
    location: z.string(),
    suggestedQuantity: z.number(),
  })
  .openapi('InventoryWarning');

export const AuditQuery = z.object({ entity: Text(40), entityId: Text(40) });
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

export const ProblemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number(),
    detail: z.string(),
    code: z.string(),
    traceId: z.string().optional(),
    errors: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
  })
  .openapi('Problem');

export const itemsOf = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item) });
export const pageOf = <T extends z.ZodType>(item: T) =>
  z.object({ items: z.array(item), total: z.number(), page: z.number(), size: z.number() });
