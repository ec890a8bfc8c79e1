import { createRequire } from 'node:module';
import path from 'node:path';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { FieldError } from '../shared/index.ts';

/** An MCP tool as listed by `tools/list`. */
export interface ListedTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

/**
 * The AntV tools' own declarations, read from the installed package (the same objects its server lists), so
 * the renderer validates against exactly the contract the chart MCP server publishes.
 */
export function packagedChartTools(): ListedTool[] {
  const require = createRequire(import.meta.url);
  // the package exports only `./sdk` (build/sdk.js); its chart declarations sit beside it
  const build = path.dirname(require.resolve('@antv/mcp-server-chart/sdk'));
  const charts = require(path.join(build, 'charts/index.js')) as Record<string, { tool: ListedTool }>;
  return Object.values(charts).map((chart) => chart.tool);
}

const ajv = new Ajv({ allErrors: true, strict: false, useDefaults: true });
const compiled = new WeakMap<object, ValidateFunction>();

function fieldOf(error: ErrorObject): string {
  const at = error.instancePath
    .split('/')
    .slice(1)
    .map((part) => (/^\d+$/.test(part) ? `[${part}]` : `.${part}`))
    .join('')
    .replace(/^\./, '');
  const missing = error.keyword === 'required' ? (error.params as { missingProperty: string }).missingProperty : '';
  return [at, missing].filter(Boolean).join('.') || '(config)';
}

function messageOf(error: ErrorObject): string {
  switch (error.keyword) {
    case 'required':
      return '必填 / is required';
    case 'type':
      return `应为 ${error.params.type} / must be ${error.params.type}`;
    case 'enum':
      return `取值须为 / must be one of: ${(error.params.allowedValues as unknown[]).join(', ')}`;
    case 'additionalProperties':
      return `未知字段 / unknown field: ${error.params.additionalProperty}`;
    case 'minItems':
      return `至少 ${error.params.limit} 项 / needs at least ${error.params.limit} item(s)`;
    default:
      return error.message ?? error.keyword;
  }
}

/**
 * Validates `value` against a tool's JSON schema (defaults are filled in place). Returns the field errors,
 * deduplicated, with paths like `data[2].value`; empty when valid.
 */
export function validateAgainstSchema(schema: Record<string, unknown>, value: unknown): FieldError[] {
  let validate = compiled.get(schema);
  if (!validate) {
    const { $schema: _ignored, ...rest } = schema;
    validate = ajv.compile(rest);
    compiled.set(schema, validate);
  }
  if (validate(value)) return [];
  const seen = new Set<string>();
  const errors: FieldError[] = [];
  for (const error of validate.errors ?? []) {
    // anyOf branches repeat each other; keep the first message per field
    if (error.keyword === 'anyOf') continue;
    const field = fieldOf(error);
    if (seen.has(field)) continue;
    seen.add(field);
    errors.push({ field, message: messageOf(error) });
  }
  return errors;
}
