/**
 * How a tool's answer is sent to a model: lists of records as tables (each key once, then one row of values per
 * record). Every value stays — a figure read from the table is the figure the tool answered — only the repeated keys
 * go, and each answer goes back to the model with every later call of the run.
 */

/** A list of records as sent: the keys once, then each record's values in that order. */
export interface Table {
  columns: string[];
  rows: unknown[][];
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isTable = (value: unknown): value is Table =>
  isRecord(value) &&
  Object.keys(value).length === 2 &&
  Array.isArray(value.columns) &&
  value.columns.every((c) => typeof c === 'string') &&
  Array.isArray(value.rows) &&
  value.rows.every((r) => Array.isArray(r) && r.length === (value.columns as string[]).length);

/**
 * Every list of two or more records with the same keys in the same order, at any depth, as a `Table`; anything else
 * as it was. A record whose keys differ (an optional field present in some) leaves its list as it was, so reading
 * the table back gives exactly the answer.
 */
export function tabulate(value: unknown): unknown {
  if (Array.isArray(value)) {
    const keys = value.length >= 2 && value.every(isRecord) ? Object.keys(value[0] as object) : undefined;
    const same =
      keys?.length &&
      value.every((r) => {
        const own = Object.keys(r as object);
        return own.length === keys.length && own.every((k, i) => k === keys[i]);
      });
    if (keys && same) return { columns: keys, rows: value.map((r) => keys.map((k) => tabulate((r as never)[k]))) };
    return value.map(tabulate);
  }
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, tabulate(v)]));
  return value;
}

/** The answer a `tabulate`d one was made from. */
export function untabulate(value: unknown): unknown {
  if (isTable(value))
    return value.rows.map((row) => Object.fromEntries(value.columns.map((c, i) => [c, untabulate(row[i])])));
  if (Array.isArray(value)) return value.map(untabulate);
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, untabulate(v)]));
  return value;
}

/** The key under which a compacted answer names the workspace file holding it whole. */
export const FULL_RESULT_KEY = 'fullResult';
