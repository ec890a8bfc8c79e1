import type { HumanRequest } from '../protocol/index.ts';

const REVISION = '~r';

/**
 * The id clients answer an interrupt by. The graph gives every interrupt of one tool call the same id, so a card shown
 * again after an edit (the approval middleware's `revision`) is told apart by it: an answer meant for the earlier card
 * never answers the new one.
 */
export function clientInterruptId(graphId: string, value: unknown): string {
  const revision = (value as Partial<Extract<HumanRequest, { kind: 'approval' }>> | undefined)?.revision;
  return typeof revision === 'number' && revision > 0 ? `${graphId}${REVISION}${revision}` : graphId;
}

/** The graph's interrupt id behind a client's, to resume it by. */
export const graphInterruptId = (clientId: string): string => clientId.split(REVISION)[0];
