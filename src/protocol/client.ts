/**
 * A client of the chat API with no DOM or Node specifics, so the browser UI and `procura chat` speak it through
 * one implementation. SSE is read over `fetch` (bearer header, POST bodies, `Last-Event-ID` on re-attach), which
 * `EventSource` cannot do.
 */
import { createParser } from 'eventsource-parser';
import { z } from 'zod';
import type { AgentLabel, AgentList, AgentTools } from './agents.ts';
import type { AdminDecision, PendingOrders, PendingOrderView } from './approvals.ts';
import { type ChatEvent, RunUsageSchema, TERMINAL_EVENTS } from './events.ts';
import type { HumanDecision } from './human.ts';
import type { RfqDetailView, RfqMessageView, RfqPage, RfqProposalView } from './rfqs.ts';
import type { ScheduleInput, ScheduleView, StartedScheduleRun } from './schedules.ts';
import type { CancelledRun, Health, Me, Readiness, SessionDetail, SessionRecord } from './service.ts';

/** One row of the admin usage view: a user's model usage on one UTC day. */
export const UsageRowSchema = RunUsageSchema.extend({
  day: z.string(),
  user: z.string(),
  runs: z.number().int().nonnegative(),
  calls: z.number().int().nonnegative(),
});
export type UsageRow = z.infer<typeof UsageRowSchema>;

/** `GET /api/v1/admin/usage`: usage per user and day, its total, and the daily token budget (null: none). */
export const UsageReportSchema = z.object({
  /** The first moment counted (the start of the first UTC day). */
  since: z.string(),
  items: z.array(UsageRowSchema),
  total: RunUsageSchema,
  daily_tokens: z.number().int().nullable(),
  /** The price list the costs were computed with: its date and where the prices were read. */
  prices: z.object({ date: z.string(), source: z.string() }).nullable(),
});
export type UsageReport = z.infer<typeof UsageReportSchema>;

/**
 * Where a conversation stands, as the history lists it: its latest run is `running`, `waiting` for a person's
 * approval or ended in an `error`; else the last order it wrote was `ordered` (written, or approved by an admin)
 * or `returned` (an admin rejected it); `null` when none of these applies.
 */
export const SESSION_STATES = ['running', 'waiting', 'error', 'ordered', 'returned'] as const;
export type SessionState = (typeof SESSION_STATES)[number];

const HistorySessionBase = z.object({
  id: z.string(),
  title: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  state: z.enum(SESSION_STATES).nullable(),
});

/** A row of `GET /api/v1/history/sessions`: a chat the user started, or one a schedule started for them. */
export const HistorySessionSchema = z.discriminatedUnion('origin', [
  HistorySessionBase.extend({ origin: z.literal('chat') }),
  HistorySessionBase.extend({
    origin: z.literal('schedule'),
    schedule: z.object({ id: z.string(), name: z.string() }),
    unseen: z.boolean(),
  }),
]);
export type HistorySession = z.infer<typeof HistorySessionSchema>;

/** `GET /api/v1/history/sessions`: a page of sessions, newest first. */
export const HistoryPageSchema = z.object({
  items: z.array(HistorySessionSchema),
  total: z.number().int().nonnegative(),
  page: z.number().int().positive(),
  size: z.number().int().positive(),
  /** Sessions schedules started that the user has not opened yet. */
  unseen_scheduled: z.number().int().nonnegative(),
});
export type HistoryPage = z.infer<typeof HistoryPageSchema>;

/** A session as the clients list it. */
export interface SessionSummary {
  id: string;
  title: string;
  updatedAt: string;
  createdAt: string;
  /** Set when a schedule started the session: the schedule's name. */
  scheduleName?: string;
  /** A scheduled session its owner has not opened yet. */
  unseen?: boolean;
  state: SessionState | null;
}

