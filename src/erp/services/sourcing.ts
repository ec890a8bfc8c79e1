import type { Kysely } from 'kysely';
import { conflict, forbidden } from '../../shared/index.ts';
import type {
  AwardRfqInput,
  PROPOSAL_EXCLUSIONS,
  RfqAwardPreview,
  RfqProposal,
  SourcingSettings,
  SourcingWeights,
  UpdateSourcingSettingsInput,
} from '../contract.ts';
import type { ErpTables } from '../db/schema.ts';
import type { ApprovalPolicies } from './approval-policy.ts';
import { recordAudit } from './audit.ts';
import { type ErpContext, nowIso } from './context.ts';
import { isFlaggedLow, type PriceChecks } from './price-checks.ts';
import { DEFAULT_REMINDER_HOURS, type RfqBook } from './rfqs.ts';
import type { SupplierScorecards } from './scorecards.ts';

export const DEFAULT_WEIGHTS: SourcingWeights = { cost: 50, leadTime: 20, scorecard: 15, priceHistory: 15 };
/** A criterion the ERP cannot judge (no deliveries yet, too little price history) neither helps nor hurts. */
export const NEUTRAL_SCORE = 0.5;

const DAY_MS = 86_400_000;
const round = (n: number, places: number) => Math.round(n * 10 ** places) / 10 ** places;
const clamp01 = (n: number) => Math.min(1, Math.max(0, n));
const addDays = (isoDay: string, days: number) =>
  new Date(Date.parse(`${isoDay}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
const daysBetween = (from: string, to: string) =>
  Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);

type Exclusion = RfqProposal['excluded'][number];
type Reason = (typeof PROPOSAL_EXCLUSIONS)[number];

/**
 * The project's sourcing settings and the award proposal they weigh: every supplier with a usable quote for each
 * line of an RFQ, ranked by landed cost, lead time against the required date, its scorecard and the price against
 * the 12-month history, with the reasons; every quote left out is listed with why.
 */
export class SourcingDesk {
  constructor(
    private readonly db: Kysely<ErpTables>,
    private readonly parts: {
      rfqs: RfqBook;
      scorecards: SupplierScorecards;
      priceChecks: PriceChecks;
      policies: ApprovalPolicies;
    },
  ) {}

  async settings(ctx: ErpContext, db: Kysely<ErpTables> = this.db): Promise<SourcingSettings> {
    const row = await db
      .selectFrom('sourcing_settings')
      .selectAll()
      .where('project_id', '=', ctx.projectId)
      .executeTakeFirst();
    if (!row)
      return {
        projectId: ctx.projectId,
        weights: DEFAULT_WEIGHTS,
        reminderHours: DEFAULT_REMINDER_HOURS,
        version: 0,
        updatedBy: null,
        updatedAt: null,
      };
    return {
      projectId: ctx.projectId,
      weights: JSON.parse(row.weights) as SourcingWeights,
      reminderHours: row.reminder_hours,
      version: row.version,
      updatedBy: row.updated_by,
      updatedAt: row.updated_at,
    };
  }

  /** Admins only; `version` must be the current one (0 on the defaults), else 409. Audited. */
  async update(ctx: ErpContext, input: UpdateSourcingSettingsInput): Promise<SourcingSettings> {
    if (ctx.role !== 'admin')
      throw forbidden('只有管理员可以修改寻源设置 / only an admin may change the sourcing settings');
    await this.db.transaction().execute(async (trx) => {
      const before = await this.settings(ctx, trx);
      if (before.version !== input.version)
        throw conflict(
          `寻源设置已被修改（当前版本 ${before.version}）/ settings changed since version ${input.version}`,
          {
            currentVersion: before.version,
          },
        );
      const next = {
        weights: JSON.stringify(input.weights ?? before.weights),
        reminder_hours: input.reminderHours ?? before.reminderHours,
        version: before.version + 1,
        updated_by: ctx.username,
        updated_at: nowIso(),
      };
      const written = await trx
        .insertInto('sourcing_settings')
        .values({ project_id: ctx.projectId, ...next })
        .onConflict((oc) =>
          oc.column('project_id').doUpdateSet(next).where('sourcing_settings.version', '=', before.version),
        )
        .executeTakeFirst();
      if (Number(written.numInsertedOrUpdatedRows ?? 1) !== 1)
        throw conflict('寻源设置已被他人修改 / settings changed concurrently', {});
      await recordAudit(trx, ctx, {
        entity: 'sourcing_settings',
        entityId: ctx.projectId,
        action: 'update',
        before,
        after: input,
      });
    });
    return this.settings(ctx);
  }

  /**
   * What awarding `rfqId` to a supplier would write (the ERP's own award, rolled back) and where the proposal ranks
   * that supplier and why: everything an approval card of the award shows.
   */
  async awardPreview(ctx: ErpContext, rfqId: number, input: AwardRfqInput): Promise<RfqAwardPreview> {
    const proposal = await this.proposal(ctx, rfqId);
    const written = await this.parts.rfqs.previewAward(ctx, rfqId, input);
    const ranked = proposal.ranking.find((r) => r.supplier.id === input.supplierId);
    return { ...written, rank: ranked?.rank ?? null, ranked: proposal.ranking.length, why: ranked?.why ?? [] };
  }

  /**
   * The award proposal for an RFQ as it stands at `now`. A supplier is ranked only with a usable quote for every
   * line (an award orders every line from one supplier); otherwise each line that stops it is listed as excluded.
   */
  async proposal(ctx: ErpContext, rfqId: number, now = new Date()): Promise<RfqProposal> {
    const rfq = await this.parts.rfqs.get(ctx, rfqId);
    const { weights } = await this.settings(ctx);
    const { priceThresholds } = await this.parts.policies.get(ctx);
    const today = now.toISOString().slice(0, 10);
    const excluded: Exclusion[] = [];
    const candidates = [];
    for (const invitation of rfq.invitations) {
      const supplier = {
        id: invitation.supplier.id,
        nameZh: invitation.supplier.nameZh,
        nameEn: invitation.supplier.nameEn,
      };
      const exclude = (lineNo: number | null, reason: Reason, detail: string) =>
        excluded.push({ supplier, lineNo, reason, detail });
      const quotes = rfq.quotes.filter((q) => q.supplier.id === supplier.id);
      if (quotes.length === 0) {
        exclude(null, 'no_reply', '未回复 / no reply');
        continue;
      }
      const lines = [];
      for (const line of rfq.lines) {
        const q = quotes.find((x) => x.lineNo === line.lineNo);
        const n = line.lineNo;
        if (!q) exclude(n, 'no_reply', `第 ${n} 行未报价 / line ${n} not quoted`);
        else if (q.status === 'declined') exclude(n, 'declined', `谢绝报价 / declined`);
        else if (q.status === 'flagged') exclude(n, 'unreadable', `无法确认：${q.flag ?? ''} / could not be read`);
        else if (q.late) exclude(n, 'late', `截止后到达（${q.receivedAt}）/ arrived after the deadline`);
        else if (!q.effective) exclude(n, 'no_rate', q.effectiveReason ?? 'no exchange rate');
        else if (q.validUntil !== null && q.validUntil < today)
          exclude(n, 'expired', `报价有效期至 ${q.validUntil}，已过期 / valid until ${q.validUntil}: expired`);
        else if (q.moq !== null && q.moq > line.quantity)
          exclude(n, 'moq', `最小起订量 ${q.moq} 高于询价数量 ${line.quantity} / MOQ ${q.moq} above ${line.quantity}`);
        else {
          const arrivalDate = q.leadTimeDays === null ? null : addDays(today, q.leadTimeDays);
          const check =
            line.partId === null
              ? null
              : await this.parts.priceChecks.check(
                  ctx,
                  { partId: line.partId, unitPrice: q.effective.unitPriceCny },
                  priceThresholds,
                  now,
                );
          if (arrivalDate !== null && arrivalDate > line.requiredDate)
            exclude(
              n,
              'too_slow',
              `交期 ${q.leadTimeDays} 天，${arrivalDate} 到货，晚于需求日期 ${line.requiredDate} / arrives ${arrivalDate}, after ${line.requiredDate}`,
            );
          // Implausibly low is a risk to check with the supplier, never the cheapest offer to rank first.
          else if (q.effective.unitPriceCny <= 0)
            exclude(n, 'price_low', '单价为 ¥0，须人工核实 / a unit price of ¥0: a person must check it');
          else if (check && isFlaggedLow(check)) exclude(n, 'price_low', check.reason);
          else lines.push({ line, quote: q, effective: q.effective, arrivalDate, check });
        }
      }
      if (lines.length === rfq.lines.length) candidates.push({ supplier, lines });
    }

    const scored = [];
    for (const c of candidates) {
      const landedCostCny = round(
        c.lines.reduce((sum, l) => sum + l.effective.totalCny, 0),
        2,
      );
      // Lead time: the share of the days available (today to the required date) left to spare; unknown counts 0.
      const leadScores = c.lines.map((l) => {
        if (l.arrivalDate === null) return 0;
        const available = daysBetween(today, l.line.requiredDate);
        return available <= 0 ? 1 : clamp01(daysBetween(l.arrivalDate, l.line.requiredDate) / available);
      });
      const card = await this.parts.scorecards.scorecard(ctx, c.supplier.id, 12, now);
      const onTimePct = card.delivery.onTimePct;
      const checks = c.lines.map((l) => l.check);
      const historyScores = checks.map((check) =>
        check?.deviationPct == null ? NEUTRAL_SCORE : clamp01(1 - Math.max(0, check.deviationPct) / 100),
      );
      const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
      scored.push({
        supplier: c.supplier,
        landedCostCny,
        onTimePct,
        scores: {
          cost: 0,
          leadTime: round(mean(leadScores), 4),
          scorecard: round(onTimePct === null ? NEUTRAL_SCORE : onTimePct / 100, 4),
          priceHistory: round(mean(historyScores), 4),
        },
        lines: c.lines.map((l, i) => ({
          lineNo: l.line.lineNo,
          unitPriceCny: l.effective.unitPriceCny,
          totalCny: l.effective.totalCny,
          leadTimeDays: l.quote.leadTimeDays,
          arrivalDate: l.arrivalDate,
          requiredDate: l.line.requiredDate,
          validUntil: l.quote.validUntil,
          median12m: checks[i]?.median12m ?? null,
          deviationPct: checks[i]?.deviationPct ?? null,
        })),
      });
    }
    const cheapest = Math.min(...scored.map((s) => s.landedCostCny));
    const totalWeight = weights.cost + weights.leadTime + weights.scorecard + weights.priceHistory;
    const ranking = scored
      .map((s) => {
        const scores = { ...s.scores, cost: round(s.landedCostCny > 0 ? cheapest / s.landedCostCny : 1, 4) };
        const score = round(
          (weights.cost * scores.cost +
            weights.leadTime * scores.leadTime +
            weights.scorecard * scores.scorecard +
            weights.priceHistory * scores.priceHistory) /
            totalWeight,
          4,
        );
        return { ...s, scores, score };
      })
      .sort((a, b) => b.score - a.score || a.landedCostCny - b.landedCostCny || a.supplier.id - b.supplier.id)
      .map((s, i) => ({ rank: i + 1, ...s, why: whyOf(s, cheapest) }));
    return {
      rfqId: rfq.id,
      rfqNo: rfq.rfqNo,
      status: rfq.status,
      asOf: today,
      weights,
      ranking,
      recommended: ranking[0]?.supplier ?? null,
      excluded,
    };
  }
}

/** One sentence per criterion, Chinese first, for the buyer and the agent to read out. */
function whyOf(
  s: {
    landedCostCny: number;
    onTimePct: number | null;
    scores: Record<'cost' | 'leadTime' | 'scorecard' | 'priceHistory', number>;
    lines: Array<{ lineNo: number; arrivalDate: string | null; requiredDate: string; deviationPct: number | null }>;
  },
  cheapest: number,
): string[] {
  const over = cheapest > 0 ? round(((s.landedCostCny - cheapest) / cheapest) * 100, 1) : 0;
  const spare = s.lines.map((l) =>
    l.arrivalDate === null
      ? `第 ${l.lineNo} 行未报交期 / line ${l.lineNo}: no lead time`
      : `第 ${l.lineNo} 行 ${l.arrivalDate} 到货（需求 ${l.requiredDate}）/ line ${l.lineNo} arrives ${l.arrivalDate} (needed ${l.requiredDate})`,
  );
  const history = s.lines
    .filter((l) => l.deviationPct !== null)
    .map(
      (l) =>
        `第 ${l.lineNo} 行比 12 个月中位价 ${l.deviationPct}% / line ${l.lineNo} ${l.deviationPct}% vs the 12-month median`,
    );
  return [
    over === 0
      ? `到岸总价 ¥${s.landedCostCny}，最低 / landed cost ¥${s.landedCostCny}, the lowest`
      : `到岸总价 ¥${s.landedCostCny}，比最低高 ${over}% / landed cost ¥${s.landedCostCny}, ${over}% above the lowest`,
    ...spare,
    s.onTimePct === null
      ? '近 12 个月无交货记录，按中性计 / no deliveries in 12 months: scored neutral'
      : `近 12 个月准时交货率 ${s.onTimePct}% / on time ${s.onTimePct}% over 12 months`,
    ...(history.length ? history : ['历史成交不足，价格按中性计 / too little price history: scored neutral']),
  ];
}
