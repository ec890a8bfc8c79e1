/** Control-character exclusions and the like: the tool validates its input itself, a model gains nothing from them. */
const BOILERPLATE_PATTERNS = new Set(['^[^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f]*$', '^[\\x21-\\x7e]+$']);
/** Bounds that only restate the integer range of the storage, not a limit of the domain. */
const RANGE_BOUNDS = new Set([2147483647, -2147483648, 9007199254740991, -9007199254740991]);

/** Length caps (`maxLength`, `maxItems`): a value over one is refused with a field error the model can act on, and
 *  no model writes a 2,000-character note by accident; `minLength: 1` only restates that a given value is not empty. */
const LENGTH_CAPS = new Set(['maxLength', 'maxItems']);

/**
 * A tool's input schema as a model is sent it: still valid JSON Schema and the same fields, without what providers
 * and models do not need — `$schema`, control-character regexes, the regex behind `format: date`, int32 and safe-integer
 * bounds, length caps, and `propertyNames`/`additionalProperties` that allow anything. Calls are still validated
 * against the full declared schema when they run.
 */
export function modelSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(modelSchema);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  const source = schema as Record<string, unknown>;
  for (const [key, value] of Object.entries(source)) {
    if (key === '$schema') continue;
    if (key === 'pattern' && (BOILERPLATE_PATTERNS.has(String(value)) || source.format !== undefined)) continue;
    if ((key === 'maximum' || key === 'minimum') && RANGE_BOUNDS.has(Number(value))) continue;
    if (LENGTH_CAPS.has(key) || (key === 'minLength' && value === 1)) continue;
    if (key === 'propertyNames' && JSON.stringify(value) === '{"type":"string"}') continue;
    if (key === 'additionalProperties' && JSON.stringify(value) === '{}') continue;
    // Property names are data, not keywords: only their schemas are compacted.
    out[key] =
      key === 'properties' && value && typeof value === 'object'
        ? Object.fromEntries(Object.entries(value).map(([name, field]) => [name, modelSchema(field)]))
        : modelSchema(value);
  }
  return out;
}
