import type { Kysely } from 'kysely';
import type { Adapter, AdapterFactory, AdapterPayload } from 'oidc-provider';
import type { ErpTables } from '../db/schema.ts';

/** How often at most expired records are deleted (they are treated as absent from the moment they expire). */
const SWEEP_EVERY_MS = 10 * 60 * 1000;

/**
 * The account a record belongs to: a grant's, session's, code's or token's own; for a sign-in under way, the user
 * it was finished for or the signed-in user it asks to consent (it would otherwise end in a grant for them).
 */
const accountOf = (payload: AdapterPayload): string | null =>
  payload.accountId ?? payload.result?.login?.accountId ?? payload.session?.accountId ?? null;

/**
 * oidc-provider's storage in the ERP database (`oauth_records`): one instance per model (Client, Grant, Session,
 * AuthorizationCode, RefreshToken, …), each record keyed by model and id, with the fields the provider looks
 * records up by (grant, user code, session uid), and the account revoking a user deletes by, in columns of their own. Every write is one statement, so two
 * processes on one database see each other's records.
 */
export class OAuthRecords implements Adapter {
  /** The `adapter` of an oidc-provider configuration: all models on one database, sweeping expired rows together. */
  static adapter(db: Kysely<ErpTables>): AdapterFactory {
    const sweeper = { last: 0 };
    return (model) => new OAuthRecords(db, model, sweeper);
  }

  /**
   * Ends every sign-in of an account (its user revoked): deletes its grants, sessions, authorization codes, refresh
   * tokens and finished sign-ins, so nothing of it is found again and no token is issued from it; returns how many.
   */
  static async revokeAccount(db: Kysely<ErpTables>, accountId: string): Promise<number> {
    const deleted = await db.deleteFrom('oauth_records').where('account_id', '=', accountId).executeTakeFirst();
    return Number(deleted.numDeletedRows);
  }

  private constructor(
    private readonly db: Kysely<ErpTables>,
    private readonly model: string,
    private readonly sweeper: { last: number },
  ) {}

  async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    await this.sweep();
    const row = {
      payload: JSON.stringify(payload),
      grant_id: payload.grantId ?? null,
      user_code: payload.userCode ?? null,
      uid: payload.uid ?? null,
      account_id: accountOf(payload),
      expires_at: expiresIn === undefined ? null : new Date(Date.now() + expiresIn * 1000).toISOString(),
    };
    await this.db
      .insertInto('oauth_records')
      .values({ model: this.model, id, ...row, consumed: null })
      // A record saved again stays consumed: a used code or refresh token must not come back to life.
      .onConflict((conflict) => conflict.columns(['model', 'id']).doUpdateSet(row))
      .execute();
  }

  find(id: string) {
    return this.findBy('id', id);
  }

  findByUserCode(userCode: string) {
    return this.findBy('user_code', userCode);
  }

  findByUid(uid: string) {
    return this.findBy('uid', uid);
  }

  async consume(id: string): Promise<void> {
    await this.db
      .updateTable('oauth_records')
      .set({ consumed: Math.floor(Date.now() / 1000) })
      .where('model', '=', this.model)
      .where('id', '=', id)
      .execute();
  }

  async destroy(id: string): Promise<void> {
    await this.db.deleteFrom('oauth_records').where('model', '=', this.model).where('id', '=', id).execute();
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await this.db.deleteFrom('oauth_records').where('model', '=', this.model).where('grant_id', '=', grantId).execute();
  }

  private async findBy(column: 'id' | 'user_code' | 'uid', value: string): Promise<AdapterPayload | undefined> {
    const row = await this.db
      .selectFrom('oauth_records')
      .select(['payload', 'consumed'])
      .where('model', '=', this.model)
      .where(column, '=', value)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', new Date().toISOString())]))
      .executeTakeFirst();
    if (!row) return undefined;
    const payload = JSON.parse(row.payload) as AdapterPayload;
    return row.consumed === null ? payload : { ...payload, consumed: Number(row.consumed) };
  }

  /** Deletes what has expired: on the first write, then at most once per interval over all models. */
  private async sweep() {
    const now = Date.now();
    if (now - this.sweeper.last < SWEEP_EVERY_MS) return;
    this.sweeper.last = now;
    await this.db.deleteFrom('oauth_records').where('expires_at', '<=', new Date(now).toISOString()).execute();
  }
}
