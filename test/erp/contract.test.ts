import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { contract } from '../../src/erp/index.ts';
import { createToolbox } from '../../src/tools/toolbox.ts';
import { startTestErp } from '../tools/harness.ts';

let env: Awaited<ReturnType<typeof startTestErp>>;
beforeAll(async () => {
  env = await startTestErp();
});
afterAll(() => env?.close());

/** The schema with no field beyond those the contract names, at the top level. */
const exactly = <S extends z.ZodRawShape>(schema: z.ZodObject<S>) => z.strictObject(schema.shape);

describe('the ERP contract', () => {
  it('describes exactly what the ERP answers', async () => {
    const headers = { authorization: `Bearer ${env.erp.demoTokens.laoxiao}`, 'content-type': 'application/json' };
    const parts = await (await fetch(`${env.baseUrl}/parts/search?name=F7TC`, { headers })).json();
    const [part] = z.object({ items: z.array(exactly(contract.PartSchema)) }).parse(parts).items;
    const supplier = await (await fetch(`${env.baseUrl}/suppliers/${part.supplier.id}`, { headers })).json();
    exactly(contract.SupplierSchema).parse(supplier);
    const history = await (await fetch(`${env.baseUrl}/parts/${part.id}/price-history`, { headers })).json();
    for (const series of exactly(contract.PriceHistorySchema).parse(history).series) {
      exactly(contract.PriceHistorySeriesSchema).parse(series);
      for (const month of series.months) exactly(contract.PriceHistoryMonthSchema).parse(month);
    }
    const created = await fetch(`${env.baseUrl}/orders/create`, {
      method: 'POST',
      headers: { ...headers, 'idempotency-key': 'contract-test' },
      body: JSON.stringify({ supplierId: part.supplier.id, lines: [{ partId: part.id, quantity: part.moq }] }),
    });
    expect(created.status).toBe(201);
    const order = exactly(contract.OrderSchema).parse(await created.json());
    expect(order.lines.map((l) => exactly(contract.OrderLineSchema).parse(l).partId)).toEqual([part.id]);
  });

  it('is the one input shape of the HTTP API, its OpenAPI document and the ERP tools', async () => {
    const openapi = (await (await fetch(`${env.baseUrl}/openapi.json`)).json()) as {
      components: { schemas: Record<string, { properties: { lines: { items: { properties: object } } } }> };
    };
    const line = z.toJSONSchema(contract.OrderLineInputSchema, { io: 'input' }) as { properties: object };
    const documented = openapi.components.schemas.CreateOrder.properties.lines.items;
    expect(documented.properties).toEqual(line.properties);
    const toolbox = createToolbox({ erp: { baseUrl: env.baseUrl } });
    try {
      const tool = toolbox.registry.get('order_create')?.jsonSchema as {
        properties: { lines: { items: { properties: object } } };
      };
      expect(tool.properties.lines.items.properties).toEqual(line.properties);
      // A line the contract refuses is refused by the tool before any request.
      const refused = await toolbox.registry.execute(
        'order_create',
        { supplierId: 1, lines: [{ partId: 1, quantity: 0 }] },
        env.context('laoxiao'),
        { approved: true },
      );
      expect(refused).toMatchObject({ success: false, error: expect.stringContaining('lines.0.quantity') });
    } finally {
      await toolbox.close();
    }
  });

  it('does no I/O: it imports nothing but zod and the protocol, whose modules import nothing but zod', () => {
    const importsOf = (file: string) =>
      [...fs.readFileSync(path.resolve(file), 'utf8').matchAll(/^import [^;]*? from '([^']+)';$/gm)].map((m) => m[1]);
    // Price severities and text without control characters are wire shapes, declared once in the protocol.
    expect(importsOf('src/erp/contract.ts')).toEqual(['zod', '../protocol/index.ts']);
    const protocol = fs.readdirSync(path.resolve('src/protocol')).filter((f) => /(?<!\.test)\.ts$/.test(f));
    for (const file of protocol) {
      const outside = importsOf(`src/protocol/${file}`).filter((m) => !m.startsWith('./'));
      // The chat client reads SSE with a parser; it makes requests only when called, never on import.
      expect(
        outside.filter((m) => m !== 'zod' && m !== 'eventsource-parser'),
        file,
      ).toEqual([]);
    }
  });
});
