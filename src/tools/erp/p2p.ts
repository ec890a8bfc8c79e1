import { z } from 'zod';
import { contract, type ErpConnection, erpExchange, type Page } from '../../erp/index.ts';
import { Tool, type ToolControl } from '../registry.ts';
import { writeKey } from './client.ts';

const { Id, traced, pagedViewOf } = contract;
type ReceiptResult = contract.ReceiptResult;
type OrderReceiving = contract.OrderReceiving;
type SupplierInvoice = contract.SupplierInvoice;

const IdempotencyKey = contract.IdempotencyKey.optional().describe(
  '幂等键：同一个键重试返回第一次的结果 / retry with the same key: the first result again',
);
const Version = z.number().int().positive().describe('发票当前版本号（先用 invoice_get 读取）/ current version');
const ReceiptInput = contract.RecordReceiptInputSchema.extend({ orderId: Id, idempotencyKey: IdempotencyKey });
const InvoiceInput = contract.RecordInvoiceInputSchema.extend({
  currency: contract.CurrencySchema.describe(
    '发票上写明的币种，不得推测 / the currency the invoice states, never assumed',
  ),
  lines: contract.RecordInvoiceInputSchema.shape.lines.describe(
    '单价为整数的最小货币单位（人民币为分）/ unit prices in integer minor units (fen for CNY)',
  ),
  idempotencyKey: IdempotencyKey,
});
const InvoiceAction = z.object({ invoiceId: Id, version: Version });

const InvoiceResult = traced(z.object({ invoice: contract.SupplierInvoiceSchema }));
const InvoiceWriteResult = traced(
  z.object({ success: z.literal(true), stateChanged: z.boolean(), invoice: contract.SupplierInvoiceSchema }),
);
/** What users and suppliers wrote (notes, invoice and receipt numbers, reasons quoting them) reaches a model fenced. */
const UNTRUSTED = ['note', 'invoiceNo', 'receiptNo', 'message', 'actual'] as const;

/**
 * Procure to pay as tools, bound to one user's token like `ErpClient`: goods receipts against an order, supplier
 * invoices with their three-way match, and the release of a matched invoice for payment. The ERP decides every rule
 * (over-receipt, currencies, duplicates, tolerances, four eyes); these only carry the call.
 */
export class ProcureToPayTools {
  constructor(readonly connection: ErpConnection) {}

  private async write<T>(path: string, body: unknown, key: string | undefined, control: ToolControl) {
    const idempotencyKey = writeKey(key, control);
    return erpExchange<T>(this.connection, 'POST', path, {
      body,
      headers: idempotencyKey ? { 'idempotency-key': idempotencyKey } : undefined,
      signal: control.signal,
    });
  }

  /** A status move of an invoice: guarded by its version, so a retry is refused (409) rather than applied twice. */
  private post(path: string, body: unknown, control: ToolControl) {
    return erpExchange<SupplierInvoice>(this.connection, 'POST', path, { body, signal: control.signal });
  }

  @Tool({
    name: 'receipt_record',
    label: '登记收货',
    description:
      '按订单行登记收到的货物数量（可部分收货），登记人与时间记入 ERP，订单状态随之变为部分收货或已收货；超过订购数量或订单尚未下单时 ERP 拒绝。调用前须得到用户同意。/ Records goods received against an order’s lines (partial receipts included); the ERP refuses more than ordered and orders not yet placed. Get the user’s consent first.',
    schema: ReceiptInput,
    safety: 'write',
    destructive: false,
    group: 'receipt',
    output: traced(contract.ReceiptResultSchema.extend({ success: z.literal(true), stateChanged: z.boolean() })),
    untrusted: UNTRUSTED,
  })
  async receiptRecord(input: z.infer<typeof ReceiptInput>, control: ToolControl) {
    const { orderId, idempotencyKey, ...body } = input;
    const answer = await this.write<ReceiptResult>(`/orders/${orderId}/receipts`, body, idempotencyKey, control);
    return { success: true as const, stateChanged: !answer.replayed, ...answer.body, traceId: answer.traceId };
  }

  @Tool({
    name: 'receipt_list',
    label: '订单收货情况',
    description:
      '读取订单的收货与开票：每行订购、已收货、已开票（已匹配或已放行的发票）数量，以及每次收货的登记人与时间。/ An order’s receiving: per line ordered, received and invoiced, and each receipt with who recorded it and when.',
    schema: z.object({ orderId: Id }),
    safety: 'read-only',
    group: 'receipt',
    output: traced(contract.OrderReceivingSchema),
    untrusted: UNTRUSTED,
  })
  async receiptList(input: { orderId: number }, control: ToolControl) {
    const { body, traceId } = await erpExchange<OrderReceiving>(
      this.connection,
      'GET',
      `/orders/${input.orderId}/receipts`,
      { signal: control.signal },
    );
    return { ...body, traceId };
  }

