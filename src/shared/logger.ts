import { pino } from 'pino';

/** One process-wide structured logger; parts take a child with their name. */
export const logger = pino({
  level: process.env.LOG_LEVEL ?? (process.env.VITEST ? 'silent' : 'info'),
  base: undefined,
  redact: {
    paths: ['token', '*.token', 'authorization', '*.authorization', 'headers.authorization'],
    censor: '[redacted]',
  },
});

export type Logger = typeof logger;
