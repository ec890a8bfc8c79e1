import type { Agent } from 'undici';
import { deadline } from '../../shared/index.ts';
import { ToolError } from '../registry.ts';
import type { UrlGuard } from './guard.ts';

export interface HttpLimits {
  maxRedirects: number;
  maxBytes: number;
  timeoutMs: number;
}

export interface HttpPage {
  status: number;
  finalUrl: string;
  contentType: string;
  headers: Headers;
  body: string;
  /** The body was longer than `maxBytes` and was cut. */
  truncatedBytes: boolean;
}

/** Polite identification for the first, plain attempt. */
export const PLAIN_HEADERS: Record<string, string> = {
  'user-agent': 'Procura/0.1 (procurement price research)',
  accept: 'text/html,application/xhtml+xml,application/json;q=0.9,*/*;q=0.5',
};

/** What a desktop browser sends; the second attempt, for sites that refuse non-browser clients. */
export const BROWSER_HEADERS: Record<string, string> = {
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
  accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8',
  'accept-language': 'zh-CN,zh;q=0.9,en;q=0.8',
  'upgrade-insecure-requests': '1',
};

/**
 * GET through the SSRF guard: every hop is checked before it is requested, connections re-check DNS, and
 * redirects, bytes and time are capped.
 */
export class GuardedHttp {
  /** undici and its connection pool, on the first request: a process that never fetches a page never loads them. */
  private client?: Promise<{ agent: Agent; fetch: typeof import('undici').fetch }>;

  constructor(
    private readonly guard: UrlGuard,
    private readonly limits: HttpLimits,
  ) {}

  private connect() {
    // `default` is undici's CommonJS exports, both from Node and from the CLI's bundle (which gives a CommonJS
    // package imported on demand no named exports).
    this.client ??= import('undici').then(({ default: { Agent, fetch } }) => ({
      agent: new Agent({ connect: { lookup: this.guard.connectLookup }, keepAliveTimeout: 10_000 }),
      fetch,
    }));
    return this.client;
  }

  async get(url: string, headers: Record<string, string>, signal?: AbortSignal): Promise<HttpPage> {
    const { agent, fetch } = await this.connect();
    const limit = deadline(this.limits.timeoutMs, signal);
    const combined = limit.signal;
    let current = url;
    try {
      for (let hop = 0; ; hop++) {
        const checked = await this.guard.check(current);
        const response = await fetch(checked.url, {
          headers,
          redirect: 'manual',
          signal: combined,
          dispatcher: agent,
        });
        const location = response.headers.get('location');
        if (response.status >= 300 && response.status < 400 && location) {
          await response.body?.cancel();
          if (hop >= this.limits.maxRedirects)
            throw new ToolError(
              `重定向次数超过 ${this.limits.maxRedirects} 次 / more than ${this.limits.maxRedirects} redirects`,
              '换一个直接的网址 / use a more direct URL',
            );
          current = new URL(location, checked.url).toString();
          continue;
        }
        const { text, truncated } = await readCapped(response.body, this.limits.maxBytes);
        return {
          status: response.status,
          finalUrl: checked.url.toString(),
          contentType: response.headers.get('content-type') ?? '',
          headers: response.headers as unknown as Headers,
          body: text,
          truncatedBytes: truncated,
        };
      }
    } catch (error) {
      if (limit.timedOut)
        throw new ToolError(
          `请求超时（${this.limits.timeoutMs} ms）/ request timed out after ${this.limits.timeoutMs} ms: ${current}`,
          '稍后重试或换一个来源 / retry later or use another source',
        );
      if (error instanceof ToolError || signal?.aborted) throw error;
      const cause = (error as { cause?: unknown }).cause;
      if (cause instanceof ToolError) throw cause;
      throw new ToolError(
        `无法访问 ${current} / cannot reach ${current}: ${(cause as Error)?.message ?? (error as Error).message}`,
        '检查网址，或稍后重试 / check the URL or retry later',
      );
    } finally {
      limit.clear();
    }
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client) await (await client).agent.close();
  }
}

async function readCapped(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
): Promise<{ text: string; truncated: boolean }> {
  if (!body) return { text: '', truncated: false };
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.byteLength > maxBytes) {
      chunks.push(value.subarray(0, maxBytes - size));
      truncated = true;
      await reader.cancel();
      break;
    }
    chunks.push(value);
    size += value.byteLength;
  }
  return { text: new TextDecoder().decode(Buffer.concat(chunks)), truncated };
}
