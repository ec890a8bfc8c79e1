import { createHash } from 'node:crypto';
import { z } from 'zod';
import {
  contract,
  type ErpAnswer,
  type ErpConnection,
  type Page as ErpPage,
  type ErpRequest,
  erpExchange,
  erpRequest,
  type InventoryWarning,
  type Order,
  type OrderPreview,
  type Part,
  type PriceHistory,
  type Supplier,
  type SupplierScorecard,
} from '../../erp/index.ts';
import { Tool, type ToolControl } from '../registry.ts';

const { Id, SearchText, IsoDate, CategoryCode, OrderStatusSchema: OrderStatus, listOf, pagedViewOf, traced } = contract;
/** Any client may make a write safe to retry: the same key again answers the first result, `stateChanged: false`. */
const IdempotencyKey = contract.IdempotencyKey.optional().describe('重试时用同一个键 / reuse on a retry');
const Page = z.number().int().min(1).max(100_000).default(1).describe('页码 / page');
const size = (fallback: number) => z.number().int().min(1).max(50).default(fallback).describe('每页条数 / page size');
// The ERP's own order input, with guidance for the model on the fields it fills.
const OrderLines = contract.CreateOrderInputSchema.shape.lines.describe(
  'partId 先查；unitPrice 缺省为目录价 / look partId up first; unitPrice defaults to the list price',
);
const OrderCreateInput = contract.CreateOrderInputSchema.omit({ status: true }).extend({
  lines: OrderLines,
  expectedDate: IsoDate.optional().describe('期望到货日期 YYYY-MM-DD / expected date'),
  submit: z.boolean().default(false).describe('true: 提交审批 pending_approval；false: 草稿 draft'),
  idempotencyKey: IdempotencyKey,
});
const OrderPreviewInput = contract.CreateOrderInputSchema.omit({ status: true }).extend({
  lines: OrderLines,
  expectedDate: OrderCreateInput.shape.expectedDate,
});
const OrderUpdateInput = contract.UpdateOrderInputSchema.extend({
  orderId: Id,
  version: contract.UpdateOrderInputSchema.shape.version.describe('订单当前版本号 / current version'),
  idempotencyKey: IdempotencyKey,
});
const OrderCancelInput = contract.CancelOrderInputSchema.extend({ orderId: Id, idempotencyKey: IdempotencyKey });

type SupplierWire = Supplier;
type PartWire = Part;
type OrderWire = Order;
type ScorecardWire = SupplierScorecard;
type PageWire<T> = ErpPage<T>;

// Wire shapes are the ERP's own response types; the views are the contract's compact shapes for a model.
const supplierView = (s: SupplierWire): contract.SupplierView => ({
  id: s.id,
  name: s.nameZh,
  nameEn: s.nameEn,
  // A municipality is its own province (上海, 上海): said once.
  city: s.region.city.startsWith(s.region.province) ? s.region.city : `${s.region.province}${s.region.city}`,
  rating: s.rating,
  leadTimeDays: s.leadTimeDays,
  paymentTerms: s.paymentTerms,
  contact: `${s.contact.name} ${s.contact.phone}`,
});
/** A supplier as the views name it: Chinese and English, so an answer names it in its own language. */
const supplierRef = (s: z.infer<typeof contract.SupplierRefSchema>) => ({
  id: s.id,
  name: s.nameZh,
  nameEn: s.nameEn,
});
const partView = (p: PartWire): contract.PartView => ({
  id: p.id,
  code: p.code,
  model: p.model,
  name: p.nameZh,
  nameEn: p.nameEn,
  category: p.category,
  spec: p.spec,
  unit: p.unit,
  unitPrice: p.unitPrice,
  moq: p.moq,
  supplier: supplierRef(p.supplier),
});
const stockView = (w: InventoryWarning): contract.InventoryWarningView => ({
  partId: w.partId,
  code: w.code,
  name: w.nameZh,
  nameEn: w.nameEn,
  unit: w.unit,
  supplier: supplierRef(w.supplier),
  onHand: w.onHand,
  safetyStock: w.safetyStock,
  reorderPoint: w.reorderPoint,
  onOrder: w.onOrder,
  moq: w.moq,
  suggestedQuantity: w.suggestedQuantity,
});
const orderView = (o: OrderWire): contract.OrderView => ({
  id: o.id,
  orderNo: o.orderNo,
  status: o.status,
  version: o.version,
  supplier: supplierRef(o.supplier),
  totalAmount: o.totalAmount,
  expectedDate: o.expectedDate,
  note: o.note || undefined,
  createdBy: o.createdBy.username,
  lastEditedBy: o.lastEditedBy.username,
  // What this user may do with the order under roles and four eyes, so a model refuses before asking for approval.
  permissions: o.permissions,
  createdAt: o.createdAt,
  updatedAt: o.updatedAt,
  lines: o.lines.map(lineView),
  approval: o.approval ?? undefined,
  otherLines: o.otherLines,
});
const lineView = (l: OrderWire['lines'][number]): contract.OrderView['lines'][number] => ({
  lineNo: l.lineNo,
  partId: l.partId,
  code: l.part.code,
  name: l.part.nameZh,
  nameEn: l.part.nameEn,
  quantity: l.quantity,
  unit: l.part.unit,
  unitPrice: l.unitPrice,
  amount: l.amount,
  priceCheck: l.priceCheck ? priceCheckView(l.priceCheck) : undefined,
});
/** The label of a price history's series across every supplier of a product. */
export const ACROSS_SUPPLIERS = '所有供应商 / all suppliers';

