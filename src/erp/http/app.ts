import { createRoute, OpenAPIHono, type RouteConfig, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { isReadOnly } from '../../protocol/index.ts';
import {
  bodyLimitProblem,
  forbidden,
  type Logger,
  ProblemError,
  problemErrorHandler,
  problemResponse,
  traceIdMiddleware,
  unauthorized,
  validationFailed,
} from '../../shared/index.ts';
import type { ErpContext } from '../services/context.ts';
import type { ErpServices } from '../services/index.ts';
import * as s from './schemas.ts';

type Env = { Variables: { ctx: ErpContext; traceId: string } };

const PUBLIC_PATHS = new Set(['/health', '/openapi.json', '/docs']);
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const MAX_BODY_BYTES = 256 * 1024;

const problemResponses = {
  400: 'malformed request',
  401: 'missing or invalid token',
  403: 'role or project not allowed',
  404: 'not found',
  409: 'version conflict or illegal status change',
  422: 'field errors',
} as const;

/** The ERP's standard security and problem responses around a route's success schema. */
function standard(ok: z.ZodType, status: 200 | 201 = 200) {
  const errors = Object.fromEntries(
    Object.entries(problemResponses).map(([code, description]) => [code, problem(description)]),
  );
  const success = { description: 'OK', content: { 'application/json': { schema: ok } } };
  return {
    security: [{ Bearer: [] }],
    responses: {
      [status]: success,
      ...(status === 201 ? { 200: { ...success, description: 'idempotent replay' } } : {}),
      ...errors,
    },
  };
}

/** `standard`, plus 202: a change taken as a proposal that waits for another admin. */
function proposable(ok: z.ZodType) {
  const parts = standard(ok);
  const proposed = {
    description: '已提议，待另一位管理员确认 / proposed: waits for another admin to confirm',
    content: { 'application/json': { schema: ok } },
  };
  return { ...parts, responses: { ...parts.responses, 202: proposed } };
}

const json = <T extends z.ZodType>(schema: T) => ({ content: { 'application/json': { schema } }, required: true });

/** The headers every operation takes besides its token (declared once, as components). */
const COMMON_HEADERS = {
  ProjectId: {
    name: 'x-project-id',
    in: 'header',
    required: false,
    description: '项目（缺省为用户的第一个项目）/ the project to work in (default: the user’s first)',
    schema: { type: 'string', example: 'P001' },
  },
  TraceId: {
    name: 'x-trace-id',
    in: 'header',
    required: false,
    description: '追踪 id，记入审计日志；缺省时生成 / trace id, kept in the audit log; generated when absent',
    schema: { type: 'string', pattern: '^[\\w.:-]{1,128}$' },
  },
} as const;

/**
 * An operation as the ERP declares it: a stable `operationId`, the common headers, and for one that takes a body,
 * the problems a body can have (over the size limit, not JSON).
 */
function route<R extends RouteConfig & { operationId: string }>(config: R): R {
  const withBody = config.request?.body !== undefined;
  return createRoute({
    ...config,
    parameters: Object.keys(COMMON_HEADERS).map((name) => ({ $ref: `#/components/parameters/${name}` })),
    responses: {
      ...config.responses,
      ...(withBody && {
        413: problem(`body over ${MAX_BODY_BYTES / 1024} KiB`),
        415: problem('body not application/json'),
      }),
    },
  });
}

const problem = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: s.ProblemSchema } },
});

