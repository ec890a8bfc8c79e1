import { Hono } from 'hono';
import { notFound } from '../../shared/index.ts';
import { type ApiEnv, parseJson } from '../http.ts';
import type { Scheduler } from './scheduler.ts';
import type { Schedules } from './schedules.ts';
import { ScheduleBody, ScheduleId } from './schemas.ts';

export interface SchedulesAppDeps {
  schedules: Schedules;
  scheduler: Scheduler;
}

/** The caller's schedules: list, create, delete, and run one now besides its timetable. */
export function schedulesApp(deps: SchedulesAppDeps): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get('/schedules', async (c) => c.json(await deps.schedules.list(c.var.user)));
  app.post('/schedules', async (c) => {
    const body = await parseJson(c, ScheduleBody);
    return c.json(await deps.schedules.create(c.var.user, body), 201);
  });
  app.delete('/schedules/:id', async (c) => {
    await deps.schedules.delete(c.var.user, scheduleId(c.req.param('id')));
    return c.body(null, 204);
  });
  app.post('/schedules/:id/run', async (c) =>
    c.json(await deps.scheduler.runNow(c.var.user, scheduleId(c.req.param('id'))), 202),
  );

  return app;
}

/** A schedule id that is not a UUID names no schedule: 404 like any other missing one. */
function scheduleId(raw: string): string {
  if (!ScheduleId.safeParse(raw).success) throw notFound(`没有这个定时任务 / no schedule ${raw.slice(0, 64)}`);
  return raw;
}
