import type { ApiMigration } from './db.ts';
import { migrateOrderNotices } from './order-notices.ts';
import { migrateRuns } from './run-store.ts';
import { migrateSchedules } from './schedules.ts';
import { migrateSessions } from './sessions.ts';
import { migrateUsage } from './usage.ts';

/** Every table of the chat API, each declared and migrated by the store that owns it. */
export const API_MIGRATIONS: readonly ApiMigration[] = [
  migrateSessions,
  migrateRuns,
  migrateUsage,
  migrateOrderNotices,
  migrateSchedules,
];
