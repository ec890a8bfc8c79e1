import type { ListedTool } from '../../charts/index.ts';
import { ChartCatalog, chartTypeOf } from './catalog.ts';

type Schema = {
  type?: string;
  description?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  default?: unknown;
  anyOf?: Schema[];
};

const typeName = (s: Schema): string =>
  s.anyOf
    ? s.anyOf.map(typeName).join(' | ')
    : s.enum
      ? s.enum.map((v) => `\`${JSON.stringify(v)}\``).join(' | ')
      : s.type === 'array'
        ? `${typeName(s.items ?? {})}[]`
        : (s.type ?? 'any');

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

/** Rows for every field, nested fields as `data[].value`. */
function fieldRows(schema: Schema, prefix = ''): string[] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).flatMap(([key, field]) => {
    const name = `${prefix}${key}`;
    const inner = field.type === 'array' ? field.items : field;
    const row = `| \`${name}\` | ${cell(typeName(field))} | ${required.has(key) ? '是' : ''} | ${
      field.default !== undefined ? `\`${cell(JSON.stringify(field.default))}\`` : ''
    } | ${cell(field.description ?? '')} |`;
    const nested =
      inner?.properties && prefix.split('.').length < 4
        ? fieldRows(inner, `${name}${field.type === 'array' ? '[]' : ''}.`)
        : [];
    return [row, ...nested];
  });
}

/** `chart_params.md`: the full parameter reference, generated from the chart tools' own schemas. */
export function renderParamsReference(tools: ListedTool[], examples: Record<string, unknown> = {}): string {
  const catalog = new ChartCatalog(tools);
  const sections = [
    ...catalog.charts.values(),
    ...catalog.passThrough.map((tool) => ({ type: chartTypeOf(tool.name), tool })),
  ].map(({ type, tool }) => {
    const example = examples[tool.name];
    return [
      `## ${type}  (\`${tool.name}\`)`,
      '',
      tool.description ?? '',
      '',
      '| 字段 / field | 类型 / type | 必填 | 默认 / default | 说明 / description |',
      '| --- | --- | --- | --- | --- |',
      ...fieldRows(tool.inputSchema as Schema),
      ...(example ? ['', '示例 / example:', '', '```json', JSON.stringify(example), '```'] : []),
      '',
    ].join('\n');
  });
  return [
    '# 图表参数参考 / Chart parameter reference',
    '',
    '由 `npm run charts:params` 从图表 MCP 服务的工具定义生成，请勿手改。 / Generated from the chart MCP server’s tool schemas by `npm run charts:params`; do not edit by hand.',
    '',
    '调用 / call: `generate_visualization(chart_type="<type>", chart_config={...})`；表格用 `generate_spreadsheet`。',
    '',
    ...sections,
  ].join('\n');
}
