/**
 * Standing permissions ("always allow in this session"): what one approval covers later, the same in every client
 * (the browser and the terminal). A standing permission covers a later call only with the same tool, the same HTTP
 * method, the same path template and the same target resource — never a write to another resource.
 */

/** What an approval of one tool call allows from then on. */
export interface StandingScope {
  tool: string;
  /** For calls that name an HTTP request (`dynamic_http_call`): its method and path template, ids as `{id}`. */
  method?: string;
  path?: string;
  /** The resource the call writes to: the concrete path, the ids among its arguments, or the whole call. */
  target: string;
}

/** A path segment that names one resource rather than a kind: a number, a UUID, an order number, a long token. */
const ID_SEGMENT =
  /^(\d+|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[A-Z]{2,}-\d[\w-]*|[\w-]{24,})$/i;

/** Arguments that name the resource a tool acts on (`orderId`, `supplierId`, `sessionId`, …). */
const ID_ARGUMENT = /^(id|[a-z][A-Za-z]*Id|[a-z_]+_id)$/;

/** Canonical JSON (sorted keys), so the same arguments always read the same. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

/** The path without its query or fragment, dot segments and repeated slashes as the server would resolve them. */
function normalPath(raw: string): string {
  const path = raw.split(/[?#]/)[0];
  const segments: string[] = [];
  for (const segment of path.split('/')) {
    let decoded = segment;
    try {
      decoded = decodeURIComponent(segment);
    } catch {}
    if (!decoded || decoded === '.') continue;
    if (decoded === '..') segments.pop();
    else segments.push(decoded);
  }
  return `/${segments.join('/')}`;
}

/** The scope an approval of `tool` with `args` grants when the person chooses "always allow". */
export function standingScope(tool: string, args: Record<string, unknown> = {}): StandingScope {
  if (typeof args.path === 'string' && (typeof args.method === 'string' || args.method === undefined)) {
    const method = String(args.method ?? 'GET').toUpperCase();
    const path = normalPath(args.path);
    const template = path
      .split('/')
      .map((segment) => (ID_SEGMENT.test(segment) ? '{id}' : segment))
      .join('/');
    return { tool, method, path: template, target: path };
  }
  const ids = Object.keys(args)
    .filter((key) => ID_ARGUMENT.test(key) && ['string', 'number'].includes(typeof args[key]))
    .sort();
  // Without ids naming its target, a call is its own resource: only the identical call is covered.
  const target = ids.length ? ids.map((key) => `${key}=${args[key]}`).join('&') : canonical(args);
  return { tool, target };
}

/** Whether a standing permission covers this later call. */
export function coversCall(scope: StandingScope, tool: string, args: Record<string, unknown> = {}): boolean {
  const call = standingScope(tool, args);
  return (
    call.tool === scope.tool && call.method === scope.method && call.path === scope.path && call.target === scope.target
  );
}

/** The scope as a person reads it in a list of standing permissions; a supplier by its name when the ERP gave it. */
export function describeScope(scope: StandingScope, supplier?: string): string {
  if (scope.method) return `${scope.method} ${scope.target}`;
  if (supplier && /^supplierId=\d+$/.test(scope.target)) return `${scope.tool} · 供应商 / supplier: ${supplier}`;
  return scope.target.startsWith('{')
    ? `${scope.tool}（仅相同参数 / identical calls only）`
    : `${scope.tool} · ${scope.target}`;
}
