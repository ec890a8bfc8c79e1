import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { forbidden, notFound, unauthorized, unprocessable } from '../../shared/index.ts';
import type { ErpTables, Role } from '../db/schema.ts';
import { type AccessTokenSubject, isJwt } from '../oauth/keys.ts';
import { OAuthRecords } from '../oauth/records.ts';
import { nowIso } from './context.ts';

export interface ErpUser {
  id: number;
  username: string;
  displayName: string;
  role: Role;
  projectIds: string[];
}

const TOKEN_CACHE_MS = 5_000;

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** Users and their API tokens. Tokens are random 256-bit secrets, stored only as SHA-256 hashes. */
export class UserDirectory {
  /** Short-lived cache of token → user, so a busy client is not one extra query per request. */
  private readonly cache = new Map<string, { user: ErpUser; until: number }>();

  /** Verifies OAuth access tokens of the ERP's authorization server, when it has one. */
  private accessTokens?: { verify(token: string): Promise<AccessTokenSubject> };

  constructor(private readonly db: Kysely<ErpTables>) {}

  /** Takes OAuth access tokens of the ERP's own authorization server besides API tokens (see `src/erp/oauth`). */
  acceptAccessTokens(verifier: { verify(token: string): Promise<AccessTokenSubject> }): void {
    this.accessTokens = verifier;
  }

  /**
   * The user a bearer token belongs to: an API token, or an OAuth access token of the ERP's authorization server
   * (its user as the ERP knows them now, whatever role the token was issued with); 401 for an unknown, revoked or
   * expired token. An access token signed in or before the second its user's tokens were revoked is refused: it
   * cannot be taken back, but it is no longer taken. Asked of the database on every request, so in every ERP process
   * at once.
   */
  async authenticate(token: string): Promise<ErpUser> {
    if (this.accessTokens && isJwt(token)) {
      const { username, issuedAt } = await this.accessTokens.verify(token);
      const row = await this.userRows().select('tokens_revoked_at').where('username', '=', username).executeTakeFirst();
      if (!row) throw unauthorized();
      if (row.tokens_revoked_at && issuedAt <= Math.floor(Date.parse(row.tokens_revoked_at) / 1000))
        throw unauthorized('访问令牌已吊销 / the access token was revoked');
      return toUser(row);
    }
    return this.apiTokenUser(token);
  }

  /** The user an API token (`pk_…`) belongs to; 401 for an unknown or revoked token. */
  async apiTokenUser(token: string): Promise<ErpUser> {
    const hash = hashToken(token);
    const cached = this.cache.get(hash);
    if (cached && cached.until > Date.now()) return cached.user;
    const row = await this.db
      .selectFrom('api_tokens')
      .innerJoin('users', 'users.id', 'api_tokens.user_id')
      .select(['users.id', 'users.username', 'users.display_name', 'users.role', 'users.project_ids'])
      .where('api_tokens.token_hash', '=', hash)
      .where('api_tokens.revoked_at', 'is', null)
      .executeTakeFirst();
    if (!row) throw unauthorized();
    const user = toUser(row);
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(hash, { user, until: Date.now() + TOKEN_CACHE_MS });
    return user;
  }

  /** The project a request works in: the `x-project-id` asked for, which the user must belong to, or their first. */
  resolveProject(user: ErpUser, requested: string | undefined): string {
    if (!requested) return user.projectIds[0];
    if (!user.projectIds.includes(requested)) {
      throw forbidden(`无权访问项目 ${requested} / no access to project ${requested}`);
    }
    return requested;
  }

