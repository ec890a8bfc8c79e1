import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isToolFailure, type ToolRegistry } from '../../src/tools/index.ts';
import { createToolbox } from '../../src/tools/toolbox.ts';
import { startTestErp } from './harness.ts';

// biome-ignore lint/suspicious/noExplicitAny: tool results are asserted field by field
type Any = any;

let env: Awaited<ReturnType<typeof startTestErp>>;
let registry: ToolRegistry;

beforeAll(async () => {
  env = await startTestErp();
  registry = createToolbox({ erp: { baseUrl: env.baseUrl } }).registry;
});
afterAll(() => env?.close());

const run = (name: string, input: unknown, user: 'laoxiao' | 'viewer' = 'laoxiao', control = {}) =>
  registry.execute(name, input, env.context(user), control) as Promise<Any>;

describe('ERP tools as the user', () => {
  it('reads suppliers, parts and inventory with compact, paged results', async () => {
    const suppliers = await run('supplier_query', { name: '博世' });
    expect(suppliers.items[0]).toMatchObject({ name: '博世', id: expect.any(Number) });
    const supplierId = suppliers.items[0].id;
    expect(await run('supplier_get', { supplierId })).toMatchObject({ id: supplierId, name: '博世' });
    expect((await run('supplier_query', {})).total).toBeGreaterThan(3);

    const page = await run('part_query', { size: 5 });
    expect(page.items).toHaveLength(5);
    expect(page.total).toBeGreaterThan(5);
    expect(page.hint).toContain('page=2');
    const sparks = await run('part_search', { name: '火花塞' });
    expect(sparks.items.length).toBeGreaterThan(0);
    expect(sparks.items.every((p: Any) => p.category === 'spark_plug')).toBe(true);
    const bySupplier = await run('part_by_supplier', { supplierId });
    expect(bySupplier.items.every((p: Any) => p.supplier.id === supplierId)).toBe(true);

    const warnings = await run('inventory_warning', {});
    expect(warnings.items.length).toBeGreaterThan(0);
    expect(warnings.items[0]).toHaveProperty('suggestedQuantity');
  });

  it('answers the stock of a category, supplier or part, low or not, with what is on order', async () => {
    const db = env.erp.database.db;
    const stock = await db
      .selectFrom('inventory')
      .innerJoin('parts', 'parts.id', 'inventory.part_id')
      .select(['parts.id', 'parts.category', 'parts.supplier_id', 'inventory.on_hand', 'inventory.safety_stock'])
      .where('inventory.project_id', '=', 'P001')
      .execute();
    const low = new Set((await run('inventory_warning', {})).items.map((w: Any) => w.partId));
    for (const category of [...new Set(stock.map((r) => r.category))]) {
      const answer = await run('inventory_query', { category });
      const want = stock.filter((r) => r.category === category);
      expect(answer.items.map((i: Any) => i.partId).sort(), category).toEqual(want.map((r) => Number(r.id)).sort());
      for (const item of answer.items) {
        const row = want.find((r) => Number(r.id) === item.partId);
        expect(item.onHand).toBe(row?.on_hand);
        expect(item.onOrder).toBeGreaterThanOrEqual(0);
        // Low or not: the warning list holds exactly the ones at or below safety stock.
        expect(low.has(item.partId)).toBe(item.onHand <= item.safetyStock);
      }
    }
    const one = stock[0];
    expect((await run('inventory_query', { partId: Number(one.id) })).items).toHaveLength(1);
    const bySupplier = await run('inventory_query', { supplierId: Number(one.supplier_id) });
    expect(bySupplier.items.every((i: Any) => i.supplier.id === Number(one.supplier_id))).toBe(true);
    // No filter is refused at the boundary: the whole stock table is not one answer.
    expect(await run('inventory_query', {})).toMatchObject({ success: false, error: expect.stringMatching(/partId/) });
  });

  it('appends the live part categories to part_query at bind time', async () => {
    const description = await registry.describe('part_query', env.context('laoxiao'));
    expect(description).toContain('spark_plug(火花塞)');
    // Without a token there are no live values, but the declared description stands.
    expect(await registry.describe('part_query', env.context('laoxiao', { token: undefined }))).toBe(
      registry.get('part_query')!.description,
    );
  });

  it('creates an order once per call id, then updates, finds and cancels it', async () => {
    const part = (await run('part_search', { name: 'F7TC' })).items[0];
    const input = { supplierId: part.supplier.id, lines: [{ partId: part.id, quantity: 200 }], note: 'tools test' };
    const refused = await run('order_create', input);
    expect(refused).toMatchObject({ success: false, stateChanged: false, error: expect.stringContaining('审批') });

    const created = await run('order_create', input, 'laoxiao', { approved: true, callId: 'call-1' });
    expect(created).toMatchObject({ success: true, stateChanged: true, order: { status: 'draft', version: 1 } });
    const replay = await run('order_create', input, 'laoxiao', { approved: true, callId: 'call-1' });
    expect(replay.order.id).toBe(created.order.id);

    const orderId = created.order.id;
    const updated = await run('order_update', { orderId, version: 1, status: 'pending_approval' }, 'laoxiao', {
      approved: true,
    });
    expect(updated.order).toMatchObject({ status: 'pending_approval', version: 2 });
    const stale = await run('order_update', { orderId, version: 1, note: 'x' }, 'laoxiao', { approved: true });
    expect(stale).toMatchObject({
      success: false,
      stateChanged: false,
      suggestion: expect.stringContaining('重新读取'),
    });

    expect(await run('order_get', { orderId })).toMatchObject({ id: orderId, version: 2 });
    const found = await run('order_search_details', { keyword: created.order.orderNo });
    expect(found.items.map((o: Any) => o.id)).toContain(orderId);
    const cancelled = await run('order_cancel', { orderId, version: 2, reason: 'test' }, 'laoxiao', { approved: true });
    expect(cancelled.order.status).toBe('cancelled');
  });

  it('turns ERP refusals into failures the model can act on', async () => {
    expect(await run('supplier_get', { supplierId: 99999 })).toMatchObject({
      success: false,
      stateChanged: false,
      suggestion: expect.stringContaining('id'),
    });
    const noToken = await registry.execute('supplier_query', {}, env.context('laoxiao', { token: undefined }));
    expect(noToken).toMatchObject({ success: false, error: expect.stringContaining('令牌') });
    const badToken = await registry.execute('supplier_query', {}, env.context('laoxiao', { token: 'nope' }));
    expect(badToken).toMatchObject({ success: false, error: expect.stringContaining('401') });
  });

  it('gives a viewer no write tools', async () => {
    const names = registry.list({ role: 'viewer' }).map((d) => d.name);
    expect(names).toContain('order_search_details');
    for (const write of ['order_create', 'order_update', 'order_cancel']) expect(names).not.toContain(write);
    expect(registry.list({ role: 'viewer' }).every((d) => d.safety === 'read-only')).toBe(true);
    expect(
      isToolFailure(
        await run('order_create', { supplierId: 1, lines: [{ partId: 1, quantity: 1 }] }, 'viewer', { approved: true }),
      ),
    ).toBe(true);
  });
});

