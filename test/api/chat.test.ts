import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RunStore } from '../../src/api/chat/run-store.ts';
import { sleep } from '../../src/shared/index.ts';
import { type ApiHarness, startApiHarness } from './harness.ts';
import { answerText, collect, openSse, type SseEvent } from './sse.ts';

const ORDER = '给博世下 200 个 F7TC 火花塞的采购单';

describe('chat API: order runs over SSE on the offline model', () => {
  let h: ApiHarness;
  beforeAll(async () => {
    h = await startApiHarness();
  }, 90_000);
  afterAll(() => h?.close());

  it('takes a decision sent the moment the interrupt arrives, before the run has recorded that it waits', async () => {
    // The run stores and sends its interrupt, then records its status: widen that gap.
    const setStatus = RunStore.prototype.setStatus;
    const slow = vi.spyOn(RunStore.prototype, 'setStatus').mockImplementation(async function (this: RunStore, ...args) {
      if (args[1] === 'waiting') await sleep(400);
      return setStatus.apply(this, args);
    });
    try {
      const first = await h.chat(h.tokens.laoxiao, { message: ORDER });
      const interrupt = first.events.at(-1) as SseEvent;
      expect(interrupt.event).toBe('interrupt');
      const second = await h.resume(h.tokens.laoxiao, {
        session_id: first.headers.get('x-session-id'),
        interrupt_id: interrupt.data.interrupt_id,
        decision: { type: 'reject' },
      });
      expect(second.status).toBe(200);
      expect(second.events.at(-1)).toMatchObject({ event: 'done', data: { status: 'completed' } });
    } finally {
      slow.mockRestore();
    }
  });

  it('streams progress per agent, then an approval interrupt; approve writes exactly one order', async () => {
    const first = await h.chat(h.tokens.laoxiao, { message: ORDER });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-accel-buffering')).toBe('no');
    const sessionId = first.headers.get('x-session-id');
    expect(sessionId).toBeTruthy();
    const events = first.events;
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
    expect(events[0]).toMatchObject({ event: 'progress', data: { session_id: sessionId, phase: 'run' } });
    expect(events.every((e) => e.data.session_id === sessionId)).toBe(true);
    const progress = events.filter((e) => e.event === 'progress' && e.data.phase !== 'run');
    expect(progress.find((e) => e.data.phase === 'subagent')?.data).toMatchObject({
      agent: 'procurement-order',
      status: 'running',
    });
    const tools = progress.filter((e) => e.data.phase === 'tool' && e.data.agent === 'procurement-order');
    expect(tools.map((e) => e.data.title)).toEqual(expect.arrayContaining(['创建采购订单']));
    // Upserts: each step id runs first, then completes (except the one waiting for approval).
    const supplierStep = tools.find((e) => e.data.status === 'completed');
    expect(tools.filter((e) => e.data.id === supplierStep?.data.id).map((e) => e.data.status)).toEqual([
      'running',
      'completed',
    ]);
    const interrupt = events.at(-1) as SseEvent;
    expect(interrupt.event).toBe('interrupt');
    expect(interrupt.data).toMatchObject({
      kind: 'approval',
      tool: 'order_create',
      allowed: ['approve', 'edit', 'reject'],
      args: { lines: [{ quantity: 200 }] },
    });
    expect(events.some((e) => e.event === 'token')).toBe(false);
    expect(JSON.stringify(events)).not.toContain(h.tokens.laoxiao);

    const second = await h.resume(h.tokens.laoxiao, {
      session_id: sessionId,
      interrupt_id: interrupt.data.interrupt_id,
      decision: { type: 'approve' },
    });
    expect(second.status).toBe(200);
    expect(second.events[0].id).toBe(interrupt.id + 1);
    expect(second.events.at(-1)).toMatchObject({ event: 'done', data: { status: 'completed' } });
    expect(answerText(second.events)).toMatch(/PO-\d{6}-\d{6}/);
    // The step that waited for approval completes in the continued stream, under the same id.
    const orderStep = tools.find((e) => e.data.title === '创建采购订单');
    expect(second.events.find((e) => e.event === 'progress' && e.data.id === orderStep?.data.id)?.data).toMatchObject({
      status: 'completed',
      agent: 'procurement-order',
    });
    expect(second.events.filter((e) => e.event === 'token').every((e) => e.data.agent === 'orchestrator')).toBe(true);
    expect(await h.ordersNoted(ORDER)).toHaveLength(1);

    // The same decision again is refused: the interrupt is gone and nothing more is written.
    const again = await h.resume(h.tokens.laoxiao, {
      session_id: sessionId,
      interrupt_id: interrupt.data.interrupt_id,
      decision: { type: 'approve' },
    });
    expect(again.status).toBe(409);
    expect(await h.ordersNoted(ORDER)).toHaveLength(1);
  });

  it('reject writes no order and says so', async () => {
    const message = '给电装下 300 个 D8TC 火花塞的采购单';
    const first = await h.chat(h.tokens.laoxiao, { message });
    const interrupt = first.events.at(-1) as SseEvent;
    const done = await h.resume(h.tokens.laoxiao, {
      session_id: interrupt.data.session_id,
      interrupt_id: interrupt.data.interrupt_id,
      decision: { type: 'reject', reason: '价格太高' },
    });
    expect(done.events.at(-1)?.event).toBe('done');
    expect(answerText(done.events)).toContain('未写入');
    expect(await h.ordersNoted(message)).toHaveLength(0);
  });

  it('a second start while the session waits gets 409 with the run id; a wrong decision gets 422', async () => {
    const first = await h.chat(h.tokens.laoxiao, { message: '给 NGK 下 120 个 A7TC 火花塞的采购单' });
    const sessionId = first.headers.get('x-session-id') as string;
    const runId = first.headers.get('x-run-id');
    const busy = await h.chat(h.tokens.laoxiao, { message: '你好', session_id: sessionId });
    expect(busy.status).toBe(409);
    expect(busy.problem).toMatchObject({ status: 409, run_id: runId, run_status: 'waiting' });
    const interrupt = first.events.at(-1) as SseEvent;
    const wrong = await h.resume(h.tokens.laoxiao, {
      session_id: sessionId,
      interrupt_id: interrupt.data.interrupt_id,
      decision: { type: 'answer', answer: 'x' },
    });
    expect(wrong.status).toBe(422);
    // Cancelling a waiting run ends it: the session takes new messages again, nothing was written.
    const cancel = await h.call('POST', '/api/v1/agent/chat/cancel', { body: { session_id: sessionId } });
    expect(cancel.body).toMatchObject({ run_id: runId, status: 'cancelled' });
    const next = await h.chat(h.tokens.laoxiao, { message: '你好', session_id: sessionId });
    expect(next.status).toBe(200);
    expect(next.events.at(-1)?.event).toBe('done');
    expect(await h.ordersNoted('给 NGK 下 120 个 A7TC')).toHaveLength(0);
  });

  it('parallel starts on one new client-chosen session id: one run, the others 409 with its id, no 5xx', async () => {
    const sessionId = `race-${crypto.randomUUID()}`;
    const url = `${h.url}/api/v1/agent/chat/stream`;
    const starts = await Promise.all(
      Array.from({ length: 10 }, () =>
        openSse(url, { token: h.tokens.laoxiao, body: { message: '你好', session_id: sessionId } }),
      ),
    );
    const statuses = starts.map((s) => s.status).sort();
    expect(statuses).toEqual([200, ...Array(9).fill(409)]);
    const winner = starts.find((s) => s.status === 200)!;
    const events = await collect(winner.events);
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'completed' } });
    const runId = events.at(-1)!.data.run_id;
    for (const refused of starts.filter((s) => s.status === 409)) {
      expect(refused.problem).toMatchObject({ session_id: sessionId });
      // Refused while the run was active: they name it.
      if (refused.problem.run_id) expect(refused.problem.run_id).toBe(runId);
    }
    const listed = await h.call('GET', '/api/v1/history/sessions');
    expect(listed.body.items.filter((s: { id: string }) => s.id === sessionId)).toHaveLength(1);
  });

  it('history lists, shows, renames and deletes a session with its checkpoints', async () => {
    const first = await h.chat(h.tokens.laoxiao, { message: '你好' });
    const sessionId = first.headers.get('x-session-id') as string;
    const list = await h.call('GET', '/api/v1/history/sessions?size=50');
    expect(list.status).toBe(200);
    expect(list.body.items[0]).toMatchObject({ id: sessionId, title: '你好' });
    expect(list.body.total).toBeGreaterThanOrEqual(1);
    const detail = await h.call('GET', `/api/v1/history/sessions/${sessionId}`);
    expect(detail.body.messages).toMatchObject([
      { role: 'user', content: '你好' },
      { role: 'assistant', status: 'done', content: expect.stringContaining('Procura') },
    ]);
    const renamed = await h.call('PATCH', `/api/v1/history/sessions/${sessionId}`, { body: { title: '问候' } });
    expect(renamed.body.title).toBe('问候');
    const checkpointer = await h.agent.runtime.checkpointer();
    expect(await checkpointer.getTuple({ configurable: { thread_id: sessionId } })).toBeDefined();
    expect((await h.call('DELETE', `/api/v1/history/sessions/${sessionId}`)).status).toBe(204);
    expect((await h.call('GET', `/api/v1/history/sessions/${sessionId}`)).status).toBe(404);
    expect(await checkpointer.getTuple({ configurable: { thread_id: sessionId } })).toBeUndefined();
  });

  it('keeps a pending approval across an API restart; resume then writes the order', async () => {
    const message = '给冠军下 100 个 F7TC 火花塞的采购单';
    const first = await h.chat(h.tokens.laoxiao, { message });
    const interrupt = first.events.at(-1) as SseEvent;
    await h.restartApi();
    const detail = await h.call('GET', `/api/v1/history/sessions/${interrupt.data.session_id}`);
    expect(detail.body.pending_interrupts[0]).toMatchObject({ interrupt_id: interrupt.data.interrupt_id });
    const rejoin = await openSse(`${h.url}/api/v1/agent/chat/stream/${interrupt.data.session_id}`, {
      token: h.tokens.laoxiao,
      lastEventId: interrupt.id - 1,
    });
    expect((await collect(rejoin.events)).map((e) => e.event)).toEqual(['interrupt']);
    const done = await h.resume(h.tokens.laoxiao, {
      session_id: interrupt.data.session_id,
      interrupt_id: interrupt.data.interrupt_id,
      decision: { type: 'approve' },
    });
    expect(done.events.at(-1)?.event).toBe('done');
    expect(await h.ordersNoted(message)).toHaveLength(1);
  });

  it('user B can neither read, join, resume, cancel nor download anything of user A', async () => {
    const first = await h.chat(h.tokens.laoxiao, { message: '给博世下 250 个 F7TC 火花塞的采购单' });
    const interrupt = first.events.at(-1) as SseEvent;
    const sessionId = interrupt.data.session_id;
    const { backend } = await h.agent.runtime.storage();
    const ctx = h.agent.contextFor('laoxiao', sessionId);
    await (await backend({ context: ctx, state: {} } as never)).write('/analysis/report_test.md', '# 报告\n');
    const own = await h.call('GET', `/api/v1/files/${sessionId}/analysis/report_test.md`);
    expect(own.status).toBe(200);
    expect(own.body).toBe('# 报告\n');

    const b = h.tokens.admin;
    expect((await h.call('GET', `/api/v1/history/sessions/${sessionId}`, { token: b })).status).toBe(404);
    const list = await h.call('GET', '/api/v1/history/sessions', { token: b });
    expect(list.body.items.map((s: { id: string }) => s.id)).not.toContain(sessionId);
    expect((await openSse(`${h.url}/api/v1/agent/chat/stream/${sessionId}`, { token: b })).status).toBe(404);
    const resume = await h.resume(b, {
      session_id: sessionId,
      interrupt_id: interrupt.data.interrupt_id,
      decision: { type: 'approve' },
    });
    expect(resume.status).toBe(404);
    expect(
      (await h.call('POST', '/api/v1/agent/chat/cancel', { token: b, body: { session_id: sessionId } })).status,
    ).toBe(404);
    expect((await h.call('GET', `/api/v1/files/${sessionId}/analysis/report_test.md`, { token: b })).status).toBe(404);
    expect(
      (await h.call('PATCH', `/api/v1/history/sessions/${sessionId}`, { token: b, body: { title: 'x' } })).status,
    ).toBe(404);
    expect((await h.call('DELETE', `/api/v1/history/sessions/${sessionId}`, { token: b })).status).toBe(404);
    // Starting a message in A's session id is refused too, and A's run still waits.
    expect((await h.chat(b, { message: '你好', session_id: sessionId })).status).toBe(404);
    expect(await h.ordersNoted('给博世下 250 个 F7TC')).toHaveLength(0);
  });

  it('a session stays in its project: resuming a P001 approval as P002 is refused and writes nothing', async () => {
    const message = '给博世下 170 个 F7TC 火花塞的采购单';
    const inP001 = { 'x-project-id': 'P001' };
    const first = await collect(
      (
        await openSse(`${h.url}/api/v1/agent/chat/stream`, {
          token: h.tokens.admin,
          body: { message },
          headers: inP001,
        })
      ).events,
    );
    const interrupt = first.at(-1) as SseEvent;
    expect(interrupt.event).toBe('interrupt');
    const body = {
      session_id: interrupt.data.session_id,
      interrupt_id: interrupt.data.interrupt_id,
      decision: { type: 'approve' },
    };
    const elsewhere = await openSse(`${h.url}/api/v1/agent/chat/resume`, {
      token: h.tokens.admin,
      body,
      headers: { 'x-project-id': 'P002' },
    });
    expect(elsewhere.status).toBe(409);
    expect(elsewhere.problem).toMatchObject({ project_id: 'P001' });
    const newMessage = await openSse(`${h.url}/api/v1/agent/chat/stream`, {
      token: h.tokens.admin,
      body: { message: '你好', session_id: interrupt.data.session_id },
      headers: { 'x-project-id': 'P002' },
    });
    expect(newMessage.status).toBe(409);
    expect(await h.ordersNoted(message)).toHaveLength(0);
    // In its own project the approval still waits and goes through, in P001.
    const done = await collect(
      (await openSse(`${h.url}/api/v1/agent/chat/resume`, { token: h.tokens.admin, body, headers: inP001 })).events,
    );
    expect(done.at(-1)).toMatchObject({ event: 'done', data: { status: 'completed' } });
    const orders = await h.agent.erp.database.db
      .selectFrom('orders')
      .select(['project_id', 'note'])
      .where('note', 'like', `%${message}%`)
      .execute();
    expect(orders.map((o) => o.project_id)).toEqual(['P001']);
  });

  it('a secret typed into an order is redacted where the message enters: nothing stored or written holds it', async () => {
    const secrets = [
      'sk-live9f8e7d6c5b4a3210fedcba',
      h.tokens.laoxiao,
      'sk_live_51HqLyjWDarjtT1zdp7dcXYZabc',
      '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',
      'AKIAZ3MSJV4WXYZABCDE',
      'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJsYW94aWFvIn0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk',
      'Hunter2Hunter2!',
    ];
    const message = `给博世下 180 个 F7TC 火花塞的采购单，密钥 ${secrets[0]}，令牌 ${secrets[1]}，stripe ${secrets[2]} github ${secrets[3]} aws ${secrets[4]} jwt ${secrets[5]} password: ${secrets[6]}`;
    const leaks = (value: unknown) => secrets.filter((secret) => JSON.stringify(value).includes(secret));
    const first = await h.chat(h.tokens.laoxiao, { message });
    const interrupt = first.events.at(-1) as SseEvent;
    expect(interrupt.event).toBe('interrupt');
    const sessionId = interrupt.data.session_id as string;
    // The approval card shows the note as it will be written.
    const note = interrupt.data.args.note as string;
    expect(note).toContain('[redacted]');
    const waiting = await h.call('GET', `/api/v1/history/sessions/${sessionId}`);
    expect(waiting.body.pending_interrupts[0].value.args.note).toBe(note);
    expect(waiting.body.title).toContain('[redacted]');
    expect(leaks(waiting.body)).toEqual([]);

    const done = await h.resume(h.tokens.laoxiao, {
      session_id: sessionId,
      interrupt_id: interrupt.data.interrupt_id,
      decision: { type: 'approve' },
    });
    expect(done.events.at(-1)).toMatchObject({ event: 'done', data: { status: 'completed' } });
    const erpDb = h.agent.erp.database.db;
    const orders = await erpDb.selectFrom('orders').select(['id', 'note']).where('note', '=', note).execute();
    expect(orders).toHaveLength(1);
    const audit = await erpDb
      .selectFrom('audit_log')
      .selectAll()
      .where('entity_id', '=', String(orders[0].id))
      .execute();
    expect(audit.length).toBeGreaterThan(0);
    expect(leaks(audit)).toEqual([]);
    expect(leaks((await h.call('GET', `/api/v1/history/sessions/${sessionId}`)).body)).toEqual([]);
    expect(leaks((await h.call('GET', '/api/v1/history/sessions?size=100')).body)).toEqual([]);
    const checkpoints = [];
    for await (const tuple of (await h.agent.runtime.checkpointer()).list({ configurable: { thread_id: sessionId } }))
      checkpoints.push(tuple);
    expect(checkpoints.length).toBeGreaterThan(0);
    expect(JSON.stringify(checkpoints)).toContain('[redacted]');
    expect(leaks(checkpoints)).toEqual([]);
    const { store } = await h.agent.runtime.storage();
    const memories = [];
    for (const namespace of await store.listNamespaces({}))
      memories.push(...(await store.search(namespace, { limit: 1000 })));
    expect(leaks(memories)).toEqual([]);
  });

  it('a secret said in a sentence, in English or Chinese, is redacted in the history and in what the model is sent', async () => {
    const sayings = [
      (secret: string) => `my password is ${secret}, 帮我查一下 F7TC 火花塞的库存`,
      (secret: string) => `the password for the ERP is ${secret}. Check the stock of F7TC spark plugs`,
      (secret: string) => `api key is ${secret}，查一下刹车片库存`,
      (secret: string) => `ERP 的密码是 ${secret}，帮我查一下 F7TC 火花塞的库存`,
    ];
    const secrets = fc.sample(
      fc
        .tuple(
          fc.string({ unit: fc.constantFrom(...'abcdefghjkmnpqrstuvwxyz'), minLength: 6, maxLength: 9 }),
          fc.nat(999),
        )
        .map(([word, n]) => `${word}${n}`),
      { numRuns: sayings.length, seed: 9 },
    );
    for (const [i, say] of sayings.entries()) {
      const secret = secrets[i];
      const done = await h.chat(h.tokens.laoxiao, { message: say(secret) });
      expect(done.events.at(-1)?.event).not.toBe('error');
      const sessionId = done.headers.get('x-session-id')!;
      const session = (await h.call('GET', `/api/v1/history/sessions/${sessionId}`)).body;
      const asked = session.messages.find((m: { role: string }) => m.role === 'user');
      expect(asked.content).toContain('[redacted]');
      expect(JSON.stringify(session)).not.toContain(secret);
      // What the model was sent is what the checkpoints hold.
      const sent: unknown[] = [];
      for await (const tuple of (await h.agent.runtime.checkpointer()).list({ configurable: { thread_id: sessionId } }))
        sent.push(tuple);
      expect(sent.length).toBeGreaterThan(0);
      expect(JSON.stringify(sent)).toContain('[redacted]');
      expect(JSON.stringify(sent)).not.toContain(secret);
    }
  }, 120_000);

  it('lists no demo users unless started in embedded mode', async () => {
    const res = await h.call('GET', '/api/v1/demo-users', { token: null });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });

  it('answers bad input with 4xx problem+json, never a 5xx or a hung stream', async () => {
    const noToken = await h.call('GET', '/api/v1/history/sessions', { token: null });
    expect(noToken.status).toBe(401);
    expect(noToken.headers.get('content-type')).toContain('application/problem+json');
    expect((await h.call('GET', '/api/v1/history/sessions', { token: 'pk_not_a_real_token_at_all' })).status).toBe(401);
    expect((await h.call('POST', '/api/v1/agent/chat/stream', { body: { message: '' } })).status).toBe(422);
    expect((await h.call('POST', '/api/v1/agent/chat/stream', { body: { message: 'x'.repeat(9000) } })).status).toBe(
      422,
    );
    expect((await h.call('POST', '/api/v1/agent/chat/stream', { body: { message: 'hi', extra: 1 } })).status).toBe(422);
    expect(
      (await h.call('POST', '/api/v1/agent/chat/stream', { body: { message: 'hi', session_id: '../etc' } })).status,
    ).toBe(422);
    const big = await fetch(`${h.url}/api/v1/agent/chat/stream`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.tokens.laoxiao}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'y'.repeat(100_000) }),
    });
    expect(big.status).toBe(413);
    const badJson = await fetch(`${h.url}/api/v1/agent/chat/stream`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.tokens.laoxiao}`, 'content-type': 'application/json' },
      body: '{"message":',
    });
    expect(badJson.status).toBe(400);
    expect(
      (await h.call('POST', '/api/v1/agent/chat/cancel', { body: { session_id: 'no-such-session' } })).status,
    ).toBe(404);
    expect((await h.call('GET', '/api/v1/nowhere')).status).toBe(404);
    expect(
      (
        await h.call('POST', '/api/v1/agent/chat/resume', {
          body: { session_id: 'x', interrupt_id: 'y', decision: { type: 'maybe' } },
        })
      ).status,
    ).toBe(422);
    expect((await h.call('GET', '/api/v1/health', { token: null })).body.status).toBe('ok');
    const ready = await h.call('GET', '/api/v1/ready', { token: null });
    expect(ready.body.checks.erp.ok).toBe(true);
    expect(ready.body.checks.model.detail.provider).toBe('offline');
  });
});
