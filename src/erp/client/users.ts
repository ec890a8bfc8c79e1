import { createHash } from 'node:crypto';
import type { Role } from '../../protocol/index.ts';
import { forbidden, ProblemError, unauthorized } from '../../shared/index.ts';

/** The user a request acts for, as the ERP's `GET /me` names them, with the token that proves it. */
export interface ActingUser {
  /** ERP username: owner of sessions and files. */
  username: string;
  displayName: string;
  role: Role;
  projectId: string;
  token: string;
}

const CACHE_MS = 10_000;

/**
 * Resolves bearer tokens to ERP users through the ERP's own `GET /me`, so the API runs as a separate process and
 * the ERP stays the only place that knows tokens. Answers are cached briefly per token and project, and requests
 * arriving together with the same token share one lookup (a burst of new chats asks the ERP once, not per chat).
 */
export class ErpUsers {
  private readonly cache = new Map<string, { user: ActingUser; until: number }>();
  private readonly asking = new Map<string, Promise<ActingUser>>();

  constructor(
    private readonly erpUrl: string,
    private readonly fetchFn: (request: Request) => Response | Promise<Response> = fetch,
  ) {}

  async resolve(authorization: string | undefined, projectId: string | undefined): Promise<ActingUser> {
    const match = /^Bearer\s+(\S{1,512})$/i.exec(authorization ?? '');
    if (!match) throw unauthorized();
    const token = match[1];
    const key = createHash('sha256')
      .update(`${token}\n${projectId ?? ''}`)
      .digest('hex');
    const cached = this.cache.get(key);
    if (cached && cached.until > Date.now()) return cached.user;
    let asking = this.asking.get(key);
    if (!asking) {
      asking = this.lookUp(token, projectId).finally(() => this.asking.delete(key));
      this.asking.set(key, asking);
    }
    const user = await asking;
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(key, { user, until: Date.now() + CACHE_MS });
    return user;
  }

  private async lookUp(token: string, projectId: string | undefined): Promise<ActingUser> {
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
