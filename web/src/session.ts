/** What the chat screen shows for one session, built by folding the run's events (and the saved history) into it. */
import type {
  ChatEvent,
  DecisionRecord,
  DoneData,
  InterruptData,
  OrderDecisionData,
  ProgressData,
  RunUsage,
  SessionDetail,
  ShowChartParams,
  StepStatus,
} from '../../src/protocol/index.ts';

export interface Step {
  id: string;
  title: string;
  detail?: string;
  /** `stopped`: the run was stopped (or its write refused) while the step worked; not a failure. */
  status: StepStatus | 'stopped';
  agent: string;
  phase?: string;
  startedAt: number;
  endedAt?: number;
  /** The person refused this step's write: its end is a refusal, not a failure. */
  refused?: boolean;
}

export type ChartItem =
  | { kind: 'image'; url: string; title?: string }
  | { kind: 'interactive'; key: string; params: ShowChartParams };

export interface TableItem {
  title: string;
  columns: string[];
  rows: unknown[][];
}

export interface Message {
  id: string;
  /** `notice`: something that happened outside the conversation, told in it (an admin's decision on its order). */
  role: 'user' | 'assistant' | 'notice' | 'decision';
  content: string;
  charts: ChartItem[];
  tables: TableItem[];
  /** Tokens and cost of the run that produced this answer. */
  usage?: RunUsage;
  /** A user's message that never reached the server (it was down): shown with a resend. */
  unsent?: boolean;
  /** A notice's order decision. */
  decision?: OrderDecisionData;
  /** A decided card, kept where it was: what was asked and what the person did. */
  record?: DecisionRecord;
}

export interface SessionView {
  id?: string;
  title?: string;
  messages: Message[];
  steps: Step[];
  /** Decisions the paused run waits for (one per interrupted tool call). */
  pending: InterruptData[];
  running: boolean;
  /** The last run was stopped by the user (its partial answer stays). */
  stopped?: boolean;
  error?: string;
  /** The failed or stopped run can be taken up again from its last checkpoint. */
  retryable?: boolean;
  files: string[];
  /** The order the agent opened (`open_order`), shown in the side panel. */
  openOrder?: OpenOrder;
  lastEventId?: string;
  /** The run `lastEventId` counts in (ids count within a run): unknown for a run just asked for. */
  runId?: string;
}

/** An order as `open_order` sends it (the ERP order tool's view). */
export interface OpenOrder {
  id: number;
  orderNo: string;
  status: string;
  totalAmount: number;
  supplier?: { id: number; name: string };
  expectedDate?: string | null;
  lines?: Array<{
    lineNo: number;
    code: string;
    name: string;
    quantity: number;
    unit: string;
    unitPrice: number;
    amount: number;
  }>;
}

export const emptyView = (id?: string): SessionView => ({
  id,
  messages: [],
  steps: [],
  pending: [],
  running: false,
  files: [],
});

const IMAGE_URL = /https?:\/\/[^\s)"'<>]+\.(?:png|svg)(?:\?[^\s)"'<>]*)?/gi;
const WORKSPACE_FILE = /(?:^|[\s(：:`])(\/(?:analysis|data|reports?)\/[\w./-]+\.(?:md|json|csv))/g;

/** Chart image URLs a text mentions (the analyst lists them in its summary); an SVG twin of a PNG counts once. */
export function imageUrls(text: string): string[] {
  const urls = [...new Set(text.match(IMAGE_URL) ?? [])];
  const pngs = new Set(urls.filter((u) => /\.png(\?|$)/i.test(u)).map((u) => u.replace(/\.png(\?.*)?$/i, '')));
  return urls.filter((u) => !/\.svg(\?|$)/i.test(u) || !pngs.has(u.replace(/\.svg(\?.*)?$/i, '')));
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A Markdown image's alt text that only numbers the chart ("图表 1", "Chart 2") says nothing a caption could use. */
const NUMBER_ONLY = /^\s*(?:图表|chart)?\s*\d*\s*$/i;

/**
 * The chart images a text names, each with what it shows when the text says it: the `alt` that
 * `generate_visualization` returns beside its `image_url` (a step's detail), or a Markdown image's own alt text.
 */
export function chartImages(text: string): ChartItem[] {
  return imageUrls(text).map((url) => {
    const address = escapeRegExp(url);
    const given = new RegExp(`"image_url"\\s*:\\s*"${address}"\\s*,\\s*"alt"\\s*:\\s*("(?:[^"\\\\]|\\\\.)*")`).exec(
      text,
    );
    const markdown = new RegExp(`!\\[([^\\]]+)\\]\\(${address}\\)`).exec(text);
    const title = given
      ? (JSON.parse(given[1]) as string)
      : markdown && !NUMBER_ONLY.test(markdown[1])
        ? markdown[1]
        : undefined;
    return title ? { kind: 'image', url, title } : { kind: 'image', url };
  });
}

