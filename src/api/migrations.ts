import { migrateUsage } from './admin/usage.ts';
import { migrateProtocolThreads } from './agent-protocol/threads.ts';
import { migrateOrderNotices } from './approvals/order-notices.ts';
import { migrateRuns } from './chat/run-store.ts';
import { migrateSessions } from './chat/sessions.ts';
import type { ApiMigration } from './db.ts';
import { migrateSchedules } from './schedules/schedules.ts';

/** Every table of the chat API, each declared and migrated by the store that owns it. */
export const API_MIGRATIONS: readonly ApiMigration[] = [
  migrateSessions,
  migrateRuns,
  migrateUsage,
  migrateOrderNotices,
  migrateSchedules,
  migrateProtocolThreads,
];
