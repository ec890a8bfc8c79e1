import { randomBytes } from 'node:crypto';
import type { Kysely, Selectable, Transaction } from 'kysely';
import { isReadOnly } from '../../protocol/index.ts';
import { conflict, type FieldError, forbidden, notFound, redactSecrets, unprocessable } from '../../shared/index.ts';
import {
  type AwardRfqInput,
  type CreateRfqInput,
  type ExchangeRate,
  type Order,
  type OrderPreview,
  type QuoteReplyInput,
  QuoteReplyInputSchema,
  type Rfq,
  type RfqActionInput,
  type RfqQuote,
  type RfqStatus,
  type RfqSummary,
} from '../contract.ts';
import { countAll } from '../db/database.ts';
import type { ErpTables } from '../db/schema.ts';
import { recordAudit } from './audit.ts';
import { type ErpContext, fromE4, nowIso, toE4 } from './context.ts';
import { writeOnce } from './idempotency.ts';
import { type OrderBook, ROLLED_BACK } from './orders.ts';

type RfqRow = Selectable<ErpTables['rfqs']>;
type InvitationRow = Selectable<ErpTables['rfq_invitations']>;
type QuoteRow = Selectable<ErpTables['rfq_quotes']>;
type Db = Kysely<ErpTables>;

/** Allowed status moves by a buyer; `collecting` follows the first mail out or reply in, `awarded` only an award. */
const TRANSITIONS: Record<RfqStatus, readonly RfqStatus[]> = {
  draft: ['sent', 'cancelled'],
  sent: ['collecting', 'closed', 'cancelled'],
  collecting: ['closed', 'cancelled'],
  closed: ['awarded', 'cancelled'],
  awarded: [],
  cancelled: [],
};
/** Replies are taken while an RFQ is out; after it closes they are still kept, marked late. */
const ACCEPTS_REPLIES: readonly RfqStatus[] = ['sent', 'collecting', 'closed'];
/**
 * The quote form takes replies only while the RFQ is out: unlike a mail already sent, a form answers the supplier at
 * once, so after the close it says so instead of keeping a late quote.
 */
const FORM_ACCEPTS: readonly RfqStatus[] = ['sent', 'collecting'];

/** One mail in or out, as the RFQ's record of where a quote came from. */
export interface RfqMessage {
  messageId: string;
  direction: 'in' | 'out';
  sender: string;
  subject: string;
  /** `accepted`, `refused` (and why), `flagged`, `duplicate`. */
  outcome: string;
  reason?: string;
  body: string;
  attachments: Array<{ name: string; type: string; size: number }>;
  /** The content of some of them (those a quote may be read from), by their place in `attachments`. */
  files?: Array<{ position: number; content: Buffer }>;
}

/** What the mail side needs to write to or quote from an invitation, found by its token. */
export interface InvitationView {
  id: number;
  token: string;
  projectId: string;
  rfq: Rfq;
  supplier: { id: number; key: string; nameZh: string; nameEn: string; email: string };
  mail: { status: 'none' | 'queued' | 'sent'; messageId: string | null; remindedAt: string | null };
  replied: boolean;
}

const round = (n: number, places: number) => Math.round(n * 10 ** places) / 10 ** places;

/**
 * The price a quote gives at a quantity in CNY: the price break with the largest minimum quantity not above it
 * (else the base unit price), converted at the project's rate, with the line's freight added to the total.
 */
export function effectivePrice(
  quote: {
    unitPrice: number;
    currency: string;
    priceBreaks: Array<{ minQty: number; unitPrice: number }>;
    freight: number | null;
  },
  quantity: number,
  rates: ReadonlyMap<string, number>,
): RfqQuote['effective'] {
  const rate = quote.currency === 'CNY' ? 1 : rates.get(quote.currency);
  if (rate === undefined) return null;
  const applied = quote.priceBreaks.filter((b) => b.minQty <= quantity).sort((a, b) => b.minQty - a.minQty)[0];
  const unit = applied ? applied.unitPrice : quote.unitPrice;
  return {
    unitPriceCny: round(unit * rate, 4),
    totalCny: round(unit * rate * quantity + (quote.freight ?? 0) * rate, 2),
    priceBreakMinQty: applied?.minQty ?? null,
    rateToCny: rate,
  };
}

/**
 * Requests for quotation: created and changed by buyers (their own) and admins, mailed through an outbox the mail
 * side drains once per invitation, answered through each invitation's token (mail or quote form), compared in CNY
 * and awarded into a purchase order draft. Every write is audited; writes retried under an idempotency key happen
 * once.
 */
export class RfqBook {
  constructor(
    private readonly db: Db,
    private readonly orders: OrderBook,
  ) {}

