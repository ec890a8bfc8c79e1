import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  type CallToolRequest,
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  type Tool as McpTool,
} from '@modelcontextprotocol/sdk/types.js';
import { Hono } from 'hono';
import { z } from 'zod';
import { isJwt, MCP_SCOPE } from '../erp/index.ts';
import {
  ApiError,
  ChatClient,
  type ChatEvent,
  type ChoiceOption,
  FREE_TEXT_CHOICE,
  type FreeText,
  type HumanDecision,
  type InterruptData,
  NUMBER_FIELDS,
  type StreamResult,
} from '../protocol/index.ts';
import { listen, ProblemError, type RunningServer } from '../shared/index.ts';
import { AccessTokenCheck } from './access-tokens.ts';
import {
  credentialsFromHeaders,
  guardMcpEndpoint,
  hostsFor,
  type McpGuardOptions,
  RpcError,
  resourceOfRequest,
  rpcError,
} from './server.ts';

/** How long a person has to answer an approval asked through the client (the SDK's default is one minute). */
const ELICITATION_TIMEOUT_MS = 15 * 60_000;

const RequestInput = z.strictObject({
  request: z.string().trim().min(1).max(2000).describe('用户的请求，原话 / the request in the user’s words'),
});

/** A chart image the report embeds: its title and address. */
const ChartSchema = z.object({ title: z.string(), url: z.string() });

const AnalysisOutput = z.object({
  sessionId: z.string(),
  summary: z.string(),
  report: z.object({ path: z.string(), url: z.string() }).nullable(),
  charts: z.array(ChartSchema),
});

const OrderOutput = z.object({
  sessionId: z.string(),
  summary: z.string(),
  /** `approved`: the user approved through the client; `rejected`: they declined, or could not be asked. */
  decision: z.enum(['approved', 'rejected', 'none']),
  /** Order numbers the run's answer names (the ones it wrote). */
  orders: z.array(z.string()),
});

/** What the SDK hands a request handler besides the request (its id, its abort signal, …). */
type CallExtra = Parameters<Parameters<Server['setRequestHandler']>[1]>[1];

interface AgentTool {
  name: 'supplier_analysis' | 'order_draft';
  title: string;
  description: string;
  output: z.ZodObject;
}

/** The agent's two flows as tools: each a thin entry onto one chat API run. */
const AGENT_TOOLS: readonly AgentTool[] = [
  {
    name: 'supplier_analysis',
    title: '供应商比价分析 / supplier analysis',
    description:
      'Procura 的采购分析员比较一个品类的供应商（ERP 目录价、官网报价、历史成交价），返回摘要、Markdown 报告和图表。' +
      ' / Procura’s analyst compares the suppliers of a part (ERP list prices, web quotes, past order prices) and ' +
      'returns a summary, the Markdown report and its charts. Reads only.',
    output: AnalysisOutput,
  },
  {
    name: 'order_draft',
    title: '起草采购订单 / order draft',
    description:
      'Procura 按请求起草采购订单；写入 ERP 之前通过本客户端询问用户是否批准，拒绝或无法询问时不写入。' +
      ' / Procura drafts a purchase order from the request. Before anything is written to the ERP it asks this ' +
      'client’s user to approve (MCP elicitation); declined, cancelled, or a client that cannot ask: nothing is written.',
    output: OrderOutput,
  },
];

/** What a run streamed: its answer and the interrupt it stopped at. */
interface RunTrace {
  sessionId?: string;
  answer: string;
  interrupt?: InterruptData;
  error?: string;
}

const orderNumbersIn = (text: string) => [...new Set(text.match(/PO-\d{6}-[A-Za-z0-9]+/g) ?? [])];

