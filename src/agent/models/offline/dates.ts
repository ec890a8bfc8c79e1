import { chineseNumber, plainNumber, type Span } from './quantities.ts';

/**
 * Delivery dates as buyers write them, relative to today: 下周五, 本周三, 周五前, 明天, 3天内, 两周后, 月底,
 * 12月15日前, 本月25号, 25号前, 12/15, 2026-12-15, by Friday, next Friday, tomorrow, in 10 days, within 2 weeks, by Dec 15.
 * The answer is an ISO date (YYYY-MM-DD, UTC calendar).
 */

const WEEKDAY_ZH: Record<string, number> = { 一: 1, 二: 2, 三: 3, 四: 4, 五: 5, 六: 6, 日: 7, 天: 7, 末: 6 };
const WEEKDAY_EN: Record<string, number> = {
  mon: 1,
  tue: 2,
  wed: 3,
  thu: 4,
  fri: 5,
  sat: 6,
  sun: 7,
};
const MONTH_EN: Record<string, number> = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  oct: 10,
  nov: 11,
  dec: 12,
};

const day = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
const addDays = (d: Date, n: number) => new Date(day(d).getTime() + n * 86_400_000);
export const isoDate = (d: Date) => d.toISOString().slice(0, 10);
/** Monday = 1 … Sunday = 7. */
const weekday = (d: Date) => d.getUTCDay() || 7;

/** The next such weekday after today (a week ahead when today is that day). */
function nextWeekday(today: Date, target: number): Date {
  const ahead = (target - weekday(today) + 7) % 7 || 7;
  return addDays(today, ahead);
}

/** The weekday in this calendar week (offset 0) or the next ones (Monday-based). */
function weekdayOfWeek(today: Date, target: number, weeksAhead: number): Date {
  return addDays(today, target - weekday(today) + 7 * weeksAhead);
}

/** A calendar date this year, or next year when it has passed. */
function monthDay(today: Date, month: number, date: number, year?: number): Date | undefined {
  if (month < 1 || month > 12 || date < 1 || date > 31) return undefined;
  let d = new Date(Date.UTC(year ?? today.getUTCFullYear(), month - 1, date));
  if (d.getUTCMonth() !== month - 1) return undefined;
  if (!year && d < day(today)) d = new Date(Date.UTC(today.getUTCFullYear() + 1, month - 1, date));
  return d;
}

/** That day of this month (or of a later one); `rollOver` moves a day already past to next month. */
function dayOfMonth(today: Date, date: number, monthsAhead: number, rollOver = false): Date | undefined {
  const at = (ahead: number) =>
    monthDay(
      today,
      ((today.getUTCMonth() + ahead) % 12) + 1,
      date,
      today.getUTCFullYear() + Math.floor((today.getUTCMonth() + ahead) / 12),
    );
  const d = at(monthsAhead);
  return rollOver && d && d < day(today) ? at(monthsAhead + 1) : d;
}

const count = (raw: string) => plainNumber(raw) ?? chineseNumber(raw);

export function readDate(text: string, today = new Date()): ({ value: string } & Span) | undefined {
  const rules: Array<[RegExp, (m: RegExpExecArray) => Date | undefined]> = [
    [/(20\d\d)[-/.年](\d{1,2})[-/.月](\d{1,2})[日号]?/, (m) => monthDay(today, +m[2], +m[3], +m[1])],
    [
      /([0-9]{1,2}|[一二三四五六七八九十]{1,2})月([0-9]{1,2}|[一二三四五六七八九十]{1,3})[日号]?/,
      (m) => monthDay(today, count(m[1]) ?? 0, count(m[2]) ?? 0),
    ],
    [/(?<![\w./-])(\d{1,2})\/(\d{1,2})(?![\w./-])/, (m) => monthDay(today, +m[1], +m[2])],
    [
      /\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b/i,
      (m) => monthDay(today, MONTH_EN[m[1].toLowerCase()], +m[2]),
    ],
    [
      /\b(\d{1,2})(?:st|nd|rd|th)?\s+(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b/i,
      (m) => monthDay(today, MONTH_EN[m[2].toLowerCase()], +m[1]),
    ],
    [
      /(下下|下个?|本|这个?|今)?(?:周|星期|礼拜)([一二三四五六日天末])/,
      (m) => {
        const target = WEEKDAY_ZH[m[2]];
        if (!m[1]) return nextWeekday(today, target);
        return weekdayOfWeek(today, target, m[1] === '下下' ? 2 : m[1].startsWith('下') ? 1 : 0);
      },
    ],
    [
      /\b(?:(next|this)\s+)?(mon|tue|wed|thu|fri|sat|sun)(?:day|s|nes|rs|ur|urs)?(?:day)?\b/i,
      (m) => {
        const target = WEEKDAY_EN[m[2].toLowerCase()];
        if (m[1]?.toLowerCase() === 'next') return weekdayOfWeek(today, target, 1);
        if (m[1]?.toLowerCase() === 'this') return weekdayOfWeek(today, target, 0);
        return nextWeekday(today, target);
      },
    ],
    [/大后天/, () => addDays(today, 3)],
    [/后天|day after tomorrow/i, () => addDays(today, 2)],
    [/明天|明日|tomorrow/i, () => addDays(today, 1)],
    [/今天|今日|\btoday\b/i, () => day(today)],
    [
      /([0-9]+|[一二两三四五六七八九十]+)\s*(?:个)?(天|日|周|星期|个月|月)(?:内|之内|以内|后|之后)/,
      (m) => {
        const n = count(m[1]) ?? 0;
        if (m[2] === '天' || m[2] === '日') return addDays(today, n);
        if (m[2] === '周' || m[2] === '星期') return addDays(today, 7 * n);
        return addDays(today, 30 * n);
      },
    ],
    [
      /\b(?:in|within)\s+(\d+|a|one|two|three|four|five|six|seven|eight|nine|ten)\s+(days?|weeks?|months?)\b/i,
      (m) => {
        const n = count(m[1]) ?? 0;
        const unit = m[2].toLowerCase();
        return addDays(today, unit.startsWith('day') ? n : unit.startsWith('week') ? 7 * n : 30 * n);
      },
    ],
    [
      /(本月|这个?月|当月|下个?月)(\d{1,2}|[一二三四五六七八九十]{1,3})[日号]/,
      (m) => dayOfMonth(today, count(m[2]) ?? 0, m[1].startsWith('下') ? 1 : 0),
    ],
    // A bare day of the month counts only as a deadline (25号前, 3日到货), never as a count (3日内 is read above).
    [
      /(?<![\d月])(\d{1,2}|[一二三四五六七八九十]{1,3})[日号](?=\s*(?:之前|以前|前|到货|交货|送到|截止))/,
      (m) => dayOfMonth(today, count(m[1]) ?? 0, 0, true),
    ],
    [/下个?月底|end of next month/i, () => new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() + 2, 0))],
    [
      /月底|月末|end of (?:the |this )?month/i,
      () => new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() + 1, 0)),
    ],
    [/下周|next week/i, () => weekdayOfWeek(today, 1, 1)],
  ];
  for (const [pattern, toDate] of rules) {
    const m = pattern.exec(text);
    if (!m) continue;
    const date = toDate(m);
    if (!date) continue;
    // Include a trailing 前/之前/以前/到货 so it is not read as anything else.
    const tail = /^\s*(?:之前|以前|前|到货|交货|送到)*/.exec(text.slice(m.index + m[0].length))?.[0] ?? '';
    return { value: isoDate(date), start: m.index, end: m.index + m[0].length + tail.length };
  }
  return undefined;
}
