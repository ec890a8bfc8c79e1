import { z } from 'zod';

/** Longest chat message or scheduled request, in characters. */
export const MAX_MESSAGE_CHARS = 8_000;

/** Text a person typed: no control characters besides tab and line breaks. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
export const NoControl = /^[^\u0000-\u0008\u000b\u000c\u000e-\u001f]*$/;

/** A chat session's id, in a path or a body. */
export const SessionId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, '1–64 of A-Z a-z 0-9 _ -');
