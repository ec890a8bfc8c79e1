import { type Kysely, sql, type Transaction } from 'kysely';
import { conflict, type FieldError, notFound, redactSecrets, unprocessable } from '../../shared/index.ts';
import type { GoodsReceipt, OrderReceiving, ReceiptResult, RecordReceiptInput } from '../contract.ts';
import type { ErpTables, OrderRow, OrderStatus } from '../db/schema.ts';
import { recordAudit } from './audit.ts';
import { type ErpContext, nowIso } from './context.ts';
import { writeOnce } from './idempotency.ts';

/** Orders goods may be received against: placed and not yet fully received. */
const RECEIVABLE: readonly OrderStatus[] = ['ordered', 'partly_received'];

/** Invoices whose quantities count as billed: those matched or released (a held one is not going to be paid). */
const BILLED = ['matched', 'released'] as const;

type Db = Kysely<ErpTables>;

/** One order line's receiving and billing. */
export interface LineReceiving {
  lineNo: number;
  partId: number;
  code: string;
  ordered: number;
  received: number;
  invoiced: number;
  /** The line's unit price (1/10,000 yuan). */
  unitPriceE4: number;
}

/**
 * Takes the order's row lock for the rest of the transaction and returns the row: receipts and invoices of one order
 * are then written one after another, so two of them never both count the same quantity as still open. (A no-op
 * update locks on PostgreSQL; SQLite runs one write transaction at a time anyway.)
 */
export async function lockOrder(trx: Db, ctx: ErpContext, orderId: number): Promise<OrderRow> {
  const row = await trx
    .updateTable('orders')
    .set({ version: sql`version` })
    .where('id', '=', orderId)
    .where('project_id', '=', ctx.projectId)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw notFound(`订单 ${orderId} 不存在 / order ${orderId} not found`);
  return row;
}

/** Each line of an order with what was received and what is billed (`exceptInvoice` left out of the billing). */
export async function orderLineReceiving(db: Db, orderId: number, exceptInvoice?: number): Promise<LineReceiving[]> {
  const [lines, received, invoiced] = await Promise.all([
    db
      .selectFrom('order_lines')
      .innerJoin('parts', 'parts.id', 'order_lines.part_id')
      .select(['order_lines.line_no', 'order_lines.part_id', 'order_lines.quantity', 'order_lines.unit_price_e4'])
      .select('parts.code')
      .where('order_lines.order_id', '=', orderId)
      .orderBy('order_lines.line_no')
      .execute(),
    db
      .selectFrom('goods_receipt_lines')
      .select(['line_no', sql<string | number>`sum(quantity)`.as('quantity')])
      .where('order_id', '=', orderId)
      .groupBy('line_no')
      .execute(),
    db
      .selectFrom('supplier_invoice_lines')
      .innerJoin('supplier_invoices', 'supplier_invoices.id', 'supplier_invoice_lines.invoice_id')
      .select(['supplier_invoice_lines.order_line_no', sql<string | number>`sum(quantity)`.as('quantity')])
      .where('supplier_invoices.order_id', '=', orderId)
      .where('supplier_invoices.status', 'in', BILLED)
      .where('supplier_invoices.id', '!=', exceptInvoice ?? 0)
      .where('supplier_invoice_lines.order_line_no', 'is not', null)
      .groupBy('supplier_invoice_lines.order_line_no')
      .execute(),
  ]);
  return lines.map((l) => ({
    lineNo: l.line_no,
    partId: Number(l.part_id),
    code: l.code,
    ordered: l.quantity,
    received: Number(received.find((r) => r.line_no === l.line_no)?.quantity ?? 0),
    invoiced: Number(invoiced.find((i) => i.order_line_no === l.line_no)?.quantity ?? 0),
    unitPriceE4: Number(l.unit_price_e4),
  }));
}

/**
 * Writes one goods receipt inside the caller's transaction (the order already locked): its lines, the quantities put
 * on hand, and its number (`GR-YYYYMM-…` unless given). Checks nothing; the caller has.
 */
