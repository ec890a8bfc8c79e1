import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener, type HttpBindings } from '@hono/node-server';
import { type Context, Hono } from 'hono';
import type { Kysely } from 'kysely';
import type { Configuration, KoaContextWithOIDC, default as Provider } from 'oidc-provider';
import { isLocalClient, logger, type RunningServer } from '../../shared/index.ts';
import type { ErpTables } from '../db/schema.ts';
import type { UserDirectory } from '../services/users.ts';
import { MCP_SCOPE, type OAuthKeys, type OAuthSettings } from './keys.ts';
import { errorPage, signInPage } from './pages.ts';
import { OAuthRecords } from './records.ts';
import {
  DEFAULT_REGISTRATION_RULES,
  keepUsedClients,
  REGISTRATION_PATH,
  RegistrationLimiter,
  type RegistrationRules,
  registeredClients,
} from './registration.ts';

/** Seconds an access token lives: short, since a JWT is taken until it expires (revoking API tokens does not reach it). */
export const ACCESS_TOKEN_TTL_S = 10 * 60;

export interface AuthorizationServerOptions extends OAuthSettings {
  users: UserDirectory;
  keys: OAuthKeys;
  /** The ERP database, where registered clients, grants, sessions and tokens are kept. */
  db: Kysely<ErpTables>;
  /**
   * Demo users offered for one-click sign-in, with who may use it: browsers on this machine (`loopback`) or anyone
   * (`network`); none by default. Admins are never offered.
   */
  demo?: { users: Array<{ username: string; displayName: string; role: string }>; mode: 'loopback' | 'network' };
  /** Open registration's limits, where they differ from the defaults. */
  registration?: Partial<RegistrationRules>;
}

type Bindings = { Bindings: HttpBindings };

const UID = /^[\w-]{1,64}$/;

/** Sent with every answer of the authorization server: no page of it (sign-in, consent, errors) is ever framed. */
const NO_FRAMING = { 'content-security-policy': "frame-ancestors 'none'", 'x-frame-options': 'DENY' };

/**
 * The authorization server MCP clients sign in at, built on `oidc-provider` (an OpenID Certified implementation):
 * the authorization code flow alone, with PKCE (S256, required), and the authorization code and refresh token grants
 * alone; dynamic client registration (RFC 7591) bounded by `registration.ts`; resource indicators
 * (RFC 8707) whose access tokens are JWTs for exactly one of the configured resources, carrying the user's role and
 * projects, and refresh tokens for clients that register for them. Users are the ERP's: they sign in with an ERP
 * API token (or a demo user's button) and consent on one form. Clients, grants, sessions and tokens live in the ERP
 * database, so a restart signs no one out and processes sharing the database share them.
 */