/** The ERP REST API (mounted at `/api`): thin handlers over the ERP services, validated by the schemas in `schemas.ts`. */
export function createErpApp(services: ErpServices, log: Logger): OpenAPIHono<Env> {
  const app = new OpenAPIHono<Env>({
    defaultHook: (result, c) => {
      if (!result.success) return problemResponse(c, validationFailed(result.error.issues, '(body)'));
    },
  });

  app.use('*', traceIdMiddleware());
  app.use('*', bodyLimitProblem(MAX_BODY_BYTES));
  app.use('*', async (c, next) => {
    if (PUBLIC_PATHS.has(routePath(c))) return next();
    // The quote form: the invitation's token in the path is the supplier's credential (checked by the service). A
    // request that brings a user's bearer token is that user's, under the user's rules.
    if (routePath(c).startsWith('/quote-invitations/') && !c.req.header('authorization')) return next();
    const header = c.req.header('authorization') ?? '';
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match) throw unauthorized();
    const user = await services.users.authenticate(match[1]);
    const projectId = services.users.resolveProject(user, c.req.header('x-project-id') || undefined);
    c.set('ctx', { userId: user.id, username: user.username, role: user.role, projectId, traceId: c.get('traceId') });
    // Who may write is known before what they sent: a viewer's write is a 403, whatever its body.
    if (WRITE_METHODS.has(c.req.method) && isReadOnly(user))
      throw forbidden('只读用户不能修改数据 / a viewer cannot change data');
    const type = c.req.header('content-type') ?? '';
    const hasBody = Number(c.req.header('content-length') ?? 0) > 0 || c.req.header('transfer-encoding') !== undefined;
    if (hasBody && !/^application\/([\w.-]+\+)?json\s*(;|$)/i.test(type))
      throw new ProblemError(
        415,
        'unsupported_media_type',
        `请求体须为 JSON / the body must be application/json (got ${type || 'none'})`,
      );
    await next();
  });

  app.onError(problemErrorHandler(log, 'ERP'));
  app.notFound((c) =>
    problemResponse(c, new ProblemError(404, 'not_found', `没有这个接口 / no route ${c.req.method} ${c.req.path}`)),
  );

  app.openAPIRegistry.registerComponent('securitySchemes', 'Bearer', { type: 'http', scheme: 'bearer' });
  for (const [name, parameter] of Object.entries(COMMON_HEADERS))
    app.openAPIRegistry.registerComponent('parameters', name, parameter);

  app.get('/health', (c) => c.json({ status: 'ok', database: services.dialect }));

  app.openapi(
    route({
      method: 'get',
      operationId: 'getMe',
      path: '/me',
      summary: '当前令牌对应的用户 / the user this token belongs to',
      tags: ['users'],
      ...standard(s.MeSchema),
    }),
    async (c) => {
      const user = await services.users.byUsername(c.var.ctx.username);
      return c.json({ ...user, projectId: c.var.ctx.projectId }, 200);
    },
  );

  // Suppliers
  app.openapi(
    route({
      method: 'get',
      operationId: 'listSuppliers',
      path: '/suppliers',
      summary: '供应商列表 / all suppliers',
      tags: ['suppliers'],
      ...standard(s.itemsOf(s.SupplierSchema)),
    }),
    async (c) => c.json({ items: await services.suppliers.list(c.var.ctx) }, 200),
  );
  app.openapi(
    route({
      method: 'get',
      operationId: 'searchSuppliers',
      path: '/suppliers/search',
      summary: '按名称模糊搜索供应商 / fuzzy supplier search',
      tags: ['suppliers'],
      request: { query: s.NameQuery },
      ...standard(s.itemsOf(s.SupplierSchema)),
    }),
    async (c) => c.json({ items: await services.suppliers.search(c.var.ctx, c.req.valid('query').name) }, 200),
  );
  app.openapi(
    route({
      method: 'get',
      operationId: 'getSupplier',
      path: '/suppliers/{id}',
      summary: '供应商详情 / supplier',
      tags: ['suppliers'],
      request: { params: s.IdParam },
      ...standard(s.SupplierSchema),
    }),
    async (c) => c.json(await services.suppliers.get(c.var.ctx, c.req.valid('param').id), 200),
  );
  app.openapi(
    route({
      method: 'get',
      operationId: 'getSupplierScorecard',
      path: '/suppliers/{id}/scorecard',
      summary: '供应商评分卡：准时交付、价格竞争力、采购量、取消 / supplier scorecard',
      tags: ['suppliers'],
      request: { params: s.IdParam, query: s.ScorecardQuery },
      ...standard(s.ScorecardSchema),
    }),
    async (c) =>
      c.json(await services.scorecards.scorecard(c.var.ctx, c.req.valid('param').id, c.req.valid('query').months), 200),
  );

  // Parts
  app.openapi(
    route({
      method: 'get',
      operationId: 'listParts',
      path: '/parts',
      summary: '分页查询零部件 / paged parts',
      tags: ['parts'],
      request: { query: s.PartListQuery },
      ...standard(s.pageOf(s.PartSchema)),
    }),
    // The page arrives as JSON text: see PartCatalog.listJson.
    async (c) => jsonText(c, await services.parts.listJson(c.var.ctx, c.req.valid('query'))),
  );
  app.openapi(
    route({
      method: 'get',
      operationId: 'searchParts',
      path: '/parts/search',
      summary: '按名称搜索零部件 / part search',
      tags: ['parts'],
      request: { query: s.PartSearchQuery },
      ...standard(s.itemsOf(s.PartSchema)),
    }),
    async (c) => {
      const q = c.req.valid('query');
      return jsonText(c, await services.parts.searchJson(c.var.ctx, q.name, q.limit));
    },
  );
  app.openapi(
    route({
      method: 'get',
      operationId: 'listCategories',
      path: '/categories',
      summary: '零部件分类（名称与同义词）/ part categories with names and synonyms',
      tags: ['parts'],
      ...standard(s.itemsOf(s.CategorySchema)),
    }),
    async (c) => c.json({ items: await services.parts.categories(c.var.ctx) }, 200),
  );
  app.openapi(
    route({
      method: 'get',
      operationId: 'listSupplierParts',
      path: '/parts/supplier/{id}',
      summary: '供应商的全部零部件 / parts of a supplier',
      tags: ['parts'],
      request: { params: s.IdParam },
      ...standard(s.itemsOf(s.PartSchema)),
    }),
    async (c) => {
      const { id } = c.req.valid('param');
      await services.suppliers.get(c.var.ctx, id);
      return c.json({ items: await services.parts.bySupplier(c.var.ctx, id) }, 200);
    },
  );
  app.openapi(
    route({
      method: 'get',
      operationId: 'getPart',
      path: '/parts/{id}',
      summary: '零部件详情 / part',
      tags: ['parts'],
      request: { params: s.IdParam },
      ...standard(s.PartSchema),
    }),
    async (c) => c.json(await services.parts.get(c.var.ctx, c.req.valid('param').id), 200),
  );
  app.openapi(
    route({
      method: 'get',
      operationId: 'checkPartPrice',
      path: '/parts/{id}/price-check',
      summary: '价格检查：单价对比近 12 个月成交中位价 / price check against 12-month history',
      tags: ['parts'],
      request: { params: s.IdParam, query: s.PriceCheckQuery },
      ...standard(s.PriceCheckSchema),
    }),
    async (c) => {
      const ctx = c.var.ctx;
      const { priceThresholds } = await services.policies.get(ctx);
      return c.json(
        await services.priceChecks.check(
          ctx,
          { partId: c.req.valid('param').id, ...c.req.valid('query') },
          priceThresholds,
        ),
        200,
      );
    },
  );

  app.openapi(
    route({
      method: 'get',
      operationId: 'getPartPriceHistory',
      path: '/parts/{id}/price-history',
      summary:
        '价格历史：同一产品每月已下单/已收货订单行的加权均价、行数、数量，按供应商或合并 / monthly paid price history of a product',
      tags: ['parts'],
      request: { params: s.IdParam, query: s.PriceHistoryQuery },
      ...standard(s.PriceHistorySchema),
    }),
    async (c) =>
      c.json(await services.priceHistories.history(c.var.ctx, c.req.valid('param').id, c.req.valid('query')), 200),
  );

  // Approval policy
  app.openapi(
    route({
      method: 'get',
      operationId: 'getApprovalPolicy',
      path: '/approval-policy',
      summary: '本项目的审批策略 / the project’s approval policy',
      tags: ['approval'],
      ...standard(s.ApprovalPolicySchema),
    }),
    async (c) => c.json(await services.policies.get(c.var.ctx), 200),
  );
  app.openapi(
    route({
      method: 'put',
      operationId: 'updateApprovalPolicy',
      path: '/approval-policy',
      summary:
        '修改审批策略（管理员）：收紧即生效，放宽须另一位管理员确认 / change the approval policy (admin): tightening applies, loosening waits for another admin',
      tags: ['approval'],
      request: { body: json(s.UpdatePolicyBody) },
      ...proposable(s.ApprovalPolicySchema),
    }),
    async (c) => {
      const { policy, applied } = await services.policies.update(c.var.ctx, c.req.valid('json'));
      return applied ? c.json(policy, 200) : c.json(policy, 202);
    },
  );
  app.openapi(
    route({
      method: 'post',
      operationId: 'confirmApprovalPolicy',
      path: '/approval-policy/confirm',
      summary: '确认另一位管理员提议的放宽修改（四眼）/ confirm a loosening change another admin proposed (four eyes)',
      tags: ['approval'],
      request: { body: json(s.ConfirmPolicyBody) },
      ...standard(s.ApprovalPolicySchema),
    }),
    async (c) => c.json(await services.policies.confirm(c.var.ctx, c.req.valid('json')), 200),
  );

  // Orders
  app.openapi(
    route({
      method: 'post',
      operationId: 'createOrder',
      path: '/orders/create',
      summary: '创建采购订单（支持 Idempotency-Key）/ create order',
      tags: ['orders'],
      request: { headers: s.IdempotencyHeader, body: json(s.CreateOrderBody) },
      ...standard(s.OrderSchema, 201),
    }),
    async (c) => {
      const write = await services.orders.create(
        c.var.ctx,
        c.req.valid('json'),
        c.req.valid('header')['idempotency-key'],
      );
      return c.json(replayAware(c, write), write.replayed ? 200 : 201);
    },
  );
  app.openapi(
    route({
      method: 'post',
      operationId: 'previewOrder',
      path: '/orders/preview',
      summary:
        '预览采购订单：按创建的规则计价、价格检查并给出审批策略的结果，不写入 / what creating an order would write, without writing',
      tags: ['orders'],
      request: { body: json(s.CreateOrderBody) },
      ...standard(s.OrderPreviewSchema),
    }),
    async (c) => c.json(await services.orders.preview(c.var.ctx, c.req.valid('json')), 200),
  );
  app.openapi(
    route({
      method: 'put',
      operationId: 'updateOrder',
      path: '/orders/update/{orderId}',
      summary: '更新采购订单（需当前 version，支持 Idempotency-Key）/ update order',
      tags: ['orders'],
      request: { params: s.OrderIdParam, headers: s.IdempotencyHeader, body: json(s.UpdateOrderBody) },
      ...standard(s.OrderSchema),
    }),
    async (c) => {
      const { orderId } = c.req.valid('param');
      const key = c.req.valid('header')['idempotency-key'];
      return c.json(replayAware(c, await services.orders.change(c.var.ctx, orderId, c.req.valid('json'), key)), 200);
    },
  );
  app.openapi(
    route({
      method: 'post',
      operationId: 'cancelOrder',
      path: '/orders/{orderId}/cancel',
      summary: '取消采购订单（支持 Idempotency-Key）/ cancel order',
      tags: ['orders'],
      request: { params: s.OrderIdParam, headers: s.IdempotencyHeader, body: json(s.CancelOrderBody) },
      ...standard(s.OrderSchema),
    }),
    async (c) => {
      const { orderId } = c.req.valid('param');
      const key = c.req.valid('header')['idempotency-key'];
      return c.json(replayAware(c, await services.orders.cancel(c.var.ctx, orderId, c.req.valid('json'), key)), 200);
    },
  );
  for (const [action, approve] of [
    ['approve', true],
    ['reject', false],
  ] as const) {
    app.openapi(
      route({
        method: 'post',
        operationId: `${action}Order`,
        path: `/orders/{orderId}/${action}`,
        summary: approve
          ? '批准待审批订单（管理员，可附意见）/ approve a pending order (admin)'
          : '退回待审批订单为草稿（管理员，附意见）/ return a pending order to draft (admin)',
        tags: ['approval'],
        request: { params: s.OrderIdParam, body: json(s.OrderDecisionBody) },
        ...standard(s.OrderSchema),
      }),
      async (c) =>
        c.json(
          await services.orders.decide(c.var.ctx, c.req.valid('param').orderId, { ...c.req.valid('json'), approve }),
          200,
        ),
    );
  }
  app.openapi(
    route({
      method: 'get',
      operationId: 'searchOrders',
      path: '/orders/search',
      summary: '搜索订单明细（含零部件与供应商）/ order search',
      tags: ['orders'],
      request: { query: s.OrderSearchQuery },
      ...standard(s.pageOf(s.OrderSchema)),
    }),
    async (c) => c.json(await services.orders.search(c.var.ctx, c.req.valid('query')), 200),
  );
  app.openapi(
    route({
      method: 'get',
      operationId: 'getOrder',
      path: '/orders/{id}',
      summary: '订单详情 / order',
      tags: ['orders'],
      request: { params: s.IdParam },
      ...standard(s.OrderSchema),
    }),
    async (c) => c.json(await services.orders.get(c.var.ctx, c.req.valid('param').id), 200),
  );

  // Procure to pay: goods receipts, supplier invoices, the three-way match and the release for payment
  app.openapi(
    route({
      method: 'post',
      operationId: 'recordReceipt',
      path: '/orders/{orderId}/receipts',
      summary:
        '登记收货（可部分收货；不得超过订购数量；支持 Idempotency-Key 与收货单号）/ record goods received against an order',
      tags: ['procure-to-pay'],
      request: { params: s.OrderIdParam, headers: s.IdempotencyHeader, body: json(s.RecordReceiptBody) },
      ...standard(s.ReceiptResultSchema, 201),
    }),
    async (c) => {
      const { result, replayed } = await services.receipts.record(
        c.var.ctx,
        c.req.valid('param').orderId,
        c.req.valid('json'),
        c.req.valid('header')['idempotency-key'],
      );
      return c.json(replayAware(c, { order: result, replayed }), replayed ? 200 : 201);
    },
  );
  app.openapi(
    route({
      method: 'get',
      operationId: 'getOrderReceiving',
      path: '/orders/{orderId}/receipts',
      summary:
        '订单的收货与开票：每行订购、已收、已开票数量及收货记录 / an order’s receipts, received and invoiced per line',
      tags: ['procure-to-pay'],
      request: { params: s.OrderIdParam },
      ...standard(s.OrderReceivingSchema),
    }),
    async (c) => c.json(await services.receipts.ofOrder(c.var.ctx, c.req.valid('param').orderId), 200),
  );
  app.openapi(
    route({
      method: 'post',
      operationId: 'recordInvoice',
      path: '/invoices',
      summary:
        '登记供应商发票并做三单匹配（币种必填；同一供应商同一发票号拒绝；支持 Idempotency-Key）/ record a supplier invoice and match it',
      tags: ['procure-to-pay'],
      request: { headers: s.IdempotencyHeader, body: json(s.RecordInvoiceBody) },
      ...standard(s.SupplierInvoiceSchema, 201),
    }),
    async (c) => {
      const write = await services.invoices.record(
        c.var.ctx,
        c.req.valid('json'),
        c.req.valid('header')['idempotency-key'],
      );
      return c.json(replayAware(c, { order: write.invoice, replayed: write.replayed }), write.replayed ? 200 : 201);
    },
  );
  app.openapi(
    route({
      method: 'get',
      operationId: 'listInvoices',
      path: '/invoices',
      summary: '供应商发票列表（按状态、订单、供应商）/ supplier invoices',
      tags: ['procure-to-pay'],
      request: { query: s.InvoiceListQuery },
      ...standard(s.pageOf(s.SupplierInvoiceSchema)),
    }),
    async (c) => c.json(await services.invoices.list(c.var.ctx, c.req.valid('query')), 200),
  );
  app.openapi(
    route({
      method: 'get',
      operationId: 'getInvoice',
      path: '/invoices/{id}',
      summary: '发票详情与匹配结果（挂起原因）/ an invoice with its match and hold reasons',
      tags: ['procure-to-pay'],
      request: { params: s.IdParam },
      ...standard(s.SupplierInvoiceSchema),
    }),
    async (c) => c.json(await services.invoices.get(c.var.ctx, c.req.valid('param').id), 200),
  );
  app.openapi(
    route({
      method: 'post',
      operationId: 'matchInvoice',
      path: '/invoices/{id}/match',
      summary: '重新做三单匹配（如补收货后）/ match the invoice again (e.g. after more goods arrived)',
      tags: ['procure-to-pay'],
      request: { params: s.IdParam, body: json(s.InvoiceActionBody) },
      ...standard(s.SupplierInvoiceSchema),
    }),
    async (c) => c.json(await services.invoices.match(c.var.ctx, c.req.valid('param').id, c.req.valid('json')), 200),
  );
  app.openapi(
    route({
      method: 'post',
      operationId: 'releaseInvoice',
      path: '/invoices/{id}/release',
      summary:
        '放行付款（管理员；仅已匹配的发票；登记收货的人不能放行）/ release a matched invoice for payment (admin, four eyes)',
      tags: ['procure-to-pay'],
      request: { params: s.IdParam, body: json(s.InvoiceActionBody) },
      ...standard(s.SupplierInvoiceSchema),
    }),
    async (c) => c.json(await services.invoices.release(c.var.ctx, c.req.valid('param').id, c.req.valid('json')), 200),
  );

  // Requests for quotation
  app.openapi(
    route({
      method: 'get',
      operationId: 'listRfqs',
      path: '/rfqs',
      summary: '询价单列表 / requests for quotation',
      tags: ['rfqs'],
      request: { query: s.RfqListQuery },
      ...standard(s.pageOf(s.RfqSummarySchema)),
    }),
    async (c) => c.json(await services.rfqs.list(c.var.ctx, c.req.valid('query')), 200),
  );
  app.openapi(
    route({
      method: 'post',
      operationId: 'createRfq',
      path: '/rfqs',
      summary: '创建询价单（草稿，支持 Idempotency-Key）/ create an RFQ (draft)',
      tags: ['rfqs'],
      request: { headers: s.IdempotencyHeader, body: json(s.CreateRfqBody) },
      ...standard(s.RfqSchema, 201),
    }),
    async (c) => {
      const write = await services.rfqs.create(
        c.var.ctx,
        c.req.valid('json'),
        c.req.valid('header')['idempotency-key'],
      );
      return c.json(replayAware(c, { order: write.rfq, replayed: write.replayed }), write.replayed ? 200 : 201);
    },
  );
  app.openapi(
    route({
      method: 'get',
      operationId: 'getRfq',
      path: '/rfqs/{id}',
      summary: '询价单详情：行、受邀供应商、报价（含人民币折算）/ an RFQ with its invitations and quotes',
      tags: ['rfqs'],
      request: { params: s.IdParam },
      ...standard(s.RfqSchema),
    }),
    async (c) => c.json(await services.rfqs.get(c.var.ctx, c.req.valid('param').id), 200),
  );
  for (const [action, summary] of [
    ['send', '发出询价（邮件进入发件队列）/ send the RFQ (its mails are queued)'],
    ['close', '截止询价 / close the RFQ'],
    ['cancel', '取消询价 / cancel the RFQ'],
  ] as const) {
    app.openapi(
      route({
        method: 'post',
        operationId: `${action}Rfq`,
        path: `/rfqs/{id}/${action}`,
        summary: `${summary}（需当前 version，支持 Idempotency-Key）`,
        tags: ['rfqs'],
        request: { params: s.IdParam, headers: s.IdempotencyHeader, body: json(s.RfqActionBody) },
        ...standard(s.RfqSchema),
      }),
      async (c) => {
        const key = c.req.valid('header')['idempotency-key'];
        const write = await services.rfqs[action](c.var.ctx, c.req.valid('param').id, c.req.valid('json'), key);
        return c.json(replayAware(c, { order: write.rfq, replayed: write.replayed }), 200);
      },
    );
  }
  app.openapi(
    route({
      method: 'post',
      operationId: 'previewRfqAward',
      path: '/rfqs/{id}/award/preview',
      summary:
        '预览授标：将生成的采购订单（行、单价、合计、审批策略）与授标建议中的排名和理由，不写入 / what an award would write, without writing',
      tags: ['rfqs'],
      request: { params: s.IdParam, body: json(s.AwardRfqBody) },
      ...standard(s.RfqAwardPreviewSchema),
    }),
    async (c) =>
      c.json(await services.sourcing.awardPreview(c.var.ctx, c.req.valid('param').id, c.req.valid('json')), 200),
  );
  app.openapi(
    route({
      method: 'post',
      operationId: 'awardRfq',
      path: '/rfqs/{id}/award',
      summary: '授标：为所选供应商生成采购订单草稿（支持 Idempotency-Key）/ award: drafts the purchase order',
      tags: ['rfqs'],
      request: { params: s.IdParam, headers: s.IdempotencyHeader, body: json(s.AwardRfqBody) },
      ...standard(s.RfqAwardSchema),
    }),
    async (c) => {
      const key = c.req.valid('header')['idempotency-key'];
      const { replayed, ...award } = await services.rfqs.award(
        c.var.ctx,
        c.req.valid('param').id,
        c.req.valid('json'),
        key,
      );
      return c.json(replayAware(c, { order: award, replayed }), 200);
    },
  );
  app.openapi(
    route({
      method: 'post',
      operationId: 'enterRfqQuote',
      path: '/rfqs/{id}/quotes',
      summary: '手工录入供应商报价 / enter a supplier’s quote by hand',
      tags: ['rfqs'],
      request: { params: s.IdParam, body: json(s.ManualQuoteBody) },
      ...standard(s.RfqSchema),
    }),
    async (c) => {
      const { supplierId, ...reply } = c.req.valid('json');
      return c.json(await services.rfqs.enterQuote(c.var.ctx, c.req.valid('param').id, supplierId, reply), 200);
    },
  );
  app.openapi(
    route({
      method: 'get',
      operationId: 'listRfqMessages',
      path: '/rfqs/{id}/messages',
      summary: '询价单的往来邮件（报价来源）/ the RFQ’s mails in and out',
      tags: ['rfqs'],
      request: { params: s.IdParam },
      ...standard(s.itemsOf(s.RfqMessageSchema)),
    }),
    async (c) => c.json({ items: await services.rfqs.messages(c.var.ctx, c.req.valid('param').id) }, 200),
  );
  app.openapi(
    route({
      method: 'get',
      operationId: 'getRfqAttachment',
      path: '/rfqs/{id}/messages/{message}/attachments/{position}',
      summary: '询价邮件的附件（报价来源文件）/ a kept attachment of an RFQ mail, a quote’s source file',
      tags: ['rfqs'],
      request: { params: s.RfqAttachmentParams },
      responses: {
        200: {
          description: 'the file, as it came',
          content: { 'application/octet-stream': { schema: z.string().openapi({ format: 'binary' }) } },
        },
        404: problem('no such RFQ, message or kept attachment'),
      },
    }),
    async (c) => {
      const { id, message, position } = c.req.valid('param');
      const file = await services.rfqs.attachment(c.var.ctx, id, message, position);
      return c.body(new Uint8Array(file.content), 200, {
        'content-type': 'application/octet-stream',
        'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(file.name)}`,
        'x-content-type-options': 'nosniff',
      });
    },
  );
  app.openapi(
    route({
      method: 'get',
      operationId: 'getRfqProposal',
      path: '/rfqs/{id}/proposal',
      summary:
        '授标建议：按加权得分排序的报价与被排除的报价及原因 / the award proposal: quotes ranked, exclusions with reasons',
      tags: ['rfqs'],
      request: { params: s.IdParam },
      ...standard(s.RfqProposalSchema),
    }),
    async (c) => c.json(await services.sourcing.proposal(c.var.ctx, c.req.valid('param').id), 200),
  );
  app.openapi(
    route({
      method: 'get',
      operationId: 'getSourcingSettings',
      path: '/sourcing-settings',
      summary: '寻源设置：授标权重与催办时间 / sourcing settings: proposal weights and reminder time',
      tags: ['rfqs'],
      ...standard(s.SourcingSettingsSchema),
    }),
    async (c) => c.json(await services.sourcing.settings(c.var.ctx), 200),
  );
  app.openapi(
    route({
      method: 'put',
      operationId: 'updateSourcingSettings',
      path: '/sourcing-settings',
      summary: '修改寻源设置（管理员）/ change the sourcing settings (admin)',
      tags: ['rfqs'],
      request: { body: json(s.UpdateSourcingSettingsBody) },
      ...standard(s.SourcingSettingsSchema),
    }),
    async (c) => c.json(await services.sourcing.update(c.var.ctx, c.req.valid('json')), 200),
  );
  app.openapi(
    route({
      method: 'get',
      operationId: 'listExchangeRates',
      path: '/exchange-rates',
      summary: '项目汇率表（1 外币 = ? 人民币）/ the project’s exchange rates to CNY',
      tags: ['rfqs'],
      ...standard(s.itemsOf(s.ExchangeRateSchema)),
    }),
    async (c) => c.json({ items: await services.rfqs.rates(c.var.ctx) }, 200),
  );
  app.openapi(
    route({
      method: 'put',
      operationId: 'setExchangeRate',
      path: '/exchange-rates/{currency}',
      summary: '设置汇率（管理员）/ set an exchange rate (admin)',
      tags: ['rfqs'],
      request: { params: s.CurrencyParam, body: json(s.SetExchangeRateBody) },
      ...standard(s.itemsOf(s.ExchangeRateSchema)),
    }),
    async (c) =>
      c.json(
        {
          items: await services.rfqs.setRate(c.var.ctx, c.req.valid('param').currency, c.req.valid('json').rateToCny),
        },
        200,
      ),
  );
  // The quote form's two calls: the invitation's token is the supplier's only credential.
  app.openapi(
    route({
      method: 'get',
      operationId: 'getQuoteInvitation',
      path: '/quote-invitations/{token}',
      summary: '报价表单：按邀请令牌读取询价内容 / the quote form: the RFQ as its invited supplier sees it',
      tags: ['rfqs'],
      request: { params: s.TokenParam },
      ...standard(s.QuoteInvitationSchema),
    }),
    async (c) => {
      const { rfq, supplier, replied } = await services.rfqs.invitation(c.req.valid('param').token);
      return c.json(
        {
          rfqNo: rfq.rfqNo,
          title: rfq.title,
          status: rfq.status,
          replyDeadline: rfq.replyDeadline,
          currency: rfq.currency,
          incoterm: rfq.incoterm,
          supplier: { nameZh: supplier.nameZh, nameEn: supplier.nameEn },
          lines: rfq.lines.map(({ lineNo, item, quantity, unit, requiredDate }) => ({
            lineNo,
            item,
            quantity,
            unit,
            requiredDate,
          })),
          replied,
        },
        200,
      );
    },
  );
  app.openapi(
    route({
      method: 'post',
      operationId: 'submitQuoteForm',
      path: '/quote-invitations/{token}',
      summary: '报价表单：供应商提交报价 / the quote form: a supplier’s reply',
      tags: ['rfqs'],
      request: { params: s.TokenParam, headers: s.IdempotencyHeader, body: json(s.QuoteFormBody) },
      ...standard(z.object({ outcome: z.string(), late: z.boolean() })),
    }),
    async (c) => {
      // The key is the form submission's own: the same submission sent again is recognised and changes nothing.
      const { outcome, late } = await services.rfqs.recordFormReply(
        c.req.valid('param').token,
        c.req.valid('json'),
        c.req.valid('header')['idempotency-key'],
      );
      return c.json(replayAware(c, { order: { outcome, late }, replayed: outcome === 'duplicate' }), 200);
    },
  );

  // Inventory and audit
  app.openapi(
    route({
      method: 'get',
      operationId: 'listInventoryWarnings',
      path: '/inventory/warning',
      summary: '库存预警（低于安全库存）/ low-stock warning',
      tags: ['inventory'],
      ...standard(s.itemsOf(s.InventoryWarningSchema)),
    }),
    async (c) => c.json({ items: await services.inventory.warnings(c.var.ctx) }, 200),
  );
  app.openapi(
    route({
      method: 'get',
      operationId: 'listInventoryLevels',
      path: '/inventory',
      summary: '库存（按分类、供应商或零部件）/ stock of a category, supplier or part',
      tags: ['inventory'],
      request: { query: s.InventoryQuery },
      ...standard(s.itemsOf(s.InventoryWarningSchema)),
    }),
    async (c) => c.json({ items: await services.inventory.levels(c.var.ctx, c.req.valid('query')) }, 200),
  );
  app.openapi(
    route({
      method: 'get',
      operationId: 'listAuditEntries',
      path: '/audit',
      summary: '审计日志（管理员）/ audit log (admin)',
      tags: ['audit'],
      request: { query: s.AuditQuery },
      ...standard(s.itemsOf(s.AuditEntrySchema)),
    }),
    async (c) => {
      const q = c.req.valid('query');
      return c.json({ items: await services.audit.entries(c.var.ctx, q.entity, q.entityId) }, 200);
    },
  );

  app.doc31('/openapi.json', {
    openapi: '3.1.0',
    info: {
      title: 'Procura ERP API',
      version: '1.0.0',
      description: '采购 ERP：供应商、零部件、订单、库存 / procurement ERP',
    },
    servers: [{ url: '/api' }],
  });
  app.get('/docs', (c) => c.html(docsPage(app)));
  return app;
}

