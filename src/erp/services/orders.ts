import type { Kysely, Transaction } from 'kysely';
import { isReadOnly } from '../../protocol/index.ts';
import { conflict, type FieldError, forbidden, notFound, redactSecrets, unprocessable } from '../../shared/index.ts';
import type {
  ApprovalDecision,
  CreateOrderInput,
  Order,
  OrderDateField,
  OrderLineInput,
  OrderPreview,
  Page,
  PriceCheck,
  UpdateOrderInput,
} from '../contract.ts';
import { containsText, countAll } from '../db/database.ts';
import { type ErpTables, ORDER_STATUSES, type OrderRow, type OrderStatus } from '../db/schema.ts';
import type { ApprovalPolicies } from './approval-policy.ts';
import { recordAudit } from './audit.ts';
import { type ErpContext, fromE4, nowIso, toE4 } from './context.ts';
import {
  approvalRefusal,
  changeRefusal,
  FOUR_EYES,
  fourEyesRefused,
  type OrderDuties,
  permissionsFor,
} from './four-eyes.ts';
import { writeOnce } from './idempotency.ts';
import type { PriceChecks } from './price-checks.ts';
import { insertReceipt, orderLineReceiving } from './receipts.ts';
import { requireSupplier } from './suppliers.ts';

export interface OrderSearch {
  page: number;
  size: number;
  keyword?: string;
  status?: OrderStatus;
  supplierId?: number;
  partId?: number;
  /** Orders with a line of this part category. With `partId` or `category`, each order shows only the lines asked
   *  for (`otherLines` counts the rest), so a search by part does not carry every other line of the orders found. */
  category?: string;
  /** Orders created by requests with one of these trace ids. */
  traceIds?: string[];
  dateFrom?: string;
  dateTo?: string;
  /** The time the date range reads (created by default; updated is a cancelled order's cancel time). */
  dateField?: OrderDateField;
}

/** Allowed status moves. Approval is a separate duty: only an admin may approve, and under four eyes never an order
 *  they created or last changed (see four-eyes.ts). */
const TRANSITIONS: Record<OrderStatus, readonly OrderStatus[]> = {
  draft: ['pending_approval', 'cancelled'],
  pending_approval: ['approved', 'draft', 'cancelled'],
  approved: ['ordered', 'cancelled'],
  // Partial receipts come only from goods receipts (services/receipts.ts), which name the quantities; a status change
  // to `received` receives whatever is still open.
  ordered: ['received', 'cancelled'],
  partly_received: ['received'],
  received: [],
  cancelled: [],
};
const EDITABLE: readonly OrderStatus[] = ['draft', 'pending_approval'];

/** Thrown to roll a preview's transaction back. */
export const ROLLED_BACK = Symbol('rolled back');

/** Purchase orders: creation (idempotent per key), optimistic-locked updates, search with full details. */
export class OrderBook {
  constructor(
    private readonly db: Kysely<ErpTables>,
    private readonly pricing: { priceChecks: PriceChecks; policies: ApprovalPolicies },
  ) {}

  /**
   * Creates an order in one transaction. With an idempotency key, the first request wins and every retry
   * with the same key and body gets that same order back (`replayed`); a different body under the key is refused.
   */
  async create(
    ctx: ErpContext,
    input: CreateOrderInput,
    idempotencyKey?: string,
  ): Promise<{ order: Order; replayed: boolean }> {
    requireWriter(ctx);
    // Notes are where text enters the ERP: secrets pasted into one never reach the order, its audit or its readers.
    if (input.note) input = { ...input, note: await redactSecrets(input.note) };
    return this.once(ctx, idempotencyKey, input, (trx) => this.insertOrder(trx, ctx, input));
  }

  /** Creates an order inside a caller's transaction (an RFQ's award writes its order and itself together). */
  async createWithin(trx: Transaction<ErpTables>, ctx: ErpContext, input: CreateOrderInput): Promise<number> {
    requireWriter(ctx);
    if (input.note) input = { ...input, note: await redactSecrets(input.note) };
    return this.insertOrder(trx, ctx, input);
  }

