import { AsyncLocalStorage } from 'node:async_hooks';
import { auth, extractWWWAuthenticateParams, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type ElicitRequest,
  ElicitRequestSchema,
  type ElicitResult,
  ErrorCode,
  McpError,
  type Tool as McpTool,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { linkedSignal } from '../shared/index.ts';
import {
  describeIssues,
  EVERY_TEXT_FIELD,
  failure,
  type ToolContext,
  type ToolControl,
  ToolError,
  type ToolRegistry,
} from '../tools/index.ts';
import { type McpOAuthOptions, type PendingSignIn, UserOAuthProvider } from './oauth-client.ts';
import { CALL_ID_META, GROUP_META, UNTRUSTED_META } from './server.ts';

/** One MCP server the agent uses, from configuration. */
export const McpServerConfigSchema = z
  .object({
    name: z.string().regex(/^[a-z][a-z0-9-]{0,31}$/, 'lower-case name, e.g. erp, chart'),
    /** Streamable HTTP endpoint … */
    url: z.url({ protocol: /^https?$/ }).optional(),
    /** … or a command speaking MCP on stdio. */
    command: z.string().min(1).optional(),
    args: z.array(z.string()).default([]),
    env: z.record(z.string(), z.string()).optional(),
    /** Static headers (e.g. a hosted server's API key). */
    headers: z.record(z.string(), z.string()).optional(),
    /** Send the current user's bearer token, project and trace id with every call (HTTP only). */
    forwardCredentials: z.boolean().default(false),
    /** Added before each tool name (to keep two servers' tools apart). */
    prefix: z
      .string()
      .regex(/^[a-z0-9_]*$/)
      .default(''),
    /** Group of tools whose name does not start with a known group (`supplier_`, `part_`, …). */
    group: z.string().min(1).optional(),
    /** Safety of tools that do not say whether they are read-only (no `readOnlyHint`). */
    defaultSafety: z.enum(['read-only', 'write']).default('write'),
    timeoutMs: z.number().int().positive().default(60_000),
    connectTimeoutMs: z.number().int().positive().default(10_000),
    /**
     * OAuth at this server, beyond what it says itself: pre-registered client credentials (else Procura registers,
     * RFC 7591), a client metadata document URL, the scope to ask for. A server that answers 401 is signed in to per
     * user either way.
     */
    oauth: z
      .object({
        clientId: z.string().min(1).max(500).optional(),
        clientSecret: z.string().min(1).max(500).optional(),
        clientMetadataUrl: z.url({ protocol: /^https$/ }).optional(),
        scope: z
          .string()
          .regex(/^[\x21\x23-\x5b\x5d-\x7e]+( [\x21\x23-\x5b\x5d-\x7e]+)*$/, 'space-separated scopes')
          .optional(),
      })
      .strict()
      .optional(),
    /**
     * Whether the text of this server's results may reach the model as written. A server that does not list which
     * fields of a tool's results others wrote (`_meta["procura/untrusted"]`, as Procura's own servers do) gets every
     * string value fenced as data unless it is trusted.
     */
    trusted: z.boolean().default(false),
    /** Start-up fails when a required server cannot be reached; others are skipped with a warning and retried. */
    required: z.boolean().default(false),
    /** Who gets a server's tools is declared in the agents' YAML (`servers: [kb]`), nowhere else. */
    agents: z
      .never({
        error:
          '哪个 Agent 使用该服务的工具写在 Agent 的 YAML 里（servers: [名称]）/ declare it in the agent YAML: servers: [name]',
      })
      .optional(),
  })
  .refine((c) => Boolean(c.url) !== Boolean(c.command), { message: 'give exactly one of url or command' })
  .refine((c) => !(c.forwardCredentials && c.command), {
    message: 'forwardCredentials needs an HTTP server (a stdio server has one fixed identity)',
  })
  .refine((c) => !(c.oauth && (c.command || c.forwardCredentials)), {
    message: 'oauth needs an HTTP server that does not get the ERP credentials (forwardCredentials: false)',
  });
export type McpServerConfig = z.input<typeof McpServerConfigSchema>;
type Config = z.output<typeof McpServerConfigSchema>;

/** Tool-name prefixes that are groups of their own (seed 002's prefix grouping). */
export const PREFIX_GROUPS = ['supplier', 'part', 'order', 'inventory'] as const;

const GROUP_NAME = /^[a-z][a-z0-9_-]{0,31}$/;

/**
 * The group a server's tool belongs to: the one the server declares for it (`_meta["procura/group"]`, as Procura's
 * own servers do), else its name's prefix when that is a known group, else the server's configured group, else
 * the server's name.
 */
export function groupOf(tool: Pick<McpTool, 'name' | '_meta'>, server: { name: string; group?: string }): string {
  const declared = tool._meta?.[GROUP_META];
  if (typeof declared === 'string' && GROUP_NAME.test(declared)) return declared;
  const prefix = tool.name.split('_')[0];
  return (PREFIX_GROUPS as readonly string[]).includes(prefix) ? prefix : (server.group ?? server.name);
}

/**
 * The fields of a server's tool results that others wrote, fenced for the model: those the server lists for the tool
 * (`_meta["procura/untrusted"]`), else every string value — none for a server configured as trusted.
 */
export function untrustedOf(tool: Pick<McpTool, '_meta'>, server: { trusted?: boolean }): string[] | undefined {
  const declared = tool._meta?.[UNTRUSTED_META];
  if (Array.isArray(declared) && declared.every((field) => typeof field === 'string')) return declared;
  return server.trusted ? undefined : [EVERY_TEXT_FIELD];
}

/** The user whose credentials the current call carries (read by the HTTP transport's fetch and OAuth client). */
const caller = new AsyncLocalStorage<Pick<ToolContext, 'userId' | 'token' | 'projectId'> & { traceId?: string }>();

/**
 * The tool call a server's question belongs to. A server asks while it answers a call, on that call's response
 * stream, so its request is handled in the call's async context and finds the call's way to ask the user.
 */
interface Elicitor {
  server: string;
  ask?: ToolControl['ask'];
  /** The run paused to ask the user (an interrupt): the call ends and rethrows it. */
  paused?: unknown;
  stop(): void;
}
const elicitor = new AsyncLocalStorage<Elicitor>();

const YES_NO = [
  { label: '是 / yes', value: 'true' },
  { label: '否 / no', value: 'false' },
];

type FormField = Extract<
  ElicitRequest['params'],
  { requestedSchema: unknown }
>['requestedSchema']['properties'][string];

/** One field of an elicitation form as an `ask_user` card (its choices), or undefined when it needs typed text. */
function choicesOf(
  field: FormField,
): { options: Array<{ label: string; value: string }>; multiple: boolean } | undefined {
  const f = field as Record<string, unknown> & { items?: Record<string, unknown> };
  const named = (values: unknown, names?: unknown) =>
    (values as string[]).map((value, i) => ({ label: String((names as string[] | undefined)?.[i] ?? value), value }));
  const titled = (items: unknown) =>
    (items as Array<{ const: string; title: string }>).map((o) => ({ label: o.title, value: o.const }));
  if (f.type === 'boolean') return { options: YES_NO, multiple: false };
  if (f.type === 'string' && Array.isArray(f.enum)) return { options: named(f.enum, f.enumNames), multiple: false };
  if (f.type === 'string' && Array.isArray(f.oneOf)) return { options: titled(f.oneOf), multiple: false };
  if (f.type === 'array' && Array.isArray(f.items?.enum)) return { options: named(f.items.enum), multiple: true };
  if (f.type === 'array' && Array.isArray(f.items?.anyOf)) return { options: titled(f.items.anyOf), multiple: true };
  return undefined;
}

/**
 * A server's question (`elicitation/create`) put to the user as Procura's `ask_user` cards, one per field, through
 * the asking call's interrupt path; their answers go back as the form's content. A form needing typed text, a URL
 * to open, or a call with no one to ask is declined; a rejected card declines; a paused run cancels (the resume asks
 * the server again and gets the answer).
 */
function answerElicitation(params: ElicitRequest['params'], call: Elicitor | undefined): ElicitResult {
  if (!call?.ask || params.mode === 'url' || !('requestedSchema' in params)) return { action: 'decline' };
  const fields = Object.entries(params.requestedSchema.properties);
  const cards = fields.map(([name, field]) => ({ name, field, choices: choicesOf(field) }));
  if (cards.some((card) => !card.choices)) return { action: 'decline' };
  const content: Record<string, string | boolean | string[]> = {};
  for (const { name, field, choices } of cards) {
    const title = (field as { title?: string }).title ?? name;
    const question = `${call.server}: ${params.message}${fields.length > 1 ? ` — ${title}` : ''}`;
    let decision: ReturnType<NonNullable<ToolControl['ask']>>;
    try {
      decision = call.ask({ kind: 'ask_user', question, ...(choices as NonNullable<typeof choices>) });
    } catch (pause) {
      call.paused = pause;
      call.stop();
      return { action: 'cancel' };
    }
    if (decision?.type !== 'answer') return { action: 'decline' };
    const answer = (Array.isArray(decision.answer) ? decision.answer : [decision.answer]).map(String);
    content[name] =
      (field as { type: string }).type === 'boolean' ? answer[0] === 'true' : choices?.multiple ? answer : answer[0];
  }
  return { action: 'accept', content };
}

/**
 * A server failed to start or to answer; the message names it. A required server's failure is an outage the run
 * cannot go on without (`unavailable`); an optional one's is a tool failure the model may route around.
 */
export class McpServerError extends ToolError {
  constructor(
    readonly server: string,
    /** What went wrong, already in both languages; said once in the message. */
    readonly reason: string,
    required = false,
  ) {
    super(
      `MCP 服务 / MCP server ${server}: ${reason}`,
      `${server} 暂不可用：稍后重试${required ? '' : '或换一种方式完成'} / ${server} is unavailable: retry later${required ? '' : ' or take another route'}`,
      required ? `MCP ${server}` : undefined,
    );
    this.name = 'McpServerError';
  }
}

/**
 * A server needs the user to sign in (OAuth): the message names Procura's address that starts it (`startAt`), since
 * a sign-in completes only in the browser that started it. As a tool result it is a failure the model passes on to
 * the user; the call succeeds once they have signed in.
 */
export class McpSignInRequired extends ToolError {
  constructor(
    readonly server: string,
    readonly startAt: URL | undefined,
  ) {
    super(
      startAt
        ? `MCP 服务 / MCP server ${server}: 需要登录：请在 Procura 中开始登录（POST ${startAt}），并在同一浏览器中打开其返回的授权地址 / sign-in required: start it in Procura (POST ${startAt}) and open the authorization address it answers in the same browser`
        : `MCP 服务 / MCP server ${server}: 需要登录 / sign-in required`,
      `请用户在 Procura 中登录 ${server}，然后重试 / ask the user to sign in to ${server} in Procura, then retry`,
    );
    this.name = 'McpSignInRequired';
  }
}

const SIGN_IN_REFUSALS = {
  unknown_server: '没有这个服务 / no such server',
  no_oauth: '不需要登录 / takes no OAuth sign-in',
  unknown_state: '登录请求不存在、已用过或已过期 / unknown, used or expired sign-in (state)',
  other_browser: '登录不是在这个浏览器中开始的 / the sign-in was started in another browser',
} as const;

/**
 * A sign-in refused for what was asked, not for a server's failure: no such server, a server that takes no OAuth
 * sign-in, or a `state` that names no sign-in under way (unknown, used once already, or older than ten minutes).
 */
export class McpSignInRefused extends Error {
  constructor(
    readonly server: string,
    readonly reason: keyof typeof SIGN_IN_REFUSALS,
  ) {
    super(`MCP 服务 / MCP server ${server}: ${SIGN_IN_REFUSALS[reason]}`);
    this.name = 'McpSignInRefused';
  }
}

const isUnauthorized = (error: unknown) =>
  error instanceof Error && /\b401\b|Unauthorized/.test(`${error.message} ${String(error.cause ?? '')}`);

/** What went wrong, without the server's name when the error already is one of ours (so it is said once). */
const describeError = (error: unknown) =>
  error instanceof McpServerError
    ? error.reason
    : error instanceof Error
      ? `${error.message}${error.cause ? ` (${String(error.cause)})` : ''}`
      : String(error);

/** One configured server: connected lazily again after a transport failure. */
class McpConnection {
  private client?: Client;
  private connecting?: Promise<Client>;
  /** Calls in flight, each with its way to ask the user. */
  private readonly asking = new Set<Elicitor>();

  /** Signs each user in at this server when it asks for OAuth (an HTTP server that gets no ERP credentials). */
  readonly oauth?: UserOAuthProvider;
  /** What the server's last 401 or 403 said: where its metadata is, which scope it wants (RFC 9728, RFC 6750). */
  private challenge: { resourceMetadataUrl?: URL; scope?: string } = {};

  constructor(
    readonly config: Config,
    private readonly signIns?: { options: McpOAuthOptions; pending: Map<string, PendingSignIn> },
  ) {
    if (signIns && config.url && !config.forwardCredentials)
      this.oauth = new UserOAuthProvider(
        config.name,
        signIns.options,
        config.oauth,
        () => caller.getStore()?.userId,
        signIns.pending,
      );
  }

  async ensureConnected(): Promise<Client> {
    if (this.client) return this.client;
    this.connecting ??= this.open().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async open(): Promise<Client> {
    const client = new Client({ name: 'procura', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
    // A question on the call's own stream finds its call; one on another stream (stdio, a server's standalone
    // stream) belongs to the call in flight when there is just one, and is declined when it could be anyone's.
    client.setRequestHandler(ElicitRequestSchema, (request) =>
      answerElicitation(
        request.params,
        elicitor.getStore() ?? (this.asking.size === 1 ? [...this.asking][0] : undefined),
      ),
    );
    const { config } = this;
    const transport = config.url
      ? new StreamableHTTPClientTransport(new URL(config.url), {
          fetch: async (url, init) => {
            const response = await fetch(url, { ...init, headers: this.headersFor(init?.headers) });
            if (response.status === 401 || response.status === 403) {
              const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(response);
              this.challenge = {
                resourceMetadataUrl: resourceMetadataUrl ?? this.challenge.resourceMetadataUrl,
                scope,
              };
            }
            return response;
          },
          authProvider: this.oauth,
        })
      : new StdioClientTransport({
          command: config.command!,
          args: config.args,
          env: { ...(process.env as Record<string, string>), ...config.env },
          stderr: 'pipe',
        });
    try {
      await client.connect(transport, { timeout: config.connectTimeoutMs });
    } catch (error) {
      await client.close().catch(() => undefined);
      throw new McpServerError(config.name, `连接失败 / cannot connect: ${describeError(error)}`, config.required);
    }
    client.onclose = () => {
      if (this.client === client) this.client = undefined;
    };
    this.client = client;
    return client;
  }

  /** Static headers, plus the current user's credentials when this server gets them. */
  private headersFor(init: RequestInit['headers']): Headers {
    const headers = new Headers(init);
    for (const [key, value] of Object.entries(this.config.headers ?? {})) headers.set(key, value);
    const user = caller.getStore();
    if (this.config.forwardCredentials && user) {
      if (user.token) headers.set('authorization', `Bearer ${user.token}`);
      if (user.projectId) headers.set('x-project-id', user.projectId);
      if (user.traceId) headers.set('x-trace-id', user.traceId);
    }
    return headers;
  }

  private readonly listings = new Map<string, { until: number; tools: Promise<Map<string, string>> }>();

  /** Tool descriptions as the user of `ctx` is shown them (a server may add the user's live values), cached briefly. */
  describedFor(ctx: ToolContext): Promise<Map<string, string>> {
    const key = `${ctx.token ?? ''}\n${ctx.projectId ?? ''}`;
    const hit = this.listings.get(key);
    if (hit && hit.until > Date.now()) return hit.tools;
    const tools = caller
      .run(ctx, () => this.listTools())
      .then((list) => new Map(list.map((t) => [t.name, t.description ?? ''])));
    if (this.listings.size >= 1_000) this.listings.clear();
    this.listings.set(key, { until: Date.now() + LISTING_CACHE_MS, tools });
    tools.catch(() => this.listings.delete(key));
    return tools;
  }

  /**
   * The server's tools. A server that needs sign-in is asked as the current user, else as a user signed in there
   * (start-up and retries have no user of their own).
   */
  async listTools(): Promise<McpTool[]> {
    if (this.oauth && !caller.getStore()) {
      const user = this.signIns?.options.store.usersOf(this.config.name)[0];
      if (user) return caller.run({ userId: user }, () => this.listTools());
    }
    try {
      return await this.listPages();
    } catch (error) {
      throw this.signInNeeded(error) ?? error;
    }
  }

  private async listPages(): Promise<McpTool[]> {
    const client = await this.ensureConnected();
    const tools: McpTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : {}, { timeout: this.config.timeoutMs });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    return tools;
  }

  /** Calls a tool as the user of `ctx`. A read is retried once on a fresh connection; a write never is. */
  async call(tool: string, input: unknown, ctx: ToolContext, control: ToolControl, retry: boolean): Promise<unknown> {
    // The MCP client never takes its abort listener off the signal it is given; given the run's, every call would
    // stay in memory (with the run it was part of) as long as that signal does.
    const link = linkedSignal(control.signal);
    const asking: Elicitor = { server: this.config.name, ask: control.ask, stop: () => link.abort() };
    this.asking.add(asking);
    try {
      const client = await this.ensureConnected();
      const result = await elicitor.run(asking, () =>
        caller.run(ctx, () =>
          client.callTool(
            {
              name: tool,
              arguments: (input ?? {}) as Record<string, unknown>,
              _meta: control.callId ? { [CALL_ID_META]: control.callId } : undefined,
            },
            undefined,
            { signal: link.signal, timeout: this.config.timeoutMs },
          ),
        ),
      );
      if (asking.paused) throw asking.paused;
      return fromMcpResult(result as Parameters<typeof fromMcpResult>[0], this.config.name);
    } catch (error) {
      if (asking.paused) throw asking.paused;
      if (control.signal?.aborted) throw error;
      // Whose sign-in: the calling user's (their flow was recorded in their context).
      const signIn = caller.run(ctx, () => this.signInNeeded(error));
      if (signIn) return failure(signIn.message, signIn.suggestion);
      // The server refused this call (unknown tool, arguments its schema refuses): the connection is fine.
      if (error instanceof McpError && error.code === ErrorCode.InvalidParams) {
        return failure(
          `${this.config.name}: ${error.message}`,
          '按错误信息修正参数后重试 / fix the arguments per the message and retry',
        );
      }
      await this.reset();
      if (retry) return this.call(tool, input, ctx, control, false);
      throw error instanceof McpServerError
        ? error
        : new McpServerError(
            this.config.name,
            `调用 ${tool} 失败 / ${tool} failed: ${describeError(error)}`,
            this.config.required,
          );
    } finally {
      this.asking.delete(asking);
      link.clear();
    }
  }

  /** The error of a call or listing that needs the user to sign in at this server (naming where), if it is one. */
  signInNeeded(error: unknown): McpSignInRequired | undefined {
    if (error instanceof McpSignInRequired) return error;
    if (!this.oauth || !(error instanceof UnauthorizedError || isUnauthorized(error))) return undefined;
    return new McpSignInRequired(this.config.name, this.oauth.signInStart());
  }

  /** Starts the current user's sign-in here: where to send them, or undefined when they are signed in already. */
  async signIn(): Promise<URL | undefined> {
    if (!this.oauth || !this.config.url) throw new McpSignInRefused(this.config.name, 'no_oauth');
    let result: Awaited<ReturnType<typeof auth>>;
    try {
      result = await auth(this.oauth, { serverUrl: this.config.url, ...this.challenge });
    } catch (error) {
      throw new McpServerError(this.config.name, `登录无法开始 / sign-in cannot start: ${describeError(error)}`);
    }
    return result === 'AUTHORIZED' ? undefined : this.oauth.signInUrl();
  }

  /** Completes the current user's sign-in with the code the authorization server sent their browser back with. */
  async finishSignIn(code: string): Promise<void> {
    if (!this.oauth || !this.config.url) throw new McpSignInRefused(this.config.name, 'no_oauth');
    try {
      await auth(this.oauth, { serverUrl: this.config.url, authorizationCode: code, ...this.challenge });
    } catch (error) {
      throw new McpServerError(this.config.name, `登录未能完成 / sign-in not completed: ${describeError(error)}`);
    }
    // A connection opened before the sign-in may have failed on it: the next call opens a fresh one.
    await this.reset();
  }

  async reset(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    await client?.close().catch(() => undefined);
  }
}

const LISTING_CACHE_MS = 10_000;
/** How often servers that were down at start-up are tried again. */
export const MCP_RETRY_MS = 30_000;

/** A tool result as data: its structured content, else its JSON text parsed; an `isError` result becomes a failure
 *  naming the server. */
function fromMcpResult(
  result: { content?: unknown[]; structuredContent?: unknown; isError?: boolean },
  server: string,
): unknown {
  if (!result.isError && result.structuredContent !== undefined) return result.structuredContent;
  const texts = (result.content ?? [])
    .filter((c): c is { type: 'text'; text: string } => (c as { type?: string }).type === 'text')
    .map((c) => c.text);
  const parsed = texts.map((text) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  });
  const value = parsed.length === 1 ? parsed[0] : parsed;
  if (!result.isError) return value;
  if (value && typeof value === 'object' && (value as { success?: unknown }).success === false) return value;
  return failure(
    `${server}: ${texts.join(' ').slice(0, 2000) || '工具返回错误 / the tool reported an error'}`,
    '按错误信息修正参数后重试 / fix the arguments per the message and retry',
  );
}

const toolName = (prefix: string, name: string) => `${prefix}${name}`.replace(/[^A-Za-z0-9_]/g, '_').slice(0, 64);

/**
 * Connections to the configured MCP servers. Their tools join the registry like any declared tool — grouped by
 * name prefix, scheduled and approved by their annotations — and each call carries the current user's credentials.
 * Servers that were down at start-up (and not required) are retried with `retryUnavailable`.
 */
export class McpConnections {
  private readonly pending: McpConnection[];

  private constructor(
    private readonly connections: McpConnection[],
    private readonly tools: Map<McpConnection, McpTool[]>,
    /** Why each unreachable server was skipped. */
    private readonly failures: Map<string, string>,
    /** Sign-ins under way, by the `state` the user's browser brings back. */
    private readonly signIns: Map<string, PendingSignIn>,
  ) {
    this.pending = connections.filter((c) => !tools.has(c));
  }

  /**
   * Connects to every server at once. A required server that fails aborts start-up, naming it. With `oauth`, a
   * server that asks for OAuth is signed in to per user, their tokens kept sealed in its store.
   */
  static async connect(
    configs: readonly McpServerConfig[],
    options: { oauth?: McpOAuthOptions } = {},
  ): Promise<McpConnections> {
    const parsed = configs.map((c) => {
      const result = McpServerConfigSchema.safeParse(c);
      if (!result.success)
        throw new McpServerError(String(c.name), `配置无效 / invalid configuration: ${describeIssues(result.error)}`);
      return result.data;
    });
    const names = parsed.map((c) => c.name);
    const twice = names.find((n, i) => names.indexOf(n) !== i);
    if (twice) throw new McpServerError(twice, '重复配置 / configured twice');
    const pending = new Map<string, PendingSignIn>();
    const signIns = options.oauth && { options: options.oauth, pending };
    const connections = parsed.map((c) => new McpConnection(c, signIns));
    const outcomes = await Promise.allSettled(connections.map((c) => c.listTools()));
    const failures = new Map<string, string>();
    const tools = new Map<McpConnection, McpTool[]>();
    outcomes.forEach((outcome, i) => {
      if (outcome.status === 'fulfilled') tools.set(connections[i], outcome.value);
      else failures.set(connections[i].config.name, describeError(outcome.reason));
    });
    const fatal = connections.find((c) => c.config.required && failures.has(c.config.name));
    if (fatal) {
      await Promise.all(connections.map((c) => c.reset()));
      throw new McpServerError(fatal.config.name, failures.get(fatal.config.name) ?? 'unavailable');
    }
    return new McpConnections(connections, tools, failures, pending);
  }

  /**
   * Starts `ctx`'s user's sign-in at a server that asks for OAuth: the authorization URL to open in their browser,
   * or undefined when they are signed in there already. With `browser` (the hash of a secret their browser holds),
   * only a completion that brings the same hash is taken.
   */
  async signIn(server: string, ctx: Pick<ToolContext, 'userId'>, browser?: string): Promise<URL | undefined> {
    const connection = this.named(server);
    const url = await caller.run({ userId: ctx.userId }, () => connection.signIn());
    const sign = url && this.signIns.get(url.searchParams.get('state') ?? '');
    if (sign && browser) sign.browser = browser;
    return url;
  }

  /**
   * Completes a sign-in: the `state` and `code` the authorization server sent the user's browser back with. The
   * user's tokens are kept (sealed); returns whose sign-in it was. An unknown or expired state is refused, and so
   * is one whose `browser` differs from the hash its start was bound to (or one bound to none, when given a hash).
   */
  async finishSignIn(state: string, code: string, browser?: string): Promise<{ server: string; user: string }> {
    const sign = this.signIns.get(state);
    if (!sign || sign.until < Date.now()) throw new McpSignInRefused('oauth', 'unknown_state');
    // Another browser's attempt leaves the sign-in to the one that started it.
    if (sign.browser !== browser) throw new McpSignInRefused(sign.server, 'other_browser');
    this.signIns.delete(state);
    const connection = this.named(sign.server);
    await caller.run({ userId: sign.user }, () => connection.finishSignIn(code));
    return { server: sign.server, user: sign.user };
  }

  private named(server: string): McpConnection {
    const connection = this.connections.find((c) => c.config.name === server);
    if (!connection) throw new McpSignInRefused(server, 'unknown_server');
    return connection;
  }

  /** Servers that could not be reached (and were not required), with the reason. */
  get unavailable(): Array<{ server: string; error: string }> {
    return this.pending.map((c) => ({ server: c.config.name, error: this.failures.get(c.config.name) ?? '' }));
  }

  /** Registers every listed tool of the reachable servers on `registry`. */
  registerInto(registry: ToolRegistry): ToolRegistry {
    for (const [connection, tools] of this.tools) registerServerTools(registry, connection, tools);
    return registry;
  }

  /** Tries the servers that were down again; those that answer now get their tools registered. Returns their names. */
  async retryUnavailable(registry: ToolRegistry): Promise<string[]> {
    const back: string[] = [];
    for (const connection of [...this.pending]) {
      try {
        const tools = await connection.listTools();
        registerServerTools(registry, connection, tools);
        this.tools.set(connection, tools);
        this.pending.splice(this.pending.indexOf(connection), 1);
        back.push(connection.config.name);
      } catch (error) {
        this.failures.set(connection.config.name, describeError(error));
      }
    }
    return back;
  }

  /** Names of the connected servers and how many tools each lists. */
  summary(): Array<{ server: string; tools: number }> {
    return [...this.tools].map(([c, tools]) => ({ server: c.config.name, tools: tools.length }));
  }

  async close(): Promise<void> {
    await Promise.all(this.connections.map((c) => c.reset()));
  }
}

/** One server's tools as registry entries: grouped by name prefix, safety from annotations, live values per user. */
function registerServerTools(registry: ToolRegistry, connection: McpConnection, tools: McpTool[]): void {
  const { config } = connection;
  for (const tool of tools) {
    const safety =
      tool.annotations?.readOnlyHint === true
        ? 'read-only'
        : tool.annotations?.readOnlyHint === false
          ? 'write'
          : config.defaultSafety;
    let schema: z.ZodType;
    try {
      schema = z.fromJSONSchema(tool.inputSchema as Parameters<typeof z.fromJSONSchema>[0]);
    } catch {
      schema = z.looseObject({}); // the server validates what zod cannot express
    }
    const declared = tool.description ?? tool.name;
    registry.registerRemote(
      {
        name: toolName(config.prefix, tool.name),
        label: tool.annotations?.title ?? tool.title ?? tool.name,
        description: declared,
        schema,
        safety,
        group: groupOf(tool, config),
        untrusted: untrustedOf(tool, config),
        server: config.name,
        // A server that knows the user may describe a tool with their live values (e.g. their project's categories).
        liveValues: config.forwardCredentials
          ? async (ctx) => {
              const current = (await connection.describedFor(ctx)).get(tool.name);
              if (!current || current === declared) return undefined;
              return current.startsWith(declared) ? current.slice(declared.length).trim() : current;
            }
          : undefined,
      },
      tool.inputSchema as Record<string, unknown>,
      (input, ctx, control) => connection.call(tool.name, input, ctx, control, safety === 'read-only'),
    );
  }
}
