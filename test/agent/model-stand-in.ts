import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { untabulate } from '../../src/agent/tool-results.ts';

/** A chat-completions request as the provider receives it. */
export interface ChatRequest {
  model: string;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  messages: Array<{
    role: string;
    content?: unknown;
    tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
    tool_call_id?: string;
  }>;
  tools?: Array<{ type: string; function: { name: string } }>;
  /** Authorization header, so a test can check which key was sent. */
  authorization?: string;
}

/** What the stand-in answers to one request. */
export type Reply =
  | {
      text?: string;
      reasoning?: string;
      toolCalls?: Array<{ name: string; args: Record<string, unknown> }>;
      usage?: { input: number; output: number };
    }
  | { error: 429 | 500 | 503 | 401; retryAfter?: string; message?: string }
  /** `headers`: never answers; `body`: sends the first chunk, then goes silent. */
  | { stall: 'headers' | 'body' };

/** One scripted turn: the first unused turn whose `when` accepts the request answers it, `times` times (default 1). */
export interface Turn {
  when?: (req: ChatRequest) => boolean;
  reply: Reply | ((req: ChatRequest) => Reply | Promise<Reply>);
  times?: number;
}

/** Request predicates and readers for scripts. */
export const offers = (tool: string) => (req: ChatRequest) => (req.tools ?? []).some((t) => t.function.name === tool);

/** The parsed result of the latest call of `tool` in the conversation sent, if any. */
export function toolResult<T = Record<string, unknown>>(req: ChatRequest, tool: string): T | undefined {
  const ids = new Set(
    req.messages.flatMap((m) => (m.tool_calls ?? []).filter((c) => c.function.name === tool).map((c) => c.id)),
  );
  const message = [...req.messages].reverse().find((m) => m.role === 'tool' && ids.has(m.tool_call_id ?? ''));
  if (!message) return undefined;
  const text = typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
  try {
    // Large answers come with their lists as tables (keys once), read as the records they are.
    return untabulate(JSON.parse(text)) as T;
  } catch {
    return { text } as T;
  }
}

/** Whether the conversation sent already holds a result of `tool`. */
export const called = (req: ChatRequest, tool: string) => toolResult(req, tool) !== undefined;

const ARG_PIECE = 7;

/**
 * An OpenAI-compatible chat-completions server for tests, driven by a script of turns: SSE chunks as the provider
 * sends them (role chunk, content and `reasoning_content` deltas, tool-call deltas whose arguments are split across
 * chunks, parallel calls by index, finish reason, the usage chunk, `[DONE]`), non-streamed answers, and failures
 * (429 with `Retry-After`, 5xx, 401, no answer at all, a stream that stops mid-way).
 */
export class ModelStandIn {
  readonly requests: ChatRequest[] = [];
  /** Usage reported on each successful answer, in order. */
  readonly reported: Array<{ input: number; output: number }> = [];
  private turns: Array<Turn & { left: number }> = [];
  private server?: http.Server;
  private readonly sockets = new Set<import('node:net').Socket>();
  url = '';

  /** Replaces the script. */
  script(turns: Turn[]): this {
    this.turns = turns.map((t) => ({ ...t, left: t.times ?? 1 }));
    this.requests.length = 0;
    this.reported.length = 0;
    return this;
  }

