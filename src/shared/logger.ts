import { pino } from 'pino';

/**
 * One process-wide structured logger; parts take a child with their name. It writes to stderr, so what a command
 * prints on stdout (`--json` output above all) is only its answer.
 */
export const logger = pino(
  {
    level: process.env.LOG_LEVEL ?? (process.env.VITEST ? 'silent' : 'info'),
    base: undefined,
    redact: {
      paths: ['token', '*.token', 'authorization', '*.authorization', 'headers.authorization'],
      censor: '[redacted]',
    },
  },
  pino.destination({ dest: 2, sync: true }),
);

export type Logger = typeof logger;
