import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import { MemorySaver } from '@langchain/langgraph';
import { Client } from '@langchain/langgraph-sdk';
import { createAsyncSubAgentMiddleware } from 'deepagents';
import { createAgent } from 'langchain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RecordingModel } from '../agent/stand-ins.ts';
import { type ApiHarness, startApiHarness } from './harness.ts';

// biome-ignore lint/suspicious/noExplicitAny: thread values and stream chunks are read field by field
type Any = any;

/** The HTTP status an SDK call failed with (the SDK throws an `HTTPError` carrying it). */
async function statusOf(call: Promise<unknown> | (() => AsyncGenerator<unknown>)): Promise<number | undefined> {
  try {
    if (typeof call === 'function') for await (const _ of call());
    else await call;
    return undefined;
  } catch (error) {
    return (error as { status?: number }).status;
  }
}

const messagesOf = (values: Any) => (values?.messages ?? []) as Array<{ type: string; content: unknown }>;
const lastAnswer = (values: Any) => String(messagesOf(values).findLast((m) => m.type === 'ai')?.content ?? '');

/** Procura's Agent Protocol server driven by the LangGraph SDK's own `Client`, as any LangGraph client would. */
describe('chat API: Agent Protocol', () => {
  let h: ApiHarness;
  const clientFor = (token: string) =>
    new Client({
      apiUrl: `${h.url}/api/v1/agent-protocol`,
      defaultHeaders: { authorization: `Bearer ${token}` },
      callerOptions: { maxRetries: 0 },
    });
  let buyer: Client;
  let other: Client;

  beforeAll(async () => {
    h = await startApiHarness();
    buyer = clientFor(h.tokens.laoxiao);
    other = clientFor(h.tokens.zhangwei);
  }, 90_000);
  afterAll(() => h?.close());

  it('lists Procura’s graph as an assistant; an unknown assistant is a 404', async () => {
    const assistants = await buyer.assistants.search();
    expect(assistants.map((a) => a.graph_id)).toEqual(['procura']);
    expect((assistants[0].metadata as Any).sub_agents).toEqual(
      expect.arrayContaining(['procurement-analyst', 'procurement-order']),
    );
    expect((await buyer.assistants.get('procura')).graph_id).toBe('procura');
    expect(await buyer.assistants.search({ graphId: 'nothing' })).toEqual([]);
    expect(await statusOf(buyer.assistants.get('nothing'))).toBe(404);
  });

  it('a run streamed to its end answers a stock question from the ERP; the thread keeps its state', async () => {
    const thread = await buyer.threads.create({ metadata: { purpose: 'stock' } });
    expect(thread).toMatchObject({ status: 'idle', metadata: { purpose: 'stock' } });
    let created: { run_id: string; thread_id?: string } | undefined;
    const chunks: Array<{ event: string; data: Any; id?: string }> = [];
    for await (const chunk of buyer.runs.stream(thread.thread_id, 'procura', {
      input: { messages: [{ role: 'user', content: '帮我查一下 F7TC 火花塞的库存' }] },
      streamMode: ['values', 'messages-tuple', 'custom'],
      onRunCreated: (meta) => {
        created = meta;
      },
    })) {
      chunks.push(chunk as never);
    }
    const events = chunks.map((c) => c.event);
    expect(events[0]).toBe('metadata');
    const runId = chunks[0].data.run_id;
    expect(created).toEqual({ run_id: runId, thread_id: thread.thread_id });
    expect(events).toContain('custom');
    expect(events).toContain('messages');
    expect(events.at(-1)).toBe('values');
    // The streamed pieces make up the answer the thread's values end with.
    const streamed = chunks
      .filter((c) => c.event === 'messages')
      .map((c) => c.data[0].content)
      .join('');
    const answer = lastAnswer(chunks.at(-1)?.data);
    expect(answer).toContain('F7TC');
    expect(streamed.trim()).toBe(answer.trim());
    // The figure comes from the ERP: the part's stock as the ERP holds it.
    const stock = await h.agent.erp.database.db
      .selectFrom('parts')
      .innerJoin('inventory', 'inventory.part_id', 'parts.id')
      .select(['parts.code', 'inventory.on_hand'])
      .where('parts.model', 'like', '%F7TC%')
      .execute();
    expect(stock.length).toBeGreaterThan(0);
    for (const row of stock) expect(answer).toMatch(new RegExp(`${row.code}[^\n]*现有 ${row.on_hand}(?!\\d)`));
    // Procura's own steps travel as custom events.
    expect(chunks.find((c) => c.event === 'custom')?.data).toMatchObject({ event: 'progress', data: { phase: 'run' } });

    // A client rejoining after an event it saw gets what followed, once, in the modes it asks for.
    const seen = chunks.findIndex((c) => c.event === 'messages');
    const rejoined: Array<{ event: string; data: Any; id?: string }> = [];
    for await (const chunk of buyer.runs.joinStream(thread.thread_id, runId, {
      lastEventId: chunks[seen].id,
      streamMode: ['values', 'custom'],
    })) {
      rejoined.push(chunk as never);
    }
    const after = chunks.slice(seen + 1).filter((c) => c.event === 'values' || c.event === 'custom');
    expect(rejoined.map((c) => [c.event, c.id])).toEqual([
      ['metadata', undefined],
      ...after.map((c) => [c.event, c.id]),
    ]);
    expect(lastAnswer(rejoined.at(-1)?.data)).toBe(answer);

    const run = await buyer.runs.get(thread.thread_id, runId);
    expect(run).toMatchObject({ run_id: runId, thread_id: thread.thread_id, status: 'success' });
    expect((await buyer.runs.list(thread.thread_id)).map((r) => r.run_id)).toEqual([runId]);
    const state = await buyer.threads.getState(thread.thread_id);
    expect(messagesOf(state.values).map((m) => m.type)).toEqual(expect.arrayContaining(['human', 'ai']));
    expect(lastAnswer(state.values)).toBe(answer);
    expect(state.checkpoint.checkpoint_id).toBeTruthy();
    expect(state.next).toEqual([]);
    const again = await buyer.threads.get(thread.thread_id);
    expect(again.status).toBe('idle');
    expect(lastAnswer(again.values)).toBe(answer);
    const mine = await buyer.threads.search({ metadata: { purpose: 'stock' } });
    expect(mine.map((t) => t.thread_id)).toEqual([thread.thread_id]);
    // The thread is a chat session: the browser's history shows it with its answer.
    const session = (await h.call('GET', `/api/v1/history/sessions/${thread.thread_id}`)).body;
    expect(session.messages.map((m: Any) => m.content)).toEqual(['帮我查一下 F7TC 火花塞的库存', answer]);

    // A second run on the thread, waited for, sees the conversation so far.
    const values = await buyer.runs.wait(thread.thread_id, 'procura', {
      input: { messages: [{ role: 'user', content: '你好' }] },
    });
    expect(messagesOf(values).filter((m) => m.type === 'human')).toHaveLength(2);
    expect((await buyer.runs.list(thread.thread_id)).map((r) => r.status)).toEqual(['success', 'success']);
  }, 90_000);

  it('an order run waits for approval; a resume command writes the order once; a waiting run can be cancelled', async () => {
    const thread = await buyer.threads.create();
    const note = '给博世下 230 个 F7TC 火花塞的采购单';
    const run = await buyer.runs.create(thread.thread_id, 'procura', {
      input: { messages: [{ role: 'user', content: note }] },
    });
    expect(run.status).toBe('running');
    const paused: Any = await buyer.runs.join(thread.thread_id, run.run_id);
    expect(paused.__interrupt__).toHaveLength(1);
    expect(paused.__interrupt__[0].value).toMatchObject({ kind: 'approval', tool: 'order_create' });
    expect((await buyer.runs.get(thread.thread_id, run.run_id)).status).toBe('interrupted');
    expect((await buyer.threads.get(thread.thread_id)).status).toBe('interrupted');
    expect(await h.ordersNoted(note)).toHaveLength(0);

    const done = await buyer.runs.wait(thread.thread_id, 'procura', { command: { resume: { type: 'approve' } } });
    expect(lastAnswer(done)).toMatch(/PO-\d{6}-\d{6}/);
    expect(await h.ordersNoted(note)).toHaveLength(1);

    const second = await buyer.runs.create(thread.thread_id, 'procura', {
      input: { messages: [{ role: 'user', content: '给博世下 240 个 F7TC 火花塞的采购单' }] },
    });
    await buyer.runs.join(thread.thread_id, second.run_id);
    await buyer.runs.cancel(thread.thread_id, second.run_id, true);
    expect((await buyer.runs.get(thread.thread_id, second.run_id)).status).toBe('interrupted');
    expect((await buyer.threads.get(thread.thread_id)).status).toBe('idle');
    expect(await h.ordersNoted('240 个 F7TC')).toHaveLength(0);
    // A run that is no longer active cannot be cancelled.
    expect(await statusOf(buyer.runs.cancel(thread.thread_id, second.run_id))).toBe(409);
  }, 90_000);

  it('another user’s thread is missing (404): not read, searched, run on, streamed or deleted', async () => {
    const thread = await buyer.threads.create();
    await buyer.runs.wait(thread.thread_id, 'procura', { input: { messages: [{ role: 'user', content: '你好' }] } });
    const [run] = await buyer.runs.list(thread.thread_id);
    const id = thread.thread_id;
    expect(await statusOf(other.threads.get(id))).toBe(404);
    expect(await statusOf(other.threads.getState(id))).toBe(404);
    expect(await statusOf(other.runs.list(id))).toBe(404);
    expect(await statusOf(other.runs.get(id, run.run_id))).toBe(404);
    expect(await statusOf(other.runs.join(id, run.run_id))).toBe(404);
    expect(await statusOf(() => other.runs.joinStream(id, run.run_id))).toBe(404);
    expect(
      await statusOf(other.runs.wait(id, 'procura', { input: { messages: [{ role: 'user', content: 'hi' }] } })),
    ).toBe(404);
    expect(
      await statusOf(() =>
        other.runs.stream(id, 'procura', { input: { messages: [{ role: 'user', content: 'hi' }] } }),
      ),
    ).toBe(404);
    expect(await statusOf(other.threads.delete(id))).toBe(404);
    // Taking the id for a thread of one's own does not reach it either.
    expect(await statusOf(other.threads.create({ threadId: id, ifExists: 'do_nothing' }))).toBe(404);
    expect((await other.threads.search({ limit: 1000 })).map((t) => t.thread_id)).not.toContain(id);
    expect((await buyer.runs.list(id)).map((r) => r.run_id)).toEqual([run.run_id]);

    await buyer.threads.delete(id);
    expect(await statusOf(buyer.threads.get(id))).toBe(404);
  }, 60_000);

  it('deepagents’ async sub-agent tools start, steer and check a task on this server, as the user', async () => {
    // A parent agent of deepagents' own making, unchanged: its async-task tools reach Procura over the protocol.
    const said = (messages: BaseMessage[]) => messages.filter((m) => m.getType() === 'human').length;
    const taskIdIn = (messages: BaseMessage[]) =>
      messages.map((m) => String(m.content).match(/taskId: (\S+)/)?.[1]).find(Boolean) ?? '';
    const call = (name: string, args: Record<string, string>) =>
      new AIMessage({ content: '', tool_calls: [{ id: `call-${name}`, name, args }] });
    const model = new RecordingModel([], ({ messages }) => {
      const last = messages.at(-1)!;
      if (last.getType() === 'tool') return new AIMessage(String(last.content));
      const turn = said(messages);
      if (turn === 1) return call('start_async_task', { agentName: 'procura', description: '帮我查一下火花塞的库存' });
      if (turn === 2)
        return call('update_async_task', { taskId: taskIdIn(messages), message: '帮我查一下 F7TC 火花塞的库存' });
      return call('check_async_task', { taskId: taskIdIn(messages) });
    });
    const parent = createAgent({
      model,
      tools: [],
      // The stand-in model answers by the script only for an agent it recognises by this mark.
      systemPrompt: '主 Agent（协调者）',
      middleware: [
        createAsyncSubAgentMiddleware({
          asyncSubAgents: [
            {
              name: 'procura',
              description: 'Procura',
              url: `${h.url}/api/v1/agent-protocol`,
              graphId: 'procura',
              headers: { authorization: `Bearer ${h.tokens.laoxiao}` },
            },
          ],
        }),
      ],
      checkpointer: new MemorySaver(),
    });
    const config = { configurable: { thread_id: `parent-${crypto.randomUUID()}` } };
    const say = async (content: string) =>
      String((await parent.invoke({ messages: [{ role: 'user', content }] }, config)).messages.at(-1)?.content);

    const started = await say('在后台查库存');
    const taskId = started.match(/taskId: (\S+)/)?.[1];
    expect(taskId).toBeTruthy();
    // The task is a thread of the user whose token the parent carries, and of nobody else.
    expect((await buyer.threads.get(taskId!)).thread_id).toBe(taskId);
    expect(await statusOf(other.threads.get(taskId!))).toBe(404);

    // Steering stops the task's run and starts another on the same thread.
    expect(await say('改成只查 F7TC')).toContain(`Updated async subagent. taskId: ${taskId}`);
    const runs = await buyer.runs.list(taskId!);
    expect(runs).toHaveLength(2);
    expect(runs[1].status).toBe('interrupted');
    await buyer.runs.join(taskId!, runs[0].run_id);

    const checked = JSON.parse(await say('进度怎么样'));
    expect(checked).toMatchObject({ status: 'success', threadId: taskId });
    expect(checked.result).toMatch(/F7TC[^\n]*现有 \d+/);
  }, 90_000);

  it('threads, runs and their state outlive a restart of the API', async () => {
    const thread = await buyer.threads.create();
    const values = await buyer.runs.wait(thread.thread_id, 'procura', {
      input: { messages: [{ role: 'user', content: '你好' }] },
    });
    await h.restartApi();
    const client = clientFor(h.tokens.laoxiao);
    const [run] = await client.runs.list(thread.thread_id);
    expect(run.status).toBe('success');
    expect(lastAnswer((await client.threads.getState(thread.thread_id)).values)).toBe(lastAnswer(values));
    buyer = client;
    other = clientFor(h.tokens.zhangwei);
  }, 60_000);

  it('the store keeps each user’s items apart', async () => {
    await buyer.store.putItem(['notes', 'suppliers'], 'bosch', { text: '交期稳定', rating: 5 });
    const item = await buyer.store.getItem(['notes', 'suppliers'], 'bosch');
    expect(item).toMatchObject({ namespace: ['notes', 'suppliers'], key: 'bosch', value: { rating: 5 } });
    expect(item?.createdAt).toBeTruthy();
    const found = await buyer.store.searchItems(['notes']);
    expect(found.items.map((i) => i.key)).toEqual(['bosch']);
    expect((await buyer.store.listNamespaces()).namespaces).toEqual([['notes', 'suppliers']]);

    // The same namespace is another user's own, empty one.
    expect(await other.store.getItem(['notes', 'suppliers'], 'bosch')).toBeNull();
    expect((await other.store.searchItems(['notes'])).items).toEqual([]);
    expect((await other.store.listNamespaces()).namespaces).toEqual([]);
    await other.store.deleteItem(['notes', 'suppliers'], 'bosch');
    expect(await buyer.store.getItem(['notes', 'suppliers'], 'bosch')).not.toBeNull();

    await buyer.store.deleteItem(['notes', 'suppliers'], 'bosch');
    expect(await buyer.store.getItem(['notes', 'suppliers'], 'bosch')).toBeNull();
  });

  it('bad input is refused at the boundary with a 4xx naming the field', async () => {
    const thread = await buyer.threads.create();
    const id = thread.thread_id;
    const ask = (content: unknown) => ({ input: { messages: [{ role: 'user', content }] } }) as Any;
    expect(await statusOf(buyer.runs.create(id, 'nothing', ask('你好')))).toBe(404);
    expect(await statusOf(buyer.runs.create(id, 'procura', ask('')))).toBe(422);
    expect(await statusOf(buyer.runs.create(id, 'procura', ask('x'.repeat(9000))))).toBe(422);
    expect(await statusOf(buyer.runs.create(id, 'procura', { ...ask('你好'), webhook: 'http://example.com' }))).toBe(
      422,
    );
    expect(await statusOf(buyer.runs.create(id, 'procura', { ...ask('你好'), streamMode: ['debug'] as Any }))).toBe(
      422,
    );
    // Nothing waits for an answer on a fresh thread.
    expect(await statusOf(buyer.runs.create(id, 'procura', { command: { resume: { type: 'approve' } } }))).toBe(409);
    expect(await statusOf(buyer.runs.create('no-such-thread', 'procura', ask('你好')))).toBe(404);
    expect(await statusOf(buyer.threads.create({ threadId: '../etc' }))).toBe(422);
    expect(await statusOf(buyer.threads.create({ threadId: id }))).toBe(409);
    expect(await statusOf(buyer.store.putItem(['a:b'], 'k', { v: 1 }))).toBe(422);
    expect(await statusOf(buyer.store.putItem(['notes'], 'k', { v: 1 }, { ttl: 5 }))).toBe(422);

    const call = await h.call('POST', '/api/v1/agent-protocol/threads/search', { body: { limit: 'many' } });
    expect(call.status).toBe(422);
    expect(call.body.errors[0].field).toBe('limit');
    expect((await h.call('POST', '/api/v1/agent-protocol/threads', { token: null, body: {} })).status).toBe(401);
    // The API's OpenAPI document names the protocol's routes.
    const document = (await h.call('GET', '/api/v1/openapi.json')).body;
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(['/agent-protocol/threads/{thread_id}/runs/stream', '/agent-protocol/store/items']),
    );
  }, 60_000);
});