export async function insertReceipt(
  trx: Transaction<ErpTables>,
  ctx: ErpContext,
  orderId: number,
  receipt: {
    lines: Array<{ lineNo: number; partId: number; quantity: number }>;
    receiptNo?: string;
    receivedAt: string;
    note: string;
  },
): Promise<number> {
  const now = nowIso();
  const inserted = await trx
    .insertInto('goods_receipts')
    .values({
      project_id: ctx.projectId,
      order_id: orderId,
      receipt_no: receipt.receiptNo ?? `tmp-${crypto.randomUUID()}`,
      received_by: ctx.userId,
      received_at: receipt.receivedAt,
      recorded_at: now,
      note: receipt.note,
      trace_id: ctx.traceId ?? null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const id = Number(inserted.id);
  if (!receipt.receiptNo)
    await trx
      .updateTable('goods_receipts')
      .set({ receipt_no: `GR-${now.slice(0, 7).replace('-', '')}-${String(id).padStart(6, '0')}` })
      .where('id', '=', id)
      .execute();
  await trx
    .insertInto('goods_receipt_lines')
    .values(
      receipt.lines.map((l) => ({
        receipt_id: id,
        order_id: orderId,
        line_no: l.lineNo,
        part_id: l.partId,
        quantity: l.quantity,
      })),
    )
    .execute();
  for (const line of receipt.lines)
    await trx
      .updateTable('inventory')
      .set({ on_hand: sql`on_hand + ${line.quantity}`, updated_at: now })
      .where('part_id', '=', line.partId)
      .where('project_id', '=', ctx.projectId)
      .execute();
  return id;
}

/**
 * One receipt, in full and by the order's creator, for each `received` order that has none: orders received before
 * goods receipts existed (an earlier data dir, the seeded history), so what was received is always the receipts' sum.
 */
export async function receiveHistory(db: Db): Promise<void> {
  await sql`insert into goods_receipts (project_id, order_id, receipt_no, received_by, received_at, recorded_at, note)
    select o.project_id, o.id, 'GR-' || o.order_no, o.created_by, coalesce(o.received_at, o.updated_at),
           coalesce(o.received_at, o.updated_at), ''
    from orders o
    where o.status = 'received' and not exists (select 1 from goods_receipts g where g.order_id = o.id)`.execute(db);
  await sql`insert into goods_receipt_lines (receipt_id, order_id, line_no, part_id, quantity)
    select g.id, l.order_id, l.line_no, l.part_id, l.quantity
    from goods_receipts g join order_lines l on l.order_id = g.order_id
    where not exists (select 1 from goods_receipt_lines x where x.receipt_id = g.id)`.execute(db);
}

/**
 * Goods receipts: what arrived against an order's lines, by whom and when. Partial receipts move the order to
 * `partly_received`, the last one to `received`; more than was ordered, or goods against an order not placed, are
 * refused. A receipt is written once per idempotency key, and once per receipt number.
 */
export class ReceiptBook {
  constructor(private readonly db: Db) {}

  async record(
    ctx: ErpContext,
    orderId: number,
    input: RecordReceiptInput,
    idempotencyKey?: string,
  ): Promise<{ result: ReceiptResult; replayed: boolean }> {
    const note = input.note ? await redactSecrets(input.note) : '';
    let sameNumber = false;
    const outcome = await writeOnce(this.db, ctx, 'receipt_id', idempotencyKey, { orderId, ...input }, async (trx) => {
      const order = await lockOrder(trx, ctx, orderId);
      if (input.receiptNo) {
        const prior = await this.byNumber(trx, ctx, input.receiptNo);
        if (prior) {
          if (prior.orderId !== orderId || !sameLines(prior.lines, input.lines))
            throw conflict(
              `收货单号 ${input.receiptNo} 已用于另一次收货 / receipt number ${input.receiptNo} was already recorded with other lines`,
              { receiptId: prior.id },
            );
          sameNumber = true;
          return prior.id;
        }
      }
      if (!RECEIVABLE.includes(order.status))
        throw conflict(
          `订单 ${order.order_no} 状态为 ${order.status}，只有已下单（ordered）或部分收货的订单可以收货 / ${order.order_no} is ${order.status}: goods are received only against an order placed (ordered) and not yet fully received`,
          { status: order.status },
        );
      const receivedAt = input.receivedAt ? new Date(input.receivedAt).toISOString() : nowIso();
      if (receivedAt > nowIso())
        throw unprocessable('收货时间不能晚于现在 / receivedAt is in the future', [
          { field: 'receivedAt', message: `${input.receivedAt} is later than now` },
        ]);
      if (receivedAt < order.created_at)
        throw unprocessable('收货时间早于订单创建时间 / receivedAt is before the order was created', [
          { field: 'receivedAt', message: `${input.receivedAt} is before ${order.created_at}` },
        ]);
      const lines = await orderLineReceiving(trx, orderId);
      const errors: FieldError[] = [];
      const seen = new Set<number>();
      const accepted = input.lines.map((line, i) => {
        const ordered = lines.find((l) => l.lineNo === line.lineNo);
        if (!ordered)
          errors.push({ field: `lines[${i}].lineNo`, message: `${order.order_no} has no line ${line.lineNo}` });
        else if (seen.has(line.lineNo))
          errors.push({ field: `lines[${i}].lineNo`, message: `line ${line.lineNo} is listed twice` });
        else if (ordered.received + line.quantity > ordered.ordered)
          errors.push({
            field: `lines[${i}].quantity`,
            message: `line ${line.lineNo} (${ordered.code}): ordered ${ordered.ordered}, received ${ordered.received} so far, at most ${ordered.ordered - ordered.received} more — 超过订购数量 / more than ordered`,
          });
        seen.add(line.lineNo);
        return { lineNo: line.lineNo, partId: ordered?.partId ?? 0, quantity: line.quantity };
      });
      if (errors.length) throw unprocessable('收货数量无效 / invalid receipt', errors);
      const id = await insertReceipt(trx, ctx, orderId, {
        lines: accepted,
        receiptNo: input.receiptNo,
        receivedAt,
        note,
      });
      const complete = lines.every(
        (l) => l.received + (accepted.find((a) => a.lineNo === l.lineNo)?.quantity ?? 0) >= l.ordered,
      );
      const status: OrderStatus = complete ? 'received' : 'partly_received';
      await trx
        .updateTable('orders')
        .set({
          status,
          version: order.version + 1,
          updated_at: nowIso(),
          ...(complete ? { received_at: receivedAt } : {}),
        })
        .where('id', '=', orderId)
        .execute();
      await recordAudit(trx, ctx, {
        entity: 'order',
        entityId: orderId,
        action: 'receive',
        before: { status: order.status, version: order.version },
        after: { receiptId: id, receiptNo: input.receiptNo ?? null, lines: accepted, receivedAt, status },
      });
      return id;
    });
    const receiving = await this.ofOrder(ctx, orderId);
    const receipt = receiving.receipts.find((r) => r.id === outcome.id);
    if (!receipt) throw notFound(`收货单 ${outcome.id} 不存在 / receipt ${outcome.id} not found`);
    const { receipts: _all, ...rest } = receiving;
    return { result: { ...rest, receipt }, replayed: outcome.replayed || sameNumber };
  }

  /** An order's lines with what was received and billed, and its receipts, oldest first. */
  async ofOrder(ctx: ErpContext, orderId: number, db: Db = this.db): Promise<OrderReceiving> {
    const order = await db
      .selectFrom('orders')
      .select(['id', 'order_no', 'status', 'version'])
      .where('id', '=', orderId)
      .where('project_id', '=', ctx.projectId)
      .executeTakeFirst();
    if (!order) throw notFound(`订单 ${orderId} 不存在 / order ${orderId} not found`);
    const [lines, receipts] = await Promise.all([orderLineReceiving(db, orderId), this.receipts(db, ctx, orderId)]);
    return {
      order: { id: Number(order.id), orderNo: order.order_no, status: order.status, version: order.version },
      lines: lines.map(({ unitPriceE4: _price, ...line }) => line),
      receipts,
    };
  }

  /** The users who received goods against the order (four eyes: none of them releases its invoices). */
  static async receivers(db: Db, orderId: number): Promise<Array<{ id: number; username: string }>> {
    const rows = await db
      .selectFrom('goods_receipts')
      .innerJoin('users', 'users.id', 'goods_receipts.received_by')
      .select(['users.id', 'users.username'])
      .where('goods_receipts.order_id', '=', orderId)
      .distinct()
      .execute();
    return rows.map((r) => ({ id: Number(r.id), username: r.username }));
  }

  private async receipts(db: Db, ctx: ErpContext, orderId: number, receiptNo?: string): Promise<GoodsReceipt[]> {
    let query = db
      .selectFrom('goods_receipts')
      .innerJoin('users', 'users.id', 'goods_receipts.received_by')
      .selectAll('goods_receipts')
      .select('users.username')
      .where('goods_receipts.project_id', '=', ctx.projectId);
    query = receiptNo
      ? query.where('goods_receipts.receipt_no', '=', receiptNo)
      : query.where('goods_receipts.order_id', '=', orderId);
    const rows = await query.orderBy('goods_receipts.id').execute();
    if (rows.length === 0) return [];
    const lines = await db
      .selectFrom('goods_receipt_lines')
      .selectAll()
      .where(
        'receipt_id',
        'in',
        rows.map((r) => r.id),
      )
      .orderBy('line_no')
      .execute();
    return rows.map((r) => ({
      id: Number(r.id),
      receiptNo: r.receipt_no,
      orderId: Number(r.order_id),
      receivedBy: { id: Number(r.received_by), username: r.username },
      receivedAt: r.received_at,
      recordedAt: r.recorded_at,
      note: r.note,
      lines: lines
        .filter((l) => Number(l.receipt_id) === Number(r.id))
        .map((l) => ({ lineNo: l.line_no, partId: Number(l.part_id), quantity: l.quantity })),
    }));
  }

  private async byNumber(db: Db, ctx: ErpContext, receiptNo: string): Promise<GoodsReceipt | undefined> {
    return (await this.receipts(db, ctx, 0, receiptNo))[0];
  }
}

/** Whether a recorded receipt has exactly the lines asked for (in any order). */
function sameLines(recorded: GoodsReceipt['lines'], asked: RecordReceiptInput['lines']): boolean {
  const key = (lines: Array<{ lineNo: number; quantity: number }>) =>
    lines
      .map((l) => `${l.lineNo}:${l.quantity}`)
      .sort()
      .join(',');
  return key(recorded) === key(asked);
}
