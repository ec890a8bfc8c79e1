import { AsyncLocalStorage } from 'node:async_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { linkedSignal } from '../shared/index.ts';
import {
  describeIssues,
  failure,
  type ToolContext,
  type ToolControl,
  ToolError,
  type ToolRegistry,
} from '../tools/index.ts';
import { CALL_ID_META, GROUP_META } from './server.ts';

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

/** The user whose credentials the current call carries (read by the HTTP transport's fetch). */
const caller = new AsyncLocalStorage<Pick<ToolContext, 'token' | 'projectId' | 'traceId'>>();

/**
 * A server failed to start or to answer; the message names it. A required server's failure is an outage the run
 * cannot go on without (`unavailable`); an optional one's is a tool failure the model may route around.
 */
export class McpServerError extends ToolError {
  constructor(
    readonly server: string,
    message: string,
    required = false,
  ) {
    super(
      `MCP 服务 ${server}：${message} / MCP server ${server}: ${message}`,
      `${server} 暂不可用：稍后重试${required ? '' : '或换一种方式完成'} / ${server} is unavailable: retry later${required ? '' : ' or take another route'}`,
      required ? `MCP ${server}` : undefined,
    );
    this.name = 'McpServerError';
  }
}

const describeError = (error: unknown) =>
  error instanceof Error ? `${error.message}${error.cause ? ` (${String(error.cause)})` : ''}` : String(error);

/** One configured server: connected lazily again after a transport failure. */
class McpConnection {
  private client?: Client;
  private connecting?: Promise<Client>;

  constructor(readonly config: Config) {}

  async ensureConnected(): Promise<Client> {
    if (this.client) return this.client;
    this.connecting ??= this.open().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async open(): Promise<Client> {
    const client = new Client({ name: 'procura', version: '1.0.0' });
    const { config } = this;
    const transport = config.url
      ? new StreamableHTTPClientTransport(new URL(config.url), {
          fetch: (url, init) => fetch(url, { ...init, headers: this.headersFor(init?.headers) }),
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

  async listTools(): Promise<McpTool[]> {
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
    try {
      const client = await this.ensureConnected();
      const result = await caller.run(ctx, () =>
        client.callTool(
          {
            name: tool,
            arguments: (input ?? {}) as Record<string, unknown>,
            _meta: control.callId ? { [CALL_ID_META]: control.callId } : undefined,
          },
          undefined,
          { signal: link.signal, timeout: this.config.timeoutMs },
        ),
      );
      return fromMcpResult(result as { content?: unknown[]; isError?: boolean }, this.config.name);
    } catch (error) {
      if (control.signal?.aborted) throw error;
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
      link.clear();
    }
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

/** A tool result as data: JSON text is parsed, an `isError` result becomes a failure naming the server. */
function fromMcpResult(result: { content?: unknown[]; isError?: boolean }, server: string): unknown {
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
  ) {
    this.pending = connections.filter((c) => !tools.has(c));
  }

  /** Connects to every server at once. A required server that fails aborts start-up, naming it. */
  static async connect(configs: readonly McpServerConfig[]): Promise<McpConnections> {
    const parsed = configs.map((c) => {
      const result = McpServerConfigSchema.safeParse(c);
      if (!result.success)
        throw new McpServerError(String(c.name), `配置无效 / invalid configuration: ${describeIssues(result.error)}`);
      return result.data;
    });
    const names = parsed.map((c) => c.name);
    const twice = names.find((n, i) => names.indexOf(n) !== i);
    if (twice) throw new McpServerError(twice, '重复配置 / configured twice');
    const connections = parsed.map((c) => new McpConnection(c));
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
    return new McpConnections(connections, tools, failures);
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