export async function createAuthorizationServer(options: AuthorizationServerOptions): Promise<{
  provider: Provider;
  listener: http.RequestListener;
}> {
  // Loaded when a server starts, not by every importer of the ERP.
  const { default: OidcProvider, errors } = await import('oidc-provider');
  const { users } = options;
  const rules = { ...DEFAULT_REGISTRATION_RULES, ...options.registration };
  const adapter = registeredClients(OAuthRecords.adapter(options.db), rules, errors);
  const resourceServer = (indicator: string) => {
    if (!options.resources.includes(indicator))
      throw new errors.InvalidTarget(`未知资源 / unknown resource: ${indicator.slice(0, 200)}`);
    return {
      scope: MCP_SCOPE,
      audience: indicator,
      accessTokenTTL: ACCESS_TOKEN_TTL_S,
      accessTokenFormat: 'jwt' as const,
      jwt: { sign: { alg: 'RS256' as const } },
    };
  };
  const configuration: Configuration = {
    adapter,
    jwks: options.keys.jwks as Configuration['jwks'],
    cookies: { keys: options.keys.cookieKeys },
    // `mcp` is the resource server's scope (below); listed here too, since clients register with the scopes they
    // will ask for (RFC 7591 `scope`) and the server takes only those it lists.
    scopes: ['openid', 'offline_access', MCP_SCOPE],
    claims: { openid: ['sub'], profile: ['name'] },
    pkce: { required: () => true },
    // No implicit or hybrid flow (OAuth 2.1): tokens only from the token endpoint, for a code and its PKCE verifier.
    responseTypes: ['code'],
    routes: { registration: REGISTRATION_PATH },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true, initialAccessToken: false },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        // Without a `resource` parameter a token is for the first resource (the ERP MCP server).
        defaultResource: () => options.resources[0],
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => resourceServer(indicator),
      },
    },
    // The user of every token is looked up in the ERP's own user store; a deleted user signs nothing in.
    findAccount: async (_ctx, sub) => {
      const user = await users.byUsername(sub).catch(() => undefined);
      if (!user) return undefined;
      return { accountId: user.username, claims: async () => ({ sub: user.username, name: user.displayName }) };
    },
    extraTokenClaims: async (_ctx, token) => {
      if (token.kind !== 'AccessToken' || !token.accountId) return undefined;
      const user = await users.byUsername(token.accountId);
      return { role: user.role, projects: user.projectIds, name: user.displayName };
    },
    // A client registered for refresh tokens gets one, so a desktop client stays signed in past the access token.
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    ttl: {
      AccessToken: ACCESS_TOKEN_TTL_S,
      AuthorizationCode: 60,
      Interaction: 10 * 60,
      Session: 8 * 60 * 60,
      Grant: 14 * 24 * 60 * 60,
      RefreshToken: 14 * 24 * 60 * 60,
      IdToken: ACCESS_TOKEN_TTL_S,
    },
    // Browser-based clients (the MCP Inspector's web UI) call the token and registration endpoints from their page.
    clientBasedCORS: () => true,
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    renderError: async (ctx: KoaContextWithOIDC, out) => {
      ctx.type = 'html';
      ctx.body = errorPage(out.error, out.error_description);
    },
  };
  const provider = new OidcProvider(options.issuer, configuration);
  const log = logger.child({ part: 'oauth' });
  provider.on('server_error', (_ctx, error) => log.error({ err: error }, 'authorization server error'));
  provider.use(new RegistrationLimiter(rules).middleware());
  keepUsedClients(provider, adapter('Client'), rules, (error) =>
    log.warn({ err: error }, 'client expiry not extended'),
  );

  const pages = new Hono<Bindings>();
  const demoUsersFor = (c: Context<Bindings>) =>
    options.demo && (options.demo.mode === 'network' || isLocalClient(c))
      ? options.demo.users.filter((u) => u.role !== 'admin')
      : [];
  /** The interaction of this browser (its cookie must match the path: another site cannot post for it). */
  const interactionOf = async (c: Context<Bindings>) => {
    if (!UID.test(c.req.param('uid') ?? '')) return undefined;
    try {
      const details = await provider.interactionDetails(c.env.incoming, c.env.outgoing);
      return details.uid === c.req.param('uid') ? details : undefined;
    } catch {
      return undefined;
    }
  };
  const expired = (c: Context) =>
    c.html(
      errorPage(
        '登录请求不存在或已过期 / this sign-in request is unknown or has expired',
        '请回到应用重新登录 / go back to the application and sign in again',
      ),
      400,
    );
  const viewOf = async (c: Context<Bindings>, details: Awaited<ReturnType<typeof provider.interactionDetails>>) => {
    const client = await provider.Client.find(String(details.params.client_id));
    const requested = details.params.resource as string | string[] | undefined;
    return {
      uid: details.uid,
      clientName: client?.clientName ?? String(details.params.client_id),
      resource: (Array.isArray(requested) ? requested.join(', ') : requested) ?? options.resources[0],
      scopes: String(details.params.scope ?? '')
        .split(' ')
        .filter(Boolean),
      signedInAs: details.prompt.name === 'consent' ? details.session?.accountId : undefined,
      demoUsers: demoUsersFor(c).map(({ username, displayName, role }) => ({ username, displayName, role })),
    };
  };

  pages.get('/interaction/:uid', async (c) => {
    const details = await interactionOf(c);
    if (!details) return expired(c);
    c.header('cache-control', 'no-store');
    return c.html(signInPage(await viewOf(c, details)));
  });

  pages.post('/interaction/:uid', async (c) => {
    const details = await interactionOf(c);
    if (!details) return expired(c);
    const type = c.req.header('content-type') ?? '';
    if (!type.startsWith('application/x-www-form-urlencoded'))
      return c.html(errorPage('请用登录页面提交 / submit the sign-in form'), 415);
    const form = new URLSearchParams(await c.req.text());
    const decision = form.get('decision') ?? (form.has('demo') ? 'allow' : '');
    const again = async (error: string, status: 400 | 401) =>
      c.html(signInPage({ ...(await viewOf(c, details)), error }), status);
    if (decision === 'deny') {
      const to = await provider.interactionResult(
        c.env.incoming,
        c.env.outgoing,
        { error: 'access_denied', error_description: 'the user denied the request' },
        { mergeWithLastSubmission: false },
      );
      return c.redirect(to, 303);
    }
    if (decision !== 'allow') return again('请选择同意或拒绝 / choose allow or deny', 400);
    // Who signs in: the browser's session at this server (consent only), a demo user, or the ERP API token given.
    let username = details.prompt.name === 'consent' ? details.session?.accountId : undefined;
    if (!username) {
      const demo = form.get('demo');
      const token = form.get('token')?.trim() ?? '';
      if (demo) {
        if (!demoUsersFor(c).some((u) => u.username === demo))
          return again(`没有演示用户 ${demo} / no demo user ${demo} offered here`, 400);
        username = demo;
      } else if (!token) {
        return again('请输入 ERP API 令牌 / enter your ERP API token', 400);
      } else if (token.length > 512 || !/^\S+$/.test(token)) {
        return again('令牌格式无效 / that is not an API token', 400);
      } else {
        // Only an API token signs in here: an access token is no password.
        const user = await users.apiTokenUser(token).catch(() => undefined);
        if (!user) return again('令牌无效或已吊销 / the token is unknown or revoked', 401);
        username = user.username;
      }
    }
    const clientId = String(details.params.client_id);
    const grant =
      (details.grantId ? await provider.Grant.find(details.grantId) : undefined) ??
      new provider.Grant({ accountId: username, clientId });
    // What the client asked for, as the user agreed to it: its OpenID scopes, and the MCP scope on its resource.
    const scopes = String(details.params.scope ?? '')
      .split(' ')
      .filter(Boolean);
    const oidcScopes = scopes.filter((s) => ['openid', 'offline_access', MCP_SCOPE].includes(s));
    if (oidcScopes.length) grant.addOIDCScope(oidcScopes.join(' '));
    const requested = details.params.resource as string | string[] | undefined;
    for (const resource of Array.isArray(requested) ? requested : [requested ?? options.resources[0]]) {
      if (typeof resource === 'string' && options.resources.includes(resource))
        grant.addResourceScope(resource, MCP_SCOPE);
    }
    const grantId = await grant.save();
    const to = await provider.interactionResult(
      c.env.incoming,
      c.env.outgoing,
      { login: { accountId: username }, consent: { grantId } },
      { mergeWithLastSubmission: true },
    );
    return c.redirect(to, 303);
  });

  const interactions = getRequestListener(pages.fetch);
  const oidc = provider.callback();
  return {
    provider,
    listener: (req, res) => {
      for (const [name, value] of Object.entries(NO_FRAMING)) res.setHeader(name, value);
      return req.url?.startsWith('/interaction/') ? interactions(req, res) : oidc(req, res);
    },
  };
}

/** Runs the authorization server on its own address (its issuer's). */
export async function startAuthorizationServer(
  options: AuthorizationServerOptions & { host: string; port: number },
): Promise<RunningServer & { issuer: string }> {
  const { listener } = await createAuthorizationServer(options);
  const server = http.createServer(listener);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new Error(`端口 ${options.port} 已被占用 / port ${options.port} on ${options.host} is already in use`)
          : error,
      ),
    );
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}`,
    port,
    issuer: options.issuer,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}