type PriceCheckWire = NonNullable<OrderWire['lines'][number]['priceCheck']>;
const priceCheckView = (c: PriceCheckWire): z.infer<typeof contract.PriceCheckViewSchema> => ({
  severity: c.severity,
  deviationPct: c.deviationPct,
  median12m: c.median12m,
  minPrice12m: c.minPrice12m,
  reason: c.reason,
});

/** A page with a hint telling the model how to get the rest (`total` stops counting at the ERP's cap). */
function paged<T, V>(
  page: PageWire<T>,
  view: (item: T) => V,
): Omit<z.infer<ReturnType<typeof pagedViewOf>>, 'items'> & { items: V[] } {
  const shown = (page.page - 1) * page.size + page.items.length;
  const more = page.totalCapped ? `${page.total - shown}+` : String(page.total - shown);
  return {
    items: page.items.map(view),
    total: page.total,
    totalCapped: page.totalCapped ? true : undefined,
    page: page.page,
    size: page.size,
    hint:
      shown < page.total
        ? `还有 ${more} 条，用 page=${page.page + 1} 查看，或加条件缩小范围 / ${more} more: page=${page.page + 1}, or narrow the query`
        : undefined,
  };
}

/** A write's idempotency key: the caller's, else one derived from the model's call id, so the same call retried
 *  (network, resume after approval) never writes twice. */
export const writeKey = (idempotencyKey: string | undefined, control: ToolControl) =>
  idempotencyKey ??
  (control.callId ? `call-${createHash('sha256').update(control.callId).digest('hex').slice(0, 40)}` : undefined);

/**
 * The ERP REST API, bound to one user's token, project and trace id. Its methods are the ERP tools: each is a
 * thin, declared entry to one ERP endpoint, and the ERP authorises every call as that user.
 */
export class ErpClient {
  constructor(readonly connection: ErpConnection) {}

  /** One request to the ERP as the bound user (used by the tools below and by `dynamic_http_call`). */
  request<T>(method: string, path: string, request?: ErpRequest): Promise<T> {
    return erpRequest<T>(this.connection, method, path, request);
  }

  /** A read as the bound user, with the ERP's trace id of the answer (every tool result carries it as `traceId`). */
  private get<T>(
    path: string,
    query: Record<string, unknown> | undefined,
    control: ToolControl,
  ): Promise<ErpAnswer<T>> {
    return erpExchange<T>(this.connection, 'GET', path, { query, signal: control.signal });
  }