/**
 * The answer as shown above its charts: each chart image it names (as a bare address or a Markdown image) becomes a
 * reference to the numbered chart the gallery shows, so the reader sees the chart, never its address.
 */
export function withChartRefs(text: string, charts: ChartItem[], label: (n: number) => string): string {
  return charts.reduce((shown, chart, i) => {
    if (chart.kind !== 'image') return shown;
    const url = escapeRegExp(chart.url);
    return shown.replace(new RegExp(`!\\[[^\\]]*\\]\\(${url}\\)|<?${url}>?`, 'g'), label(i + 1));
  }, text);
}

/** Workspace files a text mentions (`/analysis/report_YYYYMMDD_HHMMSS.md`, `/data/analysis_result.json`). */
export function workspaceFiles(text: string): string[] {
  return [...new Set([...text.matchAll(WORKSPACE_FILE)].map((m) => m[1]))];
}

function lastAssistant(messages: Message[]): { messages: Message[]; message: Message } {
  const last = messages[messages.length - 1];
  if (last?.role === 'assistant') return { messages: messages.slice(0, -1), message: last };
  return {
    messages,
    message: { id: `a${messages.length}`, role: 'assistant', content: '', charts: [], tables: [] },
  };
}

function withAssistant(view: SessionView, change: (message: Message) => Message): SessionView {
  const { messages, message } = lastAssistant(view.messages);
  return { ...view, messages: [...messages, change(message)] };
}

function addCharts(message: Message, charts: ChartItem[]): Message {
  const known = new Set(message.charts.map(chartKey));
  const fresh = charts.filter((c) => !known.has(chartKey(c)));
  // An image seen before without its alt text takes the one told now.
  const told = new Map(charts.flatMap((c) => (c.kind === 'image' && c.title ? [[c.url, c.title] as const] : [])));
  const named = message.charts.map((c) =>
    c.kind === 'image' && !c.title && told.has(c.url) ? { ...c, title: told.get(c.url) } : c,
  );
  const changed = named.some((c, i) => c !== message.charts[i]);
  return fresh.length || changed ? { ...message, charts: [...named, ...fresh] } : message;
}

const chartKey = (chart: ChartItem) => (chart.kind === 'image' ? chart.url : chart.key);

function addFiles(view: SessionView, text: string): SessionView {
  const files = workspaceFiles(text).filter((f) => !view.files.includes(f));
  return files.length ? { ...view, files: [...view.files, ...files] } : view;
}

function upsertStep(steps: Step[], data: ProgressData, now: number): Step[] {
  const index = steps.findIndex((s) => s.id === data.id);
  const previous = steps[index];
  const refused = previous?.refused;
  const step: Step = {
    refused,
    id: data.id,
    title: data.title || previous?.title || data.id,
    detail: data.detail ?? previous?.detail,
    status: refused && data.status === 'error' ? 'stopped' : data.status,
    agent: data.agent || previous?.agent || 'orchestrator',
    phase: data.phase ?? previous?.phase,
    startedAt: previous?.startedAt ?? now,
    endedAt: data.status === 'running' ? undefined : (previous?.endedAt ?? now),
  };
  if (index < 0) return [...steps, step];
  const next = steps.slice();
  next[index] = step;
  return next;
}