describe('dynamic_http_call', () => {
  it('reads any ERP endpoint as the user, lists comma-joined', async () => {
    const categories = await run('dynamic_http_call', { path: '/categories' });
    expect(categories.items.map((c: Any) => c.code)).toContain('spark_plug');
    const parts = await run('dynamic_http_call', { path: '/parts', arguments: { category: 'spark_plug', size: 3 } });
    expect(parts.items).toHaveLength(3);
  });

  it.each([
    'http://evil.example/api/parts',
    '//evil.example/parts',
    '/../admin',
    '/parts/../../secret',
    '/%2e%2e/admin',
    '/parts/%2E%2E/x',
    'parts',
    '/parts\\..\\x',
  ])('refuses the path %s', async (path) => {
    expect(await run('dynamic_http_call', { path })).toMatchObject({
      success: false,
      error: expect.stringContaining('路径'),
    });
  });

  it('refuses a write without approval, and a write in a read-only context', async () => {
    const body = {
      path: '/orders/create',
      method: 'POST',
      arguments: { supplierId: 1, lines: [{ partId: 1, quantity: 1 }] },
    };
    expect(registry.requiresApproval('dynamic_http_call', body)).toBe(true);
    expect(registry.requiresApproval('dynamic_http_call', { path: '/parts' })).toBe(false);
    expect(await run('dynamic_http_call', body)).toMatchObject({
      success: false,
      error: expect.stringContaining('审批'),
    });
    expect(await run('dynamic_http_call', body, 'viewer', { approved: true })).toMatchObject({
      success: false,
      error: expect.stringContaining('只读'),
    });
  });

  it('returns the ERP status with the seed guidance', async () => {
    expect(await run('dynamic_http_call', { path: '/nowhere' })).toMatchObject({
      success: false,
      error: expect.stringContaining('404'),
      suggestion: expect.stringContaining('path'),
    });
    const invalid = await run(
      'dynamic_http_call',
      { path: '/orders/create', method: 'POST', arguments: { supplierId: 'x' } },
      'laoxiao',
      { approved: true },
    );
    expect(invalid).toMatchObject({
      success: false,
      error: expect.stringContaining('422'),
      suggestion: expect.stringContaining('arguments'),
    });
  });
});

describe('an ERP that is down is an outage, not an answer', () => {
  it('a 5xx, a refused connection or no answer in time each come back as `unavailable: ERP`, also over MCP', async () => {
    const { listen } = await import('../../src/shared/index.ts');
    const { McpConnections, startErpMcpServer } = await import('../../src/mcp/index.ts');
    const { ToolRegistry } = await import('../../src/tools/index.ts');
    const failing = await listen(() => new Response('upstream broke', { status: 502 }), {
      host: '127.0.0.1',
      port: 0,
    });
    const silent = await listen(() => new Promise<Response>(() => undefined), { host: '127.0.0.1', port: 0 });
    try {
      const cases = [
        { baseUrl: `${failing.url}/api` },
        { baseUrl: 'http://127.0.0.1:9/api' }, // discard port: nothing listens
        { baseUrl: `${silent.url}/api`, timeoutMs: 300 },
      ];
      for (const erp of cases) {
        const tools = createToolbox({ erp }).registry;
        const result = (await tools.execute('part_search', { name: 'F7TC' }, env.context('laoxiao'))) as Any;
        expect(result, erp.baseUrl).toMatchObject({ success: false, unavailable: 'ERP' });
        expect(result.error).toContain('服务不可用');
      }
      // Through the ERP MCP server, the agent's client reads the same outage.
      const mcp = await startErpMcpServer({ erp: { baseUrl: `${failing.url}/api` }, host: '127.0.0.1', port: 0 });
      const connections = await McpConnections.connect([
        { name: 'erp', url: mcp.mcpUrl, forwardCredentials: true, required: true },
      ]);
      try {
        const remote = connections.registerInto(new ToolRegistry());
        expect(await remote.execute('part_search', { name: 'F7TC' }, env.context('laoxiao'))).toMatchObject({
          success: false,
          unavailable: 'ERP',
        });
      } finally {
        await connections.close();
        await mcp.close();
      }
    } finally {
      await failing.close();
      await silent.close();
    }
  }, 60_000);
});
