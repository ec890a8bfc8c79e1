import { z } from 'zod';
import type { AgentName } from './agents.ts';
import type { DecisionRecord, HumanRequest } from './human.ts';

export type StepStatus = 'running' | 'completed' | 'error';

/** Events that end what a client is following: the run finished, failed or waits for a human, or an order
 *  decision arrived on a run that had ended (nothing follows it either). */
export const TERMINAL_EVENTS: ReadonlySet<string> = new Set(['done', 'error', 'interrupt', 'order_decision']);

/** A step of a run; the client upserts it by `id`. */
export interface ProgressData {
  id: string;
  /** `model`: the model service failed and is being retried. */
  phase: 'run' | 'subagent' | 'tool' | 'model';
  status: StepStatus;
  /** What the client shows: a tool step's label (Chinese / English), never the tool's raw name. */
  title: string;
  detail: string;
  agent: AgentName;
  /** A tool step's tool name, for clients' logic (which step wrote an order), not for display. */
  tool?: string;
}

export interface ChartSeries {
  name: string;
  data: Array<number | null>;
}

/** `show_chart`'s parameters, as the browser draws them. */
export interface ShowChartParams {
  title: string;
  chart_type?: 'bar' | 'line' | 'pie';
  x_data: Array<string | number>;
  series: ChartSeries[];
  unit?: string;
}

/** Tokens and cost (USD) of a run's model calls, as the provider reported them. */
export const RunUsageSchema = z.object({
  input_tokens: z.number().int().nonnegative(),
  output_tokens: z.number().int().nonnegative(),
  cost: z.number().nonnegative(),
});
export type RunUsage = z.infer<typeof RunUsageSchema>;

/**
 * A stream event's payload inside a JSON answer (a session's history replays them): checked by the fields that say
 * what it is, typed as the event protocol declares it (`ApiEvent`), which the stream itself is held to.
 */
export const eventPayload = <T>(shape: z.ZodRawShape) => z.looseObject(shape) as unknown as z.ZodType<T>;

/**
 * An admin's decision on an order that this conversation drafted, made in Procura's approval queue or directly in
 * the ERP. Stored in the session's latest run after it ended, so history and a rejoin replay it.
 */
export interface OrderDecisionData {
  order_id: number;
  order_no: string;
  decision: 'approved' | 'rejected';
  /** The admin's username. */
  decided_by: string;
  decided_at: string;
  comment: string | null;
  total_amount: number;
}

/** A front-end tool's call (a chart to draw, an order to open): the client carries it out. */
export interface ToolCallData {
  tool: string;
  params: Record<string, unknown>;
}

export interface DoneData {
  run_id: string;
  status: 'completed' | 'cancelled';
  usage?: RunUsage;
  answer?: string;
}

/** A person's decision on an interrupt, sent as the first event of the resumed run and kept in its history. */
export type DecisionData = DecisionRecord;

/** An interrupt as sent: the human request plus its id and the agent that asked. */
export type InterruptData = { interrupt_id: string; agent?: AgentName } & HumanRequest;

/**
 * The SSE events of the chat stream (DESIGN.md "Streaming protocol"), as the server produces them. On the wire
 * every event's data also carries `session_id` (see `WireEvent`).
 */
export type ApiEvent =
  | { event: 'progress'; data: ProgressData }
  /** `token`: a delta of the orchestrator's answer text; the deltas since the last other event make up the text
   *  as it grows, and a completed run's `done` carries the `answer` that replaces them. */
  | { event: 'token'; data: { content: string; agent: AgentName } }
  | { event: 'tool_call'; data: ToolCallData }
  | { event: 'interrupt'; data: InterruptData }
  /** `answer`: a completed run's final answer (the orchestrator's last reply), which replaces its streamed deltas. */
  | { event: 'done'; data: DoneData }
  | { event: 'order_decision'; data: OrderDecisionData }
  | { event: 'decision'; data: DecisionData }
  /** `retryable`: `POST /agent/chat/retry` can take the run up again from its last checkpoint. */
  | { event: 'error'; data: { message: string; detail: string; retryable?: boolean } };

/** An event's data as a client reads it: with the session id, and without relying on the optional `agent`. */
type Received<D> = Omit<D, 'agent'> & { agent?: AgentName; session_id?: string };

/** An event as a client receives it: with its `id:` (sequence in the run) and the session id in its data. */
export type ChatEvent =
  | {
      [K in ApiEvent['event']]: { event: K; id?: string; data: Received<Extract<ApiEvent, { event: K }>['data']> };
    }[ApiEvent['event']]
  | { event: string; id?: string; data: Record<string, unknown> & { session_id?: string } };