  /**
   * One write to an order under an idempotency key (the caller's, else one derived from the model's call id, so the
   * same call retried — network, resume after approval — never writes twice), answered with the order as it now
   * stands; `stateChanged` is false when the ERP replayed an earlier write under the key.
   */
  private async writeOrder(
    method: string,
    path: string,
    request: ErpRequest & { idempotencyKey?: string },
    control: ToolControl,
  ): Promise<z.infer<typeof contract.OrderWriteResultSchema>> {
    const { idempotencyKey, ...rest } = request;
    const key = writeKey(idempotencyKey, control);
    const { body, traceId, replayed } = await erpExchange<OrderWire>(this.connection, method, path, {
      ...rest,
      headers: key ? { 'idempotency-key': key } : undefined,
      signal: control.signal,
    });
    return { success: true, stateChanged: !replayed, order: orderView(body), traceId };
  }

  /** The project's part categories, as the line a model reads when picking one. */
  async categoryHint(): Promise<string> {
    const { items } = await this.request<{ items: Array<{ code: string; nameZh: string; parts: number }> }>(
      'GET',
      '/categories',
    );
    return `当前可用分类 / valid categories: ${items.map((c) => `${c.code}(${c.nameZh})`).join(', ')}`;
  }

  @Tool({
    name: 'category_list',
    label: '零部件分类',
    description: "本项目的零部件分类及其同义词（机滤=机油滤清器）/ the project's part categories and synonyms",
    schema: z.object({}),
    safety: 'read-only',
    group: 'part',
    output: traced(listOf(contract.CategorySchema)),
  })
  async categoryList(_input: Record<string, never>, control: ToolControl) {
    const { body, traceId } = await this.get<{ items: contract.Category[] }>('/categories', undefined, control);
    return { items: body.items, total: body.items.length, traceId };
  }

  @Tool({
    name: 'supplier_query',
    label: '查询供应商',
    description:
      '按名称模糊搜索供应商（中文或英文名的一部分）；不给 name 时列出全部供应商。/ Fuzzy supplier search by name; all suppliers without a name.',
    schema: z.object({ name: SearchText.optional().describe('供应商名称关键词，如 博世 / name keyword') }),
    safety: 'read-only',
    group: 'supplier',
    output: traced(listOf(contract.SupplierViewSchema)),
  })
  async supplierQuery(input: { name?: string }, control: ToolControl) {
    const { body, traceId } = input.name
      ? await this.get<{ items: SupplierWire[] }>('/suppliers/search', { name: input.name }, control)
      : await this.get<{ items: SupplierWire[] }>('/suppliers', undefined, control);
    return { items: body.items.map(supplierView), total: body.items.length, traceId };
  }

  @Tool({
    name: 'supplier_get',
    label: '供应商详情',
    description: '按 id 读取一个供应商的详情（联系人、地区、评分、交期、账期）。/ One supplier by id.',
    schema: z.object({ supplierId: Id }),
    safety: 'read-only',
    group: 'supplier',
    output: traced(contract.SupplierDetailViewSchema),
  })
  async supplierGet(input: { supplierId: number }, control: ToolControl) {
    const { body: supplier, traceId } = await this.get<SupplierWire>(
      `/suppliers/${input.supplierId}`,
      undefined,
      control,
    );
    return { ...supplierView(supplier), contact: supplier.contact, key: supplier.key, traceId };
  }

  @Tool({
    name: 'supplier_scorecard',
    label: '供应商评分卡',
    description:
      '供应商评分卡（ERP 历史）：准时交付、价格相对市场中位价、采购量与金额、取消率。/ Supplier scorecard: on-time delivery, price vs market median, volume, cancellations.',
    schema: z.object({
      supplierId: Id,
      months: z.number().int().min(1).max(36).default(12).describe('统计月数 / months of history'),
    }),
    safety: 'read-only',
    group: 'supplier',
    output: traced(contract.SupplierScorecardSchema),
  })
  async supplierScorecard(input: { supplierId: number; months: number }, control: ToolControl) {
    const { body, traceId } = await this.get<ScorecardWire>(
      `/suppliers/${input.supplierId}/scorecard`,
      { months: input.months },
      control,
    );
    return { ...body, traceId };
  }

