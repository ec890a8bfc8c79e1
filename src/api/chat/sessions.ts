import type { Kysely } from 'kysely';
import type { SessionRecord } from '../../protocol/index.ts';
import { badRequest, conflict, notFound } from '../../shared/index.ts';
import type { ApiUser } from '../auth.ts';
import type { ApiDb } from '../db.ts';

/** Chat sessions, and which of them a schedule started (and whether their owner has opened them yet). */
export type SessionTables = {
  chat_sessions: SessionRecord;
  scheduled_sessions: {
    session_id: string;
    owner: string;
    schedule_id: string;
    schedule_name: string;
    seen_at: string | null;
    created_at: string;
  };
};

export type SessionRow = SessionTables['chat_sessions'];

export async function migrateSessions(db: ApiDb): Promise<void> {
  await db.schema
    .createTable('chat_sessions')
    .ifNotExists()
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('chat_sessions_owner')
    .ifNotExists()
    .on('chat_sessions')
    .columns(['owner', 'updated_at'])
    .execute();
  await db.schema
    .createTable('scheduled_sessions')
    .ifNotExists()
    .addColumn('session_id', 'text', (c) => c.primaryKey())
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('schedule_id', 'text', (c) => c.notNull())
    .addColumn('schedule_name', 'text', (c) => c.notNull())
    .addColumn('seen_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('scheduled_sessions_owner')
    .ifNotExists()
    .on('scheduled_sessions')
    .columns(['owner', 'seen_at'])
    .execute();
}

const SESSION_ID = /^[A-Za-z0-9_-]{1,64}$/;
const TITLE_LENGTH = 40;

/** Chat sessions and who owns them. Another user's session answers exactly like a missing one (404). */
export class Sessions {
  private readonly db: Kysely<SessionTables>;

  constructor(db: ApiDb) {
    this.db = db.withTables<SessionTables>();
  }

  /** The caller's session, or 404. */
  async owned(user: ApiUser, id: string): Promise<SessionRow> {
    if (!SESSION_ID.test(id)) throw badRequest('会话 id 无效 / invalid session id (1–64 of A-Z a-z 0-9 _ -)');
    const row = await this.db.selectFrom('chat_sessions').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row || row.owner !== user.username) throw notFound(`会话不存在 / no session ${id}`);
    return row;
  }

  /**
   * The caller's session, refused (409) when the request acts in another project than the one the session
   * belongs to: its runs, approvals and ERP writes stay in that project.
   */
  async ownedInProject(user: ApiUser, id: string): Promise<SessionRow> {
    return inProject(user, await this.owned(user, id));
  }

  /**
   * The caller's session `id` (created when new), or a new session titled after the first message. `created` says
   * the session is new, so nothing of it (runs, checkpoints) can exist yet.
   */
  async openOrCreate(
    user: ApiUser,
    id: string | undefined,
    firstMessage: string,
  ): Promise<SessionRow & { created: boolean }> {
    const existing = async (sessionId: string) => {
      const row = await this.db.selectFrom('chat_sessions').selectAll().where('id', '=', sessionId).executeTakeFirst();
      if (row && row.owner !== user.username) throw notFound(`会话不存在 / no session ${sessionId}`);
      return row && { ...inProject(user, row), created: false };
    };
    if (id) {
      if (!SESSION_ID.test(id)) throw badRequest('会话 id 无效 / invalid session id (1–64 of A-Z a-z 0-9 _ -)');
      const found = await existing(id);
      if (found) return found;
    }
    const newId = id ?? crypto.randomUUID();
    // Parallel starts on one new client-chosen id: one creates it, the others find it (and meet its run: 409).
    const created = await this.create(user, newId, firstMessage);
    if (created) return { ...created, created: true };
    const found = await existing(newId);
    if (!found) throw notFound(`会话不存在 / no session ${newId}`);
    return found;
  }

  /**
   * Creates session `id` for the caller, in their project, titled after its first message (empty: a new chat);
   * undefined when the id is taken (by anyone).
   */
  async create(user: ApiUser, id: string, firstMessage = ''): Promise<SessionRow | undefined> {
    const now = new Date().toISOString();
    const row: SessionRow = {
      id,
      owner: user.username,
      project_id: user.projectId,
      title: titleFrom(firstMessage),
      created_at: now,
      updated_at: now,
    };
    const inserted = await this.db
      .insertInto('chat_sessions')
      .values(row)
      .onConflict((oc) => oc.column('id').doNothing())
      .executeTakeFirst();
    return Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0 ? row : undefined;
  }

  /** Every session of the caller, the most recently updated first. */
  ownedBy(user: ApiUser): Promise<SessionRow[]> {
    return this.db
      .selectFrom('chat_sessions')
      .selectAll()
      .where('owner', '=', user.username)
      .orderBy('updated_at', 'desc')
      .orderBy('id')
      .execute();
  }

  async touch(id: string): Promise<void> {
    await this.db
      .updateTable('chat_sessions')
      .set({ updated_at: new Date().toISOString() })
      .where('id', '=', id)
      .execute();
  }
}

function inProject(user: ApiUser, session: SessionRow): SessionRow {
  if (session.project_id === user.projectId) return session;
  throw conflict(
    `会话属于项目 ${session.project_id}，请在该项目中继续 / this session belongs to project ${session.project_id}: continue it there`,
    { session_id: session.id, project_id: session.project_id },
  );
}

function titleFrom(message: string): string {
  const line = message.replace(/\s+/g, ' ').trim();
  return line.length > TITLE_LENGTH ? `${line.slice(0, TITLE_LENGTH)}…` : line || '新会话 / new chat';
}
