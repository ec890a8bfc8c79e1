import { z } from 'zod';
import {
  type AgentLabel,
  AgentListSchema,
  type AgentSuggestions,
  AgentSuggestionsSchema,
  type AgentTools,
  AgentToolsSchema,
  CancelledRunSchema,
  HistoryPageSchema,
  SessionDetailSchema,
  SessionRecordSchema,
} from '../../protocol/index.ts';
import { type Logger, notFound } from '../../shared/index.ts';
import type { ApiUser } from '../auth.ts';
import { ApiRoutes } from '../openapi.ts';
import { SessionId } from '../schemas.ts';
import { AgUiRunInput, agUiStream, chatRequestOf } from './ag-ui.ts';
import type { RunEventLog } from './events.ts';
import type { History } from './history.ts';
import type { RunManager } from './runs.ts';
import {
  CancelBody,
  IdempotencyKey,
  LastEventId,
  PageQuery,
  RejoinQuery,
  RenameBody,
  ResumeBody,
  RetryBody,
  StartBody,
} from './schemas.ts';
import { sse } from './sse.ts';

/**
 * Tells a session the decisions on its orders that were made while nobody followed it (the approvals feature's
 * order notices): checked when the session is opened or rejoined.
 */
export interface SessionNotices {
  /** True while one of the session's orders still waits for an admin: a followed stream asks again every `pollMs`. */
  check(user: ApiUser, sessionId: string): Promise<boolean>;
  readonly pollMs: number;
}

export interface ChatAppDeps {
  runs: RunManager;
  events: RunEventLog;
  history: History;
  notices: SessionNotices;
  /** Example requests built from the user's catalogue, and whether the offline model answers. */
  suggestions: (user: ApiUser, traceId: string) => Promise<AgentSuggestions>;
  /** The configured agents with their labels, from their YAML: what clients name steps by. */
  agents: () => Promise<AgentLabel[]>;
  /** What one agent's model is sent for `user`, as this process's runtime binds it (unknown agent: 404). */
  agentTools: (user: ApiUser, agent: string, traceId: string) => Promise<AgentTools>;
  log: Logger;
}

const SSE = { sse: true } as const;
const RUN_STREAM = {
  200: { description: '运行的 SSE 事件流 / the run as SSE', ...SSE },
  404: { description: '没有这个会话 / no such session' },
  409: { description: '会话忙或确认已过期 / the session is busy, or the interrupt is stale' },
};