  @Tool({
    name: 'part_query',
    label: '查询零部件',
    description:
      '分页查询零部件（按名称、分类、供应商，相关度排序），含目录价；total 最多 1000。/ Paged parts by name, category, supplier.',
    schema: z.object({
      name: SearchText.optional().describe('名称或型号关键词 / name or model keyword'),
      category: z.string().trim().min(1).max(40).optional().describe('分类代码 / category code'),
      supplierId: Id.optional(),
      page: Page,
      size: size(20),
    }),
    safety: 'read-only',
    group: 'part',
    output: traced(pagedViewOf(contract.PartViewSchema)),
    untrusted: ['spec'],
    // The ERP refuses every request without a token: a listing without a user asks nothing over the network.
    liveValues: async (ctx, host) => (ctx.token ? (host as ErpClient).categoryHint() : undefined),
  })
  async partQuery(
    input: { name?: string; category?: string; supplierId?: number; page: number; size: number },
    control: ToolControl,
  ) {
    const { body, traceId } = await this.get<PageWire<PartWire>>('/parts', input, control);
    return { ...paged(body, partView), traceId };
  }

  @Tool({
    name: 'part_search',
    label: '搜索零部件',
    description: '按名称/型号搜索零部件（中文、英文或型号片段）。/ Search parts by name or model.',
    schema: z.object({
      name: SearchText.describe('如 火花塞、F7TC / e.g. spark plug'),
      limit: z.number().int().min(1).max(50).default(20),
    }),
    safety: 'read-only',
    group: 'part',
    output: traced(listOf(contract.PartViewSchema)),
    untrusted: ['spec'],
  })
  async partSearch(input: { name: string; limit: number }, control: ToolControl) {
    const { body, traceId } = await this.get<{ items: PartWire[] }>('/parts/search', input, control);
    return { items: body.items.map(partView), total: body.items.length, traceId };
  }

  @Tool({
    name: 'price_check',
    label: '价格检查',
    description:
      '单价与近 12 个月同型号成交中位价、最低价比较：偏差 % 与严重程度 ok/info/warn/critical/unknown。/ A unit price against the 12-month median paid.',
    schema: z.object({
      partId: Id,
      unitPrice: z.number().positive().max(10_000_000).describe('元 / yuan'),
      supplierId: Id.optional().describe('报价供应商 / quoting supplier'),
    }),
    safety: 'read-only',
    group: 'part',
    output: traced(contract.PriceCheckResultSchema),
  })
  async priceCheck(input: { partId: number; unitPrice: number; supplierId?: number }, control: ToolControl) {
    const { partId, ...query } = input;
    const { body: check, traceId } = await this.get<PriceCheckWire>(`/parts/${partId}/price-check`, query, control);
    return { partId, unitPrice: check.unitPrice, ...priceCheckView(check), basis: check.basis, traceId };
  }

  @Tool({
    name: 'part_price_history',
    label: '价格历史',
    description:
      '价格历史（ERP 计算）：同一产品每月已下单/已收货订单行的按数量加权均价、行数、数量；by=supplier 每家供应商一条序列，by=product 所有供应商合并一条；total 为全期合计；index 同口径链式价格指数，change.mixPct 供应商结构影响。/ Monthly quantity-weighted paid price of a product (ordered and received orders), per supplier or across suppliers, and a like-for-like index.',
    schema: z.object({
      partId: Id.describe('该产品任一供应商的零部件 id / id of any part of the product'),
      months: contract.PriceHistoryQuerySchema.shape.months.describe(
        '含本月在内的月数 / calendar months incl. this one',
      ),
      by: contract.PriceHistoryQuerySchema.shape.by.describe(
        'supplier：按供应商分列；product：所有供应商合并 / per supplier, or across suppliers',
      ),
    }),
    safety: 'read-only',
    group: 'part',
    output: traced(contract.PriceHistoryViewSchema),
  })
  async partPriceHistory(input: { partId: number; months: number; by: 'supplier' | 'product' }, control: ToolControl) {
    const { partId, ...query } = input;
    const { body, traceId } = await this.get<PriceHistory>(`/parts/${partId}/price-history`, query, control);
    return {
      partId,
      product: body.product,
      by: body.by,
      period: body.period,
      definition: body.definition,
      series: body.series.map((s) => ({
        supplierId: s.supplier?.id ?? null,
        label: s.supplier?.nameZh ?? ACROSS_SUPPLIERS,
        labelEn: s.supplier?.nameEn,
        parts: s.parts.map((p) => p.code),
        months: s.months.map((m) => ({
          month: m.month,
          avgUnitPrice: m.avgUnitPrice,
          lines: m.lines,
          quantity: m.quantity,
        })),
        total: { avgUnitPrice: s.total.avgUnitPrice, lines: s.total.lines, quantity: s.total.quantity },
      })),
      index: {
        ...body.index,
        change: body.index.change && {
          ...body.index.change,
          grew: body.index.change.grew && {
            supplierId: body.index.change.grew.supplier.id,
            label: body.index.change.grew.supplier.nameZh,
            labelEn: body.index.change.grew.supplier.nameEn,
            fromSharePct: body.index.change.grew.fromSharePct,
            toSharePct: body.index.change.grew.toSharePct,
          },
        },
      },
      traceId,
    };
  }

