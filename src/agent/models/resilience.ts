import { createMiddleware } from 'langchain';
import { findNamedError, sleep } from '../../shared/index.ts';

/** How one model call may fail and retry (settings `PROCURA_MODEL_*`). */
export interface ModelCallPolicy {
  /** Provider label used in messages (`deepseek`, `openai-compatible`, `offline`). */
  provider: string;
  /** Retries after the first attempt (`PROCURA_MODEL_RETRIES`, default 2). */
  retries: number;
  /** Until the answer starts, and the longest silence inside a streamed answer (`PROCURA_MODEL_TIMEOUT_MS`). */
  timeoutMs: number;
  /** Time one call may spend on failed attempts and waits; no retry starts past it (`PROCURA_MODEL_CALL_BUDGET_MS`). */
  budgetMs: number;
  /** Longest wait a `Retry-After` may ask for (`PROCURA_MODEL_RETRY_AFTER_MAX_MS`). */
  retryAfterMaxMs: number;
  /** Values never to show in a message (the API keys). */
  secrets: string[];
}

export type ModelFailureKind = 'rate_limited' | 'server_error' | 'timeout' | 'connection' | 'auth' | 'refused';

const KIND_TEXT: Record<ModelFailureKind, [string, string]> = {
  rate_limited: ['限流', 'rate limited'],
  server_error: ['服务端错误', 'server error'],
  timeout: ['超时无响应', 'timed out'],
  connection: ['无法连接', 'unreachable'],
  auth: ['密钥无效或无权限', 'key rejected'],
  refused: ['请求被拒绝', 'request refused'],
};

/** A model service that kept failing (or refused): says which provider, how, and after how many attempts. */
export class ModelServiceError extends Error {
  override name = 'ModelServiceError';
  constructor(
    readonly provider: string,
    readonly model: string,
    readonly kind: ModelFailureKind,
    readonly status: number | undefined,
    readonly attempts: number,
    /** What the provider said, with the keys taken out. */
    readonly detail: string,
  ) {
    const [zh, en] = KIND_TEXT[kind];
    const code = status ? `HTTP ${status} ` : '';
    super(
      `模型服务 ${provider}（${model}）出错：${code}${zh}，共尝试 ${attempts} 次 / model service ${provider} (${model}) failed: ${code}${en} after ${attempts} attempt${attempts === 1 ? '' : 's'}`,
    );
  }
}

/** The model-service failure inside an error (or inside the aggregate of a step's parallel failures), if any. */
export function modelServiceFailure(error: unknown): { message: string; detail: string } | undefined {
  const failure = findNamedError(error, 'ModelServiceError');
  return failure && { message: failure.message, detail: typeof failure.detail === 'string' ? failure.detail : '' };
}

interface ClassifiedFailure {
  kind: ModelFailureKind;
  status?: number;
  retryable: boolean;
  retryAfterMs?: number;
  message: string;
}

/** Sorts a provider error (OpenAI SDK errors as LangChain passes them on, fetch errors, our stall timeout). */
export function classifyModelError(error: unknown): ClassifiedFailure {
  // LangChain wraps an error that passes through another middleware in a MiddlewareError: the provider's own
  // error, with its status and headers, is its cause.
  const wrapped = error as { '~brand'?: string; cause?: unknown } | undefined;
  if (wrapped?.['~brand'] === 'MiddlewareError' && wrapped.cause) return classifyModelError(wrapped.cause);
  const e = (error ?? {}) as { status?: unknown; name?: string; message?: string; headers?: unknown; code?: string };
  const message = String(e.message ?? error);
  const status = typeof e.status === 'number' ? e.status : undefined;
  if (status === 429)
    return { kind: 'rate_limited', status, retryable: true, retryAfterMs: retryAfter(e.headers), message };
  if (status && status >= 500)
    return { kind: 'server_error', status, retryable: true, retryAfterMs: retryAfter(e.headers), message };
  if (status === 401 || status === 403) return { kind: 'auth', status, retryable: false, message };
  if (status === 408) return { kind: 'timeout', status, retryable: true, message };
  if (status) return { kind: 'refused', status, retryable: false, message };
  if (e.name === 'TimeoutError' || e.name === 'ModelStallError' || /timed? ?out/i.test(message))
    return { kind: 'timeout', retryable: true, message };
  if (/connection|ECONNREFUSED|ECONNRESET|fetch failed|socket|terminated|network/i.test(`${message} ${e.code ?? ''}`))
    return { kind: 'connection', retryable: true, message };
  return { kind: 'refused', retryable: false, message };
}

