import { statusName } from '../asks.ts';

/**
 * The rows of an order list as the order agent writes them and the tracker reads them back: one declaration of the
 * row, so what a follow-up resolves against ("待审批的那张", "who is that one from?") is what the user was shown.
 */

/** One row of an order list: the order, its state (the ERP's code) and its supplier as shown. */
export interface ListedOrder {
  orderNo: string;
  status: string;
  supplier: string;
}

/** An answer that listed orders: its rows, newest first, and the filters that made the list. */
export interface OrderList {
  kind: 'orders';
  rows: ListedOrder[];
  filters: string;
}

/** A state as lists show it: its Chinese name and the ERP's code (`待审批 / pending_approval`). */
export const statusText = (status: string) => `${statusName(status, false)} / ${status}`;

/** One row of an order list: number, state, supplier, then the details (lines, amount, dates). */
export function orderRow(row: ListedOrder, details: string[]): string {
  return [`- ${row.orderNo}`, statusText(row.status), row.supplier, ...details].join(' · ');
}

/** Starts the filters line of an order list, in each language. */
export const FILTERS_LABEL = { zh: '筛选 / filters：', en: 'Filters: ' } as const;
const FILTERS_LINE = /^(?:筛选 \/ filters：|Filters: )(.*)$/m;
const ROW = /^- (PO-\d{6}-[A-Z]?\d+) · [^·\n]*? \/ ([a-z_]+) · ([^·\n]+?)(?= ·|$)/gm;

/** The order list an answer shows, when it shows one. */
export function readOrderList(answer: string): OrderList | undefined {
  const rows = [...answer.matchAll(ROW)].map((m) => ({ orderNo: m[1], status: m[2], supplier: m[3].trim() }));
  if (!rows.length) return undefined;
  return { kind: 'orders', rows, filters: FILTERS_LINE.exec(answer)?.[1]?.trim() ?? '' };
}
