import { z } from 'zod';

/** Longest chat message or scheduled request, in characters. */
export const MAX_MESSAGE_CHARS = 8_000;

export { NoControl } from '../protocol/index.ts';

/** A chat session's id, in a path or a body. */
export const SessionId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, '1–64 of A-Z a-z 0-9 _ -');