  @Tool({
    name: 'part_by_supplier',
    label: '供应商的零部件',
    description: '按供应商 id 查该供应商供应的全部零部件。/ All parts a supplier offers.',
    schema: z.object({ supplierId: Id.describe('先用 supplier_query 得到 id / get it from supplier_query') }),
    safety: 'read-only',
    group: 'part',
    output: traced(listOf(contract.PartViewSchema)),
    untrusted: ['spec'],
  })
  async partBySupplier(input: { supplierId: number }, control: ToolControl) {
    const { body, traceId } = await this.get<{ items: PartWire[] }>(
      `/parts/supplier/${input.supplierId}`,
      undefined,
      control,
    );
    return { items: body.items.map(partView), total: body.items.length, traceId };
  }

  @Tool({
    name: 'order_preview',
    label: '预览采购订单',
    description:
      '预览采购订单（不写入）：ERP 按创建订单的同一规则给出每行单价（缺省目录价）与价格检查、合计金额，以及提交后审批策略的结果（自动批准或需管理员及原因）；行无效时返回 ERP 的字段错误。/ What creating this order would write, without writing: priced and checked lines, the total and the approval policy’s decision.',
    schema: OrderPreviewInput,
    safety: 'read-only',
    group: 'order',
    output: traced(contract.OrderPreviewViewSchema),
  })
  async orderPreview(input: z.infer<typeof OrderPreviewInput>, control: ToolControl) {
    const { body, traceId } = await erpExchange<OrderPreview>(this.connection, 'POST', '/orders/preview', {
      body: input,
      signal: control.signal,
    });
    return {
      supplier: supplierRef(body.supplier),
      lines: body.lines.map(lineView),
      totalAmount: body.totalAmount,
      approval: body.approval,
      traceId,
    };
  }

  @Tool({
    name: 'order_create',
    label: '创建采购订单',
    description:
      '创建采购订单（一个供应商）；submit=true 提交审批，否则为草稿。须用户同意。/ Creates an order (one supplier); submit=true submits it for approval. Needs the user’s consent.',
    schema: OrderCreateInput,
    safety: 'write',
    destructive: false,
    group: 'order',
    output: traced(contract.OrderWriteResultSchema),
    untrusted: ['note', 'comment'],
  })
  async orderCreate(input: z.infer<typeof OrderCreateInput>, control: ToolControl) {
    const { submit, idempotencyKey, ...order } = input;
    return this.writeOrder(
      'POST',
      '/orders/create',
      { body: { ...order, status: submit ? 'pending_approval' : 'draft' }, idempotencyKey },
      control,
    );
  }

  @Tool({
    name: 'order_update',
    label: '修改采购订单',
    description:
      '修改采购订单（状态、行、到货日期、备注），写入 ERP；需当前 version（order_get）。须用户同意。/ Updates an order; needs its current version and the user’s consent.',
    schema: OrderUpdateInput,
    safety: 'write',
    idempotent: true,
    group: 'order',
    output: traced(contract.OrderWriteResultSchema),
    untrusted: ['note', 'comment'],
  })
  async orderUpdate(input: z.infer<typeof OrderUpdateInput>, control: ToolControl) {
    const { orderId, idempotencyKey, ...body } = input;
    return this.writeOrder('PUT', `/orders/update/${orderId}`, { body, idempotencyKey }, control);
  }

