import { type OrderList, readOrderList } from './orders.ts';

/**
 * The dialogue state a follow-up, correction or reference is resolved against: what each answer of the conversation
 * held, as typed entities rather than its words.
 */
export type Tracked = OrderList;

/** The entities one answer holds, if it holds any the tracker knows. */
export function trackAnswer(answer: string): Tracked | undefined {
  return readOrderList(answer);
}