  /**
   * What `create` would write for this order if submitted now — lines priced and checked, the total, the approval
   * policy's decision — without writing it: the same code runs in a transaction that is then rolled back, so the
   * preview cannot drift from the write. Writers only, like `create`.
   */
  async preview(ctx: ErpContext, input: CreateOrderInput): Promise<OrderPreview> {
    requireWriter(ctx);
    let preview: OrderPreview | undefined;
    await this.db
      .transaction()
      .execute(async (trx) => {
        const id = await this.insertOrder(trx, ctx, { ...input, status: 'pending_approval' });
        preview = await this.previewWithin(trx, ctx, id);
        throw ROLLED_BACK;
      })
      .catch((error: unknown) => {
        if (error !== ROLLED_BACK) throw error;
      });
    return preview!;
  }

  /** An order written inside a caller's transaction, as a preview shows it (the caller rolls the write back). */
  async previewWithin(trx: Transaction<ErpTables>, ctx: ErpContext, id: number): Promise<OrderPreview> {
    const [order] = await this.hydrate(ctx, [await this.row(trx, ctx, id)], trx);
    const { rule, reason } = order.approval ?? { rule: 'needs-admin' as const, reason: '' };
    return { supplier: order.supplier, lines: order.lines, totalAmount: order.totalAmount, approval: { rule, reason } };
  }

  /** Runs one order write at most once per idempotency key (see `writeOnce`) and returns the order as it now stands. */
  private async once(
    ctx: ErpContext,
    idempotencyKey: string | undefined,
    request: unknown,
    write: (trx: Transaction<ErpTables>) => Promise<number>,
  ): Promise<{ order: Order; replayed: boolean }> {
    const outcome = await writeOnce(this.db, ctx, 'order_id', idempotencyKey, request, write);
    return { order: await this.get(ctx, outcome.id), replayed: outcome.replayed };
  }

