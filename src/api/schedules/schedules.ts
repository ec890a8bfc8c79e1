import type { Kysely } from 'kysely';
import {
  CADENCE_REPORT,
  cadenceOf,
  type ScheduleInput,
  type ScheduleKind,
  type ScheduleParams,
  type ScheduleView,
} from '../../protocol/index.ts';
import { CredentialSealer, notFound, ProblemError, redactSecrets, redactSecretsIn } from '../../shared/index.ts';
import type { ApiUser } from '../auth.ts';
import type { ApiDb } from '../db.ts';
import { CronSchedule } from './cron.ts';

export type ScheduleTables = {
  schedules: {
    id: string;
    owner: string;
    project_id: string;
    name: string;
    cron: string;
    timezone: string;
    kind: ScheduleKind;
    /** JSON of the kind's parameters (`ScheduleParams` without `kind`). */
    params: string;
    /** The owner's ERP token, sealed: a scheduled run acts as its owner when nobody is signed in. */
    credential: string;
    next_due_at: string;
    last_run_at: string | null;
    last_error: string | null;
    created_at: string;
    updated_at: string;
  };
  /** One row per run a schedule started: the primary key is the claim that lets one API process start it. */
  schedule_runs: {
    schedule_id: string;
    due_at: string;
    /** `retry`: the run a restart cut, taken up again at start-up (one row: it is retried once). */
    trigger: 'cron' | 'manual' | 'retry';
    session_id: string | null;
    error: string | null;
    created_at: string;
  };
};

export type ScheduleRow = ScheduleTables['schedules'];

