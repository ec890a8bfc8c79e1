import { randomUUID } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type Tool as McpTool,
} from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { Hono } from 'hono';
import { listen, type RunningServer } from '../shared/index.ts';
import { type ErpEndpoint, registerErpTools } from '../tools/erp/index.ts';
import { isToolFailure, type ToolContext, ToolRegistry } from '../tools/index.ts';

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

const TRACE_ID = /^[\w.:-]{1,128}$/;

/**
 * One JSON-schema validator for every server instance. The stateless HTTP server builds a server per request, and
 * each would otherwise compile a new Ajv (its keywords and formats) — most of what a call over MCP cost.
 */
let validator: AjvJsonSchemaValidator | undefined;

/** The MCP face of a registry: its tools with annotations from their declarations, each call run as the caller. */
export function createMcpServer(
  registry: ToolRegistry,
  options: {
    name: string;
    version?: string;
    credentials: (headers: Record<string, string | string[] | undefined>) => CallerCredentials;
    onUnexpected?: (error: unknown, traceId: string) => void;
  },
): Server {
  validator ??= new AjvJsonSchemaValidator();
  const server = new Server(
    { name: options.name, version: options.version ?? '1.0.0' },
    {
      capabilities: { tools: { listChanged: false } },
      jsonSchemaValidator: validator,
    },
  );
  // Listing is open (discovery needs no token); with a token, descriptions carry the caller's live values.
  server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => {
    const ctx = contextOf(options.credentials(extra.requestInfo?.headers ?? {}));
    return {
      tools: await Promise.all(
        registry.list().map(
          async (d): Promise<McpTool> => ({
            name: d.name,
            title: d.label,
            description: ctx.token ? await registry.describe(d.name, ctx) : d.description,
            inputSchema: structuredClone(d.jsonSchema) as McpTool['inputSchema'],
            // The group travels with the tool, so a client groups it as declared, whatever its name's prefix.
            _meta: { [GROUP_META]: d.group },
            annotations: {
              title: d.label,
              readOnlyHint: d.safety === 'read-only',
              destructiveHint: d.safety === 'write',
              idempotentHint: d.safety === 'read-only',
              openWorldHint: false,
            },
          }),
        ),
      ),
    };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const ctx = contextOf(options.credentials(extra.requestInfo?.headers ?? {}));
    const callId = request.params._meta?.[CALL_ID_META];
    const result = await registry.execute(
      request.params.name,
      request.params.arguments ?? {},
      ctx,
      { signal: extra.signal, approved: true, callId: typeof callId === 'string' ? callId : undefined },
      (error) => options.onUnexpected?.(error, ctx.traceId),
    );
    return { content: [{ type: 'text', text: JSON.stringify(result) }], isError: isToolFailure(result) };
  });
  return server;
}

/**
 * The context a call runs in. The ERP knows whose token it is and authorises every request; the role here gates
 * nothing the ERP would not refuse itself. Approval is the MCP client's duty (its human-in-the-loop ran first).
 */
function contextOf(caller: CallerCredentials): ToolContext {
  const traceId = caller.traceId && TRACE_ID.test(caller.traceId) ? caller.traceId : randomUUID();
  return { userId: 'mcp-caller', role: 'buyer', token: caller.token, projectId: caller.projectId, traceId };
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

export interface ErpMcpOptions {
  erp: ErpEndpoint;
  onUnexpected?: (error: unknown, traceId: string) => void;
}

/** The ERP tools' registry, as the ERP MCP server exposes them. */
export const erpToolRegistry = (erp: ErpEndpoint) => registerErpTools(new ToolRegistry(), erp);

/**
 * A registry's MCP server over streamable HTTP at `/mcp`, stateless: each request gets its own server and transport
 * (the SDK's rule for stateless transports), and carries the caller's credentials in its headers.
 */
export function createMcpApp(registry: ToolRegistry, options: Parameters<typeof createMcpServer>[1]): Hono {
  const app = new Hono();
  app.get('/health', (c) => c.json({ status: 'ok', tools: registry.list().length }));
  app.all('/mcp', async (c) => {
    const server = createMcpServer(registry, options);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    const response = await transport.handleRequest(c.req.raw);
    await server.close();
    return response;
  });
  return app;
}

/**
 * The ERP MCP server's HTTP app: every request carries the caller's bearer token, project and trace id, which go
 * on to the ERP with each call.
 */
export function createErpMcpApp(options: ErpMcpOptions): Hono {
  return createMcpApp(erpToolRegistry(options.erp), {
    name: 'procura-erp',
    credentials: credentialsFromHeaders,
    onUnexpected: options.onUnexpected,
  });
}

/** Runs the ERP MCP server over streamable HTTP. */
export async function startErpMcpServer(
  options: ErpMcpOptions & { host: string; port: number },
): Promise<RunningServer & { mcpUrl: string }> {
  const server = await listen(createErpMcpApp(options).fetch, options);
  return { ...server, mcpUrl: `${server.url}/mcp` };
}

/** Runs the ERP MCP server on stdin/stdout for one user, whose token comes from the process's configuration. */
export async function runErpMcpStdio(options: ErpMcpOptions & { credentials: CallerCredentials }): Promise<Server> {
  const server = createMcpServer(erpToolRegistry(options.erp), {
    name: 'procura-erp',
    credentials: () => ({ ...options.credentials, traceId: undefined }),
    onUnexpected: options.onUnexpected,
  });
  await server.connect(new StdioServerTransport());
  return server;
}
