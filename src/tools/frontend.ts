import { z } from 'zod';
import { onTimeLine } from '../protocol/index.ts';
import { isToolFailure, Tool, type ToolControl, ToolError } from './registry.ts';

const Title = z.string().trim().min(1).max(100);
const Cell = z.union([z.string().max(500), z.number(), z.boolean(), z.null()]);

const ShowChartInput = z
  .object({
    title: Title,
    chart_type: z.enum(['bar', 'line', 'pie']).default('bar'),
    x_data: z
      .array(z.union([z.string().max(100), z.number()]))
      .min(1)
      .max(500)
      .describe('横轴类目 / x categories'),
    series: z
      .array(z.object({ name: z.string().min(1).max(60), data: z.array(z.number().nullable()).min(1).max(500) }))
      .min(1)
      .max(12)
      .describe('每个系列的数值，与 x_data 等长 / one value per x_data entry'),
    unit: z.string().max(20).optional(),
  })
  .refine((chart) => chart.series.every((s) => s.data.length === chart.x_data.length), {
    message: '每个 series.data 的长度必须等于 x_data 的长度 / every series must have one value per x_data entry',
    path: ['series'],
  });

const ShowTableInput = z
  .object({
    title: Title,
    columns: z.array(z.string().min(1).max(60)).min(1).max(20),
    rows: z.array(z.array(Cell)).max(200),
  })
  .refine((table) => table.rows.every((row) => row.length === table.columns.length), {
    message: '每行的单元格数必须等于列数 / every row needs one cell per column',
    path: ['rows'],
  });

/**
 * Front-end tools (seed 004): the handler sends a `tool_call` event to the user's browser, which acts on it
 * (renders the chart, opens the order); the model gets a short acknowledgement, not the rendering.
 */
export class FrontendTools {
  /** `readOrder` reads an order as the calling user (the ERP's `order_get`). */
  constructor(private readonly readOrder: (orderId: number) => Promise<unknown>) {}

  @Tool({
    name: 'show_chart',
    label: '展示图表',
    description:
      '在用户界面渲染柱状/折线/饼图（x_data + series）。/ Render a bar, line or pie chart in the user’s browser.',
    schema: ShowChartInput,
    safety: 'read-only',
    group: 'ui',
  })
  async showChart(input: z.infer<typeof ShowChartInput>, control: ToolControl) {
    // Monthly categories go to the browser on a time line: a month without data is a gap, not a skipped step.
    const labels = input.x_data.map(String);
    const timed = onTimeLine(labels, input.series);
    const chart = timed.categories === labels ? input : { ...input, x_data: timed.categories, series: timed.series };
    return emit(control, 'show_chart', chart, `已在界面展示图表「${input.title}」/ chart shown`);
  }

  @Tool({
    name: 'show_table',
    label: '展示表格',
    description: '在用户界面展示一张表格（≤200 行）。/ Show a table (≤200 rows) in the user’s browser.',
    schema: ShowTableInput,
    safety: 'read-only',
    group: 'ui',
  })
  async showTable(input: z.infer<typeof ShowTableInput>, control: ToolControl) {
    return emit(
      control,
      'show_table',
      input,
      `已在界面展示表格「${input.title}」（${input.rows.length} 行）/ table shown`,
    );
  }

  @Tool({
    name: 'open_order',
    label: '打开订单',
    description: '在用户界面的侧边面板打开一个采购订单的详情。/ Open an order in the side panel of the user’s browser.',
    schema: z.object({ orderId: z.number().int().positive() }),
    safety: 'read-only',
    group: 'ui',
  })
  async openOrder(input: { orderId: number }, control: ToolControl) {
    // The panel shows the order as the user may see it: read through the ERP tools, as that user.
    const order = await this.readOrder(input.orderId);
    if (isToolFailure(order)) throw new ToolError(order.error, order.suggestion);
    return emit(
      control,
      'open_order',
      { orderId: input.orderId, order },
      `已在界面打开订单 ${input.orderId} / order opened`,
    );
  }
}

function emit(control: ToolControl, tool: string, params: object, ack: string) {
  if (!control.emit)
    throw new ToolError(
      '当前没有连接用户界面 / no user interface is attached',
      '改用文字回答 / answer in text instead',
    );
  control.emit({ tool, params: params as Record<string, unknown> });
  return { success: true, message: ack };
}
