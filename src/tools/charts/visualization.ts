import { z } from 'zod';
import { describeChart } from '../../protocol/index.ts';
import { Tool, type ToolControl, ToolError } from '../registry.ts';
import { browserSpecOf } from './browser-spec.ts';
import type { ChartCatalog } from './catalog.ts';
import type { ChartMcpClient } from './client.ts';

const VisualizationInput = z.object({
  chart_type: z.string().min(1).describe('图表类型，如 column / e.g. "column"'),
  chart_config: z.record(z.string(), z.unknown()).describe('该类型工具的参数 / that chart tool’s arguments'),
});

const SpreadsheetInput = z.object({
  data: z.array(z.record(z.string(), z.union([z.string(), z.number(), z.null()]))).min(1),
  rows: z.array(z.string()).optional(),
  columns: z.array(z.string()).optional(),
  values: z.array(z.string()).optional(),
  theme: z.enum(['default', 'academy', 'dark']).optional(),
  width: z.number().optional(),
  height: z.number().optional(),
});

// The fields of each type are in the chart-params skill, read for the types drawn: a table of all 27 here would be
// sent with every call of the analyst.
const DESCRIPTION = `Draw a chart image (PNG): generate_visualization(chart_type, chart_config). Returns image_url and alt (embed as ![alt](image_url)).
chart_config fields of a type: /skills/procurement/chart-params/<type>.md (read it first); all take title, axisXTitle/axisYTitle, theme. A wrong config is answered with the field errors and a correct example.
Pick: trend→line/area; compare→column/bar; share→pie; distribution→histogram/boxplot; correlation→scatter; two units→dual_axes; flows→sankey; stages→funnel; hierarchy→treemap; increments→waterfall; scores→radar.
chart_type:`;

/** The agent's single chart entry: routes chart_type to the chart MCP server's tool, validating first. */
export class VisualizationTools {
  constructor(
    readonly catalog: ChartCatalog,
    private readonly client: ChartMcpClient,
  ) {}

  @Tool({
    name: 'generate_visualization',
    label: '生成图表',
    description: DESCRIPTION,
    schema: VisualizationInput,
    safety: 'read-only',
    execution: 'parallel',
    group: 'chart',
    liveValues: async (_ctx, host) => (host as VisualizationTools).catalog.types.join(', '),
  })
  async generateVisualization(input: z.infer<typeof VisualizationInput>, control: ToolControl) {
    const entry = this.catalog.resolve(input.chart_type);
    if (!entry)
      throw new ToolError(
        `未知图表类型 / unknown chart_type "${input.chart_type}"`,
        `可用类型 / available: ${this.catalog.types.join(', ')}`,
      );
    const errors = this.catalog.validate(entry, input.chart_config);
    if (errors.length) {
      const example = this.catalog.example(entry);
      throw new ToolError(
        `${entry.type} 的 chart_config 有误 / invalid chart_config for ${entry.type}: ${errors
          .slice(0, 8)
          .map((e) => `${e.field}: ${e.message}`)
          .join('; ')}`,
        example
          ? `正确示例 / a correct example: generate_visualization(chart_type="${entry.type}", chart_config=${JSON.stringify(example)})`
          : `按 /skills/procurement/chart-params/${entry.type}.md 修正后重试 / fix the fields per that file and retry`,
      );
    }
    control.progress?.(`正在绘制 ${entry.type} 图 / drawing ${entry.type}`);
    const { success, image_url, ...drawn } = await this.callChart(entry.tool.name, input.chart_config, control);
    const spec = browserSpecOf(entry.type, input.chart_config);
    // The alt text follows the address, so that a shortened copy of this answer (a step's detail) still holds it.
    const alt = spec
      ? describeChart({ title: spec.title, kind: spec.chart_type, categories: spec.x_data, series: spec.series })
      : undefined;
    return {
      success,
      image_url,
      ...(alt ? { alt } : {}),
      ...drawn,
      chart_type: entry.type,
      ...(spec ? { spec } : {}),
    };
  }

  @Tool({
    name: 'generate_spreadsheet',
    label: '生成表格',
    description:
      'Render a table (or a pivot table when rows/values are given) as an image. data: [{column: value}], rows?: row header fields, columns?: column order / grouping fields, values?: summed value fields. Returns image_url.',
    schema: SpreadsheetInput,
    safety: 'read-only',
    execution: 'parallel',
    group: 'chart',
  })
  async generateSpreadsheet(input: z.infer<typeof SpreadsheetInput>, control: ToolControl) {
    const tool = this.catalog.passThrough.find((t) => t.name === 'generate_spreadsheet');
    if (!tool)
      throw new ToolError(
        '图表服务未提供表格工具 / the chart server has no generate_spreadsheet',
        '改用 Markdown 表格 / use a Markdown table',
      );
    return this.callChart(tool.name, input, control);
  }

  private async callChart(name: string, args: Record<string, unknown>, control: ToolControl) {
    const answer = await this.client.call(name, args, control.signal);
    if (answer.isError)
      throw new ToolError(
        `图表生成失败 / chart failed: ${answer.texts.join(' ').slice(0, 600)}`,
        '检查数据与地名后重试 / check the data (and place names) and retry',
      );
    const imageUrl = answer.texts.find((t) => /^https?:\/\//.test(t.trim()))?.trim();
    if (!imageUrl) throw new ToolError(`图表服务未返回图片地址 / no image URL in the answer`, '稍后重试 / retry later');
    const notes = answer.texts.filter((t) => t.trim() !== imageUrl);
    return {
      success: true as const,
      image_url: imageUrl,
      ...(imageUrl.endsWith('.png') ? { svg_url: imageUrl.replace(/\.png$/, '.svg') } : {}),
      ...(notes.length ? { notes } : {}),
    };
  }
}