  private async insertOrder(trx: Transaction<ErpTables>, ctx: ErpContext, input: CreateOrderInput): Promise<number> {
    // An order naming a missing supplier is a field error of the order (422), not a missing resource.
    await requireSupplier(trx, ctx, input.supplierId, () =>
      unprocessable('供应商不存在 / unknown supplier', [
        { field: 'supplierId', message: `no supplier ${input.supplierId} in project ${ctx.projectId}` },
      ]),
    );
    checkExpectedDate(input.expectedDate);
    const lines = await this.priceLines(trx, ctx, input.supplierId, input.lines);
    const now = nowIso();
    const inserted = await trx
      .insertInto('orders')
      .values({
        project_id: ctx.projectId,
        order_no: `tmp-${crypto.randomUUID()}`,
        supplier_id: input.supplierId,
        status: input.status ?? 'draft',
        expected_date: input.expectedDate ?? null,
        note: input.note ?? '',
        version: 1,
        created_by: ctx.userId,
        last_edited_by: ctx.userId,
        created_at: now,
        updated_at: now,
        trace_id: ctx.traceId ?? null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const id = Number(inserted.id);
    await trx
      .updateTable('orders')
      .set({ order_no: `PO-${now.slice(0, 7).replace('-', '')}-${String(id).padStart(6, '0')}` })
      .where('id', '=', id)
      .execute();
    await trx
      .insertInto('order_lines')
      .values(lines.map((l) => ({ ...l, order_id: id })))
      .execute();
    await recordAudit(trx, ctx, { entity: 'order', entityId: id, action: 'create', after: { ...input } });
    if (input.status === 'pending_approval') await this.submit(trx, ctx, id);
    return id;
  }

  /**
   * A submitted order meets the project's approval policy: within the buyer's limit with no flag it is approved at
   * once; otherwise it waits for an admin. Either way the decision and its reason are stored and audited.
   */
  private async submit(trx: Transaction<ErpTables>, ctx: ErpContext, id: number): Promise<void> {
    const [order] = await this.hydrate(ctx, [await this.row(trx, ctx, id)], trx);
    const policy = await this.pricing.policies.get(ctx, trx);
    const decision = this.pricing.policies.decide(policy, {
      total: order.totalAmount,
      supplierId: order.supplier.id,
      supplierName: order.supplier.nameZh,
      lines: order.lines.map((l) => ({
        code: l.part.code,
        category: l.part.category,
        priceCheck: l.priceCheck ?? { severity: 'unknown', deviationPct: null },
      })),
    });
    await trx
      .updateTable('orders')
      .set({
        approval_rule: decision.rule,
        approval_reason: decision.reason,
        // A resubmitted order is the policy's again: an earlier admin's decision no longer stands.
        approval_by: null,
        approval_at: null,
        approval_comment: null,
        ...(decision.rule === 'auto-approved' ? { status: 'approved' as const } : {}),
      })
      .where('id', '=', id)
      .execute();
    await recordAudit(trx, ctx, {
      entity: 'order',
      entityId: id,
      action: decision.rule === 'auto-approved' ? 'auto_approve' : 'submit',
      after: { ...decision, policyVersion: policy.version },
    });
  }

  /** An admin's decision on a submitted order, with a comment: approved, or returned to the buyer as a draft. */
  async decide(
    ctx: ErpContext,
    id: number,
    input: { version: number; approve: boolean; comment?: string },
  ): Promise<Order> {
    if (ctx.role !== 'admin') throw forbidden('只有管理员可以审批订单 / only an admin may approve orders');
    const comment = input.comment?.trim() && (await redactSecrets(input.comment.trim()));
    const current = await this.get(ctx, id);
    if (current.status !== 'pending_approval')
      throw conflict(`订单状态 ${current.status} 不在待审批 / order is ${current.status}, not pending approval`);
    const review: UpdateOrderInput = {
      version: input.version,
      status: input.approve ? 'approved' : 'draft',
      ...(comment ? { note: [current.note, `审批意见 / review: ${comment}`].filter(Boolean).join('\n') } : {}),
    };
    const { order } = await this.apply(ctx, id, review, async () => review, {
      review: {
        rule: input.approve ? 'admin-approved' : 'admin-rejected',
        reason: `${input.approve ? '管理员已批准 / approved by' : '管理员已退回 / returned by'} ${ctx.username}${comment ? `: ${comment}` : ''}`,
      },
      comment,
    });
    return order;
  }

  /** Checks each line against the supplier's catalogue and MOQ, and fixes its price (list price unless given). */
  private async priceLines(trx: Transaction<ErpTables>, ctx: ErpContext, supplierId: number, lines: OrderLineInput[]) {
    const ids = [...new Set(lines.map((l) => l.partId))];
    const parts = await trx
      .selectFrom('parts')
      .select(['id', 'supplier_id', 'unit_price_e4', 'moq', 'code'])
      .where('project_id', '=', ctx.projectId)
      .where('id', 'in', ids)
      .execute();
    const errors: FieldError[] = [];
    const priced = lines.map((line, i) => {
      const part = parts.find((p) => Number(p.id) === line.partId);
      if (!part)
        errors.push({ field: `lines[${i}].partId`, message: `no part ${line.partId} in project ${ctx.projectId}` });
      else if (Number(part.supplier_id) !== supplierId) {
        errors.push({
          field: `lines[${i}].partId`,
          message: `part ${part.code} is not supplied by supplier ${supplierId}`,
        });
      } else if (line.quantity < part.moq) {
        errors.push({
          field: `lines[${i}].quantity`,
          message: `below the minimum order quantity ${part.moq} of ${part.code}`,
        });
      }
      return {
        line_no: i + 1,
        part_id: line.partId,
        quantity: line.quantity,
        unit_price_e4: line.unitPrice !== undefined ? toE4(line.unitPrice) : (part?.unit_price_e4 ?? 0),
      };
    });
    if (errors.length) throw unprocessable('订单行无效 / invalid order lines', errors);
    const { priceThresholds } = await this.pricing.policies.get(ctx, trx);
    return Promise.all(
      priced.map(async (line) => ({
        ...line,
        price_check: JSON.stringify(
          await this.pricing.priceChecks.check(
            ctx,
            { partId: line.part_id, unitPrice: fromE4(line.unit_price_e4), supplierId },
            priceThresholds,
            undefined,
            trx,
          ),
        ),
      })),
    );
  }

  /** Applies changes if `version` is still current (else 409), moving status only along allowed transitions. */
  async update(ctx: ErpContext, id: number, input: UpdateOrderInput): Promise<Order> {
    return (await this.change(ctx, id, input)).order;
  }

  /** `update`, at most once per idempotency key: a retry gets the order as it now stands (`replayed`), not a 409. */
  change(
    ctx: ErpContext,
    id: number,
    input: UpdateOrderInput,
    idempotencyKey?: string,
  ): Promise<{ order: Order; replayed: boolean }> {
    return this.apply(ctx, id, { update: id, ...input }, async () => input, {}, idempotencyKey);
  }

  /** Cancels an order (any status before received), keeping the reason in the note; once per idempotency key. */
  cancel(
    ctx: ErpContext,
    id: number,
    input: { version: number; reason?: string },
    idempotencyKey?: string,
  ): Promise<{ order: Order; replayed: boolean }> {
    return this.apply(
      ctx,
      id,
      { cancel: id, ...input },
      async (trx) => {
        const current = await this.row(trx, ctx, id);
        const note = input.reason
          ? [current.note, `取消原因 / cancelled: ${input.reason}`].filter(Boolean).join('\n')
          : undefined;
        return { version: input.version, status: 'cancelled', note };
      },
      { cancel: true },
      idempotencyKey,
    );
  }

  /**
   * One write to an order: a change by a user, an admin's review (`review`: its decision and comment) or a
   * cancellation, at most once per idempotency key (`request` is what the key is held to). Reviews and
   * cancellations do not make their author the order's editor. A four-eyes refusal is audited after the write's
   * transaction rolled back.
   */
  private async apply(
    ctx: ErpContext,
    id: number,
    request: unknown,
    changes: (trx: Transaction<ErpTables>) => Promise<UpdateOrderInput>,
    how: { review?: ApprovalDecision; comment?: string; cancel?: boolean } = {},
    idempotencyKey?: string,
  ): Promise<{ order: Order; replayed: boolean }> {
    requireWriter(ctx);
    let attempt: UpdateOrderInput | undefined;
    try {
      return await this.once(ctx, idempotencyKey, request, async (trx) => {
        attempt = await changes(trx);
        // Notes are where text enters the ERP: secrets pasted into one never reach the order or its readers.
        if (attempt.note) attempt = { ...attempt, note: await redactSecrets(attempt.note) };
        await this.applyWithin(trx, ctx, id, attempt, how);
        return id;
      });
    } catch (error) {
      if (error instanceof Error && (error as { code?: string }).code === FOUR_EYES) {
        await recordAudit(this.db, ctx, {
          entity: 'order',
          entityId: id,
          action: 'four_eyes_refused',
          after: { attempt: attempt?.status ?? 'change', reason: error.message },
        });
      }
      throw error;
    }
  }

  private async applyWithin(
    trx: Transaction<ErpTables>,
    ctx: ErpContext,
    id: number,
    input: UpdateOrderInput,
    how: { review?: ApprovalDecision; comment?: string; cancel?: boolean },
  ): Promise<void> {
    const before = await this.row(trx, ctx, id);
    const { fourEyes } = await this.pricing.policies.get(ctx, trx);
    // Whoever changes the lines, date or note, or submits the order, is its editor from now on.
    const edits =
      !how.review &&
      !how.cancel &&
      (input.lines !== undefined ||
        input.expectedDate !== undefined ||
        (input.note !== undefined && input.note !== before.note) ||
        (input.status === 'pending_approval' && before.status !== 'pending_approval'));
    const duties = await this.duties(trx, before, edits ? ctx.userId : undefined);
    const refusedChange = changeRefusal(ctx, duties, fourEyes);
    if (refusedChange) throw fourEyesRefused(refusedChange);
    if (before.version !== input.version) {
      throw conflict(`订单已被他人修改（当前版本 ${before.version}）/ order changed since version ${input.version}`, {
        currentVersion: before.version,
      });
    }
    const changes: Partial<OrderRow> = {};
    let decided: ApprovalDecision | undefined;
    if (input.status && input.status !== before.status) {
      if (!TRANSITIONS[before.status].includes(input.status)) {
        throw conflict(
          `不能从 ${before.status} 变为 ${input.status} / cannot move from ${before.status} to ${input.status}`,
          {
            allowed: TRANSITIONS[before.status],
          },
        );
      }
      if (input.status === 'approved' && ctx.role !== 'admin') {
        throw forbidden('只有管理员可以审批订单 / only an admin may approve orders');
      }
      const refusedApproval = input.status === 'approved' && approvalRefusal(ctx, duties, fourEyes);
      if (refusedApproval) throw fourEyesRefused(refusedApproval);
      changes.status = input.status;
      decided =
        how.review ??
        (input.status === 'approved'
          ? { rule: 'admin-approved' as const, reason: `管理员已批准 / approved by ${ctx.username}` }
          : undefined);
      if (decided)
        Object.assign(changes, {
          approval_rule: decided.rule,
          approval_reason: decided.reason,
          approval_by: ctx.username,
          approval_at: nowIso(),
          approval_comment: how.comment || null,
        });
    }
    if (edits) changes.last_edited_by = ctx.userId;
    const editsContent = input.lines !== undefined || input.expectedDate !== undefined;
    if (editsContent && !EDITABLE.includes(before.status)) {
      throw conflict(`订单状态 ${before.status} 下不能修改明细 / lines and dates are fixed once ${before.status}`);
    }
    if (input.expectedDate !== undefined) {
      checkExpectedDate(input.expectedDate ?? undefined);
      changes.expected_date = input.expectedDate;
    }
    if (input.note !== undefined) changes.note = input.note;
    if (input.lines) {
      const lines = await this.priceLines(trx, ctx, before.supplier_id, input.lines);
      await trx.deleteFrom('order_lines').where('order_id', '=', id).execute();
      await trx
        .insertInto('order_lines')
        .values(lines.map((l) => ({ ...l, order_id: id })))
        .execute();
    }
    const result = await trx
      .updateTable('orders')
      .set({ ...changes, version: before.version + 1, updated_at: nowIso() })
      .where('id', '=', id)
      .where('version', '=', input.version)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) {
      // Another writer committed between our read and our write.
      const current = await this.row(trx, ctx, id);
      throw conflict(`订单已被他人修改（当前版本 ${current.version}）/ order changed since version ${input.version}`, {
        currentVersion: current.version,
      });
    }
    if (changes.status === 'received') await this.receive(trx, ctx, id);
    await recordAudit(trx, ctx, {
      entity: 'order',
      entityId: id,
      action: 'update',
      before,
      after: decided ? { ...input, approval: decided } : input,
    });
    if (changes.status === 'pending_approval') await this.submit(trx, ctx, id);
  }

  /** The order's creator and editor (`editorId` when this write makes someone the editor), by name. */
  private async duties(trx: Transaction<ErpTables>, row: OrderRow, editorId?: number): Promise<OrderDuties> {
    const creatorId = Number(row.created_by);
    const lastEditor = Number(editorId ?? row.last_edited_by ?? row.created_by);
    const users = await trx
      .selectFrom('users')
      .select(['id', 'username'])
      .where('id', 'in', [creatorId, lastEditor])
      .execute();
    const named = (userId: number) => ({
      id: userId,
      username: users.find((u) => Number(u.id) === userId)?.username ?? '',
    });
    return { orderNo: row.order_no, status: row.status, creator: named(creatorId), editor: named(lastEditor) };
  }

  /** Goods received in full by a status change: what is still open on each line is one receipt, by whoever changed it. */
  private async receive(trx: Transaction<ErpTables>, ctx: ErpContext, orderId: number) {
    const receivedAt = nowIso();
    await trx.updateTable('orders').set({ received_at: receivedAt }).where('id', '=', orderId).execute();
    const open = (await orderLineReceiving(trx, orderId))
      .filter((l) => l.received < l.ordered)
      .map((l) => ({ lineNo: l.lineNo, partId: l.partId, quantity: l.ordered - l.received }));
    if (open.length) await insertReceipt(trx, ctx, orderId, { lines: open, receivedAt, note: '' });
  }

  async get(ctx: ErpContext, id: number): Promise<Order> {
    const row = await this.row(this.db, ctx, id);
    const [order] = await this.hydrate(ctx, [row]);
    return order;
  }

  private async row(db: Kysely<ErpTables>, ctx: ErpContext, id: number): Promise<OrderRow> {
    const row = await db
      .selectFrom('orders')
      .selectAll()
      .where('id', '=', id)
      .where('project_id', '=', ctx.projectId)
      .executeTakeFirst();
    if (!row) throw notFound(`订单 ${id} 不存在 / order ${id} not found`);
    return row;
  }

  /** Orders with their lines, parts and suppliers, newest first. `keyword` matches order no., supplier and part names/codes. */
  async search(ctx: ErpContext, q: OrderSearch): Promise<Page<Order>> {
    let query = this.db
      .selectFrom('orders')
      .innerJoin('suppliers', 'suppliers.id', 'orders.supplier_id')
      .where('orders.project_id', '=', ctx.projectId);
    if (q.status) query = query.where('orders.status', '=', q.status);
    if (q.supplierId !== undefined) query = query.where('orders.supplier_id', '=', q.supplierId);
    if (q.traceIds?.length) query = query.where('orders.trace_id', 'in', q.traceIds);
    const dated = q.dateField === 'updated' ? 'orders.updated_at' : 'orders.created_at';
    if (q.dateFrom) query = query.where(dated, '>=', q.dateFrom);
    if (q.dateTo) query = query.where(dated, '<', nextDay(q.dateTo));
    if (q.partId !== undefined) {
      const partId = q.partId;
      query = query.where('orders.id', 'in', (eb) =>
        eb.selectFrom('order_lines').select('order_id').where('part_id', '=', partId),
      );
    }
    if (q.category !== undefined) {
      const category = q.category;
      query = query.where('orders.id', 'in', (eb) =>
        eb
          .selectFrom('order_lines')
          .innerJoin('parts', 'parts.id', 'order_lines.part_id')
          .select('order_lines.order_id')
          .where('parts.category', '=', category),
      );
    }
    if (q.keyword) {
      const keyword = q.keyword;
      query = query.where((eb) =>
        eb.or([
          containsText('orders.order_no', keyword),
          containsText('suppliers.name_zh', keyword),
          containsText('suppliers.name_en', keyword),
          eb(
            'orders.id',
            'in',
            eb
              .selectFrom('order_lines')
              .innerJoin('parts', 'parts.id', 'order_lines.part_id')
              .select('order_lines.order_id')
              .where((p) =>
                p.or([
                  containsText('parts.name_zh', keyword),
                  containsText('parts.name_en', keyword),
                  containsText('parts.code', keyword),
                ]),
              ),
          ),
        ]),
      );
    }
    const [rows, total] = await Promise.all([
      query
        .selectAll('orders')
        .orderBy('orders.created_at', 'desc')
        .orderBy('orders.id', 'desc')
        .limit(q.size)
        .offset((q.page - 1) * q.size)
        .execute(),
      query.select(countAll.as('n')).executeTakeFirstOrThrow(),
    ]);
    const asked =
      q.partId !== undefined || q.category !== undefined
        ? (line: Order['lines'][number]) =>
            (q.partId === undefined || line.partId === q.partId) &&
            (q.category === undefined || line.part.category === q.category)
        : undefined;
    return {
      items: await this.hydrate(ctx, rows, this.db, asked),
      total: Number(total.n),
      totalCapped: false,
      page: q.page,
      size: q.size,
    };
  }

  /** Loads lines, parts, suppliers, creators and editors for a batch of orders in four queries, with what the
   *  requesting user may do with each; with `shown`, only the lines it accepts are listed (the total counts all). */
  private async hydrate(
    ctx: ErpContext,
    rows: OrderRow[],
    db: Kysely<ErpTables> = this.db,
    shown?: (line: Order['lines'][number]) => boolean,
  ): Promise<Order[]> {
    if (rows.length === 0) return [];
    const ids = rows.map((r) => r.id);
    const editorOf = (row: OrderRow) => Number(row.last_edited_by ?? row.created_by);
    const [lines, suppliers, users, policy] = await Promise.all([
      db
        .selectFrom('order_lines')
        .innerJoin('parts', 'parts.id', 'order_lines.part_id')
        .select([
          'order_lines.order_id',
          'order_lines.line_no',
          'order_lines.part_id',
          'order_lines.quantity',
          'order_lines.unit_price_e4',
          'order_lines.price_check',
          'parts.code',
          'parts.model',
          'parts.name_zh',
          'parts.name_en',
          'parts.unit',
          'parts.category',
        ])
        .where('order_lines.order_id', 'in', ids)
        .orderBy('order_lines.order_id')
        .orderBy('order_lines.line_no')
        .execute(),
      db
        .selectFrom('suppliers')
        .select(['id', 'name_zh', 'name_en'])
        .where('id', 'in', [...new Set(rows.map((r) => r.supplier_id))])
        .execute(),
      db
        .selectFrom('users')
        .select(['id', 'username'])
        .where('id', 'in', [...new Set(rows.flatMap((r) => [Number(r.created_by), editorOf(r)]))])
        .execute(),
      this.pricing.policies.get(ctx, db),
    ]);
    return rows.map((row) => {
      const supplier = suppliers.find((s) => Number(s.id) === Number(row.supplier_id));
      const named = (userId: number) => ({
        id: userId,
        username: users.find((u) => Number(u.id) === userId)?.username ?? '',
      });
      const creator = named(Number(row.created_by));
      const editor = named(editorOf(row));
      const orderLines = lines
        .filter((l) => Number(l.order_id) === Number(row.id))
        .map((l) => ({
          lineNo: l.line_no,
          partId: Number(l.part_id),
          part: {
            code: l.code,
            model: l.model,
            nameZh: l.name_zh,
            nameEn: l.name_en,
            unit: l.unit,
            category: l.category,
          },
          quantity: l.quantity,
          unitPrice: fromE4(l.unit_price_e4),
          amount: fromE4(l.unit_price_e4 * l.quantity),
          priceCheck: l.price_check ? (JSON.parse(l.price_check) as PriceCheck) : null,
        }));
      return {
        id: Number(row.id),
        orderNo: row.order_no,
        projectId: row.project_id,
        status: row.status,
        version: row.version,
        supplier: { id: Number(row.supplier_id), nameZh: supplier?.name_zh ?? '', nameEn: supplier?.name_en ?? '' },
        expectedDate: row.expected_date,
        note: row.note,
        createdBy: creator,
        lastEditedBy: editor,
        permissions: permissionsFor(
          ctx,
          { orderNo: row.order_no, status: row.status, creator, editor },
          policy.fourEyes,
        ),
        createdAt: row.created_at,
        updatedAt: row.updated_at,
        currency: 'CNY' as const,
        totalAmount: Math.round(orderLines.reduce((sum, l) => sum + l.amount, 0) * 100) / 100,
        approval: row.approval_rule
          ? {
              rule: row.approval_rule as ApprovalDecision['rule'],
              reason: row.approval_reason ?? '',
              decidedBy: row.approval_by,
              decidedAt: row.approval_at,
              comment: row.approval_comment,
            }
          : null,
        traceId: row.trace_id,
        receivedAt: row.received_at,
        ...listedLines(orderLines, shown),
      };
    });
  }
}

export { ORDER_STATUSES };

/** An order's lines as listed: all of them, or those `shown` accepts with the count of the others. */
function listedLines<L>(lines: L[], shown?: (line: L) => boolean): { lines: L[]; otherLines?: number } {
  if (!shown) return { lines };
  const listed = lines.filter(shown);
  return listed.length === lines.length ? { lines } : { lines: listed, otherLines: lines.length - listed.length };
}

function requireWriter(ctx: ErpContext) {
  if (isReadOnly(ctx)) throw forbidden('只读用户不能修改订单 / viewers cannot change orders');
}

function checkExpectedDate(date: string | undefined) {
  if (date && date < new Date().toISOString().slice(0, 10)) {
    throw unprocessable('期望到货日期不能早于今天 / expected date is in the past', [
      { field: 'expectedDate', message: `${date} is before today` },
    ]);
  }
}

function nextDay(date: string): string {
  const d = new Date(`${date.slice(0, 10)}T00:00:00.000Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString();
}