export async function migrateSchedules(db: ApiDb): Promise<void> {
  await db.schema
    .createTable('schedules')
    .ifNotExists()
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('cron', 'text', (c) => c.notNull())
    .addColumn('timezone', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('params', 'text', (c) => c.notNull())
    .addColumn('credential', 'text', (c) => c.notNull())
    .addColumn('next_due_at', 'text', (c) => c.notNull())
    .addColumn('last_run_at', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('schedules_due').ifNotExists().on('schedules').column('next_due_at').execute();
  await db.schema
    .createIndex('schedules_owner')
    .ifNotExists()
    .on('schedules')
    .columns(['owner', 'created_at'])
    .execute();
  await db.schema
    .createTable('schedule_runs')
    .ifNotExists()
    .addColumn('schedule_id', 'text', (c) => c.notNull())
    .addColumn('due_at', 'text', (c) => c.notNull())
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('session_id', 'text')
    .addColumn('error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    // A "run now" at the very minute of a timed run is a second run, not a lost race.
    .addPrimaryKeyConstraint('schedule_runs_pk', ['schedule_id', 'due_at', 'trigger'])
    .execute();
}

/** Schedules one user may keep: each starts runs on its own, so their number is bounded like runs are. */
export const MAX_SCHEDULES_PER_USER = 20;

/**
 * The sealer of the owners' ERP tokens that schedules keep: `PROCURA_SCHEDULE_KEY`, or a random key in
 * `<dataDir>/schedule.key`.
 */
export const scheduleSealer = (dataDir: string, env: NodeJS.ProcessEnv): CredentialSealer =>
  CredentialSealer.open({
    dataDir,
    secret: env.PROCURA_SCHEDULE_KEY,
    setting: 'PROCURA_SCHEDULE_KEY',
    keyFile: 'schedule.key',
  });

/** The request a run of the schedule sends to the agent, in Chinese then English; a digest is named by its cadence. */
export function scheduleRequest(params: ScheduleParams, cron: string): string {
  const report = CADENCE_REPORT[cadenceOf(cron)];
  switch (params.kind) {
    case 'inventory_digest':
      return `库存预警${report.zh}：列出低于安全库存（再订货点）的零部件、在途数量和建议补货量，最紧急的在前。只汇报，不要下单。\nInventory digest (${report.en}): list the parts below their reorder point with quantities on order and suggested reorder quantities, most urgent first. Report only; do not place orders.`;
    case 'rfq_digest':
      return `询价进展${report.zh}：列出我进行中的询价单（已发出、收集中），每张的已回复/受邀供应商数和报价截止时间，截止最早的在前。只汇报，不做任何更改。\nOpen RFQs (${report.en}): list my requests for quotation still open (sent or collecting) with replies received against suppliers invited and the reply deadline, earliest deadline first. Report only; change nothing.`;
    case 'price_watch': {
      const watched = [...params.parts, ...params.categories].join('、');
      const english = [...params.parts, ...params.categories].join(', ');
      return `价格监控：检查以下零部件/品类的供应商网上报价和 ERP 价格：${watched}。列出价格变动超过 ${params.threshold_pct}% 的，并说明涨跌幅度和来源。只汇报，不要下单。\nPrice watch: check supplier web quotes and ERP list prices of ${english}; list those whose price moved more than ${params.threshold_pct}% with the change and its source. Report only; do not place orders.`;
    }
    case 'custom':
      return params.request;
  }
}

/** Schedules per user: create, list, delete. Another user's schedule answers exactly like a missing one (404). */
export class Schedules {
  private readonly db: Kysely<ScheduleTables>;

  constructor(
    private readonly deps: {
      db: ApiDb;
      sealer: CredentialSealer;
      /** Time zone of schedules that name none. */
      timezone: string;
      now: () => Date;
    },
  ) {
    this.db = deps.db.withTables<ScheduleTables>();
  }

  async create(user: ApiUser, input: ScheduleInput) {
    const timezone = input.timezone ?? this.deps.timezone;
    const cron = new CronSchedule(input.cron, timezone);
    const now = this.deps.now();
    const { name: given, cron: _cron, timezone: _zone, kind, ...asked } = input;
    // Redacted where they enter: a schedule's name and text reach its runs, their history and the model.
    const name = await redactSecrets(given, [user.token]);
    const params = await redactSecretsIn(asked, [user.token]);
    const row: ScheduleRow = {
      id: crypto.randomUUID(),
      owner: user.username,
      project_id: user.projectId,
      name,
      cron: cron.expression,
      timezone,
      kind,
      params: JSON.stringify(params),
      credential: this.deps.sealer.seal(user.token),
      next_due_at: (cron.nextAfter(now) as Date).toISOString(),
      last_run_at: null,
      last_error: null,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    };
    // Counted and written in one transaction: parallel creates cannot pass the cap together.
    await this.db.transaction().execute(async (trx) => {
      const { count } = await trx
        .selectFrom('schedules')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('owner', '=', user.username)
        .executeTakeFirstOrThrow();
      if (Number(count) >= MAX_SCHEDULES_PER_USER)
        throw new ProblemError(
          409,
          'too_many_schedules',
          `每位用户最多 ${MAX_SCHEDULES_PER_USER} 个定时任务，请先删除不用的 / at most ${MAX_SCHEDULES_PER_USER} schedules per user: delete one you no longer need first`,
          { max_schedules: MAX_SCHEDULES_PER_USER },
        );
      await trx.insertInto('schedules').values(row).execute();
    });
    return scheduleView(row);
  }

  async list(user: ApiUser) {
    const rows = await this.db
      .selectFrom('schedules')
      .selectAll()
      .where('owner', '=', user.username)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return { items: rows.map(scheduleView) };
  }

  async owned(user: ApiUser, id: string): Promise<ScheduleRow> {
    const row = await this.db.selectFrom('schedules').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row || row.owner !== user.username) throw notFound(`没有这个定时任务 / no schedule ${id}`);
    return row;
  }

  /** Deletes the schedule and its claims; the sessions it started stay in the owner's history. */
  async delete(user: ApiUser, id: string): Promise<void> {
    await this.owned(user, id);
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('schedule_runs').where('schedule_id', '=', id).execute();
      await trx.deleteFrom('schedules').where('id', '=', id).execute();
    });
  }
}

export function paramsOf(row: ScheduleRow): ScheduleParams {
  return { kind: row.kind, ...JSON.parse(row.params) } as ScheduleParams;
}

/** A schedule as the API shows it: never its credential. */
export function scheduleView(row: ScheduleRow): ScheduleView {
  return {
    id: row.id,
    name: row.name,
    cron: row.cron,
    timezone: row.timezone,
    ...paramsOf(row),
    project_id: row.project_id,
    next_run_at: row.next_due_at,
    last_run_at: row.last_run_at,
    last_error: row.last_error,
    created_at: row.created_at,
  };
}