/** Folds one event into the view. `answered` holds interrupts already decided, so none is shown twice. */
export function applyEvent(
  view: SessionView,
  event: ChatEvent,
  answered: ReadonlySet<string>,
  now = Date.now(),
): SessionView {
  const data = event.data as Record<string, unknown>;
  let next: SessionView = event.id ? { ...view, lastEventId: event.id } : view;
  if (typeof data.session_id === 'string' && !next.id) next = { ...next, id: data.session_id };
  switch (event.event) {
    case 'token': {
      const content = String(data.content ?? '');
      next = withAssistant({ ...next, running: true }, (m) => {
        const text = m.content + content;
        return addCharts({ ...m, content: text }, chartImages(text));
      });
      // The whole answer so far: a token chunk may end in the middle of a file path.
      return addFiles(next, next.messages.at(-1)?.content ?? content);
    }
    case 'progress': {
      const progress = data as unknown as ProgressData;
      // The run-level item only says the run is alive; the step list shows the agents' own steps.
      if (progress.phase === 'run') return { ...next, running: progress.status === 'running' || next.running };
      if (!progress.id) return next;
      next = { ...next, running: true, steps: upsertStep(next.steps, progress, now) };
      const detail = `${progress.detail ?? ''} ${progress.title ?? ''}`;
      const images = chartImages(detail);
      if (images.length) next = withAssistant(next, (m) => addCharts(m, images));
      return addFiles(next, detail);
    }
    case 'order_decision':
      return addDecision(next, data as unknown as OrderDecisionData);
    case 'decision':
      return addRecord(next, data as unknown as DecisionRecord);
    case 'tool_call':
      return applyToolCall(next, String(data.tool ?? ''), (data.params ?? {}) as Record<string, unknown>, event.id);
    case 'interrupt': {
      const interrupt = data as unknown as InterruptData;
      if (answered.has(interrupt.interrupt_id) || next.pending.some((p) => p.interrupt_id === interrupt.interrupt_id))
        return { ...next, running: false };
      return { ...next, pending: [...next.pending, interrupt], running: false };
    }
    case 'done': {
      const done = data as unknown as DoneData;
      const stopped = done.status === 'cancelled';
      if (done.usage) next = withAssistant(next, (m) => ({ ...m, usage: done.usage }));
      // The final answer replaces the streamed deltas unless they already end with it (text said before a tool call stays).
      const answer = done.answer;
      if (answer)
        next = withAssistant(next, (m) =>
          m.content.endsWith(answer) ? m : addCharts({ ...m, content: answer }, chartImages(answer)),
        );
      return {
        ...next,
        running: false,
        stopped,
        retryable: stopped,
        steps: settleSteps(next.steps, now, stopped ? 'stopped' : 'completed'),
      };
    }
    case 'error':
      return {
        ...next,
        running: false,
        error: String(data.message ?? 'error'),
        retryable: data.retryable === true,
        steps: settleSteps(next.steps, now, 'error'),
      };
    default:
      return next;
  }
}

/** An admin's decision on an order of this conversation, shown where it arrived; a replayed one is not repeated. */
function addDecision(view: SessionView, decision: OrderDecisionData): SessionView {
  const id = `decision:${decision.order_id}:${decision.decided_at}`;
  if (view.messages.some((m) => m.id === id)) return view;
  return {
    ...view,
    messages: [...view.messages, { id, role: 'notice', content: '', charts: [], tables: [], decision }],
  };
}

/** A decided card becomes a record in the transcript (once), and leaves the cards that wait. */
export function addRecord(view: SessionView, record: DecisionRecord): SessionView {
  const pending = view.pending.filter((p) => p.interrupt_id !== record.interrupt_id);
  // The refused write's step (named by the tool's label) ends as refused, not failed.
  if (record.outcome === 'rejected')
    view = {
      ...view,
      steps: view.steps.map((s) =>
        s.title !== record.subject || s.status === 'completed'
          ? s
          : { ...s, refused: true, status: s.status === 'error' ? 'stopped' : s.status },
      ),
    };
  const id = `record:${record.interrupt_id}`;
  if (view.messages.some((m) => m.id === id)) return { ...view, pending };
  return {
    ...view,
    pending,
    messages: [...view.messages, { id, role: 'decision', content: '', charts: [], tables: [], record }],
  };
}

/** Steps still running when a run ends did finish (or failed with it): close them so no spinner stays. */
function settleSteps(steps: Step[], now: number, status: Step['status'] = 'completed'): Step[] {
  return steps.map((s) => (s.status === 'running' ? { ...s, status, endedAt: now } : s));
}

