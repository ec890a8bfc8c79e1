import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CALL_ID_META, startErpMcpServer } from '../../src/mcp/index.ts';
import { startTestErp } from '../tools/harness.ts';

// biome-ignore lint/suspicious/noExplicitAny: tool results are asserted field by field
type Any = any;

const ERP_TOOLS = [
  'inventory_warning',
  'order_cancel',
  'order_create',
  'order_get',
  'order_search_details',
  'order_update',
  'part_by_supplier',
  'part_price_history',
  'part_query',
  'part_search',
  'price_check',
  'supplier_get',
  'supplier_query',
  'supplier_scorecard',
];

/** Valid arguments for every ERP tool, so that only the missing token can be refused. */
const VALID_ARGS: Record<string, Record<string, unknown>> = {
  inventory_warning: {},
  order_cancel: { orderId: 1, version: 1 },
  order_create: { supplierId: 1, lines: [{ partId: 1, quantity: 100 }] },
  order_get: { orderId: 1 },
  order_search_details: {},
  order_update: { orderId: 1, version: 1, note: 'x' },
  part_by_supplier: { supplierId: 1 },
  part_price_history: { partId: 1 },
  part_query: {},
  part_search: { name: '火花塞' },
  price_check: { partId: 1, unitPrice: 10 },
  supplier_get: { supplierId: 1 },
  supplier_query: {},
  supplier_scorecard: { supplierId: 1 },
};

let env: Awaited<ReturnType<typeof startTestErp>>;
let mcp: Awaited<ReturnType<typeof startErpMcpServer>>;

