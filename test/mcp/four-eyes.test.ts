import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startErpMcpServer } from '../../src/mcp/index.ts';
import { startTestErp } from '../tools/harness.ts';

// biome-ignore lint/suspicious/noExplicitAny: tool results are asserted field by field
type Any = any;

let env: Awaited<ReturnType<typeof startTestErp>>;
let mcp: Awaited<ReturnType<typeof startErpMcpServer>>;
let otherBuyer: string;

beforeAll(async () => {
  env = await startTestErp();
  mcp = await startErpMcpServer({ erp: { baseUrl: env.baseUrl }, host: '127.0.0.1', port: 0 });
  await env.erp.services.users.create({ username: 'wangfang', role: 'buyer', projectIds: ['P001'] });
  otherBuyer = await env.erp.services.users.issueToken('wangfang');
});
afterAll(async () => {
  await mcp?.close();
  await env?.close();
});

async function as(token: string) {
  const client = new Client({ name: 'procura-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(mcp.mcpUrl), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = (await client.callTool({ name, arguments: args })) as Any;
    return { isError: result.isError === true, data: JSON.parse(result.content[0].text) };
  };
  return { client, call };
}

it('answers another buyer’s change or cancel of an order with the four-eyes refusal and what to do instead', async () => {
  const owner = await as(env.erp.demoTokens.laoxiao);
  const other = await as(otherBuyer);
  try {
    const part = (await owner.call('part_search', { name: 'F7TC' })).data.items[0];
    const created = (
      await owner.call('order_create', {
        supplierId: part.supplier.id,
        lines: [{ partId: part.id, quantity: part.moq }],
      })
    ).data.order;
    // Read by the other buyer, the order says he may not change it, and why.
    const seen = (await other.call('order_get', { orderId: created.id })).data;
    expect(seen.permissions).toMatchObject({ change: false });
    expect(seen.permissions.reason).toMatch(/四眼原则.*four eyes/);
    for (const [tool, args] of [
      [
        'order_update',
        { orderId: created.id, version: created.version, lines: [{ partId: part.id, quantity: 9_000 }] },
      ],
      ['order_cancel', { orderId: created.id, version: created.version }],
    ] as const) {
      const { isError, data } = await other.call(tool, args);
      expect(isError, tool).toBe(true);
      expect(data).toMatchObject({ success: false, stateChanged: false });
      expect(data.error).toMatch(/403 .*only the order's creator \(laoxiao\) or an admin/);
      expect(data.suggestion).toMatch(/four eyes.*Do not retry/);
    }
    expect((await owner.call('order_get', { orderId: created.id })).data).toMatchObject({
      version: created.version,
      status: 'draft',
    });
  } finally {
    await owner.client.close();
    await other.client.close();
  }
});
