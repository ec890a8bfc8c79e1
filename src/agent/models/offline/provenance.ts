import { cite, type Source } from '../../../protocol/index.ts';
import type { ToolStep } from './conversation.ts';

/** A record's figures and where each comes from: field → the ids of its sources (one, or several for a figure
 *  computed from others). Every number of an analysis result sits in a record with such a map. */
export type From = Record<string, string | string[]>;

/**
 * The sources an analysis cites, numbered in order of first use: each ERP tool call gets an `E` id (the tool, its
 * arguments and the ERP's trace id from its answer), each supplier page a `W` id (its address and when it was read).
 */
export class SourceBook {
  private readonly byStep = new Map<string, Source>();
  private erpCount = 0;
  private webCount = 0;

  /** The id of an ERP tool call's answer. */
  erp(step: ToolStep): string {
    const known = this.byStep.get(step.id);
    if (known) return known.id;
    const traceId = (step.result as { traceId?: unknown } | undefined)?.traceId;
    const source: Source = {
      id: `E${++this.erpCount}`,
      kind: 'erp',
      tool: step.name,
      args: step.args,
      traceId: typeof traceId === 'string' ? traceId : null,
    };
    this.byStep.set(step.id, source);
    return source.id;
  }

  /** The id of a page `fetch_url` read. */
  web(step: ToolStep): string {
    const known = this.byStep.get(step.id);
    if (known) return known.id;
    const page = step.result as { url?: unknown; fetchedAt?: unknown } | undefined;
    const source: Source = {
      id: `W${++this.webCount}`,
      kind: 'web',
      url: typeof page?.url === 'string' ? page.url : String(step.args.url),
      fetchedAt: typeof page?.fetchedAt === 'string' ? page.fetchedAt : '—',
    };
    this.byStep.set(step.id, source);
    return source.id;
  }

  /** Every source cited so far, ERP requests first, each in the order it was numbered. */
  get sources(): Source[] {
    const all = [...this.byStep.values()];
    return [...all.filter((s) => s.kind === 'erp'), ...all.filter((s) => s.kind === 'web')];
  }
}

/** A `From` giving every number of `record` the source `id`, then the `except` entries. */
export function allFrom(record: object, id: string, except: From = {}): From {
  const from: From = {};
  for (const [key, value] of Object.entries(record)) if (typeof value === 'number') from[key] = id;
  return { ...from, ...except };
}

/** The ids behind some figures, each once. */
export function idsOf(...entries: Array<string | string[] | undefined>): string[] {
  return [...new Set(entries.flatMap((e) => (e === undefined ? [] : Array.isArray(e) ? e : [e])))];
}

/** The citation of some figures of a record (`[E1, W2]`). */
export const citeOf = (from: From | undefined, ...fields: string[]) => cite(idsOf(...fields.map((f) => from?.[f])));

/** The citation of every figure of a record. */
export const citeAll = (from: From) => cite(idsOf(...Object.values(from)));
