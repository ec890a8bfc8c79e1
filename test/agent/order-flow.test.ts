import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import { InMemoryStore } from '@langchain/langgraph';
import { FilesystemBackend } from 'deepagents';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalDetails } from '../../src/protocol/index.ts';
import { type AgentHarness, resume, startAgentHarness } from './harness.ts';

const tempStorage = async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-fs-'));
  const backend = new FilesystemBackend({ rootDir: root, virtualMode: true });
  return {
    store: new InMemoryStore(),
    backend: () => backend as never,
    close: async () => fs.rmSync(root, { recursive: true, force: true }),
  };
};

/** Records every tool call of a run, sub-agents' included, in order. */
class ToolRecorder extends BaseCallbackHandler {
  name = 'tool-recorder';
  readonly calls: Array<{ name: string; input: unknown }> = [];
  override handleToolStart(
    _tool: unknown,
    input: string,
    _runId: string,
    _parent?: string,
    _tags?: string[],
    _metadata?: Record<string, unknown>,
    runName?: string,
  ) {
    let parsed: unknown = input;
    try {
      parsed = JSON.parse(input);
    } catch {}
    this.calls.push({ name: runName ?? '', input: parsed });
  }
}

describe('order flow on the offline model', () => {
  let h: AgentHarness;
  beforeAll(async () => {
    h = await startAgentHarness(tempStorage);
  }, 60_000);
  afterAll(() => h?.close());

  const ordersFor = async (needle: string) => {
    const rows = await h.erp.database.db.selectFrom('orders').select(['id', 'note']).execute();
    return rows.filter((r) => r.note.includes(needle));
  };

  it('approve → exactly one order in the ERP', async () => {
    const ctx = h.contextFor('laoxiao', 'order-approve');
    const tools = new ToolRecorder();
    h.callbacks.push(tools);
    const first = await h.send(ctx, '给博世下 200 个 F7TC 火花塞的采购单');
    expect(first.interrupts).toHaveLength(1);
    expect(first.interrupts[0].value).toMatchObject({
      kind: 'approval',
      tool: 'order_create',
      args: { lines: [{ quantity: 200 }] },
    });
    // The card shows the line's price against the ERP's 12-month history, as the ERP itself checks it.
    const [line] = (first.interrupts[0].value as { details: { lines: Array<Record<string, never>> } }).details.lines;
    const checked = await h.erp.fetch(
      new Request(`http://erp.test/api/parts/${line.partId}/price-check?unitPrice=${line.listPrice}`, {
        headers: { authorization: `Bearer ${h.tokens.laoxiao}` },
      }),
    );
    const erpCheck = (await checked.json()) as Record<string, unknown>;
    expect(line.priceCheck).toEqual({
      unitPrice: line.listPrice,
      severity: erpCheck.severity,
      deviationPct: erpCheck.deviationPct,
      median12m: erpCheck.median12m,
    });
    // The order agent checked the line's price with the ERP before drafting the order, through its own tool.
    const precheck = tools.calls.findIndex((c) => c.name === 'price_check');
    expect(precheck, JSON.stringify(tools.calls)).toBeGreaterThanOrEqual(0);
    expect(tools.calls[precheck].input).toMatchObject({ partId: line.partId, unitPrice: line.listPrice });
    const done = await h.send(ctx, resume(first.interrupts[0].id, { type: 'approve' }));
    h.callbacks.splice(h.callbacks.indexOf(tools), 1);
    expect(precheck).toBeLessThan(tools.calls.findIndex((c) => c.name === 'order_create'));
    expect(done.interrupts).toHaveLength(0);
    expect(done.answer).toMatch(/PO-\d{6}-\d{6}/);
    // …and says what the check found, as the ERP answers it.
    expect(done.answer).toContain(`下单前价格检查 / price check before drafting：BS-F7TC ¥${line.listPrice}`);
    expect(done.answer).toContain(String(erpCheck.severity));
    expect(done.answer).toContain(String(erpCheck.reason));
    const orders = await ordersFor('给博世下 200 个 F7TC');
    expect(orders).toHaveLength(1);
    // The card's total and policy result were the ERP's preview of exactly the order it then wrote.
    const written = (await (
      await h.erp.fetch(
        new Request(`http://erp.test/api/orders/${orders[0].id}`, {
          headers: { authorization: `Bearer ${h.tokens.laoxiao}` },
        }),
      )
    ).json()) as { totalAmount: number; approval: { rule: string; reason: string } };
    expect((first.interrupts[0].value as { details: { preview: unknown } }).details.preview).toEqual({
      totalAmount: written.totalAmount,
      approval: { rule: written.approval.rule, reason: written.approval.reason },
    });
  });
});

