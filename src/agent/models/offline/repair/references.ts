import type { Reading } from '../intent.ts';
import type { ListedOrder, OrderList } from '../tracking/orders.ts';

/**
 * Repair: a reference resolves against the dialogue state. "把还没审批的那张取消", "它是谁家的？", "cancel the second
 * one" after a list of orders mean rows of that list — the rows in the state said, the one at the place said, the one
 * of the supplier said — never its first row; when several could be meant they are all handed on, so the order agent
 * asks with each of them instead of guessing a write.
 */

/** Ordinal words: the place of a row in the list just shown ("第二张", "the second one"). */
export const ORDINALS: Array<[RegExp, number]> = [
  [/第一|头一|first|1st/i, 0],
  [/第二|second|2nd/i, 1],
  [/第三|third|3rd/i, 2],
  [/第四|fourth|4th/i, 3],
  [/第五|fifth|5th/i, 4],
];

/** Words pointing at one row of a list just shown: 它, 那张, 第二张, that one, the one still waiting. */
export const POINTS_AT_ROW =
  /它|那张|这张|那一张|这一张|那单|这单|那笔|这笔|那个订单|这个订单|那个单|第[一二三四五\d](?:张|个|笔|单)|\b(?:it|that one|this one|that order|this order|the (?:[\w-]+ ){0,3}(?:one|order))\b/i;

/** The rows of the list the reading points at: by state, by place, by supplier; every row when nothing narrows it. */
export function rowsMeant(list: OrderList, reading: Reading): ListedOrder[] {
  let rows = list.rows;
  const states = reading.statuses?.statuses ?? ((reading.scores.pending ?? 0) > 0 ? ['pending_approval'] : undefined);
  if (states) rows = rows.filter((r) => states.includes(r.status));
  const bySupplier = rows.filter((r) => saysSupplier(reading.text, r.supplier));
  if (bySupplier.length) rows = bySupplier;
  const place = ORDINALS.find(([pattern]) => pattern.test(reading.text))?.[1];
  if (place !== undefined) return rows[place] ? [rows[place]] : [];
  // Lists are newest first.
  if (reading.newest) return rows.slice(0, 1);
  return rows;
}

/** Whether the text names a listed supplier, by its name as shown or its first word (博世 of 博世汽车部件, Bosch). */
function saysSupplier(text: string, supplier: string): boolean {
  const lower = text.toLowerCase();
  const name = supplier.toLowerCase();
  const head = /^[a-z]/.test(name) ? name.split(/\s+/)[0] : name.slice(0, 2);
  return lower.includes(name) || (head.length >= 2 && lower.includes(head));
}

/** Marks, in a delegated task's context, the listed orders a reference resolved to. */
export const MEANT_LABEL = '所指订单 / orders meant: ';

/** The context entry handing the resolved rows to the order agent ("—" when none of the rows fits). */
export const meantEntry = (rows: ListedOrder[]) =>
  `${MEANT_LABEL}${rows.map((r) => `${r.orderNo} (${r.status})`).join(', ') || '—'}`;

/** The order numbers a delegated task's context resolved a reference to, or undefined when it resolved none. */
export function ordersMeant(context: string[]): string[] | undefined {
  const entry = context.findLast((c) => c.startsWith(MEANT_LABEL));
  return entry === undefined ? undefined : [...entry.matchAll(/PO-\d{6}-[A-Z]?\d+/gi)].map((m) => m[0].toUpperCase());
}