  /** Turns not used up (a test can check its script ran through). */
  get unused(): number {
    return this.turns.filter((t) => t.left > 0 && Number.isFinite(t.left)).length;
  }

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      this.handle(req, res).catch((error) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: String(error), type: 'server_error' } }));
      });
    });
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
    return this;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ error: { message: `no route ${req.method} ${req.url}`, type: 'invalid_request_error' } }),
      );
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest;
    body.authorization = req.headers.authorization;
    this.requests.push(body);
    const turn = this.turns.find((t) => t.left > 0 && (!t.when || t.when(body)));
    if (!turn) {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ error: { message: 'no scripted turn matches this request', type: 'invalid_request_error' } }),
      );
      return;
    }
    turn.left -= 1;
    const reply = typeof turn.reply === 'function' ? await turn.reply(body) : turn.reply;
    if ('stall' in reply) {
      if (reply.stall === 'headers') return; // the socket stays open until the client gives up
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(sse(chunk(body, { role: 'assistant', content: '' })));
      return;
    }
    if ('error' in reply) {
      const type = { 429: 'rate_limit_exceeded', 401: 'invalid_api_key' }[reply.error as number] ?? 'server_error';
      res.writeHead(reply.error, {
        'content-type': 'application/json',
        ...(reply.retryAfter !== undefined ? { 'retry-after': reply.retryAfter } : {}),
      });
      res.end(JSON.stringify({ error: { message: reply.message ?? `stand-in ${type}`, type, code: type } }));
      return;
    }
    const usage = {
      prompt_tokens: reply.usage?.input ?? Math.ceil(JSON.stringify(body.messages).length / 4),
      completion_tokens:
        reply.usage?.output ??
        Math.ceil(((reply.text ?? '') + (reply.reasoning ?? '') + JSON.stringify(reply.toolCalls ?? [])).length / 4),
    };
    this.reported.push({ input: usage.prompt_tokens, output: usage.completion_tokens });
    // Call ids restart with each script, as some local model servers' ids repeat across conversations.
    const calls = (reply.toolCalls ?? []).map((c, index) => ({
      index,
      id: `call_${this.requests.length}_${index}`,
      name: c.name,
      args: JSON.stringify(c.args),
    }));
    const finish = calls.length ? 'tool_calls' : 'stop';
    if (!body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          ...envelope(body, 'chat.completion'),
          choices: [
            {
              index: 0,
              finish_reason: finish,
              message: {
                role: 'assistant',
                content: reply.text ?? null,
                ...(reply.reasoning ? { reasoning_content: reply.reasoning } : {}),
                ...(calls.length
                  ? {
                      tool_calls: calls.map((c) => ({
                        id: c.id,
                        type: 'function',
                        function: { name: c.name, arguments: c.args },
                      })),
                    }
                  : {}),
              },
            },
          ],
          usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
        }),
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const out: string[] = [sse(chunk(body, { role: 'assistant', content: '' }))];
    for (const piece of pieces(reply.reasoning ?? '', 5)) out.push(sse(chunk(body, { reasoning_content: piece })));
    for (const piece of pieces(reply.text ?? '', 4)) out.push(sse(chunk(body, { content: piece })));
    // Parallel calls: each call's header first, then the argument pieces of all calls interleaved.
    for (const c of calls) {
      out.push(
        sse(
          chunk(body, {
            tool_calls: [{ index: c.index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }],
          }),
        ),
      );
    }
    const split = calls.map((c) => pieces(c.args, ARG_PIECE));
    for (let i = 0; i < Math.max(0, ...split.map((s) => s.length)); i++) {
      for (const [n, c] of calls.entries()) {
        const piece = split[n][i];
        if (piece !== undefined)
          out.push(sse(chunk(body, { tool_calls: [{ index: c.index, function: { arguments: piece } }] })));
      }
    }
    out.push(sse(chunk(body, {}, finish)));
    if (body.stream_options?.include_usage) {
      out.push(
        sse({
          ...envelope(body, 'chat.completion.chunk'),
          choices: [],
          usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
        }),
      );
    }
    out.push('data: [DONE]\n\n');
    for (const piece of out) {
      res.write(piece);
      await new Promise((resolve) => setImmediate(resolve));
    }
    res.end();
  }
}

let completions = 0;
const completionIds = new WeakMap<ChatRequest, string>();

/** Each completion has its own id, as with a real provider (LangGraph merges messages that share one). */
function envelope(body: ChatRequest, object: string) {
  let id = completionIds.get(body);
  if (!id) {
    id = `chatcmpl-${++completions}`;
    completionIds.set(body, id);
  }
  return { id, object, created: Math.floor(Date.now() / 1000), model: body.model };
}

function chunk(body: ChatRequest, delta: Record<string, unknown>, finish: string | null = null) {
  return { ...envelope(body, 'chat.completion.chunk'), choices: [{ index: 0, delta, finish_reason: finish }] };
}

function sse(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}

function pieces(text: string, size: number): string[] {
  const chars = [...text];
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(''));
  return out;
}