  async create(input: { username: string; displayName?: string; role: Role; projectIds: string[] }): Promise<ErpUser> {
    if (!/^[a-z0-9_.-]{2,32}$/.test(input.username)) {
      throw unprocessable('用户名无效 / invalid username', [
        { field: 'username', message: '2–32 characters: a-z 0-9 _ . -' },
      ]);
    }
    if (input.projectIds.length === 0) {
      throw unprocessable('至少需要一个项目 / at least one project', [{ field: 'projectIds', message: 'empty' }]);
    }
    const known = await this.db.selectFrom('projects').select('id').where('id', 'in', input.projectIds).execute();
    const unknown = input.projectIds.filter((id) => !known.some((k) => k.id === id));
    if (unknown.length) {
      throw unprocessable('项目不存在 / unknown project', [{ field: 'projectIds', message: unknown.join(', ') }]);
    }
    const existing = await this.db
      .selectFrom('users')
      .select('id')
      .where('username', '=', input.username)
      .executeTakeFirst();
    if (existing) throw unprocessable('用户已存在 / user exists', [{ field: 'username', message: 'already taken' }]);
    const row = await this.db
      .insertInto('users')
      .values({
        username: input.username,
        display_name: input.displayName ?? input.username,
        role: input.role,
        project_ids: input.projectIds.join(','),
        created_at: nowIso(),
      })
      .returning(['id', 'username', 'display_name', 'role', 'project_ids'])
      .executeTakeFirstOrThrow();
    return toUser(row);
  }

  async list(): Promise<ErpUser[]> {
    const rows = await this.userRows().orderBy('id').execute();
    return rows.map(toUser);
  }

  async byUsername(username: string): Promise<ErpUser> {
    const row = await this.userRows().where('username', '=', username).executeTakeFirst();
    if (!row) throw notFound(`用户不存在 / no user ${username}`);
    return toUser(row);
  }

  /** The columns of a user that make an {@link ErpUser}. */
  private userRows() {
    return this.db.selectFrom('users').select(['id', 'username', 'display_name', 'role', 'project_ids']);
  }

  /** Issues a new token for a user; the plain token is returned once and never stored. */
  async issueToken(username: string, label = 'cli'): Promise<string> {
    const user = await this.byUsername(username);
    const token = `pk_${randomBytes(32).toString('base64url')}`;
    await this.db
      .insertInto('api_tokens')
      .values({ user_id: user.id, token_hash: hashToken(token), label, created_at: nowIso(), revoked_at: null })
      .execute();
    return token;
  }

  /**
   * Revokes everything a user signed in with (a person leaving, a leaked token): their live API tokens; their OAuth
   * grants, sessions, authorization codes and refresh tokens, so no access token is issued to them again from those;
   * and every access token already issued to them, which the ERP refuses from now on (see {@link authenticate}).
   * This process forgets the API tokens at once; another ERP process holding one in its cache refuses it within
   * {@link TOKEN_CACHE_MS}. Returns how many API tokens and OAuth records were ended.
   */
  async revokeTokens(username: string): Promise<{ apiTokens: number; oauthRecords: number }> {
    const user = await this.byUsername(username);
    const now = nowIso();
    const { revoked, oauthRecords } = await this.db.transaction().execute(async (trx) => {
      await trx.updateTable('users').set({ tokens_revoked_at: now }).where('id', '=', user.id).execute();
      const revoked = await trx
        .updateTable('api_tokens')
        .set({ revoked_at: now })
        .where('user_id', '=', user.id)
        .where('revoked_at', 'is', null)
        .returning('token_hash')
        .execute();
      // Without its grant, no code or refresh token of it is redeemed, even one a request under way saves later.
      return { revoked, oauthRecords: await OAuthRecords.revokeAccount(trx, user.username) };
    });
    for (const { token_hash } of revoked) this.cache.delete(token_hash);
    return { apiTokens: revoked.length, oauthRecords };
  }
}

function toUser(row: { id: number; username: string; display_name: string; role: Role; project_ids: string }): ErpUser {
  return {
    id: Number(row.id),
    username: row.username,
    displayName: row.display_name,
    role: row.role,
    projectIds: row.project_ids.split(',').filter(Boolean),
  };
}
