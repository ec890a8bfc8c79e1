import { randomUUID } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  type Tool as McpTool,
} from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { type Context, Hono } from 'hono';
import { ErpUsers, isJwt, MCP_SCOPE } from '../erp/index.ts';
import { isReadOnly } from '../protocol/index.ts';
import { listen, ProblemError, type RunningServer } from '../shared/index.ts';
import { type ErpEndpoint, isToolFailure, registerErpTools, type ToolContext, ToolRegistry } from '../tools/index.ts';
import { AccessTokenCheck } from './access-tokens.ts';

/** The credentials an MCP call arrives with (HTTP headers, or the stdio process's configuration). */
export interface CallerCredentials {
  token?: string;
  projectId?: string;
  traceId?: string;
}

/** `_meta` key a client uses to give the model's tool-call id, from which writes derive their idempotency key. */
export const CALL_ID_META = 'procura/callId';

/** `_meta` key of a listed tool naming the group it is declared in (`part`, `order`, …), which agents select by. */
export const GROUP_META = 'procura/group';

/**
 * `_meta` key of a listed tool naming the fields of its results that users other than the caller wrote (notes,
 * comments), from the tool's declaration; empty when there are none. A client fences them for its model.
 */
export const UNTRUSTED_META = 'procura/untrusted';

const TRACE_ID = /^[\w.:-]{1,128}$/;

/**
 * One JSON-schema validator for every server instance. The stateless HTTP server builds a server per request, and
 * each would otherwise compile a new Ajv (its keywords and formats) — most of what a call over MCP cost.
 */
let validator: AjvJsonSchemaValidator | undefined;

/**
 * A JSON-RPC error answer. (The SDK's `McpError` puts "MCP error <code>:" into its message, and the client's adds
 * it again.)
 */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export interface McpServerOptions {
  name: string;
  version?: string;
  /** Who this server's calls run for: a stateless HTTP server is made per request, so per caller. */
  caller: () => Promise<ToolContext>;
  onUnexpected?: (error: unknown, traceId: string) => void;
}

/**
 * The MCP face of a registry: its tools with their input and output schemas and annotations from their
 * declarations, each call run as the caller. A tool the server does not have, or arguments its schema refuses, are
 * JSON-RPC errors (-32602, with the field errors in `data`); what the tool itself refuses (the ERP's 403, 409, …)
 * is a result with `isError`, which a model can read and act on.
 */
export function createMcpServer(registry: ToolRegistry, options: McpServerOptions): Server {
  validator ??= new AjvJsonSchemaValidator();
  const server = new Server(
    { name: options.name, version: options.version ?? '1.0.0' },
    { capabilities: { tools: { listChanged: false } }, jsonSchemaValidator: validator },
  );
  // Listing needs no token (discovery); with one, the caller sees the tools their role may use, described with
  // their live values.
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const ctx = await options.caller();
    return {
      tools: await Promise.all(
        registry.list(ctx.token ? ctx : undefined).map(
          async (d): Promise<McpTool> => ({
            name: d.name,
            title: d.label,
            description: ctx.token ? await registry.describe(d.name, ctx) : d.description,
            inputSchema: structuredClone(d.jsonSchema) as McpTool['inputSchema'],
            ...(d.outputJsonSchema && {
              outputSchema: structuredClone(d.outputJsonSchema) as NonNullable<McpTool['outputSchema']>,
            }),
            // The group travels with the tool, so a client groups it as declared, whatever its name's prefix; so do
            // the fields others wrote, so a client fences them as Procura's own agent does.
            _meta: { [GROUP_META]: d.group, [UNTRUSTED_META]: [...(d.untrusted ?? [])] },
            annotations: {
              title: d.label,
              readOnlyHint: d.safety === 'read-only',
              destructiveHint: d.destructive,
              idempotentHint: d.idempotent,
              openWorldHint: false,
            },
          }),
        ),
      ),
    };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name } = request.params;
    const definition = registry.get(name);
    if (!definition) {
      throw new RpcError(ErrorCode.InvalidParams, `未知工具 ${name} / unknown tool ${name}`, {
        tools: registry.list().map((d) => d.name),
      });
    }
    const ctx = await options.caller();
    const input = request.params.arguments ?? {};
    // A write refused for the caller's role is the tool's answer (a viewer learns why), whatever the arguments.
    if (!(definition.safety === 'write' && isReadOnly(ctx))) {
      const parsed = definition.schema.safeParse(input);
      if (!parsed.success) {
        const issues = parsed.error.issues.slice(0, 20).map((issue) => ({
          field: issue.path.join('.') || '(arguments)',
          message: issue.message,
        }));
        throw new RpcError(
          ErrorCode.InvalidParams,
          `${name} 参数无效 / invalid arguments for ${name}: ${issues.map((i) => `${i.field}: ${i.message}`).join('; ')}`,
          { issues },
        );
      }
    }
    const callId = request.params._meta?.[CALL_ID_META];
    const result = await registry.execute(
      name,
      input,
      ctx,
      { signal: extra.signal, approved: true, callId: typeof callId === 'string' ? callId : undefined },
      (error) => options.onUnexpected?.(error, ctx.traceId),
    );
    const content: CallToolResult['content'] = [{ type: 'text', text: JSON.stringify(result) }];
    if (isToolFailure(result)) return { content, isError: true };
    // Structured results for clients that read them; the same JSON as text for those that predate them.
    return definition.output ? { content, structuredContent: result as Record<string, unknown> } : { content };
  });
  return server;
}

