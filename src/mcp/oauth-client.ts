import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { CredentialSealer } from '../shared/index.ts';

/**
 * What Procura keeps of its sign-ins at MCP servers, sealed (AES-256-GCM) in one file of the data dir: each server's
 * client registration (RFC 7591, shared by Procura's users) and each user's tokens at each server. A copy of the
 * file without the key hands out nothing.
 */
export class McpTokenStore {
  private data: { clients: Record<string, string>; tokens: Record<string, Record<string, string>> } = {
    clients: {},
    tokens: {},
  };

  constructor(
    private readonly sealer: CredentialSealer,
    /** The file; none keeps the sign-ins in memory only. */
    private readonly file?: string,
  ) {
    if (file && fs.existsSync(file)) this.data = JSON.parse(fs.readFileSync(file, 'utf8'));
  }

  /** The store of a data dir: `<dataDir>/mcp-oauth.json`, sealed with `PROCURA_MCP_TOKEN_KEY` or a key of the dir. */
  static open(dataDir: string, secret?: string): McpTokenStore {
    const sealer = CredentialSealer.open({
      dataDir,
      secret,
      setting: 'PROCURA_MCP_TOKEN_KEY',
      keyFile: 'mcp-tokens.key',
    });
    return new McpTokenStore(sealer, path.join(dataDir, 'mcp-oauth.json'));
  }

  client(server: string): OAuthClientInformationMixed | undefined {
    return this.read(this.data.clients[server]);
  }

  saveClient(server: string, info: OAuthClientInformationMixed | undefined): void {
    if (info) this.data.clients[server] = this.sealer.seal(JSON.stringify(info));
    else delete this.data.clients[server];
    this.write();
  }

  tokens(server: string, user: string): OAuthTokens | undefined {
    return this.read(this.data.tokens[server]?.[user]);
  }

  saveTokens(server: string, user: string, tokens: OAuthTokens | undefined): void {
    this.data.tokens[server] ??= {};
    const byUser = this.data.tokens[server];
    if (tokens) byUser[user] = this.sealer.seal(JSON.stringify(tokens));
    else delete byUser[user];
    this.write();
  }

  /** Users holding tokens for a server (whose listing a server that needs sign-in can be asked with). */
  usersOf(server: string): string[] {
    return Object.keys(this.data.tokens[server] ?? {});
  }

  private read<T>(sealed: string | undefined): T | undefined {
    const plain = sealed === undefined ? undefined : this.sealer.unseal(sealed);
    return plain === undefined ? undefined : (JSON.parse(plain) as T);
  }

  private write(): void {
    if (!this.file) return;
    // Written whole and renamed into place, readable by its owner only.
    const next = `${this.file}.${process.pid}.tmp`;
    fs.writeFileSync(next, JSON.stringify(this.data), { mode: 0o600 });
    fs.renameSync(next, this.file);
  }
}

/** The chat API's address where an authorization server sends the user's browser back after an MCP sign-in. */
export const MCP_OAUTH_CALLBACK = '/api/v1/mcp/oauth/callback';

/** How Procura signs its users in at MCP servers that ask for OAuth. */
export interface McpOAuthOptions {
  store: McpTokenStore;
  /** Where the authorization server sends the user's browser back to (Procura's callback). */
  redirectUrl: string;
}

/** Pre-registered client credentials and the like, from a server's configuration (`oauth`). */
export interface ServerOAuthConfig {
  clientId?: string;
  clientSecret?: string;
  /** A URL of Procura's client metadata document, for servers that take one as client id (instead of registering). */
  clientMetadataUrl?: string;
  scope?: string;
}

/** A sign-in under way: whose, at which server (found again by the `state` the browser brings back). */
export interface PendingSignIn {
  server: string;
  user: string;
  until: number;
  /**
   * The SHA-256 of a secret the starting browser holds (a cookie), when one was bound: only that browser completes
   * the sign-in, so an address passed to someone else cannot sign the starter in as them.
   */
  browser?: string;
}

const SIGN_IN_MS = 10 * 60_000;

/**
 * The OAuth client of one MCP server for all of Procura's users: the SDK's transport asks it for tokens and runs the
 * flow (discovery, registration, PKCE, refresh, step-up) through it, and each answer is the current user's — the
 * user whose call is in flight (`user()`). A flow that needs the user's browser records where to send them.
 */
export class UserOAuthProvider implements OAuthClientProvider {
  /** Per user: the PKCE verifier and the authorization URL of their sign-in under way. */
  private readonly flows = new Map<string, { verifier?: string; url?: URL }>();

  constructor(
    private readonly server: string,
    private readonly options: McpOAuthOptions,
    private readonly config: ServerOAuthConfig | undefined,
    private readonly user: () => string | undefined,
    private readonly pending: Map<string, PendingSignIn>,
  ) {}

  get redirectUrl(): string {
    return this.options.redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Procura',
      redirect_uris: [this.options.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      ...(this.config?.scope && { scope: this.config.scope }),
    };
  }

  get clientMetadataUrl(): string | undefined {
    return this.config?.clientMetadataUrl;
  }

  state(): string {
    const state = randomBytes(24).toString('base64url');
    const now = Date.now();
    for (const [key, sign] of this.pending) if (sign.until < now) this.pending.delete(key);
    const user = this.user();
    if (user) this.pending.set(state, { server: this.server, user, until: now + SIGN_IN_MS });
    return state;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    if (this.config?.clientId)
      return {
        client_id: this.config.clientId,
        client_secret: this.config.clientSecret,
        redirect_uris: [this.redirectUrl],
      };
    return this.options.store.client(this.server);
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.options.store.saveClient(this.server, info);
  }

  tokens(): OAuthTokens | undefined {
    const user = this.user();
    return user ? this.options.store.tokens(this.server, user) : undefined;
  }

  saveTokens(tokens: OAuthTokens): void {
    const user = this.user();
    if (!user) return;
    this.options.store.saveTokens(this.server, user, tokens);
    this.flows.delete(user);
  }

  redirectToAuthorization(url: URL): void {
    const user = this.user();
    if (user) this.flows.set(user, { ...this.flows.get(user), url });
  }

  saveCodeVerifier(verifier: string): void {
    const user = this.user();
    if (user) this.flows.set(user, { verifier });
  }

  codeVerifier(): string {
    const verifier = this.flows.get(this.user() ?? '')?.verifier;
    if (!verifier) throw new Error('没有进行中的登录 / no sign-in under way for this user');
    return verifier;
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    const user = this.user();
    if ((scope === 'all' || scope === 'client') && !this.config?.clientId)
      this.options.store.saveClient(this.server, undefined);
    if ((scope === 'all' || scope === 'tokens') && user) this.options.store.saveTokens(this.server, user, undefined);
    if ((scope === 'all' || scope === 'verifier') && user) this.flows.delete(user);
  }

  /** Procura's address that starts a user's sign-in at this server (beside the callback, on the chat API). */
  signInStart(): URL {
    return new URL(`../servers/${encodeURIComponent(this.server)}/sign-in`, this.options.redirectUrl);
  }

  /** Where the current user must go to sign in (the authorization URL of their flow under way), if anywhere. */
  signInUrl(): URL | undefined {
    return this.flows.get(this.user() ?? '')?.url;
  }
}
