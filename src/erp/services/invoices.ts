import type { Kysely, Selectable, Transaction } from 'kysely';
import { conflict, forbidden, notFound, ProblemError, redactSecrets, unprocessable } from '../../shared/index.ts';
import type {
  ExchangeRate,
  HoldReason,
  InvoiceActionInput,
  InvoiceMatch,
  InvoiceStatus,
  Page,
  RecordInvoiceInput,
  SupplierInvoice,
} from '../contract.ts';
import type { ErpTables, OrderStatus } from '../db/schema.ts';
import type { ApprovalPolicies } from './approval-policy.ts';
import { recordAudit } from './audit.ts';
import { type ErpContext, nowIso, requireWriter } from './context.ts';
import { FOUR_EYES, fourEyesRefused } from './four-eyes.ts';
import { writeOnce } from './idempotency.ts';
import { lockOrder, orderLineReceiving, ReceiptBook } from './receipts.ts';
import { requireSupplier } from './suppliers.ts';

type Db = Kysely<ErpTables>;
type InvoiceRow = Selectable<ErpTables['supplier_invoices']>;
type InvoiceLineRow = Selectable<ErpTables['supplier_invoice_lines']>;

/** Orders an invoice can match: placed (goods may still be on their way, the match then holds for quantity). */
const INVOICEABLE: readonly OrderStatus[] = ['ordered', 'partly_received', 'received'];
/** Orders are kept in CNY (contract `Order.currency`). */
const ORDER_CURRENCY = 'CNY';
const DAY_MS = 86_400_000;

export interface InvoiceSearch {
  page: number;
  size: number;
  status?: InvoiceStatus;
  orderId?: number;
  supplierId?: number;
}

/**
 * Supplier invoices and the three-way match: each invoice line against its order line (unit price, within the
 * policy's price tolerance) and against what was received (quantity billed, with earlier matched invoices, within the
 * quantity tolerance). An invoice is `matched`, or `held` with every reason; only a matched one is released for
 * payment, by an admin who received none of the order's goods (four eyes). The same supplier's invoice number twice
 * is refused; the same amount for the same order within the duplicate window is held.
 */
export class InvoiceBook {
  constructor(
    private readonly db: Db,
    private readonly deps: {
      policies: ApprovalPolicies;
      /** The project's declared exchange rates (the RFQ book keeps them). */
      rates: { rates(ctx: ErpContext, db?: Db): Promise<ExchangeRate[]> };
    },
  ) {}

