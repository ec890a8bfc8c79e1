import { createParser } from 'eventsource-parser';

export interface SseEvent {
  id: number;
  event: string;
  // biome-ignore lint/suspicious/noExplicitAny: event payloads are asserted field by field
  data: any;
}

export interface SseResponse {
  status: number;
  headers: Headers;
  /** Problem body when the request was refused (no stream). */
  // biome-ignore lint/suspicious/noExplicitAny: problem bodies are asserted field by field
  problem?: any;
  events: AsyncGenerator<SseEvent>;
}

/** A real SSE client: fetch + eventsource-parser, yielding events as they arrive. */
export async function openSse(
  url: string,
  options: {
    method?: string;
    token?: string;
    body?: unknown;
    lastEventId?: number;
    signal?: AbortSignal;
    headers?: Record<string, string>;
  } = {},
): Promise<SseResponse> {
  const headers: Record<string, string> = { accept: 'text/event-stream', ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.lastEventId !== undefined) headers['last-event-id'] = String(options.lastEventId);
  const response = await fetch(url, {
    method: options.method ?? (options.body !== undefined ? 'POST' : 'GET'),
    headers,
    body: options.body !== undefined ? JSON.stringify(options.body) : undefined,
    signal: options.signal,
  });
  const isStream = (response.headers.get('content-type') ?? '').startsWith('text/event-stream');
  const problem = isStream ? undefined : await response.json().catch(() => undefined);
  return { status: response.status, headers: response.headers, problem, events: isStream ? read(response) : empty() };
}

async function* empty(): AsyncGenerator<SseEvent> {}

async function* read(response: Response): AsyncGenerator<SseEvent> {
  const queue: SseEvent[] = [];
  const parser = createParser({
    onEvent: (e) => queue.push({ id: Number(e.id), event: e.event ?? 'message', data: JSON.parse(e.data) }),
  });
  const decoder = new TextDecoder();
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
      while (queue.length) yield queue.shift() as SseEvent;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** Reads a stream to its end (the server closes it after `done`, `error` or `interrupt`). */
export async function collect(events: AsyncGenerator<SseEvent>, stopAfter?: (e: SseEvent) => boolean) {
  const all: SseEvent[] = [];
  for await (const e of events) {
    all.push(e);
    if (stopAfter?.(e)) break;
  }
  return all;
}

/** The answer text a run streamed: its `token` events, joined. */
export const answerText = (events: SseEvent[]) =>
  events
    .filter((e) => e.event === 'token')
    .map((e) => e.data.content)
    .join('');