describe('order decisions', () => {
  let h: AgentHarness;
  beforeAll(async () => {
    h = await startAgentHarness(tempStorage);
  }, 60_000);
  afterAll(() => h?.close());

  const ordersNoted = async (needle: string) =>
    (
      await h.erp.database.db
        .selectFrom('orders')
        .innerJoin('order_lines', 'order_lines.order_id', 'orders.id')
        .select(['orders.id', 'orders.note', 'order_lines.quantity'])
        .execute()
    ).filter((r) => r.note.includes(needle));

  it('reject → no order, and the answer says so', async () => {
    const ctx = h.contextFor('laoxiao', 'order-reject');
    const first = await h.send(ctx, '给电装下 300 个 D8TC 火花塞的采购单');
    expect(first.interrupts[0].value).toMatchObject({ kind: 'approval', tool: 'order_create' });
    const done = await h.send(ctx, resume(first.interrupts[0].id, { type: 'reject', reason: '价格太高' }));
    expect(done.answer).toContain('未写入');
    expect(await ordersNoted('给电装下 300 个 D8TC')).toHaveLength(0);
  });

  it('edit → the edited quantity is what the ERP gets', async () => {
    const ctx = h.contextFor('laoxiao', 'order-edit');
    const first = await h.send(ctx, '给 NGK 下 200 个 A7TC 火花塞的采购单');
    const args = first.interrupts[0].value.args as {
      supplierId: number;
      lines: Array<{ partId: number; quantity: number }>;
    };
    const edited = { ...args, lines: [{ ...args.lines[0], quantity: 500 }] };
    const before = first.interrupts[0].value.details as ApprovalDetails;
    // The edit is shown again, previewed afresh: nothing is written until the edited card is approved.
    const again = await h.send(ctx, resume(first.interrupts[0].id, { type: 'edit', args: edited }));
    expect(await ordersNoted('给 NGK 下 200 个 A7TC')).toHaveLength(0);
    expect(again.interrupts).toHaveLength(1);
    expect(again.interrupts[0].id).not.toBe(first.interrupts[0].id);
    const card = again.interrupts[0].value as { args: unknown; revision?: number; details?: ApprovalDetails };
    expect(card).toMatchObject({ kind: 'approval', tool: 'order_create', args: edited, revision: 1 });
    const total = (details?: ApprovalDetails) =>
      details?.preview && 'totalAmount' in details.preview ? details.preview.totalAmount : undefined;
    expect(total(card.details)).toBeCloseTo((total(before) ?? Number.NaN) * 2.5, 2);
    await h.send(ctx, resume(again.interrupts[0].id, { type: 'approve' }));
    const rows = await ordersNoted('给 NGK 下 200 个 A7TC');
    expect(rows.map((r) => r.quantity)).toEqual([500]);
  });

  it('edit twice, then reject → nothing is written, and the last card shows the last edit', async () => {
    const ctx = h.contextFor('laoxiao', 'order-edit-twice');
    const first = await h.send(ctx, '给 NGK 下 120 个 A7TC 火花塞的采购单');
    const args = first.interrupts[0].value.args as { lines: Array<{ quantity: number }> };
    const withQuantity = (quantity: number) => ({ ...args, lines: [{ ...args.lines[0], quantity }] });
    const second = await h.send(ctx, resume(first.interrupts[0].id, { type: 'edit', args: withQuantity(130) }));
    const third = await h.send(ctx, resume(second.interrupts[0].id, { type: 'edit', args: withQuantity(140) }));
    expect(third.interrupts[0].value).toMatchObject({ args: withQuantity(140), revision: 2 });
    const done = await h.send(ctx, resume(third.interrupts[0].id, { type: 'reject' }));
    expect(done.answer).toContain('未写入');
    expect(await ordersNoted('给 NGK 下 120 个 A7TC')).toHaveLength(0);
  });

  it('resuming twice with the same decision still writes one order', async () => {
    const ctx = h.contextFor('laoxiao', 'order-twice');
    const first = await h.send(ctx, '给冠军下 100 个 F7TC 火花塞的采购单');
    const id = first.interrupts[0].id;
    await h.send(ctx, resume(id, { type: 'approve' }));
    await h.send(ctx, resume(id, { type: 'approve' })).catch(() => undefined);
    expect(await ordersNoted('给冠军下 100 个 F7TC')).toHaveLength(1);
  });

  it('asks for missing fields with request_order_info and continues with the answer', async () => {
    const ctx = h.contextFor('laoxiao', 'order-missing');
    const first = await h.send(ctx, '帮我给火炬下一个 F7TC 火花塞的采购单');
    expect(first.interrupts[0]?.value, JSON.stringify(first.toolCalls)).toMatchObject({
      kind: 'order_info',
      fields: ['quantity'],
    });
    const second = await h.send(ctx, resume(first.interrupts[0].id, { type: 'answer', answer: { quantity: 400 } }));
    expect(second.interrupts[0].value).toMatchObject({
      kind: 'approval',
      tool: 'order_create',
      args: { lines: [{ quantity: 400 }] },
    });
    await h.send(ctx, resume(second.interrupts[0].id, { type: 'approve' }));
    expect((await ordersNoted('帮我给火炬下一个 F7TC')).map((r) => r.quantity)).toEqual([400]);
  });

  it('refuses to change or cancel another buyer’s order under four eyes, saying why, without an approval card', async () => {
    const owner = h.contextFor('laoxiao', 'four-eyes-owner');
    const first = await h.send(owner, '给博世下 150 个 F7TC 火花塞的采购单');
    const done = await h.send(owner, resume(first.interrupts[0].id, { type: 'approve' }));
    const orderNo = /PO-\d{6}-\d+/.exec(done.answer)?.[0];
    expect(orderNo, done.answer).toBeDefined();
    await h.erp.services.users.create({ username: 'liqiang', role: 'buyer', projectIds: ['P001'] });
    const other = {
      ...h.contextFor('laoxiao', 'four-eyes-other'),
      userId: 'liqiang',
      username: '李强',
      token: await h.erp.services.users.issueToken('liqiang'),
    };
    for (const [say, verb] of [
      [`取消订单 ${orderNo}`, 'cancelled'],
      [`把订单 ${orderNo} 的数量改成 9000`, 'changed'],
    ] as const) {
      const turn = await h.send({ ...other, sessionId: `four-eyes-${verb}` }, say);
      expect(turn.interrupts, say).toHaveLength(0);
      expect(turn.answer).toContain(`Order ${orderNo} was not ${verb}`);
      expect(turn.answer).toMatch(/四眼原则.*laoxiao/);
    }
    const row = await h.erp.database.db
      .selectFrom('orders')
      .selectAll()
      .where('order_no', '=', orderNo!)
      .executeTakeFirst();
    expect(row?.status).not.toBe('cancelled');
  });

  it('gives a viewer no write tools: the order is refused without an approval prompt', async () => {
    const ctx = h.contextFor('viewer', 'order-viewer');
    const turn = await h.send(ctx, '给博世下 200 个 F7TC 火花塞的采购单');
    expect(turn.interrupts).toHaveLength(0);
    const registry = await h.runtime.registry();
    expect(registry.list({ role: 'viewer' }).filter((d) => d.safety === 'write')).toEqual([]);
    expect(await ordersNoted('给博世下 200 个 F7TC 火花塞的采购单')).toHaveLength(0);
  });
});

