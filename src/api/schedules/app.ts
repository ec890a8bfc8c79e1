import { z } from 'zod';
import { ScheduleListSchema, ScheduleViewSchema, StartedScheduleRunSchema } from '../../protocol/index.ts';
import { notFound } from '../../shared/index.ts';
import { ApiRoutes } from '../openapi.ts';
import type { Scheduler } from './scheduler.ts';
import type { Schedules } from './schedules.ts';
import { ScheduleBody, ScheduleId } from './schemas.ts';

export interface SchedulesAppDeps {
  schedules: Schedules;
  scheduler: Scheduler;
}

/** The caller's schedules: list, create, delete, and run one now besides its timetable. */
export function schedulesApp(deps: SchedulesAppDeps): ApiRoutes {
  const routes = new ApiRoutes();
  const tags = ['schedules'];
  // A schedule id that is not a UUID names no schedule: 404, checked by the handler, like any other missing one.
  const params = { id: z.string() };
  const missing = { description: '没有这个定时任务 / no such schedule' };

  routes.add(
    {
      method: 'get',
      path: '/schedules',
      operationId: 'listSchedules',
      summary: '当前用户的定时任务 / the caller’s schedules',
      tags,
      responses: { 200: { description: 'schedules', json: ScheduleListSchema } },
    },
    async (c) => c.json(await deps.schedules.list(c.var.user)),
  );
  routes.add(
    {
      method: 'post',
      path: '/schedules',
      operationId: 'createSchedule',
      summary: '新建定时任务 / create a schedule',
      tags,
      body: ScheduleBody,
      responses: { 201: { description: 'the schedule with its next_run_at', json: ScheduleViewSchema } },
    },
    async (c, { body }) => c.json(await deps.schedules.create(c.var.user, body), 201),
  );
  routes.add(
    {
      method: 'delete',
      path: '/schedules/{id}',
      operationId: 'deleteSchedule',
      summary: '删除定时任务 / delete a schedule',
      tags,
      params,
      responses: { 204: { description: 'deleted; its sessions stay' }, 404: missing },
    },
    async (c, { params }) => {
      await deps.schedules.delete(c.var.user, scheduleId(params.id));
      return c.body(null, 204);
    },
  );
  routes.add(
    {
      method: 'post',
      path: '/schedules/{id}/run',
      operationId: 'runScheduleNow',
      summary: '立即运行一次 / run a schedule now',
      tags,
      params,
      responses: {
        202: {
          description: 'started',
          json: StartedScheduleRunSchema,
        },
        404: missing,
      },
    },
    async (c, { params }) => c.json(await deps.scheduler.runNow(c.var.user, scheduleId(params.id)), 202),
  );

  return routes;
}

/** A schedule id that is not a UUID names no schedule: 404 like any other missing one. */
function scheduleId(raw: string): string {
  if (!ScheduleId.safeParse(raw).success) throw notFound(`没有这个定时任务 / no schedule ${raw.slice(0, 64)}`);
  return raw;
}
