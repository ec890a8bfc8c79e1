import { deadline, isTraceId } from '../../shared/index.ts';

/** Where the ERP is and how to reach it as one user. */
export interface ErpConnection {
  /** API base, e.g. `http://127.0.0.1:8080/api`. */
  baseUrl: string;
  /** The user's bearer token; without it the client refuses before any request is made. */
  token?: string;
  projectId?: string;
  traceId: string;
  /** A fetch to use instead of the network (e.g. an in-process ERP's handler). */
  fetch?: (request: Request) => Response | Promise<Response>;
  timeoutMs?: number;
}

export interface ErpRequest {
  query?: Record<string, unknown>;
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/**
 * A problem+json answer of the ERP. `status` lets the registry map it to the seed's guidance; an ERP that cannot be
 * reached, times out or answers 5xx is `unavailable` (an outage, never an empty result).
 */
export class ErpHttpError extends Error {
  readonly unavailable?: string;

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly traceId: string,
    readonly fieldErrors: Array<{ field: string; message: string }> = [],
  ) {
    super(message);
    this.name = 'ErpHttpError';
    if (status >= 500) this.unavailable = 'ERP';
  }
}

const DEFAULT_TIMEOUT_MS = 20_000;

/**
 * The URL of `path` under the API base, refusing anything that would leave it: absolute URLs, `//host`,
 * dot segments (also percent-encoded), backslashes and control characters.
 */
export function erpUrl(baseUrl: string, path: string): URL {
  if (!path.startsWith('/') || path.startsWith('//'))
    throw new RangeError('路径必须以单个 / 开头 / path must start with a single /');
  if (/\\|%(2e|2f|5c|00)/i.test(path) || [...path].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f))
    throw new RangeError('路径含非法字符 / path contains forbidden characters');
  if (path.split(/[/?#]/).some((segment) => segment === '..' || segment === '.'))
    throw new RangeError('路径不能包含 . 或 .. / path may not contain dot segments');
  const base = new URL(baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  const url = new URL(base.pathname.replace(/\/$/, '') + path, base);
  if (url.origin !== base.origin || !url.pathname.startsWith(base.pathname))
    throw new RangeError('路径超出 ERP 接口范围 / path leaves the ERP API');
  return url;
}

/** Query parameters from tool arguments: lists are comma-joined, empty values dropped. */
export function toQuery(args: Record<string, unknown> = {}): URLSearchParams {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(args)) {
    if (value === undefined || value === null || value === '') continue;
    params.set(
      key,
      Array.isArray(value) ? value.join(',') : typeof value === 'object' ? JSON.stringify(value) : `${value}`,
    );
  }
  return params;
}

/** One request to the ERP as the connection's user: bearer token, project and trace id on every call. */
export async function erpRequest<T>(
  connection: ErpConnection,
  method: string,
  path: string,
  request: ErpRequest = {},
): Promise<T> {
  return (await erpExchange<T>(connection, method, path, request)).body;
}

/**
 * An ERP answer with the `x-trace-id` the ERP gave that response (the one sent, when the ERP echoes none): what the
 * figures in it are traced back to.
 */
export interface ErpAnswer<T> {
  body: T;
  traceId: string;
  /** The ERP answered a retried write with the first write's result (`Idempotent-Replayed`). */
  replayed: boolean;
}

/** `erpRequest`, keeping the trace id of the ERP's response with its body. */
export async function erpExchange<T>(
  connection: ErpConnection,
  method: string,
  path: string,
  request: ErpRequest = {},
): Promise<ErpAnswer<T>> {
  if (!connection.token) {
    throw new ErpHttpError(
      401,
      'unauthorized',
      '缺少用户访问令牌，不能访问 ERP / no user token: the ERP is not called without one',
      connection.traceId,
    );
  }
  const url = erpUrl(connection.baseUrl, path);
  for (const [key, value] of toQuery(request.query)) url.searchParams.set(key, value);
  const headers: Record<string, string> = {
    accept: 'application/json',
    authorization: `Bearer ${connection.token}`,
    'x-trace-id': connection.traceId,
    ...request.headers,
  };
  if (connection.projectId) headers['x-project-id'] = connection.projectId;
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  const limit = deadline(connection.timeoutMs ?? DEFAULT_TIMEOUT_MS, request.signal);
  const httpRequest = new Request(url, {
    method,
    headers,
    body: request.body === undefined ? undefined : JSON.stringify(request.body),
    signal: limit.signal,
  });
  let text: string;
  let response: Response;
  try {
    response = await (connection.fetch ?? fetch)(httpRequest);
    text = await response.text();
  } catch (error) {
    // The caller's own abort (a stopped run) is not an outage.
    if (request.signal?.aborted) throw error;
    const why = limit.timedOut ? `no answer within ${connection.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms` : String(error);
    throw new ErpHttpError(
      503,
      'erp_unreachable',
      `ERP 无法访问 / the ERP cannot be reached (${method} ${path}: ${why}) (trace ${connection.traceId})`,
      connection.traceId,
    );
  } finally {
    limit.clear();
  }
  const data = text ? safeJson(text) : undefined;
  if (!response.ok) {
    const problem = (data ?? {}) as {
      code?: string;
      detail?: string;
      errors?: Array<{ field: string; message: string }>;
    };
    const fields = problem.errors ?? [];
    const detail = problem.detail ?? (text.slice(0, 200) || response.statusText);
    const listed = fields.length ? `: ${fields.map((f) => `${f.field} ${f.message}`).join('; ')}` : '';
    throw new ErpHttpError(
      response.status,
      problem.code ?? `http_${response.status}`,
      `ERP ${response.status} ${detail}${listed} (trace ${connection.traceId})`,
      connection.traceId,
      fields,
    );
  }
  const echoed = response.headers.get('x-trace-id');
  return {
    body: data as T,
    traceId: isTraceId(echoed) ? echoed : connection.traceId,
    replayed: response.headers.get('idempotent-replayed') === 'true',
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { detail: text.slice(0, 200) };
  }
}
