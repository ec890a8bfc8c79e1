import { z } from 'zod';
import {
  eventPayload,
  type OrderDecisionData,
  type ProgressData,
  RunUsageSchema,
  type ToolCallData,
} from './events.ts';
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
export const RUN_STATUSES = ['running', 'waiting', 'done', 'error', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** A chat session as stored (`PATCH /api/v1/history/sessions/{id}` answers it). */
export const SessionRecordSchema = z.object({
  id: z.string(),
  owner: z.string(),
  project_id: z.string(),
  title: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type SessionRecord = z.infer<typeof SessionRecordSchema>;

/** A file the agent wrote in a session's workspace. */
export const SessionFileSchema = z.object({
  path: z.string(),
  size: z.number().int().nonnegative().optional(),
  modified_at: z.string().optional(),
});
export type SessionFile = z.infer<typeof SessionFileSchema>;

const HumanRequestPayload = eventPayload<HumanRequest>({ kind: z.enum(['ask_user', 'order_info', 'approval']) });

/** What a waiting run asks a person, by interrupt. */
export const PendingInterruptSchema = z.object({ interrupt_id: z.string(), value: HumanRequestPayload });
export type PendingInterrupt = z.infer<typeof PendingInterruptSchema>;

/** A message of a saved conversation, as history rebuilds it from the stored run events. */
export const SessionMessageSchema = z.union([
  z.object({ role: z.literal('user'), content: z.string(), run_id: z.string(), created_at: z.string() }),
  z.object({
    role: z.literal('assistant'),
    content: z.string(),
    run_id: z.string(),
    /** Front-end tool calls (charts, an opened order) made while the answer streamed. */
    tool_calls: z.array(eventPayload<ToolCallData>({ tool: z.string() })),
    /** Set on a run's last message: how the run stands, its error, its usage. */
    status: z.enum(RUN_STATUSES).optional(),
    error: z.string().optional(),
    usage: RunUsageSchema.optional(),
    updated_at: z.string().optional(),
  }),
  z.intersection(
    z.object({ role: z.literal('decision'), run_id: z.string() }),
    eventPayload<DecisionRecord>({ interrupt_id: z.string(), outcome: z.string() }),
  ),
  z.intersection(
    z.object({ role: z.literal('notice'), kind: z.literal('order_decision'), run_id: z.string() }),
    eventPayload<OrderDecisionData>({ order_id: z.number(), decision: z.enum(['approved', 'rejected']) }),
  ),
]);
export type SessionMessage = z.infer<typeof SessionMessageSchema>;

/** Who started a session: its user in a chat, or one of their schedules. */
const SessionOrigin = z.discriminatedUnion('origin', [
  z.object({ origin: z.literal('chat') }),
  z.object({ origin: z.literal('schedule'), schedule: z.object({ id: z.string(), name: z.string() }) }),
]);

/** `GET /api/v1/history/sessions/{id}`: a conversation as it streamed, what it waits for, and its files. */
export const SessionDetailSchema = z.intersection(
  z.intersection(SessionRecordSchema, SessionOrigin),
  z.object({
    messages: z.array(SessionMessageSchema),
    /** Every run's steps, as their last `progress` left them. */
    steps: z.array(
      z.intersection(
        z.object({ run_id: z.string() }),
        eventPayload<ProgressData>({ id: z.string(), phase: z.string() }),
      ),
    ),
    pending_interrupts: z.array(PendingInterruptSchema),
    usage: RunUsageSchema,
    active_run: z.string().nullable(),
    /** The latest run's last event: a client follows on from here to hear what comes next. */
    last_event_id: z.number().int().nonnegative(),
    files: z.array(SessionFileSchema),
  }),
);
export type SessionDetail = z.infer<typeof SessionDetailSchema>;
