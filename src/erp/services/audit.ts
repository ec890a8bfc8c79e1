import type { Kysely } from 'kysely';
import { forbidden } from '../../shared/index.ts';
import type { ErpTables } from '../db/schema.ts';
import { type ErpContext, nowIso } from './context.ts';

/** Records one write: who, when, what, and the entity before and after. Called inside the write's transaction. */
export async function recordAudit(
  trx: Kysely<ErpTables>,
  ctx: ErpContext,
  entry: { entity: string; entityId: string | number; action: string; before?: unknown; after?: unknown },
): Promise<void> {
  await trx
    .insertInto('audit_log')
    .values({
      at: nowIso(),
      user_id: ctx.userId,
      project_id: ctx.projectId,
      entity: entry.entity,
      entity_id: String(entry.entityId),
      action: entry.action,
      before_json: entry.before === undefined ? null : JSON.stringify(entry.before),
      after_json: entry.after === undefined ? null : JSON.stringify(entry.after),
      trace_id: ctx.traceId ?? null,
    })
    .execute();
}

/** Reads the audit trail of one entity; admins only. */
export class AuditLog {
  constructor(private readonly db: Kysely<ErpTables>) {}

  async entries(ctx: ErpContext, entity: string, entityId: string) {
    if (ctx.role !== 'admin') throw forbidden('只有管理员可以查看审计日志 / admins only');
    const rows = await this.db
      .selectFrom('audit_log')
      .selectAll()
      .where('project_id', '=', ctx.projectId)
      .where('entity', '=', entity)
      .where('entity_id', '=', entityId)
      .orderBy('id')
      .execute();
    return rows.map((r) => ({
      id: Number(r.id),
      at: r.at,
      userId: Number(r.user_id),
      projectId: r.project_id,
      entity: r.entity,
      entityId: r.entity_id,
      action: r.action,
      before: r.before_json ? JSON.parse(r.before_json) : null,
      after: r.after_json ? JSON.parse(r.after_json) : null,
      traceId: r.trace_id,
    }));
  }
}