function applyToolCall(
  view: SessionView,
  tool: string,
  params: Record<string, unknown>,
  eventId?: string,
): SessionView {
  if (tool === 'show_chart' && Array.isArray(params.x_data) && Array.isArray(params.series)) {
    const chart: ChartItem = {
      kind: 'interactive',
      key: `${eventId ?? ''}:${String(params.title ?? '')}`,
      params: params as unknown as ShowChartParams,
    };
    return withAssistant(view, (m) => addCharts(m, [chart]));
  }
  if (tool === 'show_table' && Array.isArray(params.columns) && Array.isArray(params.rows)) {
    const table: TableItem = {
      title: String(params.title ?? ''),
      columns: params.columns.map(String),
      rows: params.rows as unknown[][],
    };
    return withAssistant(view, (m) => ({ ...m, tables: [...m.tables, table] }));
  }
  const order = params.order as OpenOrder | undefined;
  if (tool === 'open_order' && order && typeof order === 'object' && typeof order.orderNo === 'string')
    return { ...view, openOrder: order };
  return view;
}

/** Tokens and cost of the whole conversation: the sum of its answers'. */
export function conversationUsage(view: SessionView): RunUsage {
  return view.messages.reduce<RunUsage>(
    (sum, m) =>
      m.usage
        ? {
            input_tokens: sum.input_tokens + m.usage.input_tokens,
            output_tokens: sum.output_tokens + m.usage.output_tokens,
            cost: sum.cost + m.usage.cost,
          }
        : sum,
    { input_tokens: 0, output_tokens: 0, cost: 0 },
  );
}

/** Starts a new turn: the user's message, a fresh step list, no error. */
export function startTurn(view: SessionView, message: string): SessionView {
  return {
    ...view,
    running: true,
    stopped: false,
    retryable: false,
    error: undefined,
    pending: [],
    steps: [],
    runId: undefined,
    messages: [
      ...view.messages,
      { id: `u${view.messages.length}`, role: 'user', content: message, charts: [], tables: [] },
    ],
  };
}

/**
 * The view of a saved session as `GET /api/v1/history/sessions/{id}` returns it: messages (each assistant message
 * with its front-end tool calls), the steps of every run, pending interrupts (`{interrupt_id, value}`), the
 * active run, and the workspace files.
 */
export function viewFromHistory(id: string, raw: SessionDetail, answered: ReadonlySet<string>): SessionView {
  let view: SessionView = { ...emptyView(id), title: raw.title };
  for (const m of raw.messages) {
    if (m.role === 'notice') {
      view = addDecision(view, m);
      continue;
    }
    if (m.role === 'decision') {
      view = addRecord(view, m);
      continue;
    }
    if (m.role === 'user') {
      view = startTurn(view, m.content);
      // Steps are shown for the latest run, as they were when it streamed; history keeps no step times: restored
      // steps carry no duration (startedAt 0) rather than a wrong one.
      for (const step of raw.steps.filter((s) => s.run_id === m.run_id))
        view = applyEvent(view, { event: 'progress', data: step }, answered, 0);
      continue;
    }
    view = applyEvent(view, { event: 'token', data: { session_id: id, content: m.content } }, answered);
    m.tool_calls.forEach((call, index) => {
      view = applyToolCall(view, call.tool, call.params, `${m.run_id}:${index}`);
    });
    const { usage } = m;
    if (usage) view = withAssistant(view, (a) => ({ ...a, usage }));
    // Only the latest run can be taken up again.
    view = { ...view, error: m.error, retryable: m.status === 'error' };
  }
  for (const { path } of raw.files) if (!view.files.includes(path)) view = { ...view, files: [...view.files, path] };
  const pending = raw.pending_interrupts;
  const waiting = pending
    .map((p): InterruptData => ({ ...p.value, interrupt_id: p.interrupt_id }))
    .filter((p) => !answered.has(p.interrupt_id));
  const active = Boolean(raw.active_run);
  const last = raw.last_event_id;
  return {
    ...view,
    ...(last > 0 ? { lastEventId: String(last), runId: raw.messages.at(-1)?.run_id } : {}),
    pending: waiting,
    running: active && pending.length === 0,
    steps: active ? view.steps : settleSteps(view.steps, 0),
  };
}

/**
 * A running session rebuilt from history, ready to replay its live run from the first event: what the run said so
 * far after its request (its partial answer, a card decided on the way and the answer before it) is dropped, the
 * replay brings it back in order, so nothing shows twice.
 */
export function withoutLiveRun(view: SessionView): SessionView {
  const request = view.messages.findLastIndex((m) => m.role === 'user');
  return { ...view, messages: view.messages.slice(0, request + 1) };
}
