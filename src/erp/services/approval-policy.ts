import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { conflict, forbidden, notFound, unprocessable } from '../../shared/index.ts';
import type {
  ApprovalDecision,
  ApprovalPolicy,
  ConfirmPolicyInput,
  PolicyProposal,
  PriceSeverity,
  UpdatePolicyInput,
} from '../contract.ts';
import type { ErpTables } from '../db/schema.ts';
import { recordAudit } from './audit.ts';
import { type ErpContext, fromE4, nowIso, toE4 } from './context.ts';
import { fourEyesRefused } from './four-eyes.ts';

export const DEFAULT_POLICY: Omit<ApprovalPolicy, 'projectId' | 'pendingChange'> = {
  buyerLimit: 5_000,
  adminSuppliers: [],
  adminCategories: [],
  priceThresholds: { infoPct: 5, warnPct: 10, criticalPct: 25 },
  fourEyes: true,
  // The same defaults as migration 015 gives a stored policy's new columns.
  invoiceMatch: { pricePct: 2, quantityPct: 0, duplicateWindowDays: 30 },
  version: 0,
  updatedAt: null,
};

/** Price checks at these severities always need an admin, far above the median or far below it (¥0 included). */
const FLAGGED: readonly PriceSeverity[] = ['warn', 'critical'];

const yuan = (n: number) => `¥${n.toLocaleString('en-US', { maximumFractionDigits: 2 })}`;

type PolicyChanges = Omit<UpdatePolicyInput, 'version'>;

/** Each control `changes` would loosen against `before`, in words; none for a change that only tightens. */
function loosened(before: ApprovalPolicy, changes: PolicyChanges): string[] {
  const found: string[] = [];
  if (before.fourEyes && changes.fourEyes === false) found.push('关闭四眼原则 / four eyes off');
  if (changes.buyerLimit !== undefined && changes.buyerLimit > before.buyerLimit)
    found.push(
      `采购员限额 ${yuan(before.buyerLimit)} → ${yuan(changes.buyerLimit)} / buyer limit raised to ${yuan(changes.buyerLimit)}`,
    );
  const dropped = <T>(was: T[], now: T[] | undefined) => (now ? was.filter((item) => !now.includes(item)) : []);
  const suppliers = dropped(before.adminSuppliers, changes.adminSuppliers);
  if (suppliers.length)
    found.push(
      `供应商 ${suppliers.join(', ')} 不再须管理员审批 / suppliers ${suppliers.join(', ')} no longer need an admin`,
    );
  const categories = dropped(before.adminCategories, changes.adminCategories);
  if (categories.length)
    found.push(
      `品类 ${categories.join(', ')} 不再须管理员审批 / categories ${categories.join(', ')} no longer need an admin`,
    );
  const raised = (['infoPct', 'warnPct', 'criticalPct'] as const).filter(
    (key) => changes.priceThresholds && changes.priceThresholds[key] > before.priceThresholds[key],
  );
  if (raised.length) found.push(`提高价格阈值 ${raised.join(', ')} / price thresholds raised: ${raised.join(', ')}`);
  const match = changes.invoiceMatch;
  const widened = (['pricePct', 'quantityPct'] as const).filter(
    (key) => match && match[key] > before.invoiceMatch[key],
  );
  if (widened.length)
    found.push(`放宽发票匹配容差 ${widened.join(', ')} / invoice match tolerances widened: ${widened.join(', ')}`);
  if (match && match.duplicateWindowDays < before.invoiceMatch.duplicateWindowDays)
    found.push(
      `重复发票检查窗口 ${before.invoiceMatch.duplicateWindowDays} → ${match.duplicateWindowDays} 天 / duplicate-invoice window shortened to ${match.duplicateWindowDays} days`,
    );
  return found;
}

/** The submitted order as the policy sees it. */
export interface OrderUnderPolicy {
  total: number;
  supplierId: number;
  supplierName: string;
  lines: Array<{
    code: string;
    category: string;
    priceCheck: { severity: PriceSeverity; deviationPct: number | null };
  }>;
}

/**
 * The project's approval policy: a buyer's limit, suppliers and categories that always need an admin, the price
 * thresholds, the four-eyes switch and the invoice match's tolerances. Admins edit it (optimistic version, audited); the ERP applies it when an
 * order is submitted, changed or decided.
 */
export class ApprovalPolicies {
  constructor(private readonly db: Kysely<ErpTables>) {}