const money = (n: number) => `¥${n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

/** The `_meta` key of an approval's elicitation holding the order as separate fields ({@link ApprovalFields}). */
export const APPROVAL_META = 'procura/approval';

/** Longest text a requester wrote (the note) shown in an approval, in characters. */
const FREE_TEXT_MAX = 300;
/** Longest name or reason from the ERP shown in an approval, in characters. */
const NAME_MAX = 120;

/**
 * Text as one line of at most `max` characters: line and paragraph breaks, control and format characters (bidi
 * overrides, zero-width) become spaces, so it cannot start a line of its own in a prompt.
 */
export function oneLine(text: string, max: number): string {
  const flat = text
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const chars = [...flat];
  return chars.length > max ? `${chars.slice(0, max).join('')}…` : flat;
}

/** What an approval would write, field by field, from the interrupt's arguments and the ERP's own preview. */
export interface ApprovalFields {
  action: string;
  supplier: string | null;
  lines: Array<{ part: string; quantity: number | null; unit: string; listPrice: number | null }>;
  /** The ERP preview's total, or null when the ERP would refuse the order (`refused`) or gave no preview. */
  total: number | null;
  policy: string | null;
  refused: string | null;
  /** Text the requester wrote (the order's note), as one bounded line. */
  note: string | null;
}

/** The approval's fields: names from the ERP, each on one bounded line; the note as the requester's text. */
export function approvalFields(interrupt: Extract<InterruptData, { kind: 'approval' }>): ApprovalFields {
  const { details, args } = interrupt;
  const lines = Array.isArray(args.lines) ? (args.lines as Array<{ partId?: number; quantity?: number }>) : [];
  const preview = details?.preview;
  return {
    action: oneLine(interrupt.label || interrupt.tool, NAME_MAX),
    supplier: details?.supplier ? oneLine(details.supplier, NAME_MAX) : null,
    lines: lines.map((l) => {
      const part = details?.lines?.find((d) => d.partId === l.partId);
      return {
        part: oneLine(part ? `${part.code} ${part.name}` : `part ${l.partId}`, NAME_MAX),
        quantity: typeof l.quantity === 'number' ? l.quantity : null,
        unit: oneLine(part?.unit ?? '', 10),
        listPrice: part?.listPrice ?? null,
      };
    }),
    total: preview && 'totalAmount' in preview ? preview.totalAmount : null,
    policy: preview && 'approval' in preview ? oneLine(preview.approval.reason, NAME_MAX) : null,
    refused: preview && 'refused' in preview ? oneLine(preview.refused, NAME_MAX) : null,
    // Its own corner brackets would close the quote it is shown in.
    note:
      typeof args.note === 'string' && args.note.trim()
        ? oneLine(args.note, FREE_TEXT_MAX).replace(/[「」]/g, '"')
        : null,
  };
}

/**
 * An approval as the client's user reads it in the elicitation: one line per field of {@link approvalFields}, then
 * the requester's own text last, quoted and labelled as theirs, so it cannot add a line that reads as a field.
 */
export function approvalMessage(fields: ApprovalFields): string {
  return [
    `Procura 请求批准 / Procura asks for approval: ${fields.action}`,
    ...(fields.supplier ? [`供应商 / supplier: ${fields.supplier}`] : []),
    ...fields.lines.map(
      (l, i) =>
        `${i + 1}. ${l.part} × ${l.quantity ?? '?'}${l.unit}${l.listPrice === null ? '' : ` @ ${money(l.listPrice)}`}`,
    ),
    ...(fields.total === null ? [] : [`合计 / total: ${money(fields.total)}`]),
    ...(fields.policy ? [`审批策略 / approval policy: ${fields.policy}`] : []),
    ...(fields.refused ? [`ERP 将拒绝 / the ERP would refuse: ${fields.refused}`] : []),
    ...(fields.note
      ? [
          `备注（申请人填写的文字，非 Procura 核对的数据）/ note (the requester’s own text, not checked by Procura): 「${fields.note}」`,
        ]
      : []),
  ].join('\n');
}

/** Markdown images of a report: its charts. */
const chartsIn = (markdown: string) =>
  [...markdown.matchAll(/!\[([^\]]*)\]\(([^)\s]+)[^)]*\)/g)].map(([, title, url]) => ({ title, url }));

/**
 * Procura's agent as an MCP server over the chat API, acting as the user whose token it holds: each tool call is
 * one run. A run that stops for a person's decision asks the calling client's user through elicitation; an order
 * is approved only by their explicit "approve" — a client without elicitation, a decline or a cancel rejects it.
 */
export function createAgentMcpServer(
  client: ChatClient,
  options: { name?: string /** Counts the tool calls in flight. */; calls?: { running: number } } = {},
): Server {
  const server = new Server(
    { name: options.name ?? 'procura-agent', version: '1.0.0' },
    { capabilities: { tools: { listChanged: false } } },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: AGENT_TOOLS.map(
      (t): McpTool => ({
        name: t.name,
        title: t.title,
        description: t.description,
        inputSchema: z.toJSONSchema(RequestInput) as McpTool['inputSchema'],
        outputSchema: z.toJSONSchema(t.output, { io: 'output' }) as NonNullable<McpTool['outputSchema']>,
        annotations: {
          title: t.title,
          readOnlyHint: t.name === 'supplier_analysis',
          destructiveHint: false,
          idempotentHint: false,
          openWorldHint: true,
        },
      }),
    ),
  }));

  const callTool = async (request: CallToolRequest, extra: CallExtra): Promise<CallToolResult> => {
    const tool = AGENT_TOOLS.find((t) => t.name === request.params.name);
    if (!tool) {
      throw new RpcError(
        ErrorCode.InvalidParams,
        `未知工具 ${request.params.name} / unknown tool ${request.params.name}`,
      );
    }
    const parsed = RequestInput.safeParse(request.params.arguments ?? {});
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => ({ field: i.path.join('.') || '(arguments)', message: i.message }));
      throw new RpcError(
        ErrorCode.InvalidParams,
        `${tool.name} 参数无效 / invalid arguments: ${issues.map((i) => `${i.field}: ${i.message}`).join('; ')}`,
        { issues },
      );
    }
    const trace: RunTrace = { answer: '' };
    const onEvent = (event: ChatEvent) => {
      const data = event.data as Record<string, unknown>;
      if (typeof data.session_id === 'string') trace.sessionId ??= data.session_id;
      if (event.event === 'token') trace.answer += String(data.content ?? '');
      if (event.event === 'interrupt') trace.interrupt = event.data as InterruptData;
      if (event.event === 'error') trace.error = String(data.message ?? 'error');
    };
    /** What the client's user decided on the interrupt; undefined: nothing was decided (the run is cancelled). */
    const decide = async (interrupt: InterruptData): Promise<HumanDecision | undefined> => {
      const canAsk = Boolean(server.getClientCapabilities()?.elicitation);
      if (interrupt.kind !== 'approval') {
        if (!canAsk) return undefined;
        // One text field per asked field; the options are listed, and a text that names one picks it.
        const fields = interrupt.kind === 'order_info' ? interrupt.fields : ['answer'];
        const optionsOf = (field: string) =>
          (interrupt.kind === 'ask_user' ? interrupt.options : interrupt.options?.[field]) ?? [];
        // A field with options takes a typed answer too (an ask_user question only when it says so): the person is
        // told, last, as the browser's card shows it.
        const typedToo = (field: string) =>
          interrupt.kind === 'ask_user' ? interrupt.free_text === true : optionsOf(field).length > 0;
        const asked = await server.elicitInput(
          {
            mode: 'form',
            message:
              interrupt.kind === 'ask_user'
                ? interrupt.question
                : (interrupt.question ?? interrupt.reason ?? interrupt.fields.join(', ')),
            requestedSchema: {
              type: 'object',
              properties: Object.fromEntries(
                fields.map((field) => [
                  field,
                  {
                    type: 'string',
                    title: field === 'answer' ? '回答 / answer' : field,
                    ...(optionsOf(field).length
                      ? {
                          description: [
                            ...optionsOf(field).map((o) => o.label),
                            ...(typedToo(field) ? [FREE_TEXT_CHOICE.label] : []),
                          ].join(' | '),
                        }
                      : {}),
                  },
                ]),
              ),
              required: fields.filter((f) => f !== 'note'),
            },
          },
          { relatedRequestId: extra.requestId, signal: extra.signal, timeout: ELICITATION_TIMEOUT_MS },
        );
        if (asked.action !== 'accept') return undefined;
        const text = (field: string) => {
          const value = asked.content?.[field];
          return typeof value === 'string' ? value.trim() : '';
        };
        if (interrupt.kind === 'ask_user') {
          const answer = text('answer');
          return answer
            ? { type: 'answer', answer: fromTyped(answer, interrupt.options, typedToo('answer')) }
            : undefined;
        }
        const answer: Record<string, unknown> = {};
        for (const field of fields) {
          const typed = text(field);
          if (!typed) continue;
          answer[field] =
            NUMBER_FIELDS.includes(field) && Number(typed) > 0
              ? Number(typed)
              : fromTyped(typed, optionsOf(field), typedToo(field));
        }
        return { type: 'answer', answer };
      }
      if (!canAsk) return { type: 'reject', reason: '调用方无法询问其用户 / the calling client cannot ask its user' };
      const fields = approvalFields(interrupt);
      const asked = await server.elicitInput(
        {
          mode: 'form',
          message: approvalMessage(fields),
          // The same facts as separate fields, for a client that shows them as such.
          _meta: { [APPROVAL_META]: fields },
          requestedSchema: {
            type: 'object',
            properties: {
              decision: {
                type: 'string',
                title: '决定 / decision',
                oneOf: [
                  { const: 'approve', title: '批准 / approve' },
                  { const: 'reject', title: '拒绝 / reject' },
                ],
              },
              reason: { type: 'string', title: '拒绝原因（可空）/ reason (optional)' },
            },
            required: ['decision'],
          },
        },
        { relatedRequestId: extra.requestId, signal: extra.signal, timeout: ELICITATION_TIMEOUT_MS },
      );
      if (asked.action === 'accept' && asked.content?.decision === 'approve') return { type: 'approve' };
      const reason = asked.action === 'accept' ? asked.content?.reason : undefined;
      return {
        type: 'reject',
        reason:
          typeof reason === 'string' && reason.trim()
            ? reason.trim().slice(0, 1000)
            : `用户未批准 / not approved by the user (${asked.action})`,
      };
    };

    let decision: OrderOutputType['decision'] = 'none';
    try {
      let run: StreamResult = await client.start(parsed.data.request, undefined, onEvent, extra.signal);
      while (run.end === 'interrupt' && trace.interrupt && trace.sessionId) {
        const interrupt = trace.interrupt;
        trace.interrupt = undefined;
        const answer = await decide(interrupt);
        if (!answer) {
          await client.cancel(trace.sessionId);
          return failure(`未作回答，已停止 / not answered, stopped: ${approvalOrQuestion(interrupt)}`);
        }
        if (interrupt.kind === 'approval') decision = answer.type === 'approve' ? 'approved' : 'rejected';
        run = await client.resume(trace.sessionId, interrupt.interrupt_id, answer, onEvent, extra.signal);
      }
      if (run.end !== 'done' || trace.error) {
        return failure(`运行未完成 / the run did not finish (${run.end}): ${trace.error ?? trace.answer.slice(-500)}`);
      }
    } catch (error) {
      if (error instanceof ApiError) return failure(`${error.status}: ${error.message}`);
      throw error;
    }
    const sessionId = trace.sessionId ?? '';
    if (tool.name === 'order_draft') {
      const result: OrderOutputType = {
        sessionId,
        summary: trace.answer,
        decision,
        orders: decision === 'approved' ? orderNumbersIn(trace.answer) : [],
      };
      return { content: [{ type: 'text', text: trace.answer }], structuredContent: result };
    }
    return analysisResult(client, sessionId, trace.answer);
  };
  const calls = options.calls ?? { running: 0 };
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    calls.running++;
    try {
      return await callTool(request, extra);
    } finally {
      calls.running--;
    }
  });
  return server;
}

type OrderOutputType = z.infer<typeof OrderOutput>;

/** A text typed for a question: the option it names (by value or label), else a typed answer where one is taken. */
function fromTyped(text: string, options: ChoiceOption[], freeText: boolean): string | FreeText {
  const same = (a: string) => a.trim().toLowerCase() === text.toLowerCase();
  const option = options.find((o) => same(o.value) || same(o.label));
  if (option) return option.value;
  return freeText ? { free_text: text.slice(0, FREE_TEXT_CHOICE.maxLength) } : text;
}

const approvalOrQuestion = (interrupt: InterruptData) =>
  interrupt.kind === 'approval' ? interrupt.label : interrupt.kind === 'ask_user' ? interrupt.question : interrupt.kind;

const failure = (text: string): CallToolResult => ({ content: [{ type: 'text', text }], isError: true });

/** An analysis's result: the summary, the report the run wrote (embedded), and its charts as links. */
async function analysisResult(client: ChatClient, sessionId: string, summary: string): Promise<CallToolResult> {
  const session = await client.session(sessionId);
  const reportPath = session.files
    .map((f) => f.path)
    .filter((p) => /^\/analysis\/.+\.md$/.test(p))
    .sort()
    .at(-1);
  const markdown = reportPath ? await client.fileText(sessionId, reportPath) : '';
  const report = reportPath ? { path: reportPath, url: client.fileUrl(sessionId, reportPath) } : null;
  const charts = chartsIn(markdown);
  const result: z.infer<typeof AnalysisOutput> = { sessionId, summary, report, charts };
  return {
    content: [
      { type: 'text', text: summary },
      ...(report
        ? [{ type: 'resource' as const, resource: { uri: report.url, mimeType: 'text/markdown', text: markdown } }]
        : []),
      ...charts.map((c) => ({
        type: 'resource_link' as const,
        uri: c.url,
        name: c.title || 'chart',
        mimeType: 'image/png',
      })),
    ],
    structuredContent: result,
  };
}

/** Runs the agent MCP server on stdin/stdout for the user whose token the process was given. */
export async function runAgentMcpStdio(options: { apiUrl: string; token: string }): Promise<Server> {
  const server = createAgentMcpServer(new ChatClient(options.apiUrl, options.token));
  await server.connect(new StdioServerTransport());
  return server;
}

export type AgentMcpHttpOptions = McpGuardOptions & AgentSessionLimits & { apiUrl: string };

/** A session that neither got a request nor had a call running for this long is closed (a client gone without DELETE). */
const SESSION_IDLE_MS = 10 * 60_000;
/** Sessions one token holds at once. */
const SESSIONS_PER_TOKEN = 10;

/** How many sessions a token may hold and how long one may stay idle (settings; the defaults above). */
export interface AgentSessionLimits {
  sessionIdleMs?: number;
  sessionsPerToken?: number;
}

interface AgentSession {
  transport: WebStandardStreamableHTTPServerTransport;
  owner: Buffer;
  lastSeen: number;
  /** Tool calls in flight (one may wait minutes for the user's approval): the session is not idle meanwhile. */
  calls: { running: number };
  idleTimer?: NodeJS.Timeout;
}

/**
 * The HTTP sessions of the agent MCP server, bounded: each closes once idle for `sessionIdleMs`, and a token holds at
 * most `sessionsPerToken`. A token's next session closes its least recently used idle one; when every one has a call
 * running, the new one is refused (429) rather than ending a call someone may be answering.
 */
class AgentSessions {
  private readonly sessions = new Map<string, AgentSession>();
  private readonly idleMs: number;
  private readonly perToken: number;

  constructor(limits: AgentSessionLimits) {
    this.idleMs = limits.sessionIdleMs ?? SESSION_IDLE_MS;
    this.perToken = limits.sessionsPerToken ?? SESSIONS_PER_TOKEN;
  }

  get(id: string): AgentSession | undefined {
    const session = this.sessions.get(id);
    if (session) this.touch(id, session);
    return session;
  }

  add(id: string, session: AgentSession): void {
    this.sessions.set(id, session);
    this.touch(id, session);
  }

  delete(id: string): void {
    clearTimeout(this.sessions.get(id)?.idleTimer);
    this.sessions.delete(id);
  }

  /**
   * Room for one more session of `owner`: its least recently used idle session is closed when it holds the most
   * allowed. False when all of them have calls running.
   */
  async makeRoom(owner: Buffer): Promise<boolean> {
    const own = [...this.sessions].filter(([, s]) => s.owner.equals(owner));
    if (own.length < this.perToken) return true;
    const idle = own.filter(([, s]) => s.calls.running === 0).sort(([, a], [, b]) => a.lastSeen - b.lastSeen);
    if (idle.length <= own.length - this.perToken) return false;
    for (const [id] of idle.slice(0, own.length - this.perToken + 1)) await this.close(id);
    return true;
  }

  get limit(): number {
    return this.perToken;
  }

  /** The session was used now: it closes `idleMs` from now, unless a call is still running then. */
  private touch(id: string, session: AgentSession): void {
    session.lastSeen = Date.now();
    clearTimeout(session.idleTimer);
    session.idleTimer = setTimeout(() => {
      if (session.calls.running > 0) this.touch(id, session);
      else void this.close(id);
    }, this.idleMs);
    session.idleTimer.unref();
  }

  private async close(id: string): Promise<void> {
    const session = this.sessions.get(id);
    this.delete(id);
    await session?.transport.close().catch(() => undefined);
  }
}

/** How long the chat API's acceptance of a token stands before a request asks it again (a revoked user's end). */
const TOKEN_CHECK_MS = 4_000;

const digest = (token: string) => createHash('sha256').update(token).digest();

/**
 * The agent MCP server over streamable HTTP at `/mcp`. Stateful: an elicitation is the server's request to the
 * client in the middle of a call, so each client has a session (its transport and server) whose answers reach the
 * call that waits for them. A session belongs to the bearer token that opened it; every later request must carry the
 * same token. Every request's token must be one the chat API takes, asked again once {@link TOKEN_CHECK_MS} has
 * passed, so a revoked user's session ends too; an OAuth access token must also be one of the configured
 * authorization servers for this server's resource (not the ERP MCP server's, say). A request without a token, or
 * with one refused, answers 401 with `WWW-Authenticate`.
 */
export function createAgentMcpApp(options: AgentMcpHttpOptions): Hono {
  const app = new Hono();
  const { challenge } = guardMcpEndpoint(app, {
    scopes: options.authorizationServers?.length ? [MCP_SCOPE] : undefined,
    ...options,
  });
  const accessTokens = new AccessTokenCheck(options.authorizationServers ?? []);
  /** Token digest → until when the chat API's last acceptance of it stands. */
  const accepted = new Map<string, number>();
  /** Throws a 401 (ProblemError or ApiError) for a token this server does not take. */
  const checkToken = async (token: string, request: Request) => {
    if (isJwt(token)) await accessTokens.verify(token, resourceOfRequest(options.resourceUrl, request));
    const key = digest(token).toString('hex');
    if ((accepted.get(key) ?? 0) > Date.now()) return;
    await new ChatClient(options.apiUrl, token).me();
    if (accepted.size > 10_000) accepted.clear();
    accepted.set(key, Date.now() + TOKEN_CHECK_MS);
  };
  const sessions = new AgentSessions(options);
  app.all('/mcp', async (c) => {
    const token = credentialsFromHeaders(Object.fromEntries(c.req.raw.headers)).token;
    if (!token)
      return rpcError(401, -32001, '需要登录：缺少访问令牌 / sign-in required: no access token', challenge(c));
    try {
      await checkToken(token, c.req.raw);
    } catch (error) {
      if ((error instanceof ProblemError || error instanceof ApiError) && error.status === 401) {
        return rpcError(401, -32001, '访问令牌无效或已过期 / invalid or expired token', challenge(c, 'invalid_token'));
      }
      if (error instanceof ProblemError) return rpcError(error.status, -32000, error.message);
      throw error;
    }
    const sessionId = c.req.header('mcp-session-id');
    if (sessionId) {
      const session = sessions.get(sessionId);
      if (!session) return rpcError(404, -32001, `会话不存在 / no session ${sessionId}`);
      if (!timingSafeEqual(session.owner, digest(token))) {
        return rpcError(403, -32000, '这个会话属于另一个令牌 / this session belongs to another token');
      }
      return session.transport.handleRequest(c.req.raw);
    }
    if (c.req.method !== 'POST') return rpcError(400, -32000, '缺少会话 / no session: initialize first');
    const client = new ChatClient(options.apiUrl, token);
    if (!(await sessions.makeRoom(digest(token)))) {
      return rpcError(
        429,
        -32000,
        `这个令牌已有 ${sessions.limit} 个会话且都在处理调用：请先关闭一个（DELETE）/ this token holds ${sessions.limit} sessions, each with a call running: close one (DELETE) first`,
      );
    }
    const calls = { running: 0 };
    const server = createAgentMcpServer(client, { name: options.name, calls });
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => {
        sessions.add(id, { transport, owner: digest(token), lastSeen: Date.now(), calls });
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    return transport.handleRequest(c.req.raw);
  });
  return app;
}

/** Runs the agent MCP server over streamable HTTP. */
export async function startAgentMcpServer(
  options: Omit<AgentMcpHttpOptions, 'name'> & { host: string; port: number },
): Promise<RunningServer & { mcpUrl: string }> {
  const allowedHosts = options.allowedHosts ?? hostsFor(options.host);
  const server = await listen(createAgentMcpApp({ ...options, name: 'procura-agent', allowedHosts }).fetch, options);
  return { ...server, mcpUrl: `${server.url}/mcp` };
}