  @Tool({
    name: 'invoice_record',
    label: '登记供应商发票',
    description:
      '在 ERP 中登记一张供应商发票（供应商、发票号、订单号、币种、行：零部件、数量、以分计的单价），ERP 随即做三单匹配：已匹配（matched），或挂起（held）并列出每条原因（code、行、应为、实为）。同一供应商同一发票号会被拒绝。调用前须得到用户同意。/ Records a supplier invoice; the ERP matches it against the order and receipts: matched, or held with every reason. Get the user’s consent first.',
    schema: InvoiceInput,
    safety: 'write',
    destructive: false,
    group: 'invoice',
    output: InvoiceWriteResult,
    untrusted: UNTRUSTED,
  })
  async invoiceRecord(input: z.infer<typeof InvoiceInput>, control: ToolControl) {
    const { idempotencyKey, ...body } = input;
    const answer = await this.write<SupplierInvoice>('/invoices', body, idempotencyKey, control);
    return { success: true as const, stateChanged: !answer.replayed, invoice: answer.body, traceId: answer.traceId };
  }

  @Tool({
    name: 'invoice_list',
    label: '供应商发票列表',
    description:
      '列出本项目的供应商发票，可按状态（matched 已匹配、held 挂起、released 已放行）、订单或供应商筛选；每张带匹配结果与挂起原因。/ The project’s supplier invoices with their match results, by status, order or supplier.',
    schema: z.object({
      status: contract.InvoiceStatusSchema.optional(),
      orderId: Id.optional(),
      supplierId: Id.optional(),
      page: z.number().int().min(1).max(10_000).default(1),
      size: z.number().int().min(1).max(50).default(20),
    }),
    safety: 'read-only',
    group: 'invoice',
    output: traced(pagedViewOf(contract.SupplierInvoiceSchema)),
    untrusted: UNTRUSTED,
  })
  async invoiceList(
    input: { status?: string; orderId?: number; supplierId?: number; page: number; size: number },
    control: ToolControl,
  ) {
    const { body, traceId } = await erpExchange<Page<SupplierInvoice>>(this.connection, 'GET', '/invoices', {
      query: input,
      signal: control.signal,
    });
    return { items: body.items, total: body.total, page: body.page, size: body.size, traceId };
  }

  @Tool({
    name: 'invoice_get',
    label: '发票详情',
    description:
      '读取一张供应商发票：行、币种与汇率、三单匹配结果与每条挂起原因、登记与放行人。/ One supplier invoice with its match and every hold reason.',
    schema: z.object({ invoiceId: Id }),
    safety: 'read-only',
    group: 'invoice',
    output: InvoiceResult,
    untrusted: UNTRUSTED,
  })
  async invoiceGet(input: { invoiceId: number }, control: ToolControl) {
    const { body, traceId } = await erpExchange<SupplierInvoice>(
      this.connection,
      'GET',
      `/invoices/${input.invoiceId}`,
      { signal: control.signal },
    );
    return { invoice: body, traceId };
  }

  @Tool({
    name: 'invoice_match',
    label: '重新匹配发票',
    description:
      '按当前收货与审批策略的容差重新做三单匹配（如补收货后）。/ Matches the invoice again under the current receipts and tolerances (e.g. after more goods arrived).',
    schema: InvoiceAction,
    safety: 'write',
    idempotent: true,
    group: 'invoice',
    output: InvoiceWriteResult,
    untrusted: UNTRUSTED,
  })
  async invoiceMatch(input: z.infer<typeof InvoiceAction>, control: ToolControl) {
    const answer = await this.post(`/invoices/${input.invoiceId}/match`, { version: input.version }, control);
    return { success: true as const, stateChanged: true, invoice: answer.body, traceId: answer.traceId };
  }

  @Tool({
    name: 'invoice_release',
    label: '放行发票付款',
    description:
      '放行一张已匹配的发票付款。仅管理员，且不能是登记该订单收货的人（四眼原则）；挂起的发票不能放行。须得到用户批准。/ Releases a matched invoice for payment: an admin who recorded none of the order’s receipts (four eyes); a held invoice cannot be released. Needs approval.',
    schema: InvoiceAction,
    safety: 'write',
    group: 'invoice',
    output: InvoiceWriteResult,
    untrusted: UNTRUSTED,
  })
  async invoiceRelease(input: z.infer<typeof InvoiceAction>, control: ToolControl) {
    const answer = await this.post(`/invoices/${input.invoiceId}/release`, { version: input.version }, control);
    return { success: true as const, stateChanged: true, invoice: answer.body, traceId: answer.traceId };
  }
}
