import { z } from 'zod';
import type { OrderDecisionData, ProgressData, RunUsage, ToolCallData } from './events.ts';
import type { DecisionRecord, HumanRequest } from './human.ts';
import { RoleSchema } from './roles.ts';

/** `GET /api/v1/health`: the process is alive, and how many runs it is executing. */
export const HealthSchema = z.object({ status: z.string(), running_runs: z.number() });
export type Health = z.infer<typeof HealthSchema>;

/** `GET /api/v1/ready`: each dependency's check (ERP, model, database, …); 503 when one fails. */
export const ReadinessSchema = z.object({
  status: z.enum(['ready', 'not_ready']),
  checks: z.record(z.string(), z.object({ ok: z.boolean(), detail: z.unknown() })),
});
export type Readiness = z.infer<typeof ReadinessSchema>;

/** `GET /api/v1/me`: the signed-in user. */
export const MeSchema = z.object({
  username: z.string(),
  display_name: z.string(),
  role: RoleSchema,
  project_id: z.string(),
});
export type Me = z.infer<typeof MeSchema>;

/** `POST /api/v1/agent/chat/cancel`: a waiting run ended at once (`cancelled`); a working one was told to stop. */
export const CancelledRunSchema = z.object({ run_id: z.string(), status: z.enum(['cancelled', 'running']) });
export type CancelledRun = z.infer<typeof CancelledRunSchema>;

/** Where a run stands. */
export type RunStatus = 'running' | 'waiting' | 'done' | 'error' | 'cancelled';

/** A chat session as stored (`PATCH /api/v1/history/sessions/{id}` answers it). */
export interface SessionRecord {
  id: string;
  owner: string;
  project_id: string;
  title: string;
  created_at: string;
  updated_at: string;
}

/** A file the agent wrote in a session's workspace. */
export interface SessionFile {
  path: string;
  size?: number;
  modified_at?: string;
}

/** What a waiting run asks a person, by interrupt. */
export interface PendingInterrupt {
  interrupt_id: string;
  value: HumanRequest;
}

/** A message of a saved conversation, as history rebuilds it from the stored run events. */
export type SessionMessage =
  | { role: 'user'; content: string; run_id: string; created_at: string }
  | {
      role: 'assistant';
      content: string;
      run_id: string;
      /** Front-end tool calls (charts, an opened order) made while the answer streamed. */
      tool_calls: ToolCallData[];
      /** Set on a run's last message: how the run stands, its error, its usage. */
      status?: RunStatus;
      error?: string;
      usage?: RunUsage;
      updated_at?: string;
    }
  | ({ role: 'decision'; run_id: string } & DecisionRecord)
  | ({ role: 'notice'; kind: 'order_decision'; run_id: string } & OrderDecisionData);

/** `GET /api/v1/history/sessions/{id}`: a conversation as it streamed, what it waits for, and its files. */
export type SessionDetail = SessionRecord &
  ({ origin: 'chat' } | { origin: 'schedule'; schedule: { id: string; name: string } }) & {
    messages: SessionMessage[];
    /** Every run's steps, as their last `progress` left them. */
    steps: Array<ProgressData & { run_id: string }>;
    pending_interrupts: PendingInterrupt[];
    usage: RunUsage;
    active_run: string | null;
    /** The latest run's last event: a client follows on from here to hear what comes next. */
    last_event_id: number;
    files: SessionFile[];
  };
