/**
 * Procura's MCP client (`McpConnections`, as the agents use it) as the client under test of the MCP conformance
 * suite: it connects to the scenario's server (the suite appends its URL), registers the server's tools as the
 * agents' registry does, and calls each of them once with arguments made from its input schema.
 */
import { McpConnections } from '../../../src/mcp/index.ts';
import { ToolRegistry } from '../../../src/tools/index.ts';

/** A value for a schema property: enough for a server to accept the call. */
function example(schema: { type?: string; default?: unknown; enum?: unknown[] } = {}): unknown {
  if (schema.default !== undefined) return schema.default;
  if (schema.enum?.length) return schema.enum[0];
  switch (schema.type) {
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    case 'string':
      return 'conformance';
    case 'array':
      return [];
    default:
      return {};
  }
}

const url = process.argv.at(-1);
if (!url?.startsWith('http')) throw new Error('usage: client.ts <server url>');
const connections = await McpConnections.connect([{ name: 'conformance', url, required: true }]);
const registry = connections.registerInto(new ToolRegistry());
const ctx = { userId: 'conformance', role: 'buyer' as const, traceId: 'conformance' };
let failed = 0;
for (const tool of registry.list()) {
  const schema = tool.jsonSchema as { properties?: Record<string, never>; required?: string[] };
  const args = Object.fromEntries((schema.required ?? []).map((key) => [key, example(schema.properties?.[key])]));
  const result = await registry.execute(tool.name, args, ctx, { approved: true });
  console.log(`${tool.name}: ${JSON.stringify(result).slice(0, 300)}`);
  if ((result as { success?: unknown }).success === false) failed++;
}
await connections.close();
process.exit(failed ? 1 : 0);