/** The chat: start, rejoin, resume, retry and cancel a run (each answered as an SSE stream), and session history. */
export function chatApp(deps: ChatAppDeps): ApiRoutes {
  const { runs, events, history, notices, log } = deps;
  const routes = new ApiRoutes();
  const tags = ['chat'];

  routes.add(
    {
      method: 'post',
      path: '/agent/chat/stream',
      operationId: 'startChatRun',
      summary: '发送消息，开始一次运行 / send a message: a new run, streamed',
      tags,
      headers: { 'idempotency-key': IdempotencyKey.optional(), 'last-event-id': LastEventId.optional() },
      body: StartBody,
      responses: { ...RUN_STREAM, 429: { description: '启动过于频繁 / too many run starts' } },
    },
    async (c, { body, headers }) => {
      const ref = await runs.start(c.var.user, {
        message: body.message,
        sessionId: body.session_id,
        idempotencyKey: headers['idempotency-key'],
        lastEventId: headers['last-event-id'],
      });
      return sse(c, events, ref, log);
    },
  );

  routes.add(
    {
      method: 'post',
      path: '/agent/ag-ui',
      operationId: 'runAgUi',
      summary: '以 AG-UI 事件流运行（线程即会话）/ a run as AG-UI events (the thread is the session)',
      tags,
      body: AgUiRunInput,
      responses: {
        200: { description: 'AG-UI 事件 / AG-UI events', ...SSE },
        404: { description: '没有这个会话 / no such session' },
        409: { description: '会话忙或确认已过期 / the session is busy, or the interrupt is stale' },
      },
    },
    async (c, { body }) => {
      const request = chatRequestOf(body);
      const ref =
        'resume' in request
          ? await runs.resume(c.var.user, {
              sessionId: request.resume.session_id,
              interruptId: request.resume.interrupt_id,
              decision: request.resume.decision,
            })
          : await runs.start(c.var.user, {
              message: request.start.message,
              sessionId: request.start.session_id,
              idempotencyKey: request.idempotencyKey,
            });
      return agUiStream(c, events, ref, body.runId, log);
    },
  );

  routes.add(
    {
      method: 'get',
      path: '/agent/suggestions',
      operationId: 'getSuggestions',
      summary: '按用户目录给出的示例请求 / example requests from the user’s catalogue',
      tags,
      responses: { 200: { description: 'suggestions', json: AgentSuggestionsSchema } },
    },
    async (c) => c.json(await deps.suggestions(c.var.user, c.var.traceId)),
  );

  routes.add(
    {
      method: 'get',
      path: '/agents',
      operationId: 'listAgents',
      summary: '已配置的智能体及其名称（中文 / English）/ the configured agents and their labels',
      tags,
      responses: { 200: { description: 'the agents, the orchestrator first', json: AgentListSchema } },
    },
    async (c) => c.json({ items: await deps.agents() }),
  );

  routes.add(
    {
      method: 'get',
      path: '/agents/{name}/tools',
      operationId: 'listAgentTools',
      summary:
        '该智能体的模型收到的工具（按调用者的角色，含 MCP 服务器的工具）/ the tools that agent’s model is sent for the caller, MCP servers’ included',
      tags,
      params: { name: z.string().min(1).max(64) },
      responses: {
        200: { description: 'the tools, with their sizes in tokens', json: AgentToolsSchema },
        404: { description: '没有这个智能体 / no such agent' },
      },
    },
    async (c, { params }) => c.json(await deps.agentTools(c.var.user, params.name, c.var.traceId)),
  );

  routes.add(
    {
      method: 'get',
      path: '/agent/chat/stream/{session_id}',
      operationId: 'rejoinChatRun',
      summary: '续接会话最近一次运行（Last-Event-ID 之后）/ rejoin the session’s latest run after Last-Event-ID',
      tags,
      params: { session_id: SessionId },
      query: RejoinQuery,
      headers: { 'last-event-id': LastEventId.optional() },
      responses: {
        200: { description: '重放后接实时事件 / replay, then live', ...SSE },
        204: { description: '运行已结束且事件已全部收到 / the run ended and every event was seen: do not reconnect' },
        404: { description: '没有这个会话或运行 / no such session or run' },
      },
    },
    async (c, { params, query, headers }) => {
      const sessionId = params.session_id;
      const afterSeq = headers['last-event-id'] ?? query.last_event_id ?? 0;
      const user = c.var.user;
      // Decisions on the session's orders made while nobody followed it come first; while one of its orders still
      // waits for an admin, the stream keeps asking.
      const waiting = await notices.check(user, sessionId);
      const ref = await runs.join(user, sessionId, afterSeq);
      if (!ref) throw notFound(`会话还没有任务 / no run in session ${sessionId}`);
      // Nothing more will come: an EventSource told 204 stops reconnecting, instead of holding a stream open. The run
      // is named, as on a stream: an id the client saw in an earlier run says nothing about this one.
      if (ref.ended && !waiting) return c.body(null, 204, { 'X-Run-Id': ref.runId });
      const recheck = waiting ? () => notices.check(user, sessionId) : undefined;
      return sse(c, events, ref, log, { recheck, recheckMs: notices.pollMs });
    },
  );

  routes.add(
    {
      method: 'post',
      path: '/agent/chat/resume',
      operationId: 'resumeChatRun',
      summary: '回答确认或提问，继续运行 / answer an interrupt: the run goes on, streamed',
      tags,
      body: ResumeBody,
      responses: RUN_STREAM,
    },
    async (c, { body }) => {
      const ref = await runs.resume(c.var.user, {
        sessionId: body.session_id,
        interruptId: body.interrupt_id,
        decision: body.decision,
      });
      return sse(c, events, ref, log);
    },
  );

  routes.add(
    {
      method: 'post',
      path: '/agent/chat/retry',
      operationId: 'retryChatRun',
      summary: '从最后的检查点重试失败的运行 / take a failed run up again from its last checkpoint',
      tags,
      body: RetryBody,
      responses: RUN_STREAM,
    },
    async (c, { body }) => sse(c, events, await runs.retry(c.var.user, body.session_id), log),
  );

  routes.add(
    {
      method: 'post',
      path: '/agent/chat/cancel',
      operationId: 'cancelChatRun',
      summary: '停止会话的运行 / stop the session’s run',
      tags,
      body: CancelBody,
      responses: {
        202: { description: 'cancelling', json: CancelledRunSchema },
        404: { description: '没有这个会话 / no such session' },
        409: { description: '没有可停止的任务 / nothing runs' },
      },
    },
    async (c, { body }) => c.json(await runs.cancel(c.var.user, body.session_id), 202),
  );

  const history_ = ['history'];
  routes.add(
    {
      method: 'get',
      path: '/history/sessions',
      operationId: 'listSessions',
      summary: '会话列表，最新在前 / the caller’s sessions, newest first',
      tags: history_,
      query: PageQuery,
      responses: {
        200: { description: 'a page of sessions', json: HistoryPageSchema },
      },
    },
    async (c, { query }) => c.json(await history.list(c.var.user, query.page, query.size)),
  );
  routes.add(
    {
      method: 'get',
      path: '/history/sessions/{id}',
      operationId: 'getSession',
      summary: '会话详情：消息、步骤、待处理确认、文件 / a session: messages, steps, pending interrupts, files',
      tags: history_,
      params: { id: SessionId },
      responses: { 200: { description: 'the session', json: SessionDetailSchema }, 404: { description: 'no session' } },
    },
    async (c, { params }) => {
      await notices.check(c.var.user, params.id);
      return c.json(await history.get(c.var.user, params.id));
    },
  );
  routes.add(
    {
      method: 'patch',
      path: '/history/sessions/{id}',
      operationId: 'renameSession',
      summary: '重命名会话 / rename a session',
      tags: history_,
      params: { id: SessionId },
      body: RenameBody,
      responses: { 200: { description: 'the session', json: SessionRecordSchema }, 404: { description: 'no session' } },
    },
    async (c, { params, body }) => c.json(await history.rename(c.var.user, params.id, body.title)),
  );
  routes.add(
    {
      method: 'delete',
      path: '/history/sessions/{id}',
      operationId: 'deleteSession',
      summary: '删除会话及其运行、检查点和文件 / delete a session with its runs, checkpoints and files',
      tags: history_,
      params: { id: SessionId },
      responses: {
        204: { description: 'deleted' },
        404: { description: 'no session' },
        409: { description: 'a run is active' },
      },
    },
    async (c, { params }) => {
      await history.delete(c.var.user, params.id);
      return c.body(null, 204);
    },
  );

  return routes;
}
