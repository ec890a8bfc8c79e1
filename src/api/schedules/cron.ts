import { Cron } from 'croner';
import { badRequest } from '../../shared/index.ts';

/** Where schedules run when neither the schedule nor `PROCURA_TIMEZONE` names a time zone. */
export const DEFAULT_TIMEZONE = 'Asia/Shanghai';

/** `PROCURA_TIMEZONE` when it is a valid IANA time zone, else Asia/Shanghai (an invalid setting stops start-up). */
export function defaultTimezone(env: NodeJS.ProcessEnv): string {
  const zone = env.PROCURA_TIMEZONE?.trim();
  if (!zone) return DEFAULT_TIMEZONE;
  if (!isTimezone(zone))
    throw new Error(`PROCURA_TIMEZONE 不是有效的时区 / PROCURA_TIMEZONE is not a time zone: ${zone}`);
  return zone;
}

export function isTimezone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * A five-field cron expression (minute hour day-of-month month day-of-week) read in a time zone. Seconds and years
 * are refused: a digest runs at most once a minute, and the scheduler claims runs by the minute.
 */
export class CronSchedule {
  private readonly cron: Cron;

  constructor(
    readonly expression: string,
    readonly timezone: string,
  ) {
    // A pattern with ':' would be read as a one-off date, not a cron expression.
    if (expression.trim().split(/\s+/).length !== 5 || expression.includes(':')) {
      throw badRequest(
        'cron 表达式须为 5 段：分 时 日 月 周 / a cron expression has 5 fields: minute hour day month weekday',
        {
          errors: [{ field: 'cron', message: 'expected 5 fields' }],
        },
      );
    }
    if (!isTimezone(timezone)) {
      throw badRequest(`不是有效的时区 / not a time zone: ${timezone}`, {
        errors: [{ field: 'timezone', message: 'expected an IANA time zone such as Asia/Shanghai' }],
      });
    }
    try {
      this.cron = new Cron(expression, { timezone, paused: true });
    } catch (error) {
      throw badRequest(`cron 表达式无效 / invalid cron expression: ${(error as Error).message}`, {
        errors: [{ field: 'cron', message: (error as Error).message }],
      });
    }
    if (!this.cron.nextRun(new Date())) {
      throw badRequest('cron 表达式不会再触发 / the cron expression never fires again', {
        errors: [{ field: 'cron', message: 'no future run' }],
      });
    }
  }

  /** The first due minute strictly after `after`, or undefined when the expression never fires again. */
  nextAfter(after: Date): Date | undefined {
    return this.cron.nextRun(after) ?? undefined;
  }
}