  /** Records an invoice and matches it, in one transaction, once per idempotency key. */
  async record(
    ctx: ErpContext,
    input: RecordInvoiceInput,
    idempotencyKey?: string,
  ): Promise<{ invoice: SupplierInvoice; replayed: boolean }> {
    requireWriter(ctx);
    const note = input.note ? await redactSecrets(input.note) : '';
    const outcome = await writeOnce(this.db, ctx, 'invoice_id', idempotencyKey, input, async (trx) => {
      await requireSupplier(trx, ctx, input.supplierId, () =>
        unprocessable('供应商不存在 / unknown supplier', [
          { field: 'supplierId', message: `no supplier ${input.supplierId} in project ${ctx.projectId}` },
        ]),
      );
      const order = await trx
        .selectFrom('orders')
        .select('id')
        .where('project_id', '=', ctx.projectId)
        .where('order_no', '=', input.orderNo)
        .executeTakeFirst();
      if (!order)
        throw unprocessable('订单不存在 / unknown order', [
          { field: 'orderNo', message: `no order ${input.orderNo} in project ${ctx.projectId}` },
        ]);
      const orderId = Number(order.id);
      await lockOrder(trx, ctx, orderId);
      const rateToCny = await this.rate(trx, ctx, input.currency);
      const totalMinor = input.lines.reduce((sum, l) => sum + l.quantity * l.unitPriceMinor, 0);
      if (!Number.isSafeInteger(totalMinor))
        throw unprocessable('发票金额过大 / invoice amount too large', [
          { field: 'lines', message: 'total overflows' },
        ]);
      const key = invoiceKey(input.invoiceNo);
      // A number of separators only would be one number for every such invoice of the supplier.
      if (!key)
        throw unprocessable('发票号无效 / invalid invoice number', [
          { field: 'invoiceNo', message: 'needs a letter or digit' },
        ]);
      const inserted = await trx
        .insertInto('supplier_invoices')
        .values({
          project_id: ctx.projectId,
          supplier_id: input.supplierId,
          invoice_no: input.invoiceNo,
          invoice_key: key,
          order_id: orderId,
          currency: input.currency,
          rate_to_cny: rateToCny,
          invoice_date: input.invoiceDate,
          total_minor: totalMinor,
          stated_total_minor: input.totalMinor ?? null,
          status: 'held',
          match_json: '{}',
          note,
          version: 1,
          entered_by: ctx.userId,
          entered_at: nowIso(),
          released_by: null,
          released_at: null,
          trace_id: ctx.traceId ?? null,
        })
        // The database's unique key decides between two entries of one invoice at the same moment.
        .onConflict((oc) => oc.columns(['project_id', 'supplier_id', 'invoice_key']).doNothing())
        .returning('id')
        .executeTakeFirst();
      if (!inserted) throw await this.duplicate(trx, ctx, input.supplierId, key);
      const id = Number(inserted.id);
      await trx
        .insertInto('supplier_invoice_lines')
        .values(
          input.lines.map((l, i) => ({
            invoice_id: id,
            line_no: i + 1,
            part_id: l.partId,
            // What the line asked for; the match keeps the order line it resolves to.
            order_line_no: l.lineNo ?? null,
            quantity: l.quantity,
            unit_price_minor: l.unitPriceMinor,
          })),
        )
        .execute();
      const match = await this.rematch(trx, ctx, id);
      await recordAudit(trx, ctx, {
        entity: 'invoice',
        entityId: id,
        action: 'record',
        after: { ...input, note, rateToCny, totalMinor, match },
      });
      return id;
    });
    return { invoice: await this.get(ctx, outcome.id), replayed: outcome.replayed };
  }

  /** Matches a held (or matched) invoice again, e.g. after more goods were received; `version` must be current. */
  async match(ctx: ErpContext, id: number, input: InvoiceActionInput): Promise<SupplierInvoice> {
    requireWriter(ctx);
    await this.db.transaction().execute(async (trx) => {
      const row = await this.unreleased(trx, ctx, id, input.version);
      const match = await this.rematch(trx, ctx, id);
      await trx
        .updateTable('supplier_invoices')
        .set({ version: row.version + 1 })
        .where('id', '=', id)
        .execute();
      await recordAudit(trx, ctx, {
        entity: 'invoice',
        entityId: id,
        action: 'match',
        before: { status: row.status, version: row.version },
        after: match,
      });
    });
    return this.get(ctx, id);
  }

