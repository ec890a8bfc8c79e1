import type { Context } from 'hono';
import { z } from 'zod';
import type { Logger } from '../../shared/index.ts';
import type { RunEventLog } from '../chat/events.ts';
import type { RunRef } from '../chat/runs.ts';
import { LastEventId } from '../chat/schemas.ts';
import { sse } from '../chat/sse.ts';
import type { ApiEnv } from '../http.ts';
import { ApiRoutes } from '../openapi.ts';
import {
  AssistantId,
  AssistantSearchBody,
  CancelQuery,
  JoinStreamQuery,
  NamespacesBody,
  RunCreateBody,
  RunId,
  RunListQuery,
  StoreDeleteBody,
  StoreItemQuery,
  StorePutBody,
  StoreSearchBody,
  type StreamMode,
  ThreadCreateBody,
  ThreadId,
  ThreadSearchBody,
} from './schemas.ts';
import type { AgentProtocol } from './service.ts';
import type { ProtocolStore } from './store.ts';
import { LangGraphStream } from './stream.ts';

/** Where the Agent Protocol is served, under `/api/v1`: a LangGraph SDK `Client`'s `apiUrl` ends here. */
export const AGENT_PROTOCOL_BASE = '/agent-protocol';

export interface AgentProtocolAppDeps {
  protocol: AgentProtocol;
  protocolStore: ProtocolStore;
  events: RunEventLog;
  log: Logger;
}

const json = (description: string) => ({ description, json: z.looseObject({}) });
const list = (description: string) => ({ description, json: z.array(z.looseObject({})) });
const NOT_FOUND = { description: '没有这个线程、运行或助手 / no such thread, run or assistant' };
const STREAM = { description: 'LangGraph 格式的 SSE / the run as LangGraph SSE', sse: true } as const;

/**
 * The Agent Protocol (assistants, threads, runs, store) as the LangGraph SDK's `Client` calls it, on Procura's own
 * runs and stores: every route under {@link AGENT_PROTOCOL_BASE}, signed in with the user's bearer token like the rest
 * of the API, each request checked by its declared schema.
 */
