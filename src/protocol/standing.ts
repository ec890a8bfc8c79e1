import { formatYuan } from './format.ts';
import type { ApprovalDetails } from './human.ts';

/**
 * Standing permissions ("always allow in this session"): what one approval covers later, the same in every client
 * (the browser and the terminal). A standing permission covers a later call only with the same tool, the same HTTP
 * method, the same path template and the same target resource — never a write to another resource. An order write
 * is further held to what the person saw approved: its parts, and at most its amount.
 */

/** What an approval of one tool call allows from then on. */
export interface StandingScope {
  tool: string;
  /** For calls that name an HTTP request (`dynamic_http_call`): its method and path template, ids as `{id}`. */
  method?: string;
  path?: string;
  /** The resource the call writes to: the concrete path, the ids among its arguments, or the whole call. */
  target: string;
  /** For a write of order lines: the parts it may order (ids, sorted) and the most it may come to, in yuan — by
   *  default the amount of the approved call. */
  parts?: number[];
  maxAmount?: number;
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

/** The parts of a call's order lines, or undefined for a call that writes no lines. */
function orderedParts(args: Record<string, unknown>): number[] | undefined {
  if (!Array.isArray(args.lines)) return undefined;
  const ids = args.lines.map((line) => Number((line as { partId?: unknown } | null)?.partId));
  return [...new Set(ids)].sort((a, b) => a - b);
}

/**
 * What a call of order lines comes to: the ERP's preview of it when the card had one, else its lines at the prices
 * they name (the list price the card showed for a line that names none); undefined when a line's amount is unknown.
 */
function orderAmount(args: Record<string, unknown>, details?: ApprovalDetails): number | undefined {
  if (details?.preview && 'totalAmount' in details.preview) return details.preview.totalAmount;
  let total = 0;
  for (const line of args.lines as Array<{ partId?: unknown; quantity?: unknown; unitPrice?: unknown } | null>) {
    const listed = details?.lines?.find((l) => l.partId === Number(line?.partId))?.listPrice;
    const price = typeof line?.unitPrice === 'number' ? line.unitPrice : listed;
    if (typeof line?.quantity !== 'number' || typeof price !== 'number') return undefined;
    total += line.quantity * price;
  }
  return Math.round(total * 100) / 100;
}

/**
 * The scope an approval of `tool` with `args` grants when the person chooses "always allow", given what its card
 * showed (`details`). A write of order lines is scoped to its supplier, its parts and its amount; one whose parts or
 * amount cannot be told is scoped to the identical call.
 */
export function standingScope(
  tool: string,
  args: Record<string, unknown> = {},
  details?: ApprovalDetails,
): StandingScope {
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
  const parts = orderedParts(args);
  if (!parts) return { tool, target };
  const maxAmount = orderAmount(args, details);
  if (parts.some((id) => !Number.isInteger(id)) || maxAmount === undefined) return { tool, target: canonical(args) };
  return { tool, target, parts, maxAmount };
}

/** Whether a standing permission covers this later call, given what its card shows. */
export function coversCall(
  scope: StandingScope,
  tool: string,
  args: Record<string, unknown> = {},
  details?: ApprovalDetails,
): boolean {
  const call = standingScope(tool, args, details);
  const same =
    call.tool === scope.tool &&
    call.method === scope.method &&
    call.path === scope.path &&
    call.target === scope.target;
  if (!same || !scope.parts) return same;
  // Scoped to parts and an amount: every part among the approved ones, and no more than the approved amount.
  return (
    call.parts !== undefined &&
    call.maxAmount !== undefined &&
    scope.maxAmount !== undefined &&
    call.parts.every((id) => scope.parts!.includes(id)) &&
    call.maxAmount <= scope.maxAmount
  );
}

/** The scope as a person reads it in a list of standing permissions: the supplier and parts by the names the card
 *  showed, and the amount cap. */
export function describeScope(scope: StandingScope, details?: ApprovalDetails): string {
  if (scope.method) return `${scope.method} ${scope.target}`;
  const supplier = details?.supplier;
  const named = supplier && /^supplierId=\d+$/.test(scope.target) ? `供应商 / supplier: ${supplier}` : undefined;
  if (scope.parts && scope.maxAmount !== undefined) {
    const codes = scope.parts.map((id) => details?.lines?.find((l) => l.partId === id)?.code ?? `#${id}`);
    return [
      scope.tool,
      named ?? scope.target,
      `零件 / parts: ${codes.join(', ')}`,
      `不超过 / up to ${formatYuan(scope.maxAmount)}`,
    ].join(' · ');
  }
  if (named) return `${scope.tool} · ${named}`;
  return scope.target.startsWith('{')
    ? `${scope.tool}（仅相同参数 / identical calls only）`
    : `${scope.tool} · ${scope.target}`;
}