  @Tool({
    name: 'order_cancel',
    label: '取消采购订单',
    description:
      '取消采购订单，写入 ERP；需当前 version。须用户同意。/ Cancels an order; needs its current version and the user’s consent.',
    schema: OrderCancelInput,
    safety: 'write',
    idempotent: true,
    group: 'order',
    output: traced(contract.OrderWriteResultSchema),
    untrusted: ['note', 'comment'],
  })
  async orderCancel(input: z.infer<typeof OrderCancelInput>, control: ToolControl) {
    const { orderId, idempotencyKey, ...body } = input;
    return this.writeOrder('POST', `/orders/${orderId}/cancel`, { body, idempotencyKey }, control);
  }

  @Tool({
    name: 'order_search_details',
    label: '搜索订单明细',
    description:
      '搜索采购订单（含明细）；按 partId 或 category 查时只列出这些订单行，otherLines 为其余行数。/ Search orders; by part or category only those lines are listed.',
    schema: z.object({
      keyword: SearchText.optional().describe('订单号、零部件或供应商 / order no, part or supplier'),
      status: OrderStatus.optional(),
      supplierId: Id.optional(),
      partId: Id.optional(),
      category: CategoryCode.optional().describe('分类代码 / category code'),
      dateFrom: IsoDate.optional(),
      dateTo: IsoDate.optional(),
      dateField: contract.OrderDateFieldSchema.optional().describe(
        '默认 created；按取消时间用 updated / default created; by cancel date: updated',
      ),
      page: Page,
      size: size(10),
    }),
    safety: 'read-only',
    group: 'order',
    output: traced(pagedViewOf(contract.OrderViewSchema)),
    untrusted: ['note', 'comment'],
  })
  async orderSearchDetails(input: Record<string, unknown>, control: ToolControl) {
    const { body, traceId } = await this.get<PageWire<OrderWire>>('/orders/search', input, control);
    return { ...paged(body, orderView), traceId };
  }

  @Tool({
    name: 'order_get',
    label: '订单详情',
    description:
      '按 id 读取一个采购订单（含当前 version，修改或取消前先读）。/ One order by id, with its current version.',
    schema: z.object({ orderId: Id }),
    safety: 'read-only',
    group: 'order',
    output: traced(contract.OrderViewSchema),
    untrusted: ['note', 'comment'],
  })
  async orderGet(input: { orderId: number }, control: ToolControl) {
    const { body, traceId } = await this.get<OrderWire>(`/orders/${input.orderId}`, undefined, control);
    return { ...orderView(body), traceId };
  }

  @Tool({
    name: 'inventory_warning',
    label: '库存预警',
    description:
      '查询库存预警：低于安全库存的零部件、在途数量和建议补货量（按最小起订量取整），最紧急的在前。/ Parts below safety stock with suggested reorder quantities.',
    schema: z.object({}),
    safety: 'read-only',
    group: 'inventory',
    output: traced(listOf(contract.InventoryWarningViewSchema)),
  })
  async inventoryWarning(_input: Record<string, never>, control: ToolControl) {
    const { body, traceId } = await this.get<{ items: InventoryWarning[] }>('/inventory/warning', undefined, control);
    return { items: body.items.map(stockView), total: body.items.length, traceId };
  }

  @Tool({
    name: 'inventory_query',
    label: '查询库存',
    description:
      '一个分类、供应商或零部件的库存，低于安全库存与否 / Stock of a category, supplier or part, low or not.',
    schema: z
      .object({
        category: contract.CategoryCode.optional(),
        supplierId: Id.optional(),
        partId: Id.optional(),
      })
      .refine((q) => q.category !== undefined || q.supplierId !== undefined || q.partId !== undefined, {
        message: '需要 category、supplierId 或 partId / give a category, supplierId or partId',
      }),
    safety: 'read-only',
    group: 'inventory',
    output: traced(listOf(contract.InventoryWarningViewSchema)),
  })
  async inventoryQuery(input: { category?: string; supplierId?: number; partId?: number }, control: ToolControl) {
    const { body, traceId } = await this.get<{ items: InventoryWarning[] }>('/inventory', input, control);
    return { items: body.items.map(stockView), total: body.items.length, traceId };
  }
}