describe('durability and failure isolation', () => {
  it('builds the agent once: concurrent first requests share the same graph', async () => {
    const h = await startAgentHarness(tempStorage);
    try {
      const ctx = h.contextFor('laoxiao', 'shared-build');
      const graphs = await Promise.all([h.runtime.graph(ctx), h.runtime.graph(ctx), h.runtime.graph(ctx)]);
      expect(new Set(graphs).size).toBe(1);
      expect(await h.runtime.graph(h.contextFor('viewer', 'shared-build-viewer'))).not.toBe(graphs[0]);
    } finally {
      await h.close();
    }
  }, 60_000);

  it('resumes an approval after the agent process restarts (SQLite checkpoints)', async () => {
    const h = await startAgentHarness(tempStorage);
    try {
      const ctx = h.contextFor('laoxiao', 'order-restart');
      const first = await h.send(ctx, '给德尔福下 100 个 F7TC 火花塞的采购单');
      expect(first.interrupts[0].value).toMatchObject({ kind: 'approval' });
      await h.restart();
      const done = await h.send(ctx, resume(first.interrupts[0].id, { type: 'approve' }));
      expect(done.answer).toMatch(/PO-\d{6}-\d{6}/);
      const rows = await h.erp.database.db.selectFrom('orders').select('note').execute();
      expect(rows.filter((r) => r.note.includes('给德尔福下 100 个 F7TC'))).toHaveLength(1);
    } finally {
      await h.close();
    }
  }, 60_000);

  it('keeps running when middleware storage calls fail', async () => {
    // Skills sync, skills restore and memory update all use uploads/downloads; make them throw.
    const failingStorage = async () => {
      const base = await tempStorage();
      const backend = base.backend() as unknown as Record<string, unknown>;
      const failing = new Proxy(backend, {
        get(target, key) {
          if (key === 'uploadFiles' || key === 'downloadFiles' || key === 'glob') {
            return () => {
              throw new Error('storage offline');
            };
          }
          const value = target[key as string];
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      return { ...base, backend: () => failing as never };
    };
    const h = await startAgentHarness(failingStorage);
    try {
      const ctx = h.contextFor('laoxiao', 'order-failing-middleware');
      const first = await h.send(ctx, '给博世下 300 个 D8TC 火花塞的采购单');
      expect(first.interrupts[0].value).toMatchObject({ kind: 'approval', tool: 'order_create' });
      const done = await h.send(ctx, resume(first.interrupts[0].id, { type: 'approve' }));
      expect(done.answer).toMatch(/PO-\d{6}-\d{6}/);
    } finally {
      await h.close();
    }
  }, 60_000);
});
