import type { Kysely } from 'kysely';
import { conflict, forbidden, unprocessable } from '../../shared/index.ts';
import type { ApprovalDecision, ApprovalPolicy, PriceSeverity, UpdatePolicyInput } from '../contract.ts';
import type { ErpTables } from '../db/schema.ts';
import { recordAudit } from './audit.ts';
import { type ErpContext, fromE4, nowIso, toE4 } from './context.ts';

export const DEFAULT_POLICY: Omit<ApprovalPolicy, 'projectId'> = {
  buyerLimit: 5_000,
  adminSuppliers: [],
  adminCategories: [],
  priceThresholds: { infoPct: 5, warnPct: 10, criticalPct: 25 },
  fourEyes: true,
  version: 0,
  updatedAt: null,
};

/** Price checks at these severities always need an admin, far above the median or far below it (¥0 included). */
const FLAGGED: readonly PriceSeverity[] = ['warn', 'critical'];

const yuan = (n: number) => `¥${n.toLocaleString('en-US', { maximumFractionDigits: 2 })}`;

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
 * thresholds and the four-eyes switch. Admins edit it (optimistic version, audited); the ERP applies it when an
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
    if (!row) return { projectId: ctx.projectId, ...DEFAULT_POLICY };
    return {
      projectId: ctx.projectId,
      buyerLimit: fromE4(Number(row.buyer_limit_e4)),
      adminSuppliers: JSON.parse(row.admin_suppliers) as number[],
      adminCategories: JSON.parse(row.admin_categories) as string[],
      priceThresholds: { infoPct: row.info_pct, warnPct: row.warn_pct, criticalPct: row.critical_pct },
      fourEyes: Number(row.four_eyes) !== 0,
      version: row.version,
      updatedAt: row.updated_at,
    };
  }

  /** Admins only; `version` must be the current one (0 for a project still on the defaults), else 409. */
  async update(ctx: ErpContext, input: UpdatePolicyInput): Promise<ApprovalPolicy> {
    if (ctx.role !== 'admin')
      throw forbidden('只有管理员可以修改审批策略 / only an admin may change the approval policy');
    const t = input.priceThresholds;
    if (t && !(t.infoPct <= t.warnPct && t.warnPct <= t.criticalPct))
      throw unprocessable('价格阈值须递增 / price thresholds must increase', [
        { field: 'priceThresholds', message: 'infoPct ≤ warnPct ≤ criticalPct' },
      ]);
    await this.db.transaction().execute(async (trx) => {
      const before = await this.get(ctx, trx);
      if (before.version !== input.version)
        throw conflict(
          `审批策略已被修改（当前版本 ${before.version}）/ policy changed since version ${input.version}`,
          {
            currentVersion: before.version,
          },
        );
      const next = {
        buyer_limit_e4: toE4(input.buyerLimit ?? before.buyerLimit),
        admin_suppliers: JSON.stringify(input.adminSuppliers ?? before.adminSuppliers),
        admin_categories: JSON.stringify(input.adminCategories ?? before.adminCategories),
        info_pct: (t ?? before.priceThresholds).infoPct,
        warn_pct: (t ?? before.priceThresholds).warnPct,
        critical_pct: (t ?? before.priceThresholds).criticalPct,
        four_eyes: (input.fourEyes ?? before.fourEyes) ? 1 : 0,
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
      await recordAudit(trx, ctx, {
        entity: 'approval_policy',
        entityId: ctx.projectId,
        action: 'update',
        before,
        after: input,
      });
    });
    return this.get(ctx);
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