/** The path relative to this app, whether it is mounted at `/api` or not. */
function routePath(c: Context): string {
  const path = c.req.path;
  return path.startsWith('/api/') ? path.slice(4) : path;
}

/**
 * The root app's answer for a request no route took: 405 with `Allow` when the path is served with other methods,
 * else 404.
 */
export function routeNotFound(app: { routes: ReadonlyArray<{ method: string; path: string }> }) {
  const patterns = app.routes
    .filter((r) => r.method !== 'ALL')
    .map((r) => ({
      method: r.method,
      // Hono's `:param` (optionally `:param{regex}`) matches one path segment.
      pattern: new RegExp(`^${r.path.replace(/:\w+(\{[^}]*\})?/g, '[^/]+').replace(/\*/g, '.*')}/?$`),
    }));
  return (c: Context) => {
    const allowed = [...new Set(patterns.filter((p) => p.pattern.test(c.req.path)).map((p) => p.method))];
    if (allowed.length) {
      c.header('Allow', allowed.join(', '));
      return problemResponse(
        c,
        new ProblemError(
          405,
          'method_not_allowed',
          `${c.req.method} 不能用于此接口，可用 ${allowed.join(', ')} / ${c.req.method} is not served here: use ${allowed.join(', ')}`,
        ),
      );
    }
    return problemResponse(
      c,
      new ProblemError(404, 'not_found', `没有这个接口 / no route ${c.req.method} ${c.req.path}`),
    );
  };
}

