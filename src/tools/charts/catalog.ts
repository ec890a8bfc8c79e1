import { CHART_EXAMPLES, type ListedTool, validateAgainstSchema } from '../../charts/index.ts';
import type { FieldError } from '../../shared/index.ts';

/** Tools of the chart server that are not charts: they stay separate tools instead of joining generate_visualization. */
const PASS_THROUGH = new Set(['generate_spreadsheet']);

type Schema = Record<string, unknown> & {
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  anyOf?: Schema[];
  default?: unknown;
};

/** Options every chart shares; the compact table leaves them out and says so once. */
const COMMON_OPTIONS = new Set(['theme', 'width', 'height', 'title', 'axisXTitle', 'axisYTitle', 'style']);

/** `generate_dual_axes_chart` → `dual_axes`; `generate_mind_map` → `mind_map`. */
export const chartTypeOf = (tool: string) => tool.replace(/^generate_/, '').replace(/_chart$/, '');

/** A schema as a one-line shape, e.g. `[{category:str, value:num, group?:str}]`. */
export function shapeOf(schema: Schema | undefined, depth = 0): string {
  if (!schema) return 'any';
  if (schema.anyOf) return schema.anyOf.map((s) => shapeOf(s, depth)).join('|');
  if (schema.enum) return schema.enum.map((v) => JSON.stringify(v)).join('|');
  if (schema.type === 'array') return `[${shapeOf(schema.items, depth + 1)}]`;
  if (schema.type === 'object' || schema.properties) {
    if (depth > 2 || !schema.properties) return '{…}';
    const required = new Set(schema.required ?? []);
    return `{${Object.entries(schema.properties)
      .filter(([key]) => depth > 0 || key !== 'style')
      .map(([key, value]) => `${key}${required.has(key) ? '' : '?'}:${shapeOf(value, depth + 1)}`)
      .join(', ')}}`;
  }
  return { string: 'str', number: 'num', boolean: 'bool', integer: 'int' }[String(schema.type)] ?? String(schema.type);
}

export interface ChartEntry {
  type: string;
  tool: ListedTool;
}

/** The chart server's tools split into routable chart types and pass-through tools, with validation. */
export class ChartCatalog {
  readonly charts = new Map<string, ChartEntry>();
  readonly passThrough: ListedTool[] = [];

  constructor(tools: ListedTool[]) {
    for (const tool of tools) {
      if (PASS_THROUGH.has(tool.name) || !tool.name.startsWith('generate_')) this.passThrough.push(tool);
      else this.charts.set(chartTypeOf(tool.name), { type: chartTypeOf(tool.name), tool });
    }
  }

  /** Accepts `pie`, `generate_pie_chart`, `pie_chart`, `dual-axes`, … */
  resolve(chartType: string): ChartEntry | undefined {
    const key = chartTypeOf(chartType.trim().toLowerCase().replaceAll('-', '_'));
    return this.charts.get(key);
  }

  get types(): string[] {
    return [...this.charts.keys()].sort();
  }

  /** Field errors of a config against the tool's own JSON schema (empty when valid). */
  validate(entry: ChartEntry, config: unknown): FieldError[] {
    return validateAgainstSchema(entry.tool.inputSchema, structuredClone(config));
  }

  example(entry: ChartEntry): Record<string, unknown> | undefined {
    return CHART_EXAMPLES[entry.tool.name];
  }

  /** One line per chart type: the required fields' shape and the type-specific options. */
  compactTable(): string {
    return [...this.charts.values()]
      .map(({ type, tool }) => {
        const schema = tool.inputSchema as Schema;
        const required = new Set(schema.required ?? []);
        const props = Object.entries(schema.properties ?? {});
        const main = props
          .filter(([key]) => required.has(key))
          .map(([key, value]) => `${key}:${shapeOf(value, 1)}`)
          .join('; ');
        const extra = props
          .filter(([key]) => !required.has(key) && !COMMON_OPTIONS.has(key))
          .map(([key, value]) => `${key}${value.enum ? `=${value.enum.join('|')}` : ''}`);
        return `${type}: ${main}${extra.length ? ` (+${extra.join(', ')})` : ''}`;
      })
      .join('\n');
  }
}