  /**
   * Releases a matched invoice for payment: admins only, never one who received goods of its order (four eyes, while
   * the policy has it on). The match runs again first: an invoice no longer matching stays held (409, with reasons).
   */
  async release(ctx: ErpContext, id: number, input: InvoiceActionInput): Promise<SupplierInvoice> {
    if (ctx.role !== 'admin')
      throw forbidden('只有管理员可以放行发票付款 / only an admin may release an invoice for payment');
    let held: InvoiceMatch | undefined;
    try {
      await this.db.transaction().execute(async (trx) => {
        const row = await this.unreleased(trx, ctx, id, input.version);
        const orderId = Number(row.order_id);
        const { fourEyes } = await this.deps.policies.get(ctx, trx);
        const receivers = await ReceiptBook.receivers(trx, orderId);
        if (fourEyes && receivers.some((r) => r.id === ctx.userId))
          throw fourEyesRefused(
            `四眼原则：您登记了此订单的收货，发票 ${row.invoice_no} 须由另一位管理员放行付款 / four eyes: you recorded goods received for this order, so another admin must release invoice ${row.invoice_no}`,
          );
        const match = await this.rematch(trx, ctx, id);
        if (match.result === 'held') {
          // The new hold is kept (and the version moves on) even though the release is refused.
          held = match;
          await trx
            .updateTable('supplier_invoices')
            .set({ version: row.version + 1 })
            .where('id', '=', id)
            .execute();
          await recordAudit(trx, ctx, { entity: 'invoice', entityId: id, action: 'release_held', after: match });
          return;
        }
        const at = nowIso();
        await trx
          .updateTable('supplier_invoices')
          .set({ status: 'released', released_by: ctx.userId, released_at: at, version: row.version + 1 })
          .where('id', '=', id)
          .execute();
        await recordAudit(trx, ctx, {
          entity: 'invoice',
          entityId: id,
          action: 'release',
          before: { status: row.status, version: row.version },
          after: { status: 'released', releasedAt: at, totalMinor: Number(row.total_minor), currency: row.currency },
        });
      });
    } catch (error) {
      if (error instanceof ProblemError && error.code === FOUR_EYES)
        await recordAudit(this.db, ctx, {
          entity: 'invoice',
          entityId: id,
          action: 'four_eyes_refused',
          after: { attempt: 'release', reason: error.message },
        });
      throw error;
    }
    if (held)
      throw new ProblemError(
        409,
        'invoice_held',
        `发票未通过三单匹配，不能放行 / the invoice does not match, so it cannot be released: ${held.reasons.map((r) => r.message).join('; ')}`,
        { reasons: held.reasons },
      );
    return this.get(ctx, id);
  }

  async get(ctx: ErpContext, id: number, db: Db = this.db): Promise<SupplierInvoice> {
    const row = await this.row(db, ctx, id);
    return (await this.hydrate(db, [row]))[0];
  }