/** The order a write answers with, marked `Idempotent-Replayed: true` when a retry got the first write's result. */
function replayAware<T>(c: Context, write: { order: T; replayed: boolean }): T {
  if (write.replayed) c.header('Idempotent-Replayed', 'true');
  return write.order;
}

/** A self-contained API reference (no CDN assets: Procura runs offline). */
function docsPage(app: OpenAPIHono<Env>): string {
  const doc = app.getOpenAPI31Document({ openapi: '3.1.0', info: { title: 'Procura ERP API', version: '1.0.0' } });
  const escapeHtml = (text: string) => text.replace(/[&<>"]/g, (ch) => `&#${ch.charCodeAt(0)};`);
  const rows = Object.entries(doc.paths ?? {}).flatMap(([path, ops]) =>
    Object.entries(ops as Record<string, { summary?: string; tags?: string[] }>).map(
      ([method, op]) =>
        `<tr><td><code>${method.toUpperCase()}</code></td><td><code>/api${escapeHtml(path)}</code></td><td>${escapeHtml(op.summary ?? '')}</td></tr>`,
    ),
  );
  return `<!doctype html><html lang="zh-CN"><head><meta charset="utf-8"><title>Procura ERP API</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem;max-width:70rem}td{padding:.3rem .8rem;border-bottom:1px solid #ddd}code{font-size:.9rem}</style></head>
<body><h1>Procura ERP API</h1><p>认证：<code>Authorization: Bearer &lt;token&gt;</code>，可选 <code>x-project-id</code>、<code>x-trace-id</code>。
完整规范 / full spec: <a href="openapi.json">openapi.json</a></p><table>${rows.join('')}</table></body></html>`;
}

/** A 200 response carrying JSON text a service wrote, already in the route's documented shape. */
function jsonText(c: Context, text: string) {
  return c.body(text, 200, { 'content-type': 'application/json' });
}