  async get(ctx: ErpContext, db: Kysely<ErpTables> = this.db): Promise<ApprovalPolicy> {
    const row = await db
      .selectFrom('approval_policies')
      .selectAll()
      .where('project_id', '=', ctx.projectId)
      .executeTakeFirst();
    const pending = await this.proposal(ctx, db);
    // A proposal made on another version than the policy's is void (the policy changed under it).
    const pendingChange = pending?.baseVersion === (row?.version ?? DEFAULT_POLICY.version) ? pending : null;
    if (!row) return { projectId: ctx.projectId, ...DEFAULT_POLICY, pendingChange };
    return {
      projectId: ctx.projectId,
      buyerLimit: fromE4(Number(row.buyer_limit_e4)),
      adminSuppliers: JSON.parse(row.admin_suppliers) as number[],
      adminCategories: JSON.parse(row.admin_categories) as string[],
      priceThresholds: { infoPct: row.info_pct, warnPct: row.warn_pct, criticalPct: row.critical_pct },
      fourEyes: Number(row.four_eyes) !== 0,
      invoiceMatch: {
        pricePct: Number(row.match_price_pct),
        quantityPct: Number(row.match_quantity_pct),
        duplicateWindowDays: Number(row.duplicate_window_days),
      },
      version: row.version,
      updatedAt: row.updated_at,
      pendingChange,
    };
  }

  /** The loosening change proposed last, if any. */
  private async proposal(ctx: ErpContext, db: Kysely<ErpTables>): Promise<PolicyProposal | null> {
    const row = await db
      .selectFrom('approval_policy_proposals')
      .selectAll()
      .where('project_id', '=', ctx.projectId)
      .executeTakeFirst();
    if (!row) return null;
    return {
      id: row.id,
      changes: JSON.parse(row.changes) as PolicyChanges,
      loosens: JSON.parse(row.loosens) as string[],
      baseVersion: Number(row.base_version),
      proposedBy: row.proposed_by_name,
      proposedAt: row.proposed_at,
    };
  }

  /**
   * Admins only; `version` must be the current one (0 for a project still on the defaults), else 409. A change that
   * only tightens the policy applies at once; one that loosens any control (see `loosened`) is a proposal that
   * applies when another admin confirms it (`confirm`), replacing any proposal before it. Both are audited.
   */
  async update(ctx: ErpContext, input: UpdatePolicyInput): Promise<{ policy: ApprovalPolicy; applied: boolean }> {
    if (ctx.role !== 'admin')
      throw forbidden('只有管理员可以修改审批策略 / only an admin may change the approval policy');
    const t = input.priceThresholds;
    if (t && !(t.infoPct <= t.warnPct && t.warnPct <= t.criticalPct))
      throw unprocessable('价格阈值须递增 / price thresholds must increase', [
        { field: 'priceThresholds', message: 'infoPct ≤ warnPct ≤ criticalPct' },
      ]);
    const { version, ...changes } = input;
    const applied = await this.db.transaction().execute(async (trx) => {
      const before = await this.current(ctx, trx, version);
      const loosens = loosened(before, changes);
      if (!loosens.length) {
        await this.write(trx, ctx, before, changes);
        await recordAudit(trx, ctx, {
          entity: 'approval_policy',
          entityId: ctx.projectId,
          action: 'update',
          before,
          after: input,
        });
        return true;
      }
      const proposal = {
        id: randomBytes(9).toString('base64url'),
        changes: JSON.stringify(changes),
        loosens: JSON.stringify(loosens),
        base_version: before.version,
        proposed_by: ctx.userId,
        proposed_by_name: ctx.username,
        proposed_at: nowIso(),
      };
      await trx
        .insertInto('approval_policy_proposals')
        .values({ project_id: ctx.projectId, ...proposal })
        .onConflict((oc) => oc.column('project_id').doUpdateSet(proposal))
        .execute();
      await recordAudit(trx, ctx, {
        entity: 'approval_policy',
        entityId: ctx.projectId,
        action: 'propose',
        before,
        after: { ...changes, proposalId: proposal.id, loosens },
      });
      return false;
    });
    return { policy: await this.get(ctx), applied };
  }

  /**
   * Another admin confirms the pending loosening change, which then applies; its proposer may not (403 `four_eyes`).
   * A proposal replaced by a newer one is 404; one whose policy changed since it was proposed is 409 and dropped.
   */
  async confirm(ctx: ErpContext, input: ConfirmPolicyInput): Promise<ApprovalPolicy> {
    if (ctx.role !== 'admin')
      throw forbidden('只有管理员可以确认审批策略的修改 / only an admin may confirm a change of the approval policy');
    await this.db.transaction().execute(async (trx) => {
      const before = await this.get(ctx, trx);
      const proposal = await this.proposal(ctx, trx);
      if (!proposal || proposal.id !== input.proposalId)
        throw notFound(
          `没有待确认的审批策略修改 ${input.proposalId} / no pending change ${input.proposalId} of the approval policy`,
        );
      const row = await trx
        .selectFrom('approval_policy_proposals')
        .select('proposed_by')
        .where('project_id', '=', ctx.projectId)
        .executeTakeFirstOrThrow();
      if (Number(row.proposed_by) === ctx.userId)
        throw fourEyesRefused(
          '四眼原则：放宽审批策略须由另一位管理员确认 / four eyes: another admin must confirm a change that loosens the approval policy',
        );
      await trx.deleteFrom('approval_policy_proposals').where('project_id', '=', ctx.projectId).execute();
      if (proposal.baseVersion !== before.version)
        throw conflict(
          `审批策略在提议后已被修改（当前版本 ${before.version}），请重新提议 / the policy changed since this was proposed (now version ${before.version}): propose it again`,
          { currentVersion: before.version },
        );
      await this.write(trx, ctx, before, proposal.changes);
      await recordAudit(trx, ctx, {
        entity: 'approval_policy',
        entityId: ctx.projectId,
        action: 'confirm',
        before,
        after: { ...proposal.changes, proposalId: proposal.id, proposedBy: proposal.proposedBy },
      });
    });
    return this.get(ctx);
  }

