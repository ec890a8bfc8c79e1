import { z } from 'zod';

/** What a schedule can run: the morning inventory digest, a price watch, or a request of the owner's own. */
export const SCHEDULE_KINDS = ['inventory_digest', 'price_watch', 'custom'] as const;
export type ScheduleKind = (typeof SCHEDULE_KINDS)[number];

/** What a schedule asks, by kind. */
export type ScheduleParams =
  | { kind: 'inventory_digest' }
  | { kind: 'price_watch'; parts: string[]; categories: string[]; threshold_pct: number }
  | { kind: 'custom'; request: string };

/** `POST /api/v1/schedules`: a schedule to create. */
export type ScheduleInput = ScheduleParams & { name: string; cron: string; timezone?: string };

/** A schedule as `GET /api/v1/schedules` lists it: never its credential. */
export type ScheduleView = ScheduleParams & {
  id: string;
  name: string;
  cron: string;
  timezone: string;
  project_id: string;
  next_run_at: string;
  last_run_at: string | null;
  last_error: string | null;
  created_at: string;
};

/** `POST /api/v1/schedules/{id}/run`: the run a schedule started, in a session of its own. */
export const StartedScheduleRunSchema = z.object({
  schedule_id: z.string(),
  due_at: z.string(),
  session_id: z.string(),
  run_id: z.string(),
});
export type StartedScheduleRun = z.infer<typeof StartedScheduleRunSchema>;
