import { z } from 'zod';

/**
 * What a schedule can run: the morning inventory digest, a price watch, the open requests for quotation with their
 * replies and deadlines, or a request of the owner's own.
 */
export const SCHEDULE_KINDS = ['inventory_digest', 'price_watch', 'rfq_digest', 'custom'] as const;
export type ScheduleKind = (typeof SCHEDULE_KINDS)[number];

/** What a schedule asks, by kind. */
export const ScheduleParamsSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('inventory_digest') }),
  z.object({ kind: z.literal('rfq_digest') }),
  z.object({
    kind: z.literal('price_watch'),
    parts: z.array(z.string()),
    categories: z.array(z.string()),
    threshold_pct: z.number(),
  }),
  z.object({ kind: z.literal('custom'), request: z.string() }),
]);
export type ScheduleParams = z.infer<typeof ScheduleParamsSchema>;

/** `POST /api/v1/schedules`: a schedule to create. */
export type ScheduleInput = ScheduleParams & { name: string; cron: string; timezone?: string };

/** A schedule as `GET /api/v1/schedules` lists it: never its credential. */
export const ScheduleViewSchema = z.intersection(
  ScheduleParamsSchema,
  z.object({
    id: z.string(),
    name: z.string(),
    cron: z.string(),
    timezone: z.string(),
    project_id: z.string(),
    next_run_at: z.string(),
    last_run_at: z.string().nullable(),
    last_error: z.string().nullable(),
    created_at: z.string(),
  }),
);
export type ScheduleView = z.infer<typeof ScheduleViewSchema>;

/** `GET /api/v1/schedules`: the caller's schedules. */
export const ScheduleListSchema = z.object({ items: z.array(ScheduleViewSchema) });

/** `POST /api/v1/schedules/{id}/run`: the run a schedule started, in a session of its own. */
export const StartedScheduleRunSchema = z.object({
  schedule_id: z.string(),
  due_at: z.string(),
  session_id: z.string(),
  run_id: z.string(),
});
export type StartedScheduleRun = z.infer<typeof StartedScheduleRunSchema>;

/** How often a cron expression fires, as people name a report by it. */
export type Cadence = 'hourly' | 'daily' | 'weekdays' | 'weekly' | 'monthly' | 'custom';

/**
 * The cadence of a five-field cron expression (minute hour day-of-month month day-of-week): a weekly digest is a
 * weekly report, not a daily one. Anything that fits none of the usual cadences is `custom`.
 */
export function cadenceOf(cron: string): Cadence {
  const fields = cron.trim().split(/\s+/);
  if (fields.length !== 5) return 'custom';
  const [minute, hour, day, month, weekday] = fields;
  const fixed = (f: string) => /^\d+$/.test(f);
  if (!fixed(minute) || month !== '*') return 'custom';
  if (hour === '*') return day === '*' && weekday === '*' ? 'hourly' : 'custom';
  if (!/^[\d,]+$/.test(hour)) return 'custom';
  if (day === '*' && (weekday === '*' || /^(0-6|1-7|\*\/1)$/.test(weekday))) return 'daily';
  if (day === '*' && /^(1-5|mon-fri)$/i.test(weekday)) return 'weekdays';
  if (day === '*' && /^[\d,a-z-]+$/i.test(weekday)) return 'weekly';
  if (/^[\d,]+$/.test(day) && weekday === '*') return 'monthly';
  return 'custom';
}

/** What a report of the cadence is called, Chinese then English (`日报 / daily`). */
export const CADENCE_REPORT: Record<Cadence, { zh: string; en: string }> = {
  hourly: { zh: '每小时报告', en: 'hourly' },
  daily: { zh: '日报', en: 'daily' },
  weekdays: { zh: '工作日日报', en: 'weekday' },
  weekly: { zh: '周报', en: 'weekly' },
  monthly: { zh: '月报', en: 'monthly' },
  custom: { zh: '定时报告', en: 'scheduled' },
};