  async create(ctx: ErpContext, input: CreateRfqInput, idempotencyKey?: string) {
    requireWriter(ctx);
    if (input.note) input = { ...input, note: await redactSecrets(input.note) };
    return this.once(ctx, idempotencyKey, input, async (trx) => {
      const errors: FieldError[] = [];
      if (new Date(input.replyDeadline).getTime() <= Date.now())
        errors.push({ field: 'replyDeadline', message: `${input.replyDeadline} is not in the future` });
      const supplierIds = [...new Set(input.supplierIds)];
      const suppliers = await trx
        .selectFrom('suppliers')
        .select('id')
        .where('project_id', '=', ctx.projectId)
        .where('id', 'in', supplierIds)
        .execute();
      supplierIds.forEach((id, i) => {
        if (!suppliers.some((s) => Number(s.id) === id))
          errors.push({ field: `supplierIds[${i}]`, message: `no supplier ${id} in project ${ctx.projectId}` });
      });
      const partIds = input.lines.flatMap((l) => (l.partId === undefined ? [] : [l.partId]));
      const parts = partIds.length
        ? await trx
            .selectFrom('parts')
            .select(['id', 'name_zh', 'model', 'unit'])
            .where('project_id', '=', ctx.projectId)
            .where('id', 'in', partIds)
            .execute()
        : [];
      const today = nowIso().slice(0, 10);
      const lines = input.lines.map((line, i) => {
        const part = parts.find((p) => Number(p.id) === line.partId);
        if (line.partId !== undefined && !part)
          errors.push({ field: `lines[${i}].partId`, message: `no part ${line.partId} in project ${ctx.projectId}` });
        if (line.requiredDate < today)
          errors.push({ field: `lines[${i}].requiredDate`, message: `${line.requiredDate} is before today` });
        return {
          line_no: i + 1,
          part_id: line.partId ?? null,
          item: line.item ?? (part ? `${part.name_zh} ${part.model}` : ''),
          quantity: line.quantity,
          unit: line.unit ?? part?.unit ?? '个',
          required_date: line.requiredDate,
        };
      });
      if (errors.length) throw unprocessable('询价单无效 / invalid request for quotation', errors);
      const now = nowIso();
      const { id } = await trx
        .insertInto('rfqs')
        .values({
          project_id: ctx.projectId,
          rfq_no: `tmp-${crypto.randomUUID()}`,
          title: input.title,
          status: 'draft',
          version: 1,
          currency: input.currency,
          incoterm: input.incoterm,
          reply_deadline: new Date(input.replyDeadline).toISOString(),
          note: input.note ?? '',
          created_by: ctx.userId,
          created_at: now,
          updated_at: now,
          trace_id: ctx.traceId ?? null,
          awarded_supplier_id: null,
          awarded_order_id: null,
          awarded_by: null,
          awarded_at: null,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const rfqId = Number(id);
      await trx
        .updateTable('rfqs')
        .set({ rfq_no: `RFQ-${now.slice(0, 7).replace('-', '')}-${String(rfqId).padStart(6, '0')}` })
        .where('id', '=', rfqId)
        .execute();
      await trx
        .insertInto('rfq_lines')
        .values(lines.map((l) => ({ ...l, rfq_id: rfqId })))
        .execute();
      await trx
        .insertInto('rfq_invitations')
        .values(
          supplierIds.map((supplierId) => ({
            rfq_id: rfqId,
            supplier_id: supplierId,
            // Lower-case hex: it travels in a mail address, whose local part some servers fold.
            token: randomBytes(12).toString('hex'),
            status: 'invited' as const,
            mail_status: 'none' as const,
            message_id: null,
            sent_at: null,
            reminded_at: null,
            replied_at: null,
          })),
        )
        .execute();
      await recordAudit(trx, ctx, { entity: 'rfq', entityId: rfqId, action: 'create', after: input });
      return rfqId;
    });
  }

  /** Releases a draft to its suppliers: every invitation's mail is queued for the mail side to send once. */
  send(ctx: ErpContext, id: number, input: RfqActionInput, idempotencyKey?: string) {
    return this.move(ctx, id, input, 'sent', idempotencyKey, async (trx) => {
      await trx.updateTable('rfq_invitations').set({ mail_status: 'queued' }).where('rfq_id', '=', id).execute();
    });
  }

  /** Stops taking replies before the deadline (replies that still come are kept, marked late). */
  close(ctx: ErpContext, id: number, input: RfqActionInput, idempotencyKey?: string) {
    return this.move(ctx, id, input, 'closed', idempotencyKey);
  }

  cancel(ctx: ErpContext, id: number, input: RfqActionInput, idempotencyKey?: string) {
    return this.move(ctx, id, input, 'cancelled', idempotencyKey);
  }

  /** One status move by a buyer (the creator or an admin), at the current version, audited. */
  private move(
    ctx: ErpContext,
    id: number,
    input: RfqActionInput,
    to: RfqStatus,
    idempotencyKey: string | undefined,
    also?: (trx: Transaction<ErpTables>) => Promise<void>,
  ) {
    requireWriter(ctx);
    return this.once(ctx, idempotencyKey, { rfq: id, to, ...input }, async (trx) => {
      const before = await this.row(trx, ctx.projectId, id);
      requireOwner(ctx, before);
      await this.setStatus(trx, before, input.version, to);
      await also?.(trx);
      await recordAudit(trx, ctx, {
        entity: 'rfq',
        entityId: id,
        action: to,
        before: { status: before.status },
        after: input,
      });
      return id;
    });
  }

  private async setStatus(trx: Transaction<ErpTables>, before: RfqRow, version: number, to: RfqStatus, extra = {}) {
    if (!TRANSITIONS[before.status].includes(to))
      throw conflict(`不能从 ${before.status} 变为 ${to} / cannot move from ${before.status} to ${to}`, {
        allowed: TRANSITIONS[before.status],
      });
    const result = await trx
      .updateTable('rfqs')
      .set({ status: to, version: before.version + 1, updated_at: nowIso(), ...extra })
      .where('id', '=', before.id)
      .where('version', '=', version)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1)
      throw conflict(`询价单已被他人修改（当前版本 ${before.version}）/ RFQ changed since version ${version}`, {
        currentVersion: before.version,
      });
  }

  /**
   * Awards the RFQ to one supplier: a purchase order for every line at that supplier's effective CNY unit price at
   * the asked quantity, in the same transaction as the award, so the award and its order are written together and
   * once. The order is a draft (or submitted to the approval policy with `submit`); each line becomes that
   * supplier's catalogue part of the same product. With `close`, an RFQ still taking replies is closed first, in the
   * same write (one decision for the two steps that belong together).
   */
  async award(ctx: ErpContext, id: number, input: AwardRfqInput, idempotencyKey?: string) {
    requireWriter(ctx);
    const { rfq, replayed } = await this.once(ctx, idempotencyKey, { award: id, ...input }, async (trx) => {
      await this.awardWithin(trx, ctx, id, input);
      return id;
    });
    const order: Order = await this.orders.get(ctx, rfq.award?.orderId ?? 0);
    return { rfq, order, replayed };
  }

  /**
   * What `award` would write, without writing it: the same code runs in a transaction that is rolled back, so the
   * approval card cannot drift from the write. The order is previewed as submitted, for the policy's decision.
   */
  async previewAward(ctx: ErpContext, id: number, input: AwardRfqInput) {
    requireWriter(ctx);
    let preview: { rfqNo: string; closes: boolean; order: OrderPreview } | undefined;
    await this.db
      .transaction()
      .execute(async (trx) => {
        const { rfqNo, closes, orderId } = await this.awardWithin(trx, ctx, id, { ...input, submit: true });
        preview = { rfqNo, closes, order: await this.orders.previewWithin(trx, ctx, orderId) };
        throw ROLLED_BACK;
      })
      .catch((error: unknown) => {
        if (error !== ROLLED_BACK) throw error;
      });
    return preview!;
  }

  private async awardWithin(trx: Transaction<ErpTables>, ctx: ErpContext, id: number, input: AwardRfqInput) {
    let before = await this.row(trx, ctx.projectId, id);
    requireOwner(ctx, before);
    const closes = before.status === 'sent' || before.status === 'collecting';
    if (closes && !input.close)
      throw conflict('请先截止询价再授标 / close the RFQ before awarding it', { status: before.status });
    // The version the person read: the award checks it, or the close does and the award follows at the next.
    let version = input.version;
    if (closes) {
      await this.setStatus(trx, before, input.version, 'closed');
      await recordAudit(trx, ctx, {
        entity: 'rfq',
        entityId: id,
        action: 'closed',
        before: { status: before.status },
        after: { version: input.version, award: input.supplierId },
      });
      before = await this.row(trx, ctx.projectId, id);
      version = before.version;
    }
    const [rfq] = await this.hydrate(trx, [before]);
    const errors: FieldError[] = [];
    if (!rfq.invitations.some((i) => i.supplier.id === input.supplierId))
      errors.push({ field: 'supplierId', message: `supplier ${input.supplierId} was not invited` });
    const orderLines = [];
    for (const line of rfq.lines) {
      const quote = rfq.quotes.find((q) => q.supplier.id === input.supplierId && q.lineNo === line.lineNo);
      const field = `lines[${line.lineNo - 1}]`;
      if (!line.part) {
        errors.push({ field, message: `line ${line.lineNo} is a free-text item: add it to the catalogue first` });
        continue;
      }
      if (quote?.status !== 'quoted' || !quote.effective) {
        errors.push({
          field,
          message: `no usable quote for line ${line.lineNo} (${quote ? (quote.flag ?? quote.effectiveReason ?? quote.status) : 'none'})`,
        });
        continue;
      }
      if (quote.validUntil !== null && quote.validUntil < nowIso().slice(0, 10))
        errors.push({ field, message: `the quote was valid until ${quote.validUntil}` });
      if (quote.moq !== null && quote.moq > line.quantity)
        errors.push({ field, message: `MOQ ${quote.moq} is above the asked ${line.quantity}` });
      const part = await trx
        .selectFrom('parts')
        .select('id')
        .where('project_id', '=', ctx.projectId)
        .where('supplier_id', '=', input.supplierId)
        .where('model', '=', line.part.model)
        .where('category', '=', line.part.category)
        .orderBy('id')
        .executeTakeFirst();
      if (!part) {
        errors.push({ field, message: `the supplier lists no ${line.part.model} in the catalogue` });
        continue;
      }
      orderLines.push({ partId: Number(part.id), quantity: line.quantity, unitPrice: quote.effective.unitPriceCny });
    }
    if (errors.length) throw unprocessable('不能授标 / cannot award', errors);
    const orderId = await this.orders.createWithin(trx, ctx, {
      supplierId: input.supplierId,
      lines: orderLines,
      expectedDate: rfq.lines.map((l) => l.requiredDate).sort()[0],
      note: [`询价 / RFQ ${rfq.rfqNo}`, input.note].filter(Boolean).join('\n'),
      status: input.submit ? 'pending_approval' : 'draft',
    });
    await this.setStatus(trx, before, version, 'awarded', {
      awarded_supplier_id: input.supplierId,
      awarded_order_id: orderId,
      awarded_by: ctx.username,
      awarded_at: nowIso(),
    });
    await recordAudit(trx, ctx, { entity: 'rfq', entityId: id, action: 'award', after: { ...input, orderId } });
    return { rfqNo: rfq.rfqNo, closes, orderId };
  }

  /** A buyer enters a supplier's reply by hand; it counts like one that came by mail. */
  async enterQuote(ctx: ErpContext, id: number, supplierId: number, reply: Omit<QuoteReplyInput, 'source'>) {
    requireWriter(ctx);
    const rfq = await this.row(this.db, ctx.projectId, id);
    requireOwner(ctx, rfq);
    const invitation = await this.db
      .selectFrom('rfq_invitations')
      .select('token')
      .where('rfq_id', '=', id)
      .where('supplier_id', '=', supplierId)
      .executeTakeFirst();
    if (!invitation)
      throw unprocessable('该供应商未受邀 / supplier not invited', [
        { field: 'supplierId', message: `supplier ${supplierId} was not invited to ${rfq.rfq_no}` },
      ]);
    await this.recordReply(
      invitation.token,
      { ...reply, source: { kind: 'manual', from: ctx.username } },
      undefined,
      ctx,
    );
    return this.get(ctx, id);
  }

  /**
   * A supplier's reply through its invitation's token (mail or quote form): each quoted line replaces that
   * supplier's earlier quote for the line, a decline marks every line declined, flags are kept for the buyer. With a
   * message, the reply is taken once per Message-ID (a second delivery or a restart re-reading it changes nothing).
   * A reply after the deadline or the close is kept and marked late. Nothing in a reply changes the RFQ's award.
   */
  async recordReply(
    token: string,
    raw: QuoteReplyInput,
    message?: RfqMessage,
    by?: ErpContext,
    accepts: readonly RfqStatus[] = ACCEPTS_REPLIES,
  ): Promise<{ outcome: 'recorded' | 'duplicate'; rfqId: number; late: boolean }> {
    const reply = QuoteReplyInputSchema.parse(raw);
    return this.db.transaction().execute(async (trx) => {
      const invitation = await this.invitationRow(trx, token);
      const rfq = await this.row(trx, null, invitation.rfq_id);
      if (message && !(await this.logMessage(trx, rfq, invitation.supplier_id, message)))
        return { outcome: 'duplicate' as const, rfqId: Number(rfq.id), late: false };
      if (!accepts.includes(rfq.status))
        throw conflict(
          `询价单 ${rfq.rfq_no} 状态为 ${rfq.status}，不接受报价 / RFQ is ${rfq.status}: no replies taken`,
        );
      const now = nowIso();
      const late = rfq.status === 'closed' || now > rfq.reply_deadline;
      const lines = await trx.selectFrom('rfq_lines').select('line_no').where('rfq_id', '=', rfq.id).execute();
      const known = new Set(lines.map((l) => l.line_no));
      const source = {
        source_kind: reply.source.kind,
        source_message_id: reply.source.messageId ?? null,
        source_attachment: reply.source.attachment ?? null,
        source_from: reply.source.from ?? null,
      };
      const blank = {
        unit_price_e4: null,
        currency: null,
        price_breaks: '[]',
        moq: null,
        lead_time_days: null,
        valid_until: null,
        freight_e4: null,
      };
      const rows: Array<Omit<ErpTables['rfq_quotes'], 'id'>> = [];
      const base = {
        rfq_id: Number(rfq.id),
        supplier_id: invitation.supplier_id,
        late: late ? 1 : 0,
        received_at: now,
        ...source,
      };
      if (reply.decline)
        for (const lineNo of known)
          rows.push({
            ...base,
            ...blank,
            line_no: lineNo,
            status: 'declined',
            remarks: reply.remarks ?? null,
            flag: null,
          });
      else {
        for (const q of reply.lines) {
          if (!known.has(q.lineNo)) {
            reply.flags.push({ reason: `报价行 ${q.lineNo} 不在询价单中 / quoted line ${q.lineNo} is not on the RFQ` });
            continue;
          }
          rows.push({
            ...base,
            line_no: q.lineNo,
            status: 'quoted',
            unit_price_e4: toE4(q.unitPrice),
            currency: q.currency,
            price_breaks: JSON.stringify(q.priceBreaks),
            moq: q.moq ?? null,
            lead_time_days: q.leadTimeDays ?? null,
            valid_until: q.validUntil ?? null,
            freight_e4: q.freight === undefined ? null : toE4(q.freight),
            remarks: q.remarks ?? null,
            flag: null,
          });
        }
        for (const f of reply.flags)
          if (f.lineNo !== undefined && known.has(f.lineNo) && !rows.some((r) => r.line_no === f.lineNo))
            rows.push({ ...base, ...blank, line_no: f.lineNo, status: 'flagged', remarks: null, flag: f.reason });
      }
      for (const row of rows)
        await trx
          .insertInto('rfq_quotes')
          .values(row)
          .onConflict((oc) => oc.columns(['rfq_id', 'supplier_id', 'line_no']).doUpdateSet(row))
          .execute();
      await trx
        .updateTable('rfq_invitations')
        .set({ status: reply.decline ? 'declined' : 'replied', replied_at: now })
        .where('id', '=', invitation.id)
        .execute();
      if (rfq.status === 'sent')
        await trx.updateTable('rfqs').set({ status: 'collecting', updated_at: now }).where('id', '=', rfq.id).execute();
      await recordAudit(trx, by ?? supplierContext(rfq), {
        entity: 'rfq',
        entityId: Number(rfq.id),
        action: reply.decline ? 'decline' : 'quote',
        after: {
          supplierId: invitation.supplier_id,
          lines: rows.map((r) => r.line_no),
          flags: reply.flags,
          late,
          source: reply.source,
        },
      });
      return { outcome: 'recorded' as const, rfqId: Number(rfq.id), late };
    });
  }

  /**
   * A supplier's reply through the quote form: the same reply as a mail's, read by the same rules, while the RFQ is
   * out. Each submission carries its own id (the form's, kept as the reply's message), so sending the same filled-in
   * form again — a double click, a reload — changes nothing the second time.
   */
  async recordFormReply(token: string, reply: Omit<QuoteReplyInput, 'source'>, submissionId?: string) {
    const invitation = await this.invitationRow(this.db, token);
    const messageId = submissionId && `<form-${invitation.id}-${submissionId}@quote-form>`;
    const lines = (reply.lines ?? []).map(
      (l) =>
        `${l.lineNo} | ${l.unitPrice} ${l.currency}${l.priceBreaks?.length ? ` | ${l.priceBreaks.map((b) => `${b.minQty}:${b.unitPrice}`).join('; ')}` : ''}${l.moq === undefined ? '' : ` | MOQ ${l.moq}`}${l.leadTimeDays === undefined ? '' : ` | ${l.leadTimeDays} d`}${l.validUntil ? ` | ≤ ${l.validUntil}` : ''}${l.freight === undefined ? '' : ` | freight ${l.freight}`}${l.remarks ? ` | ${l.remarks}` : ''}`,
    );
    const message: RfqMessage | undefined = messageId
      ? {
          messageId,
          direction: 'in',
          sender: 'quote-form',
          subject: reply.decline ? '报价表单：谢绝报价 / quote form: declined' : '报价表单 / quote form',
          outcome: 'accepted',
          body: [...lines, reply.remarks ?? ''].filter(Boolean).join('\n'),
          attachments: [],
        }
      : undefined;
    return this.recordReply(
      token,
      { ...reply, source: { kind: 'form', ...(messageId && { messageId }) } },
      message,
      undefined,
      FORM_ACCEPTS,
    );
  }

  /** Keeps a mail that could not become a quote (refused sender, nothing readable), once per Message-ID. */
  async keepMessage(token: string | null, message: RfqMessage): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const invitation = token
        ? await trx.selectFrom('rfq_invitations').selectAll().where('token', '=', token).executeTakeFirst()
        : undefined;
      const rfq = invitation ? await this.row(trx, null, invitation.rfq_id) : undefined;
      return this.logMessage(trx, rfq, invitation?.supplier_id ?? null, message);
    });
  }

  /** True when the message is new (the first time its Message-ID is seen). */
  private async logMessage(trx: Db, rfq: RfqRow | undefined, supplierId: number | null, m: RfqMessage) {
    const inserted = await trx
      .insertInto('rfq_messages')
      .values({
        project_id: rfq?.project_id ?? '',
        rfq_id: rfq ? Number(rfq.id) : null,
        supplier_id: supplierId,
        direction: m.direction,
        message_id: m.messageId,
        sender: m.sender,
        subject: m.subject.slice(0, 500),
        outcome: m.outcome,
        reason: m.reason ?? null,
        body: m.body.slice(0, 64 * 1024),
        attachments: JSON.stringify(m.attachments),
        at: nowIso(),
      })
      .onConflict((oc) => oc.column('message_id').doNothing())
      .returning('id')
      .executeTakeFirst();
    if (inserted && m.files?.length)
      await trx
        .insertInto('rfq_attachments')
        .values(m.files.map((f) => ({ message_id: m.messageId, position: f.position, content: f.content })))
        .execute();
    return inserted !== undefined;
  }

  /** The mails of an RFQ, in and out (the source a quote links to). */
  async messages(ctx: ErpContext, id: number) {
    await this.row(this.db, ctx.projectId, id);
    const rows = await this.db.selectFrom('rfq_messages').selectAll().where('rfq_id', '=', id).orderBy('id').execute();
    const stored = rows.length
      ? await this.db
          .selectFrom('rfq_attachments')
          .select(['message_id', 'position'])
          .where(
            'message_id',
            'in',
            rows.map((r) => r.message_id),
          )
          .execute()
      : [];
    return rows.map((r) => ({
      id: Number(r.id),
      direction: r.direction,
      messageId: r.message_id,
      supplierId: r.supplier_id === null ? null : Number(r.supplier_id),
      sender: r.sender,
      subject: r.subject,
      outcome: r.outcome,
      reason: r.reason,
      body: r.body,
      attachments: (JSON.parse(r.attachments) as RfqMessage['attachments']).map((a, position) => ({
        ...a,
        stored: stored.some((s) => s.message_id === r.message_id && s.position === position),
      })),
      at: r.at,
    }));
  }

  /** One kept attachment of a mail of the RFQ: its name, type and content. */
  async attachment(ctx: ErpContext, id: number, messageRowId: number, position: number) {
    await this.row(this.db, ctx.projectId, id);
    const message = await this.db
      .selectFrom('rfq_messages')
      .select(['message_id', 'attachments'])
      .where('id', '=', messageRowId)
      .where('rfq_id', '=', id)
      .executeTakeFirst();
    const meta = message && (JSON.parse(message.attachments) as RfqMessage['attachments'])[position];
    const file =
      message &&
      (await this.db
        .selectFrom('rfq_attachments')
        .select('content')
        .where('message_id', '=', message.message_id)
        .where('position', '=', position)
        .executeTakeFirst());
    if (!meta || !file) throw notFound(`没有这个附件 / no attachment ${position} of message ${messageRowId}`);
    return { name: meta.name, type: meta.type, content: Buffer.from(file.content) };
  }

  /** The invitation a token names, with its RFQ as the supplier may see it. */
  async invitation(token: string): Promise<InvitationView> {
    const row = await this.invitationRow(this.db, token);
    const rfqRow = await this.row(this.db, null, row.rfq_id);
    const [rfq] = await this.hydrate(this.db, [rfqRow]);
    const supplier = await this.db
      .selectFrom('suppliers')
      .select(['id', 'key', 'name_zh', 'name_en', 'contact_email'])
      .where('id', '=', row.supplier_id)
      .executeTakeFirstOrThrow();
    return {
      id: Number(row.id),
      token: row.token,
      projectId: rfqRow.project_id,
      rfq,
      supplier: {
        id: Number(supplier.id),
        key: supplier.key,
        nameZh: supplier.name_zh,
        nameEn: supplier.name_en,
        email: supplier.contact_email,
      },
      mail: { status: row.mail_status, messageId: row.message_id, remindedAt: row.reminded_at },
      replied: row.status !== 'invited',
    };
  }

  /** Invitations whose mail is queued, oldest first: the mail side's outbox. */
  async queuedMail(limit = 50): Promise<string[]> {
    const rows = await this.db
      .selectFrom('rfq_invitations')
      .select('token')
      .where('mail_status', '=', 'queued')
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map((r) => r.token);
  }

  /**
   * Marks an invitation's mail sent (with the Message-ID it went out under) and moves its RFQ to `collecting` once
   * every invitation is out. Only a queued invitation moves: a second call for the same mail changes nothing.
   */
  async markMailed(token: string, message: RfqMessage): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const invitation = await this.invitationRow(trx, token);
      const now = nowIso();
      const updated = await trx
        .updateTable('rfq_invitations')
        .set({ mail_status: 'sent', message_id: message.messageId, sent_at: now })
        .where('id', '=', invitation.id)
        .where('mail_status', '=', 'queued')
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) !== 1) return false;
      const rfq = await this.row(trx, null, invitation.rfq_id);
      await this.logMessage(trx, rfq, invitation.supplier_id, message);
      const waiting = await trx
        .selectFrom('rfq_invitations')
        .select(countAll.as('n'))
        .where('rfq_id', '=', rfq.id)
        .where('mail_status', '=', 'queued')
        .executeTakeFirstOrThrow();
      if (rfq.status === 'sent' && Number(waiting.n) === 0)
        await trx.updateTable('rfqs').set({ status: 'collecting', updated_at: now }).where('id', '=', rfq.id).execute();
      await recordAudit(trx, supplierContext(rfq), {
        entity: 'rfq',
        entityId: Number(rfq.id),
        action: 'mail_sent',
        after: { supplierId: invitation.supplier_id, messageId: message.messageId },
      });
      return true;
    });
  }

  /**
   * RFQs whose deadline has passed are closed; invitations without a reply within `hoursBefore` hours of their
   * deadline are due a reminder (each once). Run by the scheduler; answers the tokens to remind.
   */
  async sweep(now = new Date()): Promise<{ closed: string[]; remind: string[] }> {
    const at = now.toISOString();
    const due = await this.db
      .selectFrom('rfqs')
      .selectAll()
      .where('status', 'in', ['sent', 'collecting'])
      .where('reply_deadline', '<=', at)
      .execute();
    for (const rfq of due)
      await this.db.transaction().execute(async (trx) => {
        const r = await trx
          .updateTable('rfqs')
          .set({ status: 'closed', version: rfq.version + 1, updated_at: at })
          .where('id', '=', rfq.id)
          .where('version', '=', rfq.version)
          .executeTakeFirst();
        if (Number(r.numUpdatedRows) === 1)
          await recordAudit(trx, supplierContext(rfq), {
            entity: 'rfq',
            entityId: Number(rfq.id),
            action: 'closed_at_deadline',
          });
      });
    const open = await this.db
      .selectFrom('rfq_invitations')
      .innerJoin('rfqs', 'rfqs.id', 'rfq_invitations.rfq_id')
      .leftJoin('sourcing_settings', 'sourcing_settings.project_id', 'rfqs.project_id')
      .select(['rfq_invitations.token', 'rfqs.reply_deadline', 'sourcing_settings.reminder_hours'])
      .where('rfqs.status', 'in', ['sent', 'collecting'])
      .where('rfq_invitations.status', '=', 'invited')
      .where('rfq_invitations.mail_status', '=', 'sent')
      .where('rfq_invitations.reminded_at', 'is', null)
      .execute();
    const remind = open
      .filter(
        (r) =>
          new Date(r.reply_deadline).getTime() - (r.reminder_hours ?? DEFAULT_REMINDER_HOURS) * 3_600_000 <=
          now.getTime(),
      )
      .map((r) => r.token);
    return { closed: due.map((r) => r.rfq_no), remind };
  }

  /** Marks a reminder sent (once: false when it already was). */
  async markReminded(token: string, message: RfqMessage): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const invitation = await this.invitationRow(trx, token);
      const r = await trx
        .updateTable('rfq_invitations')
        .set({ reminded_at: nowIso() })
        .where('id', '=', invitation.id)
        .where('reminded_at', 'is', null)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1) return false;
      await this.logMessage(trx, await this.row(trx, null, invitation.rfq_id), invitation.supplier_id, message);
      return true;
    });
  }

  async get(ctx: ErpContext, id: number): Promise<Rfq> {
    const [rfq] = await this.hydrate(this.db, [await this.row(this.db, ctx.projectId, id)]);
    return rfq;
  }

  async list(ctx: ErpContext, q: { status?: RfqStatus; page: number; size: number }) {
    let query = this.db.selectFrom('rfqs').where('project_id', '=', ctx.projectId);
    if (q.status) query = query.where('status', '=', q.status);
    const [rows, total] = await Promise.all([
      query
        .selectAll()
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(q.size)
        .offset((q.page - 1) * q.size)
        .execute(),
      query.select(countAll.as('n')).executeTakeFirstOrThrow(),
    ]);
    const ids = rows.map((r) => Number(r.id));
    const [lines, invitations] = ids.length
      ? await Promise.all([
          this.db.selectFrom('rfq_lines').select('rfq_id').where('rfq_id', 'in', ids).execute(),
          this.db.selectFrom('rfq_invitations').select(['rfq_id', 'status']).where('rfq_id', 'in', ids).execute(),
        ])
      : [[], []];
    const items: RfqSummary[] = rows.map((r) => ({
      id: Number(r.id),
      rfqNo: r.rfq_no,
      title: r.title,
      status: r.status,
      version: r.version,
      replyDeadline: r.reply_deadline,
      createdAt: r.created_at,
      lines: lines.filter((l) => Number(l.rfq_id) === Number(r.id)).length,
      invited: invitations.filter((i) => Number(i.rfq_id) === Number(r.id)).length,
      replied: invitations.filter((i) => Number(i.rfq_id) === Number(r.id) && i.status !== 'invited').length,
    }));
    return { items, total: Number(total.n), totalCapped: false, page: q.page, size: q.size };
  }

  /** The project's exchange rates (CNY for one unit of each currency; CNY itself is always 1). */
  async rates(ctx: ErpContext, db: Db = this.db): Promise<ExchangeRate[]> {
    const rows = await db
      .selectFrom('exchange_rates')
      .selectAll()
      .where('project_id', '=', ctx.projectId)
      .orderBy('currency')
      .execute();
    return [
      { currency: 'CNY', rateToCny: 1, updatedAt: null, updatedBy: null },
      ...rows.map((r) => ({
        currency: r.currency,
        rateToCny: Number(r.rate_to_cny),
        updatedAt: r.updated_at,
        updatedBy: r.updated_by,
      })),
    ];
  }

  /** Sets one currency's rate; admins only, audited. */
  async setRate(ctx: ErpContext, currency: string, rateToCny: number): Promise<ExchangeRate[]> {
    if (ctx.role !== 'admin') throw forbidden('只有管理员可以维护汇率 / only an admin maintains exchange rates');
    if (currency === 'CNY')
      throw unprocessable('人民币汇率恒为 1 / CNY is always 1', [{ field: 'currency', message: 'CNY is the base' }]);
    await this.db.transaction().execute(async (trx) => {
      const before = await trx
        .selectFrom('exchange_rates')
        .select('rate_to_cny')
        .where('project_id', '=', ctx.projectId)
        .where('currency', '=', currency)
        .executeTakeFirst();
      const row = { rate_to_cny: rateToCny, updated_by: ctx.username, updated_at: nowIso() };
      await trx
        .insertInto('exchange_rates')
        .values({ project_id: ctx.projectId, currency, ...row })
        .onConflict((oc) => oc.columns(['project_id', 'currency']).doUpdateSet(row))
        .execute();
      await recordAudit(trx, ctx, {
        entity: 'exchange_rate',
        entityId: currency,
        action: 'set',
        before: before ? { rateToCny: Number(before.rate_to_cny) } : undefined,
        after: { rateToCny },
      });
    });
    return this.rates(ctx);
  }

  private async row(db: Db, projectId: string | null, id: number): Promise<RfqRow> {
    let query = db.selectFrom('rfqs').selectAll().where('id', '=', id);
    if (projectId !== null) query = query.where('project_id', '=', projectId);
    const row = await query.executeTakeFirst();
    if (!row) throw notFound(`询价单 ${id} 不存在 / RFQ ${id} not found`);
    return row;
  }

  private async invitationRow(db: Db, token: string): Promise<InvitationRow> {
    const row = await db.selectFrom('rfq_invitations').selectAll().where('token', '=', token).executeTakeFirst();
    if (!row) throw notFound('报价链接无效 / unknown invitation');
    return row;
  }

  /** RFQs with their lines, invitations and quotes, each quote in CNY at its line's quantity. */
  private async hydrate(db: Db, rows: RfqRow[]): Promise<Rfq[]> {
    const result: Rfq[] = [];
    for (const row of rows) {
      const id = Number(row.id);
      const [lines, invitations, quotes, creator, rates, order] = await Promise.all([
        db
          .selectFrom('rfq_lines')
          .leftJoin('parts', 'parts.id', 'rfq_lines.part_id')
          .select([
            'rfq_lines.line_no',
            'rfq_lines.part_id',
            'rfq_lines.item',
            'rfq_lines.quantity',
            'rfq_lines.unit',
            'rfq_lines.required_date',
            'parts.code',
            'parts.model',
            'parts.category',
            'parts.name_zh',
          ])
          .where('rfq_lines.rfq_id', '=', id)
          .orderBy('rfq_lines.line_no')
          .execute(),
        db
          .selectFrom('rfq_invitations')
          .innerJoin('suppliers', 'suppliers.id', 'rfq_invitations.supplier_id')
          .select([
            'rfq_invitations.supplier_id',
            'rfq_invitations.status',
            'rfq_invitations.mail_status',
            'rfq_invitations.message_id',
            'rfq_invitations.sent_at',
            'rfq_invitations.reminded_at',
            'rfq_invitations.replied_at',
            'suppliers.name_zh',
            'suppliers.name_en',
            'suppliers.contact_email',
          ])
          .where('rfq_invitations.rfq_id', '=', id)
          .orderBy('rfq_invitations.id')
          .execute(),
        db
          .selectFrom('rfq_quotes')
          .selectAll()
          .where('rfq_id', '=', id)
          .orderBy('supplier_id')
          .orderBy('line_no')
          .execute(),
        db.selectFrom('users').select('username').where('id', '=', row.created_by).executeTakeFirst(),
        this.rates({ projectId: row.project_id } as ErpContext, db),
        row.awarded_order_id === null
          ? undefined
          : db.selectFrom('orders').select('order_no').where('id', '=', row.awarded_order_id).executeTakeFirst(),
      ]);
      const rateMap = new Map(rates.map((r) => [r.currency, r.rateToCny]));
      const supplierRef = (supplierId: number) => {
        const i = invitations.find((x) => Number(x.supplier_id) === supplierId);
        return { id: supplierId, nameZh: i?.name_zh ?? '', nameEn: i?.name_en ?? '' };
      };
      result.push({
        id,
        rfqNo: row.rfq_no,
        projectId: row.project_id,
        title: row.title,
        status: row.status,
        version: row.version,
        currency: row.currency,
        incoterm: row.incoterm as Rfq['incoterm'],
        replyDeadline: row.reply_deadline,
        note: row.note,
        createdBy: { id: Number(row.created_by), username: creator?.username ?? '' },
        createdAt: row.created_at,
        updatedAt: row.updated_at,
        traceId: row.trace_id,
        award:
          row.awarded_order_id === null
            ? null
            : {
                supplierId: Number(row.awarded_supplier_id),
                orderId: Number(row.awarded_order_id),
                orderNo: order?.order_no ?? '',
                awardedBy: row.awarded_by ?? '',
                awardedAt: row.awarded_at ?? '',
              },
        lines: lines.map((l) => ({
          lineNo: l.line_no,
          partId: l.part_id === null ? null : Number(l.part_id),
          part:
            l.code === null
              ? null
              : { code: l.code, model: l.model ?? '', category: l.category ?? '', nameZh: l.name_zh ?? '' },
          item: l.item,
          quantity: l.quantity,
          unit: l.unit,
          requiredDate: l.required_date,
        })),
        invitations: invitations.map((i) => ({
          supplier: { ...supplierRef(Number(i.supplier_id)), email: i.contact_email },
          status: i.status,
          mail: { status: i.mail_status, messageId: i.message_id, sentAt: i.sent_at, remindedAt: i.reminded_at },
          repliedAt: i.replied_at,
        })),
        quotes: quotes.map((q) => quoteOf(q, supplierRef(Number(q.supplier_id)), lines, rateMap)),
      });
    }
    return result;
  }

  /** Runs one RFQ write at most once per idempotency key (see `writeOnce`) and returns the RFQ as it now stands. */
  private async once(
    ctx: ErpContext,
    idempotencyKey: string | undefined,
    request: unknown,
    write: (trx: Transaction<ErpTables>) => Promise<number>,
  ): Promise<{ rfq: Rfq; replayed: boolean }> {
    const outcome = await writeOnce(this.db, ctx, 'rfq_id', idempotencyKey, request, write);
    return { rfq: await this.get(ctx, outcome.id), replayed: outcome.replayed };
  }
}