export function agentProtocolApp(deps: AgentProtocolAppDeps): ApiRoutes {
  const { protocol, protocolStore: store, events, log } = deps;
  const routes = new ApiRoutes();
  const tags = ['agent-protocol'];
  const base = AGENT_PROTOCOL_BASE;
  const thread = { thread_id: ThreadId };
  const run = { thread_id: ThreadId, run_id: RunId };

  /** A run's events in LangGraph's stream format, with where to rejoin it (relative to the protocol's base). */
  const streamRun = (c: Context<ApiEnv>, ref: RunRef, modes: StreamMode | StreamMode[] | undefined) => {
    const where = `/threads/${ref.sessionId}/runs/${ref.runId}`;
    c.header('Content-Location', where);
    c.header('Location', `${where}/stream`);
    const user = c.var.user;
    const format = new LangGraphStream({ runId: ref.runId, threadId: ref.sessionId }, [modes ?? 'values'].flat(), () =>
      protocol.values(user, ref.sessionId),
    );
    return sse(c, events, ref, log, { format });
  };

  routes.add(
    {
      method: 'post',
      path: `${base}/assistants/search`,
      operationId: 'searchAssistants',
      summary: 'Procura 的图 / Procura’s graphs as assistants',
      tags,
      body: AssistantSearchBody,
      responses: { 200: list('assistants') },
    },
    async (c, { body }) => c.json(await protocol.assistants(body)),
  );
  routes.add(
    {
      method: 'get',
      path: `${base}/assistants/{assistant_id}`,
      operationId: 'getAssistant',
      summary: '一个助手 / an assistant',
      tags,
      params: { assistant_id: AssistantId },
      responses: { 200: json('the assistant'), 404: NOT_FOUND },
    },
    async (c, { params }) => c.json(await protocol.assistant(params.assistant_id)),
  );

  routes.add(
    {
      method: 'post',
      path: `${base}/threads`,
      operationId: 'createThread',
      summary: '新线程（即一个对话）/ a new thread (a chat session)',
      tags,
      body: ThreadCreateBody,
      responses: { 200: json('the thread'), 409: { description: '线程已存在 / the thread exists' } },
    },
    async (c, { body }) => c.json(await protocol.createThread(c.var.user, body)),
  );
  routes.add(
    {
      method: 'post',
      path: `${base}/threads/search`,
      operationId: 'searchThreads',
      summary: '调用者的线程 / the caller’s threads',
      tags,
      body: ThreadSearchBody,
      responses: { 200: list('threads, without their values') },
    },
    async (c, { body }) => c.json(await protocol.searchThreads(c.var.user, body)),
  );
  routes.add(
    {
      method: 'get',
      path: `${base}/threads/{thread_id}`,
      operationId: 'getThread',
      summary: '一个线程及其当前值 / a thread with its values',
      tags,
      params: thread,
      responses: { 200: json('the thread'), 404: NOT_FOUND },
    },
    async (c, { params }) => c.json(await protocol.thread(c.var.user, params.thread_id)),
  );
  routes.add(
    {
      method: 'delete',
      path: `${base}/threads/{thread_id}`,
      operationId: 'deleteThread',
      summary: '删除线程及其运行、检查点和文件 / delete a thread with its runs, checkpoints and files',
      tags,
      params: thread,
      responses: { 204: { description: 'deleted' }, 404: NOT_FOUND, 409: { description: 'a run is active' } },
    },
    async (c, { params }) => {
      await protocol.deleteThread(c.var.user, params.thread_id);
      return c.body(null, 204);
    },
  );
  routes.add(
    {
      method: 'get',
      path: `${base}/threads/{thread_id}/state`,
      operationId: 'getThreadState',
      summary: '线程的最新状态（检查点）/ the thread’s latest state (checkpoint)',
      tags,
      params: thread,
      responses: { 200: json('the state'), 404: NOT_FOUND },
    },
    async (c, { params }) => c.json(await protocol.state(c.var.user, params.thread_id)),
  );

  const RUN_REFUSED = {
    404: NOT_FOUND,
    409: { description: '线程忙或没有等待中的确认 / the thread is busy, or nothing waits for an answer' },
    429: { description: '启动过于频繁 / too many run starts' },
  };
  routes.add(
    {
      method: 'post',
      path: `${base}/threads/{thread_id}/runs`,
      operationId: 'createRun',
      summary: '在线程上开始一次后台运行 / start a run in the background',
      tags,
      params: thread,
      body: RunCreateBody,
      responses: { 200: json('the run'), ...RUN_REFUSED },
    },
    async (c, { params, body }) => {
      const { ref, run: created } = await protocol.startRun(c.var.user, params.thread_id, body);
      c.header('Content-Location', `/threads/${ref.sessionId}/runs/${ref.runId}`);
      return c.json(created);
    },
  );
  routes.add(
    {
      method: 'post',
      path: `${base}/threads/{thread_id}/runs/stream`,
      operationId: 'streamRun',
      summary: '开始运行并流式返回 / start a run and stream it',
      tags,
      params: thread,
      body: RunCreateBody,
      responses: { 200: STREAM, ...RUN_REFUSED },
    },
    async (c, { params, body }) => {
      const { ref } = await protocol.startRun(c.var.user, params.thread_id, body);
      return streamRun(c, ref, body.stream_mode);
    },
  );
  routes.add(
    {
      method: 'post',
      path: `${base}/threads/{thread_id}/runs/wait`,
      operationId: 'waitRun',
      summary: '开始运行并等待其结束 / start a run and wait for its end',
      tags,
      params: thread,
      body: RunCreateBody,
      responses: { 200: json('the thread’s values, or __error__'), ...RUN_REFUSED },
    },
    async (c, { params, body }) => {
      const { ref } = await protocol.startRun(c.var.user, params.thread_id, body);
      c.header('Content-Location', `/threads/${ref.sessionId}/runs/${ref.runId}`);
      return c.json(await protocol.outcome(c.var.user, ref, c.req.raw.signal));
    },
  );
  routes.add(
    {
      method: 'get',
      path: `${base}/threads/{thread_id}/runs`,
      operationId: 'listRuns',
      summary: '线程的运行，最新在前 / the thread’s runs, newest first',
      tags,
      params: thread,
      query: RunListQuery,
      responses: { 200: list('runs'), 404: NOT_FOUND },
    },
    async (c, { params, query }) => c.json(await protocol.listRuns(c.var.user, params.thread_id, query)),
  );
  routes.add(
    {
      method: 'get',
      path: `${base}/threads/{thread_id}/runs/{run_id}`,
      operationId: 'getRun',
      summary: '一次运行 / a run',
      tags,
      params: run,
      responses: { 200: json('the run'), 404: NOT_FOUND },
    },
    async (c, { params }) => c.json(await protocol.run(c.var.user, params.thread_id, params.run_id)),
  );
  routes.add(
    {
      method: 'post',
      path: `${base}/threads/{thread_id}/runs/{run_id}/cancel`,
      operationId: 'cancelRun',
      summary: '停止运行 / stop a run',
      tags,
      params: run,
      query: CancelQuery,
      responses: {
        204: { description: 'stopping (stopped with wait=1)' },
        404: NOT_FOUND,
        409: { description: '运行未在进行 / the run is not active' },
      },
    },
    async (c, { params, query }) => {
      const wait = query.wait === '1' || query.wait === 'true';
      await protocol.cancelRun(c.var.user, params.thread_id, params.run_id, wait);
      return c.body(null, 204);
    },
  );
  routes.add(
    {
      method: 'get',
      path: `${base}/threads/{thread_id}/runs/{run_id}/join`,
      operationId: 'joinRun',
      summary: '等待运行结束 / wait for a run to end',
      tags,
      params: run,
      responses: { 200: json('the thread’s values, or __error__'), 404: NOT_FOUND },
    },
    async (c, { params }) => {
      const user = c.var.user;
      const ref = await protocol.follow(user, params.thread_id, params.run_id, 0);
      return c.json(await protocol.outcome(user, ref, c.req.raw.signal));
    },
  );
  routes.add(
    {
      method: 'get',
      path: `${base}/threads/{thread_id}/runs/{run_id}/stream`,
      operationId: 'joinRunStream',
      summary: '续接运行的流（Last-Event-ID 之后）/ rejoin a run’s stream after Last-Event-ID',
      tags,
      params: run,
      query: JoinStreamQuery,
      headers: { 'last-event-id': LastEventId.optional() },
      responses: { 200: STREAM, 404: NOT_FOUND },
    },
    async (c, { params, query, headers }) => {
      const afterSeq = headers['last-event-id'] ?? query.last_event_id ?? 0;
      const ref = await protocol.follow(c.var.user, params.thread_id, params.run_id, afterSeq);
      return streamRun(c, ref, query.stream_mode);
    },
  );

  routes.add(
    {
      method: 'put',
      path: `${base}/store/items`,
      operationId: 'putStoreItem',
      summary: '存入一项（调用者的命名空间）/ put an item in the caller’s namespace',
      tags,
      body: StorePutBody,
      responses: { 204: { description: 'stored' } },
    },
    async (c, { body }) => {
      await store.put(c.var.user, body.namespace, body.key, body.value);
      return c.body(null, 204);
    },
  );
  routes.add(
    {
      method: 'get',
      path: `${base}/store/items`,
      operationId: 'getStoreItem',
      summary: '读取一项（没有时为 null）/ an item, or null',
      tags,
      query: StoreItemQuery,
      responses: { 200: { description: 'the item or null', json: z.looseObject({}).nullable() } },
    },
    async (c, { query }) => c.json(await store.get(c.var.user, query.namespace, query.key)),
  );
  routes.add(
    {
      method: 'delete',
      path: `${base}/store/items`,
      operationId: 'deleteStoreItem',
      summary: '删除一项 / delete an item',
      tags,
      body: StoreDeleteBody,
      responses: { 204: { description: 'deleted (or was not there)' } },
    },
    async (c, { body }) => {
      await store.delete(c.var.user, body.namespace, body.key);
      return c.body(null, 204);
    },
  );
  routes.add(
    {
      method: 'post',
      path: `${base}/store/items/search`,
      operationId: 'searchStoreItems',
      summary: '在命名空间前缀下查找 / search items under a namespace prefix',
      tags,
      body: StoreSearchBody,
      responses: { 200: json('{items}') },
    },
    async (c, { body }) => c.json(await store.search(c.var.user, body.namespace_prefix, body)),
  );
  routes.add(
    {
      method: 'post',
      path: `${base}/store/namespaces`,
      operationId: 'listStoreNamespaces',
      summary: '调用者的命名空间 / the caller’s namespaces',
      tags,
      body: NamespacesBody,
      responses: { 200: json('{namespaces}') },
    },
    async (c, { body }) => c.json(await store.namespaces(c.var.user, body)),
  );
  return routes;
}