/** What `GET /api/v1/files/{session}/{path}?format=` converts a Markdown report to. */
export const EXPORT_FORMATS = ['pdf', 'xlsx'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** A failed API call, with the server's message (Chinese first, English after " / "). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/**
 * How a run's stream ended: finished, paused for a human, failed, or cut off (the caller may re-attach); `moved`: the
 * session's latest run is another than the one asked to follow (started elsewhere), so nothing of it was read.
 */
export type StreamEnd = 'done' | 'interrupt' | 'error' | 'aborted' | 'cut' | 'moved';

export interface StreamResult {
  end: StreamEnd;
  sessionId?: string;
  lastEventId?: string;
  /** The run the stream followed (the server's `X-Run-Id`): the one its event ids count in. */
  runId?: string;
}

/** How a stream ends on a terminal event: an order decision arrives on a run that already ended, like `done`. */
const endOf = (event: string): StreamEnd => (event === 'order_decision' ? 'done' : (event as StreamEnd));

/** One request whose answer is an event stream: the first one, then each re-attach. */
interface StreamRequest {
  method: string;
  path: string;
  body: unknown;
}

/** An example request, in both languages, and the flow it starts. */
export const SuggestionSchema = z.object({
  flow: z.enum(['analysis', 'order', 'trend']),
  text: z.string(),
  textEn: z.string(),
});
export type Suggestion = z.infer<typeof SuggestionSchema>;

/** `GET /api/v1/agent/suggestions`: example requests from the user's catalogue, by the flow they start. */
export const AgentSuggestionsSchema = z.object({
  /** True when no LLM is configured and the offline model answers. */
  offline: z.boolean(),
  model: z.string(),
  /** Three requests built from the user's own catalogue (empty when the ERP has none). */
  suggestions: z.array(SuggestionSchema),
});
export type AgentSuggestions = z.infer<typeof AgentSuggestionsSchema>;

/** Client of the chat API for one signed-in user. */
export class ChatClient {
  constructor(
    readonly baseUrl: string,
    readonly token: string,
  ) {}

  private url(path: string): string {
    return `${this.baseUrl.replace(/\/$/, '')}${path}`;
  }

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    return { authorization: `Bearer ${this.token}`, ...extra };
  }

  /** JSON request; non-2xx answers become an ApiError carrying the problem's title/detail. */
  async json<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(this.url(path), {
      method,
      headers: this.headers(body === undefined ? {} : { 'content-type': 'application/json' }),
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw await apiError(response);
    return answer<T>(response);
  }

  /** Whether the API process is alive (needs no sign-in). */
  async health(): Promise<Health> {
    const response = await fetch(this.url('/api/v1/health'));
    if (!response.ok) throw await apiError(response);
    return answer<Health>(response);
  }

  /**
   * Readiness of the API's dependencies, also when one fails (503); `checks.model.detail.provider` is `offline` for
   * the offline model.
   */
  async ready(): Promise<Readiness> {
    const response = await fetch(this.url('/api/v1/ready'));
    if (!response.ok && response.status !== 503) throw await apiError(response);
    return answer<Readiness>(response);
  }

  /** Requests to try, built from the user's own catalogue, and whether the offline model answers. */
  suggestions(): Promise<AgentSuggestions> {
    return this.json('GET', '/api/v1/agent/suggestions');
  }

  /** The configured agents with their labels (orchestrator first): what steps are grouped and named by. */
  async agents(): Promise<AgentLabel[]> {
    return (await this.json<AgentList>('GET', '/api/v1/agents')).items;
  }

  /** What one agent's model is sent for this user, as the running Procura binds it. */
  agentTools(agent: string): Promise<AgentTools> {
    return this.json('GET', `/api/v1/agents/${encodeURIComponent(agent)}/tools`);
  }

  me(): Promise<Me> {
    return this.json('GET', '/api/v1/me');
  }

  /** The user's latest 100 sessions, newest first. */
  async sessions(): Promise<SessionSummary[]> {
    const page = await this.json<HistoryPage>('GET', '/api/v1/history/sessions?size=100');
    return page.items.map(sessionSummary);
  }

  /** A saved conversation: its messages, steps, what it waits for, and its files. */
  session(id: string): Promise<SessionDetail> {
    return this.json('GET', `/api/v1/history/sessions/${encodeURIComponent(id)}`);
  }

  /** Renames a session; the answer is the session as stored. */
  rename(id: string, title: string): Promise<SessionRecord> {
    return this.json('PATCH', `/api/v1/history/sessions/${encodeURIComponent(id)}`, { title });
  }

  remove(id: string): Promise<void> {
    return this.json('DELETE', `/api/v1/history/sessions/${encodeURIComponent(id)}`);
  }

  /** Cancels the session's active run: a waiting run ends at once (`cancelled`); a working one is told to stop (`running`). */
  cancel(sessionId: string): Promise<CancelledRun> {
    return this.json('POST', '/api/v1/agent/chat/cancel', { session_id: sessionId });
  }

  /** Address of a workspace file of the session (`/analysis/report.md` → `/api/v1/files/{id}/analysis/report.md`). */
  /** A session file; with a format, the Markdown report converted on the server (`pdf` or `xlsx`). */
  fileUrl(sessionId: string, path: string, format?: ExportFormat): string {
    const clean = path.replace(/^\/+/, '').split('/').map(encodeURIComponent).join('/');
    return this.url(`/api/v1/files/${encodeURIComponent(sessionId)}/${clean}${format ? `?format=${format}` : ''}`);
  }

  async fileText(sessionId: string, path: string): Promise<string> {
    const response = await fetch(this.fileUrl(sessionId, path), { headers: this.headers() });
    if (!response.ok) throw await apiError(response);
    return response.text();
  }

  async fileBlob(sessionId: string, path: string, format?: ExportFormat): Promise<Blob> {
    const response = await fetch(this.fileUrl(sessionId, path, format), { headers: this.headers() });
    if (!response.ok) throw await apiError(response);
    return response.blob();
  }

  /**
   * Starts a run. A 409 (a run is already active in the session) joins that run instead, unless `joinActive` is false:
   * then the 409 is thrown (the message was not taken), for a caller that tells the person so.
   */
  async start(
    message: string,
    sessionId: string | undefined,
    onEvent: (event: ChatEvent) => void,
    signal?: AbortSignal,
    { joinActive = true }: { joinActive?: boolean } = {},
  ): Promise<StreamResult> {
    try {
      return await this.stream(
        'POST',
        '/api/v1/agent/chat/stream',
        { message, ...(sessionId ? { session_id: sessionId } : {}) },
        onEvent,
        signal,
      );
    } catch (error) {
      if (joinActive && error instanceof ApiError && error.status === 409 && sessionId)
        return this.attach(sessionId, onEvent, signal);
      throw error;
    }
  }

  /**
   * Joins the session's active (or last) run, replaying the events after `lastEventId`. With `runId` (the run that
   * id counts in), a session whose latest run is another ends the stream as `moved` before anything is read: event
   * ids count within a run, so that run's events after `lastEventId` are not what the caller is missing.
   */
  attach(
    sessionId: string,
    onEvent: (event: ChatEvent) => void,
    signal?: AbortSignal,
    lastEventId?: string,
    runId?: string,
  ): Promise<StreamResult> {
    return this.stream(
      'GET',
      `/api/v1/agent/chat/stream/${encodeURIComponent(sessionId)}`,
      undefined,
      onEvent,
      signal,
      lastEventId,
      runId,
    );
  }

  resume(
    sessionId: string,
    interruptId: string,
    decision: HumanDecision,
    onEvent: (event: ChatEvent) => void,
    signal?: AbortSignal,
  ): Promise<StreamResult> {
    return this.stream(
      'POST',
      '/api/v1/agent/chat/resume',
      { session_id: sessionId, interrupt_id: interruptId, decision },
      onEvent,
      signal,
    );
  }

  /** Takes the session's failed or interrupted run up again from its last checkpoint. */
  retry(sessionId: string, onEvent: (event: ChatEvent) => void, signal?: AbortSignal): Promise<StreamResult> {
    return this.stream('POST', '/api/v1/agent/chat/retry', { session_id: sessionId }, onEvent, signal);
  }

  /** Model usage per user per day (admins only). */
  usage(days = 30): Promise<UsageReport> {
    return this.json('GET', `/api/v1/admin/usage?days=${days}`);
  }

  /** Orders waiting for an admin's decision (admins only). */
  pendingOrders(): Promise<PendingOrders> {
    return this.json('GET', '/api/v1/approvals');
  }

  /** An admin's decision on a pending order; the answer is the order as it stands after it. */
  decideOrder(orderId: number, decision: AdminDecision): Promise<PendingOrderView> {
    return this.json('POST', `/api/v1/approvals/${orderId}`, decision);
  }

  /** The project's requests for quotation, newest first (with a status: only those in it). */
  rfqs(status?: string, page = 1, size = 50): Promise<RfqPage> {
    const params = new URLSearchParams({ page: String(page), size: String(size), ...(status && { status }) });
    return this.json('GET', `/api/v1/rfqs?${params}`);
  }

  /** One RFQ by its id or its number (`RFQ-202612-000001`), with its mails and what the caller may do. */
  rfq(ref: string | number): Promise<RfqDetailView> {
    return this.json('GET', `/api/v1/rfqs/${encodeURIComponent(String(ref))}`);
  }

  /** The ERP's award proposal for an RFQ: the ranking with its reasons, and the quotes left out with why. */
  rfqProposal(ref: string | number): Promise<RfqProposalView> {
    return this.json('GET', `/api/v1/rfqs/${encodeURIComponent(String(ref))}/proposal`);
  }

  /** One mail of an RFQ (a quote's source) with its text. */
  rfqMessage(rfqId: number, messageId: number): Promise<RfqMessageView> {
    return this.json('GET', `/api/v1/rfqs/${rfqId}/messages/${messageId}`);
  }

  /** A kept attachment of an RFQ mail, a quote's source file. */
  async rfqAttachment(rfqId: number, messageId: number, position: number): Promise<Blob> {
    const response = await fetch(this.url(`/api/v1/rfqs/${rfqId}/messages/${messageId}/attachments/${position}`), {
      headers: this.headers(),
    });
    if (!response.ok) throw await apiError(response);
    return response.blob();
  }

  /** The caller's schedules. */
  schedules(): Promise<{ items: ScheduleView[] }> {
    return this.json('GET', '/api/v1/schedules');
  }

  createSchedule(input: ScheduleInput): Promise<ScheduleView> {
    return this.json('POST', '/api/v1/schedules', input);
  }

  /** Runs a schedule now, besides its timetable, in a session of its own. */
  runSchedule(id: string): Promise<StartedScheduleRun> {
    return this.json('POST', `/api/v1/schedules/${encodeURIComponent(id)}/run`);
  }

  deleteSchedule(id: string): Promise<void> {
    return this.json('DELETE', `/api/v1/schedules/${encodeURIComponent(id)}`);
  }

  /**
   * Reads one SSE response to its end. A stream cut before `done`/`error`/`interrupt` is re-attached with
   * `Last-Event-ID` (a few times, backing off), so a dropped connection loses no events.
   */
  private async stream(
    method: string,
    path: string,
    body: unknown,
    onEvent: (event: ChatEvent) => void,
    signal?: AbortSignal,
    lastEventId?: string,
    runId?: string,
  ): Promise<StreamResult> {
    const state: { sessionId?: string; lastEventId?: string; end?: StreamEnd; runId?: string } = { lastEventId, runId };
    /** The highest event id this call delivered: a re-attach that replays one of them again is not shown twice. */
    let delivered = 0;
    const seen = (event: ChatEvent) => {
      const seq = Number(event.id);
      if (event.id && Number.isFinite(seq)) {
        if (seq <= delivered) return;
        delivered = seq;
      }
      if (event.id) state.lastEventId = event.id;
      const sid = (event.data as { session_id?: string })?.session_id;
      if (sid) state.sessionId ??= sid;
      if (TERMINAL_EVENTS.has(event.event)) state.end = endOf(event.event);
      onEvent(event);
    };
    let request: StreamRequest = { method, path, body };
    for (let attempt = 0; ; attempt++) {
      try {
        const read = await this.readStream(request, seen, signal, state);
        if (read === 'moved') return { ...state, end: 'moved' };
        // 204: the run ended and its last event was already seen here; nothing more will come.
        if (read === 'ended') state.end ??= 'done';
      } catch (error) {
        if (signal?.aborted) return { ...state, end: 'aborted' };
        // Only a connection that dropped mid-stream is retried; a refused request is the caller's to handle.
        if (error instanceof ApiError || !state.sessionId || attempt >= 4) throw error;
      }
      if (state.end) return { ...state, end: state.end };
      if (signal?.aborted) return { ...state, end: 'aborted' };
      if (!state.sessionId || attempt >= 4) return { ...state, end: 'cut' };
      await new Promise((resolve) => setTimeout(resolve, 300 * 2 ** attempt));
      request = {
        method: 'GET',
        path: `/api/v1/agent/chat/stream/${encodeURIComponent(state.sessionId)}`,
        body: undefined,
      };
    }
  }

  /**
   * One response of a stream: its events go to `onEvent`. `position` is where the caller stands (`lastEventId` in
   * `runId`); the response's run becomes its `runId`, and one of another run than a known `runId` after a
   * `lastEventId` is left unread (`moved`): its event ids count from another start.
   */
  private async readStream(
    { method, path, body }: StreamRequest,
    onEvent: (event: ChatEvent) => void,
    signal: AbortSignal | undefined,
    position: { lastEventId?: string; runId?: string },
  ): Promise<'ended' | 'moved' | undefined> {
    const { lastEventId } = position;
    const response = await fetch(this.url(path), {
      method,
      signal,
      headers: this.headers({
        accept: 'text/event-stream',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
      }),
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw await apiError(response);
    const runId = response.headers.get('x-run-id') ?? undefined;
    if (lastEventId && position.runId && runId && runId !== position.runId) {
      await response.body?.cancel().catch(() => undefined);
      return 'moved';
    }
    if (runId) position.runId = runId;
    if (response.status === 204) return 'ended';
    if (!response.body) throw new ApiError(502, '服务器没有返回事件流 / the server sent no event stream');
    const parser = createParser({
      onEvent(message) {
        let data: Record<string, unknown>;
        try {
          data = JSON.parse(message.data);
        } catch {
          data = { content: message.data };
        }
        onEvent({ event: message.event ?? 'message', id: message.id, data } as ChatEvent);
      },
    });
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
    }
    return undefined;
  }
}

/** A JSON answer as the route declares it (`T`, from this module's protocol types); none for 204. */
async function answer<T>(response: Response): Promise<T> {
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

async function apiError(response: Response): Promise<ApiError> {
  const text = await response.text().catch(() => '');
  let body: Record<string, unknown> | undefined;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  // Problem details: `detail` is the sentence for people (Chinese / English); `title` is a code.
  const message =
    [body?.detail, body?.message, body?.error, body?.title].find(
      (v): v is string => typeof v === 'string' && v.length > 0,
    ) ?? `HTTP ${response.status} ${response.statusText}`;
  return new ApiError(response.status, message, body);
}

/** A history row as the clients list it. */
export function sessionSummary(row: HistorySession): SessionSummary {
  return {
    id: row.id,
    title: row.title,
    updatedAt: row.updated_at,
    createdAt: row.created_at,
    state: row.state,
    ...(row.origin === 'schedule' ? { scheduleName: row.schedule.name, unseen: row.unseen } : {}),
  };
}
