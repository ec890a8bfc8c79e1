import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createLocalJWKSet, exportJWK, generateKeyPair, type JWK, jwtVerify } from 'jose';
import { unauthorized } from '../../shared/index.ts';

/** The scope of a token for Procura's MCP resources (RFC 8707 audience is what limits where it is taken). */
export const MCP_SCOPE = 'mcp';

/** The authorization server's secrets: its token-signing key and the keys of its cookies. */
export interface OAuthKeys {
  /** Private JWKS (RS256) the authorization server signs with. */
  jwks: { keys: JWK[] };
  cookieKeys: string[];
}

const KEYS_FILE = 'oauth-keys.json';

/**
 * The authorization server's keys, kept in `<dataDir>/oauth-keys.json` (readable by its owner only) and made on
 * first start, so tokens stay valid across restarts and the ERP verifies what its authorization server signed.
 */
export async function loadOAuthKeys(dataDir: string): Promise<OAuthKeys> {
  const file = path.join(dataDir, KEYS_FILE);
  if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8')) as OAuthKeys;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), alg: 'RS256', use: 'sig', kid: randomBytes(8).toString('hex') };
  const keys: OAuthKeys = { jwks: { keys: [jwk] }, cookieKeys: [randomBytes(32).toString('base64url')] };
  fs.mkdirSync(dataDir, { recursive: true });
  try {
    // `wx`: of two processes sharing the data folder, one writes the keys and both read them.
    fs.writeFileSync(file, JSON.stringify(keys), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return JSON.parse(fs.readFileSync(file, 'utf8')) as OAuthKeys;
}

/** The public half of a JWKS. */
export const publicJwks = (jwks: OAuthKeys['jwks']) => ({
  keys: jwks.keys.map(({ kty, n, e, crv, x, y, alg, use, kid }) => ({ kty, n, e, crv, x, y, alg, use, kid })),
});

/** A compact JWS: what an OAuth access token of Procura's authorization server looks like (API tokens are `pk_…`). */
export const isJwt = (token: string) => /^[\w-]+\.[\w-]+\.[\w-]+$/.test(token);

/** Where an OAuth access token is taken: the authorization server that signs them and the resources they may name. */
export interface OAuthSettings {
  /** The authorization server's issuer URL. */
  issuer: string;
  /**
   * The protected resources tokens are issued for: Procura's parts that take them (the ERP MCP server's `/mcp` URL
   * first, the default resource; the chat API's and the agent MCP server's), all of which the ERP stands behind.
   */
  resources: string[];
}

/** Who an access token was issued to, and when (epoch seconds, its `iat`). */
export interface AccessTokenSubject {
  username: string;
  issuedAt: number;
}

/**
 * Verifies access tokens of the ERP's own authorization server: its signature, issuer, expiry, type (`at+jwt`) and an
 * audience among the configured resources. Every one of them is a part of Procura in front of the ERP, acting as
 * the user at the ERP, so a token for any of them is the user's credential here (each of those parts checks the
 * audience it takes itself); a token for any other audience is refused.
 */
export class AccessTokenVerifier {
  private readonly keys: ReturnType<typeof createLocalJWKSet>;

  constructor(
    jwks: OAuthKeys['jwks'],
    private readonly settings: OAuthSettings,
  ) {
    this.keys = createLocalJWKSet(publicJwks(jwks) as { keys: JWK[] });
  }

  /** The user the token was issued to and when; 401 for a token that is not a valid one of ours. */
  async verify(token: string): Promise<AccessTokenSubject> {
    try {
      const { payload } = await jwtVerify(token, this.keys, {
        issuer: this.settings.issuer,
        audience: this.settings.resources,
        typ: 'at+jwt',
      });
      if (typeof payload.sub !== 'string' || typeof payload.iat !== 'number') throw new Error('no subject or iat');
      return { username: payload.sub, issuedAt: payload.iat };
    } catch {
      throw unauthorized(
        '访问令牌无效、已过期或不是为此资源签发 / invalid or expired access token, or issued for another resource',
      );
    }
  }
}
