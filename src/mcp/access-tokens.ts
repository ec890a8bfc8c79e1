import { createRemoteJWKSet, decodeJwt, type JWTPayload, jwtVerify } from 'jose';
import { ProblemError, unauthorized } from '../shared/index.ts';

/** How long a failed discovery of an issuer's keys is remembered before it is tried again. */
const RETRY_DISCOVERY_MS = 5_000;

/**
 * Verifies OAuth access tokens (JWTs) for one resource server (an MCP endpoint, the chat API): signed by a key of one
 * of the named authorization servers (their JWKS found through their metadata, RFC 8414 / OpenID discovery), issued
 * by it, not expired, typed `at+jwt`, and with an audience the server takes (RFC 8707: its own resource, or that of
 * a part of Procura that acts as its user through it), so a token obtained for another resource is refused.
 */
export class AccessTokenCheck {
  private readonly keys = new Map<string, { at: number; keys: Promise<ReturnType<typeof createRemoteJWKSet>> }>();

  constructor(
    private readonly issuers: readonly string[],
    private readonly fetchFn: typeof fetch = fetch,
  ) {}

  /** The token's claims; 401 for a token not valid for one of `audiences`, 503 when its issuer cannot be asked. */
  async verify(token: string, audiences: string | readonly string[]): Promise<JWTPayload> {
    let issuer: unknown;
    try {
      issuer = decodeJwt(token).iss;
    } catch {
      throw unauthorized('访问令牌无法解析 / the access token cannot be read');
    }
    if (typeof issuer !== 'string' || !this.issuers.includes(issuer))
      throw unauthorized(
        '访问令牌不是受信任的授权服务器签发的 / the access token is from an issuer this server does not trust',
      );
    const keys = await this.keysOf(issuer);
    try {
      const { payload } = await jwtVerify(token, keys, {
        issuer,
        audience: typeof audiences === 'string' ? audiences : [...audiences],
        typ: 'at+jwt',
      });
      return payload;
    } catch {
      throw unauthorized(
        '访问令牌无效、已过期或不是为此资源签发 / invalid or expired access token, or issued for another resource',
      );
    }
  }

  private keysOf(issuer: string): Promise<ReturnType<typeof createRemoteJWKSet>> {
    const known = this.keys.get(issuer);
    if (known) return known.keys;
    const keys = this.discover(issuer);
    this.keys.set(issuer, { at: Date.now(), keys });
    keys.catch(() => setTimeout(() => this.keys.delete(issuer), RETRY_DISCOVERY_MS).unref());
    return keys;
  }

  private async discover(issuer: string): Promise<ReturnType<typeof createRemoteJWKSet>> {
    const base = issuer.replace(/\/$/, '');
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      try {
        const response = await this.fetchFn(`${base}${path}`, { signal: AbortSignal.timeout(10_000) });
        if (!response.ok) continue;
        const metadata = (await response.json()) as { issuer?: string; jwks_uri?: string };
        if (metadata.issuer === issuer && metadata.jwks_uri) return createRemoteJWKSet(new URL(metadata.jwks_uri));
      } catch {
        // the next well-known address, then the error below
      }
    }
    throw new ProblemError(
      503,
      'authorization_server_unavailable',
      `无法读取授权服务器 ${issuer} 的密钥 / cannot read the keys of the authorization server ${issuer}`,
    );
  }
}
