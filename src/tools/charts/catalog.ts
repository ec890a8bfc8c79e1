import { CHART_EXAMPLES, type ListedTool, validateAgainstSchema } from '../../charts/index.ts';
import type { FieldError } from '../../shared/index.ts';

/** Tools of the chart server that are not charts: they stay separate tools instead of joining generate_visualization. */
const PASS_THROUGH = new Set(['generate_spreadsheet']);

/** `generate_dual_axes_chart` → `dual_axes`; `generate_mind_map` → `mind_map`. */
export const chartTypeOf = (tool: string) => tool.replace(/^generate_/, '').replace(/_chart$/, '');

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
}
