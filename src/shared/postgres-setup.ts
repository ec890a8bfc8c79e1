/** One key for every part: schema set-up is rare and short, so one lock for all of it is simplest and safe. */
const SETUP_LOCK_KEY = 7_310_352_114;

/**
 * Runs `work` (creating schemas, tables, functions) while holding a PostgreSQL advisory lock, so API processes
 * starting together on a fresh database set it up one after the other. Concurrent `create … if not exists` in
 * PostgreSQL is not safe: the loser fails on a unique index of the system catalogue.
 */
export async function withPostgresSetupLock<T>(databaseUrl: string, work: () => Promise<T>): Promise<T> {
  // Loaded here: every command loads this module, and only one with a PostgreSQL database needs the driver.
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [SETUP_LOCK_KEY]);
    return await work();
  } finally {
    // Closing the connection releases the lock even when unlocking fails.
    await client.query('select pg_advisory_unlock($1)', [SETUP_LOCK_KEY]).catch(() => undefined);
    await client.end().catch(() => undefined);
  }
}
