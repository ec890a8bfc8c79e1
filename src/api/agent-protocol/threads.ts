import type { Kysely } from 'kysely';
import type { ApiDb } from '../db.ts';

/** The metadata Agent Protocol clients give a thread (a chat session), kept beside the session. */
export type ThreadTables = {
  protocol_threads: { thread_id: string; metadata: string };
};

export async function migrateProtocolThreads(db: ApiDb): Promise<void> {
  await db.schema
    .createTable('protocol_threads')
    .ifNotExists()
    .addColumn('thread_id', 'text', (c) => c.primaryKey())
    .addColumn('metadata', 'text', (c) => c.notNull())
    .execute();
}

export type Metadata = Record<string, unknown>;

/** Threads' metadata by thread id; a session started in the chat has none (`{}`). */
export class ThreadMetadata {
  private readonly db: Kysely<ThreadTables>;

  constructor(db: ApiDb) {
    this.db = db.withTables<ThreadTables>();
  }

  async set(threadId: string, metadata: Metadata): Promise<void> {
    await this.db
      .insertInto('protocol_threads')
      .values({ thread_id: threadId, metadata: JSON.stringify(metadata) })
      .onConflict((oc) => oc.column('thread_id').doUpdateSet({ metadata: JSON.stringify(metadata) }))
      .execute();
  }

  async of(threadIds: string[]): Promise<Map<string, Metadata>> {
    if (!threadIds.length) return new Map();
    const rows = await this.db.selectFrom('protocol_threads').selectAll().where('thread_id', 'in', threadIds).execute();
    return new Map(rows.map((r) => [r.thread_id, JSON.parse(r.metadata) as Metadata]));
  }

  async delete(threadId: string): Promise<void> {
    await this.db.deleteFrom('protocol_threads').where('thread_id', '=', threadId).execute();
  }
}