/** Credentials from streamable-HTTP headers: `Authorization: Bearer`, `x-project-id`, `x-trace-id`. */
export function credentialsFromHeaders(headers: Record<string, string | string[] | undefined>): CallerCredentials {
  const header = (name: string) => {
    const value = headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  const token = /^Bearer\s+(\S+)$/i.exec(header('authorization') ?? '')?.[1];
  return { token, projectId: header('x-project-id') || undefined, traceId: header('x-trace-id') || undefined };
}

const traceIdOf = (credentials: CallerCredentials) =>
  credentials.traceId && TRACE_ID.test(credentials.traceId) ? credentials.traceId : randomUUID();

/** The context of a caller without a token: listing only (a call needs a user). */
const anonymous = (credentials: CallerCredentials): ToolContext => ({
  userId: 'anonymous',
  role: 'viewer',
  projectId: credentials.projectId,
  traceId: traceIdOf(credentials),
});

/**
 * The context a caller's calls run in: the ERP's own answer to who the token belongs to (its role decides which
 * tools are listed and which writes are refused before the ERP is asked). The ERP still authorises every request.
 * Approval is the MCP client's duty (its human-in-the-loop ran first).
 */
async function callerContext(users: ErpUsers, credentials: CallerCredentials): Promise<ToolContext> {
  if (!credentials.token) return anonymous(credentials);
  const traceId = traceIdOf(credentials);
  try {
    const user = await users.resolve(`Bearer ${credentials.token}`, credentials.projectId);
    return { userId: user.username, role: user.role, token: user.token, projectId: user.projectId, traceId };
  } catch (error) {
    if (error instanceof ProblemError && (error.status === 401 || error.status === 403)) throw error;
    // The ERP cannot say who it is (it is down): the call still goes to it, and its answer names the outage.
    return { userId: 'unresolved', role: 'buyer', token: credentials.token, projectId: credentials.projectId, traceId };
  }
}

/** Who may reach an MCP endpoint over HTTP, and how it tells clients where to sign in. */
export interface McpHttpOptions {
  /**
   * Host names (without port) accepted in `Host` and `Origin`, against DNS rebinding: a web page on another name
   * that resolves to this machine is refused. Loopback names by default.
   */
  allowedHosts?: readonly string[];
  /** The endpoint's public URL (the OAuth resource); from the request's own address when unset. */
  resourceUrl?: string;
  /** Issuers of the tokens this endpoint takes (RFC 9728 `authorization_servers`). */
  authorizationServers?: readonly string[];
  /** Scopes a client asks its authorization server for (RFC 9728 `scopes_supported`). */
  scopes?: readonly string[];
  /** The context a request's calls run in (its user, from the token); a `ProblemError` 401 for a token nobody owns. */
  identify: (credentials: CallerCredentials, request: Request) => Promise<ToolContext>;
  /** Tools anyone may call without a token (a public server); by default a call needs a signed-in user. */
  anonymousCalls?: boolean;
  name: string;
  onUnexpected?: McpServerOptions['onUnexpected'];
}

/** Loopback names: what a local endpoint answers to unless configured otherwise. */
export const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'] as const;

const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';

/** A JSON-RPC error as a whole HTTP answer (before any MCP message is read). */
export function rpcError(
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

/** The host name of a `Host` header or an origin, lower-case, IPv6 in brackets; undefined when unreadable. */
function hostNameOf(value: string, isOrigin: boolean): string | undefined {
  try {
    return new URL(isOrigin ? value : `http://${value}`).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/** An MCP endpoint's guard: who may reach it (Host, Origin) and where a client learns to sign in. */
export type McpGuardOptions = Pick<
  McpHttpOptions,
  'allowedHosts' | 'resourceUrl' | 'authorizationServers' | 'scopes' | 'name'
>;

/**
 * Guards an app's `/mcp` endpoint: refuses any request whose Host, or whose browser Origin, names a host not
 * configured (DNS rebinding), and serves the endpoint's protected-resource metadata (RFC 9728). `challenge` is the
 * `WWW-Authenticate` header of a 401 that points an OAuth-capable client there.
 */
export function guardMcpEndpoint(
  app: Hono,
  options: McpGuardOptions,
): { challenge: (c: Context, error?: string) => Record<string, string> } {
  const allowed = new Set((options.allowedHosts ?? LOOPBACK_HOSTS).map((h) => h.toLowerCase()));
  app.use('*', async (c, next) => {
    const host = hostNameOf(c.req.header('host') ?? '', false);
    const origin = c.req.header('origin');
    if (!host || !allowed.has(host) || (origin !== undefined && !allowed.has(hostNameOf(origin, true) ?? ''))) {
      return rpcError(
        403,
        -32000,
        `不接受这个 Host 或 Origin / Host or Origin not allowed (${origin ?? c.req.header('host') ?? ''})`,
      );
    }
    await next();
  });
  const resourceOf = (c: Context) =>
    options.resourceUrl ?? `${new URL(c.req.url).protocol}//${c.req.header('host')}/mcp`;
  const metadataUrlOf = (c: Context) => {
    const resource = new URL(resourceOf(c));
    return `${resource.origin}${PROTECTED_RESOURCE_PATH}${resource.pathname.replace(/\/$/, '')}`;
  };
  const metadata = (c: Context) =>
    c.json({
      resource: resourceOf(c),
      ...(options.authorizationServers?.length && { authorization_servers: options.authorizationServers }),
      ...(options.scopes?.length && { scopes_supported: options.scopes }),
      bearer_methods_supported: ['header'],
      resource_name: options.name,
    });
  app.get(`${PROTECTED_RESOURCE_PATH}/mcp`, metadata);
  app.get(PROTECTED_RESOURCE_PATH, metadata);
  return {
    challenge: (c, error) => ({
      'www-authenticate': `Bearer resource_metadata="${metadataUrlOf(c)}"${error ? `, error="${error}"` : ''}`,
    }),
  };
}

/**
 * A registry's MCP server over streamable HTTP at `/mcp`, stateless: each POST gets its own server and transport
 * (the SDK's rule for stateless transports) and runs as the user of its bearer token. There is no server-initiated
 * stream, so GET (and DELETE: no sessions) answer 405. A call without a token, or any request with a token the ERP
 * does not know, answers 401 with `WWW-Authenticate` naming the protected-resource metadata (RFC 9728), so an
 * OAuth-capable client can offer to sign in.
 */
export function createMcpApp(registry: ToolRegistry, options: McpHttpOptions): Hono {
  const app = new Hono();
  app.get('/health', (c) => c.json({ status: 'ok', tools: registry.list().length }));
  const { challenge } = guardMcpEndpoint(app, options);
  app.post('/mcp', async (c) => {
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return rpcError(400, ErrorCode.ParseError, 'Parse error: the body is not JSON');
    }
    const credentials = credentialsFromHeaders(Object.fromEntries(c.req.raw.headers));
    const messages = Array.isArray(body) ? body : [body];
    const calls = messages.some((m) => (m as { method?: unknown } | null)?.method === 'tools/call');
    if (calls && !credentials.token && !options.anonymousCalls) {
      return rpcError(401, -32001, '需要登录：缺少访问令牌 / sign-in required: no access token', challenge(c));
    }
    let caller: ToolContext;
    try {
      caller = await options.identify(credentials, c.req.raw);
    } catch (error) {
      if (error instanceof ProblemError && error.status === 401) {
        return rpcError(401, -32001, '访问令牌无效或已过期 / invalid or expired token', challenge(c, 'invalid_token'));
      }
      if (error instanceof ProblemError) return rpcError(error.status, -32000, error.message);
      throw error;
    }
    const server = createMcpServer(registry, {
      name: options.name,
      caller: async () => caller,
      onUnexpected: options.onUnexpected,
    });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    const response = await transport.handleRequest(c.req.raw, { parsedBody: body });
    await server.close();
    return response;
  });
  // Stateless: no stream to open (GET) and no session to end (DELETE).
  app.all('/mcp', () =>
    rpcError(405, -32000, '只接受 POST / this endpoint takes POST only (stateless, no server stream)', {
      allow: 'POST',
    }),
  );
  return app;
}

export interface ErpMcpOptions {
  erp: ErpEndpoint;
  onUnexpected?: (error: unknown, traceId: string) => void;
}

export type ErpMcpHttpOptions = ErpMcpOptions &
  Pick<McpHttpOptions, 'allowedHosts' | 'resourceUrl' | 'authorizationServers'> & {
    /**
     * The audiences of the access tokens taken: this server's resource and those of the parts of Procura in front
     * of it, which call it as their user with the token they were given (the chat API's agent); this server's
     * resource alone by default.
     */
    audiences?: readonly string[];
  };

/** The resource a request reaches: the configured URL, else `/mcp` at the address the request was sent to. */
export const resourceOfRequest = (resourceUrl: string | undefined, request: Request) =>
  resourceUrl ?? `${new URL(request.url).origin}/mcp`;

/** The ERP tools' registry, as the ERP MCP server exposes them. */
export const erpToolRegistry = (erp: ErpEndpoint) => registerErpTools(new ToolRegistry(), erp);

const erpUsers = (erp: ErpEndpoint) => new ErpUsers(erp.baseUrl.replace(/\/$/, ''), erp.fetch);

/**
 * The ERP MCP server's HTTP app: every request carries the caller's bearer token, project and trace id, which go
 * on to the ERP with each call. The token is an ERP API token or an OAuth access token of a configured authorization
 * server: the latter is verified here first (signature, issuer, expiry, an audience this server takes), and the
 * ERP, which knows its own authorization server, checks it again and says who the user is now (and whether their
 * tokens were revoked since it was signed).
 */
export function createErpMcpApp(options: ErpMcpHttpOptions): Hono {
  const users = erpUsers(options.erp);
  const accessTokens = options.authorizationServers?.length
    ? new AccessTokenCheck(options.authorizationServers)
    : undefined;
  return createMcpApp(erpToolRegistry(options.erp), {
    ...options,
    name: 'procura-erp',
    scopes: accessTokens ? [MCP_SCOPE] : undefined,
    identify: async (credentials, request) => {
      if (accessTokens && credentials.token && isJwt(credentials.token))
        await accessTokens.verify(
          credentials.token,
          options.audiences ?? resourceOfRequest(options.resourceUrl, request),
        );
      return callerContext(users, credentials);
    },
  });
}

/** Runs the ERP MCP server over streamable HTTP. */
export async function startErpMcpServer(
  options: ErpMcpHttpOptions & { host: string; port: number },
): Promise<RunningServer & { mcpUrl: string }> {
  const allowedHosts = options.allowedHosts ?? hostsFor(options.host);
  const server = await listen(createErpMcpApp({ ...options, allowedHosts }).fetch, options);
  return { ...server, mcpUrl: `${server.url}/mcp` };
}

/** Loopback names, plus the address a server was bound to when that is a name or address of its own. */
export function hostsFor(bindHost: string): string[] {
  const bound = bindHost.includes(':') ? `[${bindHost}]` : bindHost;
  return ['0.0.0.0', '[::]'].includes(bound) ? [...LOOPBACK_HOSTS] : [...new Set([...LOOPBACK_HOSTS, bound])];
}

/** Runs the ERP MCP server on stdin/stdout for one user, whose token comes from the process's configuration. */
export async function runErpMcpStdio(options: ErpMcpOptions & { credentials: CallerCredentials }): Promise<Server> {
  const users = erpUsers(options.erp);
  const credentials = { ...options.credentials, traceId: undefined };
  // Without a token, or with one the ERP refuses, calls still go to the ERP client, whose answer says why.
  const unresolved = (): ToolContext => ({
    ...anonymous(credentials),
    userId: 'stdio',
    role: 'buyer',
    token: credentials.token,
  });
  const server = createMcpServer(erpToolRegistry(options.erp), {
    name: 'procura-erp',
    caller: async () => (credentials.token ? callerContext(users, credentials).catch(unresolved) : unresolved()),
    onUnexpected: options.onUnexpected,
  });
  await server.connect(new StdioServerTransport());
  return server;
}