  /** The policy as it stands, when it is still at `version` (else 409). */
  private async current(ctx: ErpContext, trx: Kysely<ErpTables>, version: number): Promise<ApprovalPolicy> {
    const before = await this.get(ctx, trx);
    if (before.version !== version)
      throw conflict(`审批策略已被修改（当前版本 ${before.version}）/ policy changed since version ${version}`, {
        currentVersion: before.version,
      });
    return before;
  }

  /** Writes `changes` over `before` as the next version; a concurrent write of the same version is 409. */
  private async write(trx: Kysely<ErpTables>, ctx: ErpContext, before: ApprovalPolicy, changes: PolicyChanges) {
    const t = changes.priceThresholds ?? before.priceThresholds;
    const match = changes.invoiceMatch ?? before.invoiceMatch;
    const next = {
      buyer_limit_e4: toE4(changes.buyerLimit ?? before.buyerLimit),
      admin_suppliers: JSON.stringify(changes.adminSuppliers ?? before.adminSuppliers),
      admin_categories: JSON.stringify(changes.adminCategories ?? before.adminCategories),
      info_pct: t.infoPct,
      warn_pct: t.warnPct,
      critical_pct: t.criticalPct,
      four_eyes: (changes.fourEyes ?? before.fourEyes) ? 1 : 0,
      match_price_pct: match.pricePct,
      match_quantity_pct: match.quantityPct,
      duplicate_window_days: match.duplicateWindowDays,
      version: before.version + 1,
      updated_by: ctx.userId,
      updated_at: nowIso(),
    };
    const written = await trx
      .insertInto('approval_policies')
      .values({ project_id: ctx.projectId, ...next })
      .onConflict((oc) =>
        oc.column('project_id').doUpdateSet(next).where('approval_policies.version', '=', before.version),
      )
      .executeTakeFirst();
    if (Number(written.numInsertedOrUpdatedRows ?? 1) !== 1)
      throw conflict('审批策略已被他人修改 / policy changed concurrently', {});
  }

  /** Applies the policy to a submitted order: every reason an admin is needed, or the auto-approval with its rule. */
  decide(policy: ApprovalPolicy, order: OrderUnderPolicy): ApprovalDecision {
    const reasons: string[] = [];
    if (order.total > policy.buyerLimit)
      reasons.push(
        `金额 ${yuan(order.total)} 超过采购员限额 ${yuan(policy.buyerLimit)} / ${yuan(order.total)} > buyer limit ${yuan(policy.buyerLimit)}`,
      );
    if (policy.adminSuppliers.includes(order.supplierId))
      reasons.push(`供应商 ${order.supplierName} 须管理员审批 / supplier ${order.supplierName} always needs an admin`);
    for (const category of new Set(order.lines.map((l) => l.category)))
      if (policy.adminCategories.includes(category))
        reasons.push(`品类 ${category} 须管理员审批 / category ${category} always needs an admin`);
    for (const line of order.lines)
      if (FLAGGED.includes(line.priceCheck.severity))
        reasons.push(
          line.priceCheck.deviationPct !== null && line.priceCheck.deviationPct > 0
            ? `${line.code} 单价比 12 个月中位价高 ${line.priceCheck.deviationPct}%（${line.priceCheck.severity}）/ price ${line.priceCheck.deviationPct}% above 12-month median (${line.code}, ${line.priceCheck.severity})`
            : `${line.code} 单价异常偏低${line.priceCheck.deviationPct === null ? '' : `，比 12 个月中位价低 ${-line.priceCheck.deviationPct}%`}（${line.priceCheck.severity}），须人工核实 / price implausibly low${line.priceCheck.deviationPct === null ? '' : `, ${-line.priceCheck.deviationPct}% below 12-month median`} (${line.code}, ${line.priceCheck.severity}): a person must check it`,
        );
    if (reasons.length) return { rule: 'needs-admin', reason: `需管理员审批 / admin approval: ${reasons.join('; ')}` };
    return {
      rule: 'auto-approved',
      reason: `自动批准：${yuan(order.total)} ≤ 采购员限额 ${yuan(policy.buyerLimit)} / auto-approved: ${yuan(order.total)} ≤ buyer limit ${yuan(policy.buyerLimit)}`,
    };
  }
}
