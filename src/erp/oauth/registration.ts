import type { Adapter, AdapterFactory, AdapterPayload, default as Provider } from 'oidc-provider';
import { isLoopbackHost } from '../../shared/index.ts';

/** Where clients register (RFC 7591): oidc-provider's default route, named once for the rate limit. */
export const REGISTRATION_PATH = '/reg';

/** What open registration allows a client address, and how long a registered client lives. */
export interface RegistrationRules {
  /** Largest metadata a client may register, in bytes of JSON as stored. */
  maxMetadataBytes: number;
  /** Registrations one client address may make per window. */
  perAddress: number;
  windowMs: number;
  /** Seconds a registered client lives until it is first used (a token issued to it). */
  unusedClientTtlS: number;
  /** Seconds a client lives after the last token issued to it. */
  usedClientTtlS: number;
}

export const DEFAULT_REGISTRATION_RULES: RegistrationRules = {
  maxMetadataBytes: 8 * 1024,
  perAddress: 30,
  windowMs: 10 * 60_000,
  unusedClientTtlS: 24 * 60 * 60,
  usedClientTtlS: 30 * 24 * 60 * 60,
};

type OidcErrors = typeof import('oidc-provider')['errors'];

/**
 * Why a redirect URI may not be registered, or undefined: plain http only to this machine (RFC 8252 §7.3, the MCP
 * authorization spec's "localhost or HTTPS"), https anywhere, and a native app's private-use scheme (RFC 8252 §7.1)
 * only for a client registered as `native` (oidc-provider refuses other schemes of web clients, and
 * `javascript:`, `data:`, `file:` and the like for any).
 */
function redirectRefusal(uri: string): string | undefined {
  const url = URL.parse(uri);
  if (url?.protocol === 'http:' && !isLoopbackHost(url.host))
    return `http 回调地址只允许本机（127.0.0.1、[::1]、localhost），其他地址须用 https / http redirect URIs must be loopback (127.0.0.1, [::1], localhost); use https elsewhere: ${uri.slice(0, 200)}`;
  return undefined;
}

/**
 * The store of registered clients, with the rules of open registration applied where a client is written: its
 * metadata at most `maxMetadataBytes` (400 `invalid_client_metadata`), its redirect URIs by the rule above (400
 * `invalid_redirect_uri`), and an expiry — `unusedClientTtlS` from registration, pushed out by `keepUsedClients`
 * each time a token is issued to it — after which the records' sweep deletes it.
 */
export function registeredClients(
  factory: AdapterFactory,
  rules: RegistrationRules,
  errors: Pick<OidcErrors, 'InvalidClientMetadata' | 'InvalidRedirectUri'>,
): AdapterFactory {
  return (model) => {
    const adapter = factory(model);
    if (model !== 'Client') return adapter;
    const clients: Adapter = Object.create(adapter);
    clients.upsert = async (id: string, payload: AdapterPayload, expiresIn?: number) => {
      const bytes = Buffer.byteLength(JSON.stringify(payload));
      if (bytes > rules.maxMetadataBytes)
        throw new errors.InvalidClientMetadata(
          `客户端元数据过大（${bytes} 字节，上限 ${rules.maxMetadataBytes}）/ client metadata too large (${bytes} bytes, at most ${rules.maxMetadataBytes})`,
        );
      for (const uri of [...(payload.redirect_uris ?? []), ...(payload.post_logout_redirect_uris ?? [])]) {
        const refusal = redirectRefusal(uri);
        // The error's own description only says "did not match"; this one says why.
        if (refusal) throw Object.assign(new errors.InvalidRedirectUri(), { error_description: refusal });
      }
      await adapter.upsert(id, payload, expiresIn ?? rules.unusedClientTtlS);
    };
    return clients;
  };
}

/** A client issued a token lives `usedClientTtlS` from then: only clients nobody uses run out. */
export function keepUsedClients(
  provider: Provider,
  clients: Adapter,
  rules: RegistrationRules,
  onError: (error: unknown) => void,
) {
  provider.on('grant.success', (ctx) => {
    const client = ctx.oidc.client;
    if (!client) return;
    clients.upsert(client.clientId, client.metadata(), rules.usedClientTtlS).catch(onError);
  });
}

/**
 * Open registration's rate limit per client address: at most `perAddress` registrations a window; past it, 429
 * with `Retry-After` and an OAuth error body. Addresses are forgotten once their window has passed.
 */
export class RegistrationLimiter {
  private readonly recent = new Map<string, number[]>();

  constructor(private readonly rules: RegistrationRules) {}

  /** Counts a registration from `address`; the seconds to wait when it is one too many. */
  admit(address: string, now = Date.now()): number | undefined {
    const since = now - this.rules.windowMs;
    if (this.recent.size > 10_000)
      for (const [key, times] of this.recent) if (times[times.length - 1] <= since) this.recent.delete(key);
    const times = (this.recent.get(address) ?? []).filter((t) => t > since);
    if (times.length >= this.rules.perAddress) {
      this.recent.set(address, times);
      return Math.max(1, Math.ceil((times[0] + this.rules.windowMs - now) / 1000));
    }
    times.push(now);
    this.recent.set(address, times);
    return undefined;
  }

  /** The Koa middleware for the authorization server (`provider.use`). */
  middleware(): Parameters<Provider['use']>[0] {
    return async (ctx, next) => {
      if (ctx.method === 'POST' && ctx.path === REGISTRATION_PATH) {
        const wait = this.admit(ctx.ip);
        if (wait !== undefined) {
          ctx.status = 429;
          ctx.set('retry-after', String(wait));
          ctx.set('cache-control', 'no-store');
          ctx.body = {
            error: 'rate_limited',
            error_description: `注册过于频繁，请 ${wait} 秒后重试 / too many registrations from this address: retry in ${wait} s`,
          };
          return;
        }
      }
      await next();
    };
  }
}
