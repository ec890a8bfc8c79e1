import { z } from 'zod';
import { LastEventId, StartBody } from '../chat/schemas.ts';
import { SessionId } from '../schemas.ts';

/**
 * Request shapes of the Agent Protocol routes, as the LangGraph SDK's `Client` sends them. Objects are strict: a field
 * Procura does not honour (checkpoints, webhooks, TTLs, `interrupt_before`, …) is a 422 naming it, never dropped.
 */

/** A thread is a chat session: its id obeys the session id's rule. */
export const ThreadId = SessionId;
export const RunId = z.uuid();
export const AssistantId = z.string().min(1).max(100);

const Limit = (max: number, fallback: number) => z.coerce.number().int().min(1).max(max).default(fallback);
const Offset = z.coerce.number().int().min(0).max(100_000).default(0);
const Metadata = z.record(z.string().max(100), z.unknown()).refine((m) => JSON.stringify(m).length <= 8_000, {
  message: 'metadata over 8000 characters',
});

export const AssistantSearchBody = z.strictObject({
  graph_id: z.string().max(100).optional(),
  name: z.string().max(100).optional(),
  metadata: Metadata.optional(),
  limit: Limit(1000, 10),
  offset: Offset,
});

export const ThreadCreateBody = z.strictObject({
  thread_id: ThreadId.optional(),
  metadata: Metadata.optional(),
  if_exists: z.enum(['raise', 'do_nothing']).default('raise'),
});

export const ThreadStatus = z.enum(['idle', 'busy', 'interrupted', 'error']);

export const ThreadSearchBody = z.strictObject({
  ids: z.array(ThreadId).max(1000).optional(),
  metadata: Metadata.optional(),
  status: ThreadStatus.optional(),
  limit: Limit(1000, 10),
  offset: Offset,
  sort_by: z.enum(['created_at', 'updated_at', 'thread_id']).default('updated_at'),
  sort_order: z.enum(['asc', 'desc']).default('desc'),
});

/** What a run streams: Procura's events as the LangGraph stream modes it can stand for. */
export const StreamMode = z.enum(['values', 'updates', 'messages', 'messages-tuple', 'custom']);
export type StreamMode = z.infer<typeof StreamMode>;

/** A message of a run's input: LangChain's dict (`type`) or the OpenAI-style one (`role`). */
const InputMessage = z.looseObject({
  role: z.string().optional(),
  type: z.string().optional(),
  content: z.union([z.string(), z.array(z.looseObject({ type: z.string(), text: z.string().optional() }))]),
});

export const RunCreateBody = z
  .strictObject({
    assistant_id: AssistantId,
    input: z
      .strictObject({
        messages: z.array(InputMessage).min(1).max(100),
        /**
         * deepagents' `start_async_task` names the thread that started the task, for a completion callback. Accepted
         * so its calls work unchanged; no callback is made (the parent asks with `check_async_task`).
         */
        callbackThreadId: z.string().max(200).optional(),
      })
      .nullish(),
    /** The answer to the thread's pending interrupt (an approval decision or an answer), as Procura's chat takes it. */
    command: z.strictObject({ resume: z.unknown() }).nullish(),
    stream_mode: z.union([StreamMode, z.array(StreamMode).max(5)]).optional(),
    stream_subgraphs: z.boolean().optional(),
    /** Every run is resumable here: its events are stored before they are sent. */
    stream_resumable: z.boolean().optional(),
    /** A run never depends on the connection that started it. */
    on_disconnect: z.literal('continue').optional(),
    multitask_strategy: z.enum(['reject', 'interrupt']).default('reject'),
    if_not_exists: z.enum(['create', 'reject']).default('reject'),
  })
  .refine((body) => Boolean(body.input) !== Boolean(body.command), {
    message: 'give either input (a new message) or command.resume (an answer to the pending interrupt)',
    path: ['input'],
  });
export type RunCreateBody = z.infer<typeof RunCreateBody>;

/** The chat's own rule for a message: what the last user message of a run's input must satisfy. */
export const RunMessage = StartBody.shape.message;

export const RunListQuery = z.object({
  limit: Limit(1000, 10),
  offset: Offset,
  status: z.enum(['pending', 'running', 'error', 'success', 'timeout', 'interrupted']).optional(),
});

export const CancelQuery = z.object({
  wait: z.enum(['0', '1', 'true', 'false']).default('0'),
  action: z.literal('interrupt').default('interrupt'),
});

export const JoinStreamQuery = z.object({
  stream_mode: z.union([StreamMode, z.array(StreamMode)]).optional(),
  cancel_on_disconnect: z.enum(['0', 'false']).optional(),
  last_event_id: LastEventId.optional(),
});

/** A namespace label: what LangGraph stores accept (no `.`), bounded. */
const Label = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[^.:\s%]+$/, 'no ".", ":", "%" or whitespace');
export const Namespace = z.array(Label).min(1).max(10);

export const StorePutBody = z.strictObject({
  namespace: Namespace,
  key: z.string().min(1).max(200),
  value: z.record(z.string(), z.unknown()).refine((v) => JSON.stringify(v).length <= 32_000, {
    message: 'value over 32000 characters',
  }),
  /** Procura's stores keep no vector index: `false`/`null` only. */
  index: z.literal(false).nullish(),
  ttl: z.null().optional(),
});

export const StoreItemQuery = z.object({
  namespace: z
    .string()
    .min(1)
    .max(1000)
    .transform((joined) => joined.split('.'))
    .pipe(Namespace),
  key: z.string().min(1).max(200),
});

export const StoreDeleteBody = z.strictObject({ namespace: Namespace, key: z.string().min(1).max(200) });

export const StoreSearchBody = z.strictObject({
  namespace_prefix: z.array(Label).max(10).default([]),
  filter: z.record(z.string(), z.unknown()).optional(),
  query: z.string().max(1000).optional(),
  limit: Limit(1000, 10),
  offset: Offset,
  refresh_ttl: z.boolean().nullish(),
});

export const NamespacesBody = z.strictObject({
  prefix: z.array(Label).max(10).optional(),
  suffix: z.array(Label).max(10).optional(),
  max_depth: z.number().int().min(1).max(10).optional(),
  limit: Limit(1000, 100),
  offset: Offset,
});