/** `Retry-After` (seconds or an HTTP date) or `retry-after-ms`, in ms. */
function retryAfter(headers: unknown): number | undefined {
  const get = (name: string) =>
    headers && typeof (headers as Headers).get === 'function'
      ? (headers as Headers).get(name)
      : ((headers as Record<string, string> | undefined)?.[name] ?? null);
  const ms = Number(get('retry-after-ms'));
  if (Number.isFinite(ms) && ms > 0) return ms;
  const raw = get('retry-after');
  if (!raw) return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** Takes the keys (and anything shaped like one) out of a provider's message. */
export function withoutSecrets(text: string, secrets: string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join('[redacted]');
  return out.replace(/\b(sk|key)-[A-Za-z0-9_*-]{6,}/g, '[redacted]').slice(0, 300);
}

/** Backoff before retry `n` (1-based): 1 s, 2 s, 4 s … */
function backoffMs(n: number): number {
  return 1000 * 2 ** (n - 1);
}

/**
 * Retries a failing model call (429, 5xx, timeouts, dropped connections) up to `retries` times within the call's
 * time budget, honouring `Retry-After` up to its bound, and tells the user about each retry as a `progress` step
 * (custom stream chunk `{type: 'model_retry'}`). Refusals (401, 400) and exhausted retries end the call with a
 * {@link ModelServiceError}; a cancelled run is never retried.
 */
export function createModelRetryMiddleware(policy: ModelCallPolicy) {
  return createMiddleware({
    name: 'ModelServiceRetryMiddleware',
    wrapModelCall: async (request, handler) => {
      const runtime = request.runtime as { writer?: (chunk: unknown) => void; signal?: AbortSignal };
      const model = modelName(request.model);
      const started = Date.now();
      const step = `model-retry:${crypto.randomUUID()}`;
      const tell = (status: 'running' | 'completed' | 'error', attempt: number, detail: string) =>
        runtime.writer?.({ type: 'model_retry', id: step, status, attempt, retries: policy.retries, detail });
      for (let attempt = 1; ; attempt++) {
        try {
          const result = await handler(request);
          if (attempt > 1) tell('completed', attempt - 1, '');
          return result;
        } catch (error) {
          if (runtime.signal?.aborted || (error as { name?: string })?.name === 'AbortError') throw error;
          if (modelServiceFailure(error)) throw error;
          const failure = classifyModelError(error);
          const fail = () => {
            const final = new ModelServiceError(
              policy.provider,
              model,
              failure.kind,
              failure.status,
              attempt,
              withoutSecrets(failure.message, policy.secrets),
            );
            if (attempt > 1) tell('error', attempt - 1, final.message);
            return final;
          };
          if (!failure.retryable || attempt > policy.retries) throw fail();
          const wait = Math.max(backoffMs(attempt), Math.min(failure.retryAfterMs ?? 0, policy.retryAfterMaxMs));
          if (Date.now() - started + wait >= policy.budgetMs) throw fail();
          tell(
            'running',
            attempt,
            withoutSecrets(`${failure.status ?? failure.kind}: ${failure.message}`, policy.secrets),
          );
          await sleep(wait, runtime.signal);
        }
      }
    },
  });
}

function modelName(model: unknown): string {
  const m = model as { model?: string; modelName?: string; bound?: { model?: string } } | undefined;
  return m?.model ?? m?.modelName ?? m?.bound?.model ?? 'model';
}

/** A streamed answer that went silent for longer than the timeout. */
export class ModelStallError extends Error {
  override name = 'ModelStallError';
  constructor(ms: number) {
    super(`no data from the model service for ${ms} ms`);
  }
}

/**
 * `fetch` for the model clients: the SDK's own timeout ends when the answer starts, so this one also ends a stream
 * that goes silent for `idleMs` between chunks.
 */
export function idleTimeoutFetch(idleMs: number): typeof fetch {
  return async (input, init) => {
    const controller = new AbortController();
    const outer = init?.signal;
    const forward = () => controller.abort(outer?.reason);
    // Every way the call ends takes the listener off: the caller's signal may outlive many calls.
    const unlink = () => outer?.removeEventListener('abort', forward);
    if (outer?.aborted) forward();
    else outer?.addEventListener('abort', forward, { once: true });
    let response: Response;
    try {
      response = await fetch(input, { ...init, signal: controller.signal });
    } catch (error) {
      unlink();
      throw error;
    }
    if (!response.body) {
      unlink();
      return response;
    }
    const reader = response.body.getReader();
    let timer: NodeJS.Timeout | undefined;
    const body = new ReadableStream<Uint8Array>({
      async pull(stream) {
        let stalled = false;
        timer = setTimeout(() => {
          stalled = true;
          controller.abort(new ModelStallError(idleMs));
        }, idleMs);
        try {
          const { value, done } = await reader.read();
          if (done) {
            unlink();
            stream.close();
          } else stream.enqueue(value);
        } catch (error) {
          unlink();
          stream.error(stalled ? new ModelStallError(idleMs) : error);
        } finally {
          clearTimeout(timer);
        }
      },
      cancel(reason) {
        clearTimeout(timer);
        unlink();
        return reader.cancel(reason);
      },
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
