import { createHash } from 'node:crypto';
import type { Role } from '../../protocol/index.ts';
import { forbidden, ProblemError, unauthorized } from '../../shared/index.ts';
import { isJwt } from '../oauth/keys.ts';

/** The user a request acts for, as the ERP's `GET /me` names them, with the token that proves it. */
export interface ActingUser {
  /** ERP username: owner of sessions and files. */
  username: string;
  displayName: string;
  role: Role;
  projectId: string;
  token: string;
}

/**
 * How long an answer of the ERP stands for its token. With the ERP's own 5 s cache, a token revoked in the ERP is
 * refused here within 4 + 5 s; at once when this process heard the ERP refuse it.
 */
export const USER_CACHE_MS = 4_000;

/**
 * Resolves bearer tokens to ERP users through the ERP's own `GET /me`, so the API runs as a separate process and
 * the ERP stays the only place that knows tokens. Answers are cached briefly per token and project, and requests
 * arriving together with the same token share one lookup (a burst of new chats asks the ERP once, not per chat).
 * A 401 from the ERP for a token drops it for every project at once. An OAuth access token is first checked by
 * `checkAccessToken` when given (the caller's own audience: the ERP takes a token for any of Procura's parts), and
 * refused without asking the ERP when that fails.
 */
export class ErpUsers {
  /** token hash → project → answer. */
  private readonly cache = new Map<string, Map<string, { user: ActingUser; until: number }>>();
  private readonly asking = new Map<string, Promise<ActingUser>>();

  constructor(
    private readonly erpUrl: string,
    private readonly fetchFn: (request: Request) => Response | Promise<Response> = fetch,
    private readonly checkAccessToken?: (token: string) => Promise<unknown>,
  ) {}

  async resolve(authorization: string | undefined, projectId: string | undefined): Promise<ActingUser> {
    const match = /^Bearer\s+(\S{1,4096})$/i.exec(authorization ?? '');
    if (!match) throw unauthorized();
    const token = match[1];
    const tokenKey = hashOf(token);
    const project = projectId ?? '';
    const cached = this.cache.get(tokenKey)?.get(project);
    if (cached && cached.until > Date.now()) return cached.user;
    const key = `${tokenKey}\n${project}`;
    let asking = this.asking.get(key);
    if (!asking) {
      asking = this.lookUp(token, projectId).finally(() => this.asking.delete(key));
      this.asking.set(key, asking);
    }
    let user: ActingUser;
    try {
      user = await asking;
    } catch (error) {
      if (error instanceof ProblemError && error.status === 401) this.forget(token);
      throw error;
    }
    if (this.cache.size > 10_000) this.cache.clear();
    const byProject = this.cache.get(tokenKey) ?? new Map();
    byProject.set(project, { user, until: Date.now() + USER_CACHE_MS });
    this.cache.set(tokenKey, byProject);
    return user;
  }

  /**
   * Whether `user`'s token still signs them in, asked through the cache: a long-lived stream calls this often and
   * costs the ERP one request per token every {@link USER_CACHE_MS}. Only a refusal counts; an ERP that cannot be
   * reached does not sign anyone out.
   */
  async stillSignedIn(user: ActingUser): Promise<boolean> {
    try {
      await this.resolve(`Bearer ${user.token}`, user.projectId);
      return true;
    } catch (error) {
      return !(error instanceof ProblemError && (error.status === 401 || error.status === 403));
    }
  }

  /** Drops every cached answer for `token` (the ERP refused it): its next request asks the ERP. */
  forget(token: string): void {
    this.cache.delete(hashOf(token));
  }

  private async lookUp(token: string, projectId: string | undefined): Promise<ActingUser> {
    if (this.checkAccessToken && isJwt(token)) await this.checkAccessToken(token);
    let response: Response;
    try {
      response = await this.fetchFn(
        new Request(`${this.erpUrl}/me`, {
          headers: { authorization: `Bearer ${token}`, ...(projectId ? { 'x-project-id': projectId } : {}) },
          signal: AbortSignal.timeout(10_000),
        }),
      );
    } catch (error) {
      throw new ProblemError(
        503,
        'erp_unavailable',
        `无法连接 ERP 验证用户 / cannot reach the ERP to check the token: ${(error as Error).message}`,
      );
    }
    if (response.status === 401) throw unauthorized();
    if (response.status === 403) throw forbidden(`无权访问项目 ${projectId} / no access to project ${projectId}`);
    if (!response.ok)
      throw new ProblemError(503, 'erp_unavailable', `ERP 返回 ${response.status} / ERP answered ${response.status}`);
    const me = (await response.json()) as Omit<ActingUser, 'token'>;
    return { username: me.username, displayName: me.displayName, role: me.role, projectId: me.projectId, token };
  }
}

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');
