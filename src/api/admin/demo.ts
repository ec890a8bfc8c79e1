import { createHash, randomBytes } from 'node:crypto';
import type { Context } from 'hono';
import { forbidden, isLocalClient, isLoopbackHost, notFound, unauthorized } from '../../shared/index.ts';

/** A seeded demo user; the ERP token stays on the server and is never sent to a browser. */
export interface DemoUser {
  username: string;
  displayName: string;
  role: string;
  token: string;
}

/**
 * Who may use the one-click demo sign-in: nobody, browsers on this machine, or anyone who can reach the API.
 * `network` exists for a deliberate shared demo; it is never a default.
 */
export type DemoSignInMode = 'off' | 'loopback' | 'network';

export const DEMO_SIGNIN_ENV = 'PROCURA_DEMO_SIGNIN';
export const DEMO_SESSION_PREFIX = 'pds_';
export const DEMO_SESSION_TTL_MS = 8 * 60 * 60_000;
const MAX_SESSIONS = 10_000;

/**
 * The demo sign-in mode for a listening host: `PROCURA_DEMO_SIGNIN` when set, otherwise `loopback` on a loopback
 * host and `off` on any other. Returns the start-up line that says which, in Chinese and English.
 */
export function demoSignInMode(
  host: string,
  env: NodeJS.ProcessEnv = process.env,
): { mode: DemoSignInMode; notice: string } {
  const asked = env[DEMO_SIGNIN_ENV]?.trim().toLowerCase();
  if (asked && asked !== 'off' && asked !== 'loopback' && asked !== 'network')
    throw new Error(`${DEMO_SIGNIN_ENV} 只能是 off、loopback 或 network / must be off, loopback or network: ${asked}`);
  const mode: DemoSignInMode = (asked as DemoSignInMode | undefined) ?? (isLoopbackHost(host) ? 'loopback' : 'off');
  const notice = {
    off: asked
      ? `演示登录已关闭（${DEMO_SIGNIN_ENV}=off）/ demo sign-in is off`
      : `演示登录已关闭：监听的 ${host} 不是本机回环地址；设置 ${DEMO_SIGNIN_ENV}=loopback 或 network 可开启 / demo sign-in is off because Procura listens on ${host}, not loopback; set ${DEMO_SIGNIN_ENV}=loopback or network to enable it`,
    loopback: '演示登录：仅限本机浏览器，非管理员用户 / demo sign-in: browsers on this machine only, non-admin users',
    network: `演示登录对所有能访问本服务的人开放（${DEMO_SIGNIN_ENV}=network），非管理员用户 / demo sign-in is open to anyone who can reach this server (non-admin users)`,
  }[mode];
  return { mode, notice };
}

/**
 * One-click sign-in for the embedded demo: lists the non-admin demo users (names and roles, never tokens) and
 * issues a short-lived API session for one of them. The session token maps to the user's ERP token inside this
 * process only. Offered to loopback clients only — a request that came through a proxy (`Forwarded`,
 * `X-Forwarded-For`) or names a non-loopback Host (DNS rebinding) is not loopback — unless the mode is `network`.
 */
export class DemoSignIn {
  private readonly users: DemoUser[];
  private readonly sessions = new Map<string, { token: string; expiresAt: number }>();

  constructor(
    users: readonly DemoUser[],
    private readonly mode: DemoSignInMode,
    private readonly ttlMs = DEMO_SESSION_TTL_MS,
    private readonly now: () => number = Date.now,
  ) {
    this.users = users.filter((u) => u.role !== 'admin');
  }

  /** The demo users this client may sign in as (empty when demo sign-in is not offered to it). */
  list(c: Context): Array<Omit<DemoUser, 'token'>> {
    if (!this.offeredTo(c)) return [];
    return this.users.map(({ username, displayName, role }) => ({ username, displayName, role }));
  }

  /** A new session for `username`; 403 when demo sign-in is not offered to this client, 404 for others. */
  signIn(c: Context, username: string): { token: string; token_type: 'Bearer'; username: string; expires_at: string } {
    if (!this.offeredTo(c))
      throw forbidden('演示登录只对本机浏览器开放 / demo sign-in is only offered to browsers on this machine');
    const user = this.users.find((u) => u.username === username);
    if (!user) throw notFound(`没有演示用户 ${username} / no demo user ${username}`);
    const expiresAt = this.now() + this.ttlMs;
    const token = `${DEMO_SESSION_PREFIX}${randomBytes(32).toString('base64url')}`;
    this.prune();
    this.sessions.set(hash(token), { token: user.token, expiresAt });
    return { token, token_type: 'Bearer', username, expires_at: new Date(expiresAt).toISOString() };
  }

  /**
   * The `Authorization` header to resolve: a demo session becomes its user's own bearer token; an expired or
   * unknown demo session is 401; any other header passes unchanged.
   */
  authorization(header: string | undefined): string | undefined {
    const match = /^Bearer\s+(\S+)$/i.exec(header ?? '');
    if (!match?.[1].startsWith(DEMO_SESSION_PREFIX)) return header;
    const session = this.sessions.get(hash(match[1]));
    if (!session || session.expiresAt <= this.now()) throw unauthorized();
    return `Bearer ${session.token}`;
  }

  private offeredTo(c: Context): boolean {
    if (this.mode === 'off' || this.users.length === 0) return false;
    if (this.mode === 'network') return true;
    return isLocalClient(c);
  }

  private prune(): void {
    const now = this.now();
    for (const [key, session] of this.sessions) if (session.expiresAt <= now) this.sessions.delete(key);
    while (this.sessions.size >= MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value as string);
  }
}

const hash = (token: string) => createHash('sha256').update(token).digest('hex');