/** Hours before the deadline at which suppliers without a reply are reminded, unless the project sets another. */
export const DEFAULT_REMINDER_HOURS = 24;

function quoteOf(
  q: QuoteRow,
  supplier: RfqQuote['supplier'],
  lines: Array<{ line_no: number; quantity: number }>,
  rates: ReadonlyMap<string, number>,
): RfqQuote {
  const priceBreaks = JSON.parse(q.price_breaks) as RfqQuote['priceBreaks'];
  const unitPrice = q.unit_price_e4 === null ? null : fromE4(q.unit_price_e4);
  const freight = q.freight_e4 === null ? null : fromE4(q.freight_e4);
  const quantity = lines.find((l) => l.line_no === q.line_no)?.quantity ?? 0;
  const effective =
    q.status === 'quoted' && unitPrice !== null && q.currency
      ? effectivePrice({ unitPrice, currency: q.currency, priceBreaks, freight }, quantity, rates)
      : null;
  return {
    supplier,
    lineNo: q.line_no,
    status: q.status,
    unitPrice,
    currency: q.currency,
    priceBreaks,
    moq: q.moq,
    leadTimeDays: q.lead_time_days,
    validUntil: q.valid_until,
    freight,
    remarks: q.remarks,
    flag: q.flag,
    late: q.late === 1,
    source: {
      kind: q.source_kind,
      messageId: q.source_message_id,
      attachment: q.source_attachment,
      from: q.source_from,
    },
    receivedAt: q.received_at,
    effective,
    effectiveReason:
      q.status === 'quoted' && !effective
        ? `没有 ${q.currency} 的汇率，请管理员维护 / no exchange rate for ${q.currency}: an admin sets it`
        : null,
  };
}

/** Writes made by a supplier (through its invitation) or by the schedule are audited as user 0 of the RFQ's project. */
function supplierContext(rfq: RfqRow): ErpContext {
  return { userId: 0, username: 'supplier', role: 'viewer', projectId: rfq.project_id };
}

function requireWriter(ctx: ErpContext) {
  if (isReadOnly(ctx)) throw forbidden('只读用户不能修改询价单 / viewers cannot change RFQs');
}

/** Only the RFQ's creator or an admin changes it. */
function requireOwner(ctx: ErpContext, rfq: RfqRow) {
  if (ctx.role !== 'admin' && Number(rfq.created_by) !== ctx.userId)
    throw forbidden('只有询价单的创建人或管理员可以修改它 / only the RFQ’s creator or an admin may change it');
}