beforeAll(async () => {
  env = await startTestErp();
  mcp = await startErpMcpServer({ erp: { baseUrl: env.baseUrl }, host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await mcp?.close();
  await env?.close();
});

async function connect(transport: Transport): Promise<Client> {
  const client = new Client({ name: 'procura-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

const http = (headers: Record<string, string> = {}) =>
  connect(new StreamableHTTPClientTransport(new URL(mcp.mcpUrl), { requestInit: { headers } }));

const stdio = (token?: string) =>
  connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [path.resolve('bin/procura.js'), 'mcp', 'erp', '--stdio', '--erp-url', env.baseUrl],
      env: { ...(process.env as Record<string, string>), PROCURA_ERP_TOKEN: token ?? '', LOG_LEVEL: 'silent' },
      stderr: 'pipe',
    }),
  );

async function call(client: Client, name: string, args: Record<string, unknown>, callId?: string) {
  const result = (await client.callTool({
    name,
    arguments: args,
    _meta: callId ? { [CALL_ID_META]: callId } : undefined,
  })) as Any;
  return { isError: result.isError === true, data: JSON.parse(result.content[0].text) };
}

/** Calls every ERP tool once, in an order where each call's input comes from earlier answers. */
async function exerciseEveryTool(client: Client, callId: string) {
  const seen: Record<string, Any> = {};
  const ok = async (name: string, args: Record<string, unknown>, id?: string) => {
    const { isError, data } = await call(client, name, args, id);
    expect(isError, `${name}: ${JSON.stringify(data)}`).toBe(false);
    seen[name] = data;
    return data;
  };
  const supplier = (await ok('supplier_query', { name: '博世' })).items[0];
  await ok('supplier_get', { supplierId: supplier.id });
  const scorecard = await ok('supplier_scorecard', { supplierId: supplier.id });
  expect(scorecard.supplier.id).toBe(supplier.id);
  await ok('part_query', { supplierId: supplier.id, size: 3 });
  const part = (await ok('part_search', { name: 'F7TC' })).items[0];
  await ok('part_by_supplier', { supplierId: part.supplier.id });
  const check = await ok('price_check', { partId: part.id, unitPrice: part.unitPrice });
  expect(check.severity).toMatch(/^(ok|info|warn|critical|unknown)$/);
  // The trend over MCP is the ERP's own answer, per supplier and across suppliers (labelled as such).
  for (const by of ['supplier', 'product'] as const) {
    const history = await ok('part_price_history', { partId: part.id, months: 12, by });
    const rest = await fetch(`${env.baseUrl}/parts/${part.id}/price-history?months=12&by=${by}`, {
      headers: { authorization: `Bearer ${env.erp.demoTokens.laoxiao}` },
    }).then((r) => r.json() as Promise<Any>);
    expect(history.definition).toBe(rest.definition);
    expect(history.series.map((s: Any) => [s.supplierId, s.months, s.total])).toEqual(
      rest.series.map((s: Any) => [
        s.supplier?.id ?? null,
        s.months.map(({ amount: _, ...m }: Any) => m),
        { avgUnitPrice: s.total.avgUnitPrice, lines: s.total.lines, quantity: s.total.quantity },
      ]),
    );
    if (by === 'product') expect(history.series[0].label).toMatch(/所有供应商.*all suppliers/);
    expect(history.series.some((s: Any) => s.months.length > 0)).toBe(true);
  }
  await ok('inventory_warning', {});
  const order = { supplierId: part.supplier.id, lines: [{ partId: part.id, quantity: part.moq }] };
  const created = (await ok('order_create', order, callId)).order;
  // The same call id again (a retry) gives the same order, not a second one.
  expect((await ok('order_create', order, callId)).order.id).toBe(created.id);
  await ok('order_get', { orderId: created.id });
  await ok('order_search_details', { keyword: created.orderNo });
  const updated = (await ok('order_update', { orderId: created.id, version: created.version, note: 'via MCP' })).order;
  await ok('order_cancel', { orderId: created.id, version: updated.version, reason: 'test' });
  return seen;
}

describe.each([
  [
    'streamable HTTP',
    (token?: string) => http(token ? { authorization: `Bearer ${token}`, 'x-trace-id': 'mcp-test-1' } : {}),
  ],
  ['stdio', stdio],
])('ERP MCP server over %s', (_transport, open) => {
  it('lists every ERP tool with annotations from the registry', async () => {
    const client = await open();
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(ERP_TOOLS);
      expect(Object.keys(VALID_ARGS)).toEqual(ERP_TOOLS);
      expect(tools.find((t) => t.name === 'part_query')?.description).not.toContain('spark_plug(');
      const create = tools.find((t) => t.name === 'order_create')!;
      expect(create.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
      expect(tools.find((t) => t.name === 'part_search')!.annotations).toMatchObject({
        readOnlyHint: true,
        destructiveHint: false,
      });
      expect(create.inputSchema).toMatchObject({
        type: 'object',
        required: expect.arrayContaining(['supplierId', 'lines']),
      });
    } finally {
      await client.close();
    }
  });

  it('calls every ERP tool as the user', async () => {
    const client = await open(env.erp.demoTokens.laoxiao);
    try {
      // Listed with a token, descriptions carry the caller's live values.
      const { tools } = await client.listTools();
      expect(tools.find((t) => t.name === 'part_query')?.description).toContain('spark_plug(火花塞)');
      const seen = await exerciseEveryTool(client, `mcp-${_transport}`);
      expect(Object.keys(seen).sort()).toEqual(ERP_TOOLS);
      // Every answer names the ERP's trace id of its response: the caller's over HTTP, one the server made on stdio.
      for (const [name, data] of Object.entries(seen))
        expect(data.traceId, name).toMatch(_transport === 'stdio' ? /^[\w.:-]{8,128}$/ : /^mcp-test-1$/);
      expect(seen.order_cancel.order.status).toBe('cancelled');
      expect(seen.order_update.order.note).toBe('via MCP');
    } finally {
      await client.close();
    }
  });

  it('refuses every call without a token, clearly', async () => {
    const client = await open();
    try {
      for (const [name, args] of Object.entries(VALID_ARGS)) {
        const { isError, data } = await call(client, name, args);
        expect(isError, name).toBe(true);
        expect(data, name).toMatchObject({
          success: false,
          stateChanged: false,
          error: expect.stringContaining('令牌'),
        });
      }
    } finally {
      await client.close();
    }
  });

  it('returns the ERP refusal of a viewer write as a failure', async () => {
    const client = await open(env.erp.demoTokens.viewer);
    try {
      const { isError, data } = await call(client, 'order_create', {
        supplierId: 1,
        lines: [{ partId: 1, quantity: 100 }],
      });
      expect(isError).toBe(true);
      expect(data).toMatchObject({ success: false, error: expect.stringContaining('403') });
    } finally {
      await client.close();
    }
  });
});

it('forwards the trace id of the HTTP request to the ERP audit log', async () => {
  const client = await http({ authorization: `Bearer ${env.erp.demoTokens.laoxiao}`, 'x-trace-id': 'trace-audit-42' });
  try {
    const part = (await call(client, 'part_search', { name: 'F7TC' })).data.items[0];
    const { data } = await call(
      client,
      'order_create',
      { supplierId: part.supplier.id, lines: [{ partId: part.id, quantity: part.moq }] },
      'trace-call',
    );
    const admin = { userId: 1, username: 'admin', role: 'admin' as const, projectId: 'P001', traceId: 'x' };
    const audit = await env.erp.services.audit.entries(admin, 'order', String(data.order.id));
    expect(audit[0].traceId).toBe('trace-audit-42');
  } finally {
    await client.close();
  }
});