  /** The project's invoices, newest first. */
  async list(ctx: ErpContext, q: InvoiceSearch): Promise<Page<SupplierInvoice>> {
    let query = this.db.selectFrom('supplier_invoices').where('project_id', '=', ctx.projectId);
    if (q.status) query = query.where('status', '=', q.status);
    if (q.orderId !== undefined) query = query.where('order_id', '=', q.orderId);
    if (q.supplierId !== undefined) query = query.where('supplier_id', '=', q.supplierId);
    const [rows, total] = await Promise.all([
      query
        .selectAll()
        .orderBy('id', 'desc')
        .limit(q.size)
        .offset((q.page - 1) * q.size)
        .execute(),
      query.select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return {
      items: await this.hydrate(this.db, rows),
      total: Number(total.n),
      totalCapped: false,
      page: q.page,
      size: q.size,
    };
  }

  /** CNY for one unit of `currency`: 1 for the order's own currency, else the rate the ERP declares, or a 422. */
  private async rate(db: Db, ctx: ErpContext, currency: string): Promise<number> {
    if (currency === ORDER_CURRENCY) return 1;
    const declared = (await this.deps.rates.rates(ctx, db)).find((r) => r.currency === currency);
    if (!declared)
      throw unprocessable(
        `订单以人民币计价，ERP 中没有 ${currency} 的汇率，不能换算 / the order is in CNY and the ERP declares no rate for ${currency}`,
        [
          {
            field: 'currency',
            message: `no exchange rate for ${currency}: an admin declares one (PUT /api/exchange-rates/${currency}), or the invoice is in CNY`,
          },
        ],
      );
    return declared.rateToCny;
  }

  /** The 409 for an invoice number the supplier already used. */
  private async duplicate(db: Db, ctx: ErpContext, supplierId: number, key: string): Promise<ProblemError> {
    const prior = await db
      .selectFrom('supplier_invoices')
      .select(['id', 'invoice_no', 'entered_at'])
      .where('project_id', '=', ctx.projectId)
      .where('supplier_id', '=', supplierId)
      .where('invoice_key', '=', key)
      .executeTakeFirstOrThrow();
    return new ProblemError(
      409,
      'duplicate_invoice',
      `重复发票：该供应商的发票 ${prior.invoice_no} 已于 ${prior.entered_at} 登记 / duplicate: this supplier's invoice ${prior.invoice_no} was recorded at ${prior.entered_at}`,
      { invoiceId: Number(prior.id) },
    );
  }

  /** The invoice at `version` and not yet released (else 409), its order locked for the rest of the transaction. */
  private async unreleased(db: Db, ctx: ErpContext, id: number, version: number): Promise<InvoiceRow> {
    // Locked first, read after: a release waiting on another sees it committed, not the row from before it.
    await lockOrder(db, ctx, Number((await this.row(db, ctx, id)).order_id));
    const row = await this.row(db, ctx, id);
    if (row.version !== version)
      throw conflict(`发票已被修改（当前版本 ${row.version}）/ invoice changed since version ${version}`, {
        currentVersion: row.version,
      });
    if (row.status === 'released')
      throw conflict(`发票 ${row.invoice_no} 已放行付款 / invoice ${row.invoice_no} is already released`);
    return row;
  }

  private async row(db: Db, ctx: ErpContext, id: number): Promise<InvoiceRow> {
    const row = await db
      .selectFrom('supplier_invoices')
      .selectAll()
      .where('id', '=', id)
      .where('project_id', '=', ctx.projectId)
      .executeTakeFirst();
    if (!row) throw notFound(`发票 ${id} 不存在 / invoice ${id} not found`);
    return row;
  }

  /**
   * Runs the three-way match of invoice `id` (its order locked by the caller) and stores the result: its status, its
   * reasons and the order line each invoice line resolved to.
   */
  private async rematch(trx: Transaction<ErpTables>, ctx: ErpContext, id: number): Promise<InvoiceMatch> {
    const invoice = await this.row(trx, ctx, id);
    const orderId = Number(invoice.order_id);
    const [policy, order, lines, receiving, others] = await Promise.all([
      this.deps.policies.get(ctx, trx),
      trx
        .selectFrom('orders')
        .select(['status', 'supplier_id', 'order_no'])
        .where('id', '=', orderId)
        .executeTakeFirstOrThrow(),
      trx.selectFrom('supplier_invoice_lines').selectAll().where('invoice_id', '=', id).orderBy('line_no').execute(),
      orderLineReceiving(trx, orderId, id),
      trx
        .selectFrom('supplier_invoices')
        .select(['invoice_no', 'invoice_date', 'total_minor', 'currency'])
        .where('order_id', '=', orderId)
        // Only earlier invoices: the first of two look-alikes stays payable, the later one is the suspect.
        .where('id', '<', id)
        .execute(),
    ]);
    const tolerances = policy.invoiceMatch;
    const reasons: HoldReason[] = [];
    if (!INVOICEABLE.includes(order.status))
      reasons.push({
        code: 'order_status',
        line: null,
        expected: INVOICEABLE.join('|'),
        actual: order.status,
        message: `订单 ${order.order_no} 状态为 ${order.status}，尚未下单或已取消 / order ${order.order_no} is ${order.status}: not placed, or cancelled`,
      });
    if (Number(order.supplier_id) !== Number(invoice.supplier_id))
      reasons.push({
        code: 'supplier_mismatch',
        line: null,
        expected: Number(order.supplier_id),
        actual: Number(invoice.supplier_id),
        message: `发票供应商与订单 ${order.order_no} 的供应商不同 / the invoice's supplier is not the supplier of ${order.order_no}`,
      });
    const minorPerUnit = 10 ** minorDigits(invoice.currency);
    const rate = Number(invoice.rate_to_cny);
    const billed = new Map(receiving.map((l) => [l.lineNo, l.invoiced]));
    const resolved: Array<{ lineNo: number; orderLineNo: number | null }> = [];
    for (const line of lines) {
      const candidates = receiving.filter(
        (l) => l.partId === Number(line.part_id) && (line.order_line_no === null || l.lineNo === line.order_line_no),
      );
      const at = line.line_no;
      if (candidates.length !== 1) {
        reasons.push(
          candidates.length === 0
            ? {
                code: 'not_on_order',
                line: at,
                expected: line.order_line_no,
                actual: Number(line.part_id),
                message: `第 ${at} 行的零部件 ${line.part_id} 不在订单 ${order.order_no}${line.order_line_no === null ? '' : ` 第 ${line.order_line_no} 行`}上 / line ${at}: part ${line.part_id} is not on ${order.order_no}${line.order_line_no === null ? '' : ` line ${line.order_line_no}`}`,
              }
            : {
                code: 'line_ambiguous',
                line: at,
                expected: null,
                actual: candidates.map((c) => c.lineNo).join(','),
                message: `第 ${at} 行：订单中该零部件有多行（${candidates.map((c) => c.lineNo).join(', ')}），须注明订单行号 / line ${at}: the order has this part on lines ${candidates.map((c) => c.lineNo).join(', ')}: name the order line`,
              },
        );
        resolved.push({ lineNo: at, orderLineNo: line.order_line_no });
        continue;
      }
      const ordered = candidates[0];
      resolved.push({ lineNo: at, orderLineNo: ordered.lineNo });
      // Prices compared in CNY at 1/10,000 yuan, the order's own precision.
      const invoicedE4 = ((Number(line.unit_price_minor) * rate) / minorPerUnit) * 10_000;
      if (invoicedE4 > ordered.unitPriceE4 * (1 + tolerances.pricePct / 100) + 1e-6) {
        const pct = ordered.unitPriceE4 > 0 ? ((invoicedE4 / ordered.unitPriceE4 - 1) * 100).toFixed(1) : '∞';
        reasons.push({
          code: 'price_above_order',
          line: at,
          expected: fen(ordered.unitPriceE4),
          actual: fen(invoicedE4),
          message: `第 ${at} 行 ${ordered.code} 单价 ${yuan(invoicedE4)} 比订单价 ${yuan(ordered.unitPriceE4)} 高 ${pct}%，超过容差 ${tolerances.pricePct}% / line ${at} ${ordered.code}: unit price ${yuan(invoicedE4)} is ${pct}% above the order's ${yuan(ordered.unitPriceE4)}, beyond the ${tolerances.pricePct}% tolerance`,
        });
      }
      const before = billed.get(ordered.lineNo) ?? 0;
      billed.set(ordered.lineNo, before + line.quantity);
      if (before + line.quantity > ordered.received * (1 + tolerances.quantityPct / 100) + 1e-9)
        reasons.push({
          code: 'quantity_above_received',
          line: at,
          expected: Math.max(0, ordered.received - before),
          actual: line.quantity,
          message: `第 ${at} 行 ${ordered.code} 开票 ${line.quantity}，已收货 ${ordered.received}、已开票 ${before}，超过容差 ${tolerances.quantityPct}% / line ${at} ${ordered.code}: ${line.quantity} invoiced, ${ordered.received} received and ${before} already invoiced, beyond the ${tolerances.quantityPct}% tolerance`,
        });
    }
    const totalMinor = Number(invoice.total_minor);
    const statedTotal = invoice.stated_total_minor === null ? null : Number(invoice.stated_total_minor);
    if (statedTotal !== null && statedTotal !== totalMinor)
      reasons.push({
        code: 'total_mismatch',
        line: null,
        expected: totalMinor,
        actual: statedTotal,
        message: `发票合计 ${statedTotal} 与各行之和 ${totalMinor} 不符（${invoice.currency} 最小单位）/ the stated total ${statedTotal} is not the lines' sum ${totalMinor} (${invoice.currency} minor units)`,
      });
    for (const other of others) {
      const days = Math.abs(Date.parse(other.invoice_date) - Date.parse(invoice.invoice_date)) / DAY_MS;
      if (
        Number(other.total_minor) === totalMinor &&
        other.currency === invoice.currency &&
        days <= tolerances.duplicateWindowDays
      )
        reasons.push({
          code: 'possible_duplicate',
          line: null,
          expected: null,
          actual: other.invoice_no,
          message: `可能重复：发票 ${other.invoice_no} 同一订单、同一金额，相隔 ${days} 天（窗口 ${tolerances.duplicateWindowDays} 天）/ possible duplicate of invoice ${other.invoice_no}: same order and amount, ${days} days apart (window ${tolerances.duplicateWindowDays} days)`,
        });
    }
    const match: InvoiceMatch = {
      result: reasons.length ? 'held' : 'matched',
      reasons,
      tolerances,
      checkedAt: nowIso(),
    };
    await trx
      .updateTable('supplier_invoices')
      .set({ status: match.result, match_json: JSON.stringify(match) })
      .where('id', '=', id)
      .execute();
    for (const r of resolved)
      await trx
        .updateTable('supplier_invoice_lines')
        .set({ order_line_no: r.orderLineNo })
        .where('invoice_id', '=', id)
        .where('line_no', '=', r.lineNo)
        .execute();
    return match;
  }

  /** Invoices with their lines, suppliers, orders and users, in four queries. */
  private async hydrate(db: Db, rows: InvoiceRow[]): Promise<SupplierInvoice[]> {
    if (rows.length === 0) return [];
    const ids = rows.map((r) => r.id);
    const [lines, suppliers, orders, users] = await Promise.all([
      db
        .selectFrom('supplier_invoice_lines')
        .selectAll()
        .where('invoice_id', 'in', ids)
        .orderBy('invoice_id')
        .orderBy('line_no')
        .execute(),
      db
        .selectFrom('suppliers')
        .select(['id', 'name_zh', 'name_en'])
        .where('id', 'in', [...new Set(rows.map((r) => r.supplier_id))])
        .execute(),
      db
        .selectFrom('orders')
        .select(['id', 'order_no'])
        .where('id', 'in', [...new Set(rows.map((r) => r.order_id))])
        .execute(),
      db
        .selectFrom('users')
        .select(['id', 'username'])
        .where('id', 'in', [
          ...new Set(rows.flatMap((r) => [Number(r.entered_by), ...(r.released_by ? [Number(r.released_by)] : [])])),
        ])
        .execute(),
    ]);
    const username = (id: number | null) =>
      id === null ? null : (users.find((u) => Number(u.id) === Number(id))?.username ?? '');
    return rows.map((row) => {
      const supplier = suppliers.find((s) => Number(s.id) === Number(row.supplier_id));
      const order = orders.find((o) => Number(o.id) === Number(row.order_id));
      return {
        id: Number(row.id),
        invoiceNo: row.invoice_no,
        supplier: { id: Number(row.supplier_id), nameZh: supplier?.name_zh ?? '', nameEn: supplier?.name_en ?? '' },
        order: { id: Number(row.order_id), orderNo: order?.order_no ?? '' },
        currency: row.currency,
        rateToCny: Number(row.rate_to_cny),
        invoiceDate: row.invoice_date,
        status: row.status,
        version: row.version,
        totalMinor: Number(row.total_minor),
        lines: lines.filter((l) => Number(l.invoice_id) === Number(row.id)).map(lineOf),
        match: JSON.parse(row.match_json) as InvoiceMatch,
        note: row.note,
        enteredBy: username(Number(row.entered_by)) ?? '',
        enteredAt: row.entered_at,
        releasedBy: username(row.released_by),
        releasedAt: row.released_at,
        traceId: row.trace_id,
      };
    });
  }
}

function lineOf(l: InvoiceLineRow): SupplierInvoice['lines'][number] {
  const unitPriceMinor = Number(l.unit_price_minor);
  return {
    lineNo: l.line_no,
    partId: Number(l.part_id),
    orderLineNo: l.order_line_no,
    quantity: l.quantity,
    unitPriceMinor,
    amountMinor: unitPriceMinor * l.quantity,
  };
}

/**
 * An invoice number as compared for duplicates: `INV-2026/001`, `inv 2026 001` and `INV2026001` are one number to a
 * person paying it, so they are one to the ERP.
 */
export function invoiceKey(invoiceNo: string): string {
  return invoiceNo.toUpperCase().replace(/[\s\-_./\\]+/g, '');
}

/** Digits of a currency's minor unit (2 for CNY and USD, 0 for JPY), from ICU's currency data. */
function minorDigits(currency: string): number {
  return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
}

/** 1/10,000 yuan as fen, to 2 decimals. */
const fen = (e4: number) => Math.round(e4) / 100;
const yuan = (e4: number) => `¥${(e4 / 10_000).toLocaleString('en-US', { maximumFractionDigits: 4 })}`;
