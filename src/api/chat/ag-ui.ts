import { type BaseEvent, contentHasMedia, contentToText, EventType, type Interrupt } from '@ag-ui/core';
import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import { EventEncoder } from '@ag-ui/encoder';
import type { Context } from 'hono';
import { stream } from 'hono/streaming';
import { z } from 'zod';
import { HumanDecisionSchema } from '../../protocol/index.ts';
import { type Logger, markConversation, unprocessable, validationFailed } from '../../shared/index.ts';
import type { ApiEnv } from '../http.ts';
import type { RunEventLog } from './events.ts';
import type { RunEvent } from './run-store.ts';
import type { RunRef } from './runs.ts';
import { IdempotencyKey, ResumeBody, StartBody } from './schemas.ts';

/** What an AG-UI client posts: a run of the thread (Procura's session), with answers to its interrupts when resuming. */
export const AgUiRunInput = RunAgentInputSchema;
export type AgUiRunInput = z.infer<typeof RunAgentInputSchema>;

/** The answer an interrupt expects, as the JSON Schema an AG-UI front end builds its form from. */
const DECISION_SCHEMA = z.toJSONSchema(HumanDecisionSchema, { io: 'input' }) as Record<string, unknown>;

/** Where each field of the chat stream's request comes from in an AG-UI run input: what a 422 names. */
const AG_UI_FIELDS: Record<string, string> = {
  message: 'messages',
  session_id: 'threadId',
  interrupt_id: 'resume.0.interruptId',
  decision: 'resume.0.payload',
};

/** The chat stream's request the AG-UI input stands for: a new message, or the answer to the run's interrupt. */
export type AgUiChatRequest =
  | { start: z.infer<typeof StartBody>; idempotencyKey: string }
  | { resume: z.infer<typeof ResumeBody> };

/**
 * An AG-UI run input as the chat stream's own request, checked by the chat stream's own schemas (`StartBody`,
 * `ResumeBody`, `IdempotencyKey`), so every limit of the chat stream (message length and characters, session id,
 * interrupt id, decision) holds here too and a refusal is the same 422 problem+json, naming the AG-UI field. The
 * thread is the session; the last user message is the message, as text only (the chat stream takes no attachments);
 * the client's run id is the idempotency key, so a retried request joins the run it started; an AG-UI resume
 * answers Procura's one pending interrupt, and a cancelled one rejects it.
 */
export function chatRequestOf(input: AgUiRunInput): AgUiChatRequest {
  const answer = input.resume?.[0];
  if (answer) {
    const decision = answer.status === 'cancelled' ? { type: 'reject', reason: 'cancelled' } : answer.payload;
    return {
      resume: asChatRequest(ResumeBody, {
        session_id: input.threadId,
        interrupt_id: answer.interruptId,
        decision,
      }),
    };
  }
  const content = input.messages.findLast((m) => m.role === 'user')?.content;
  if (contentHasMedia(content)) {
    throw unprocessable('字段校验失败 / invalid fields', [
      { field: 'messages', message: '只接受文本消息，不接受附件 / text only: the chat takes no attachments' },
    ]);
  }
  return {
    start: asChatRequest(StartBody, { message: contentToText(content), session_id: input.threadId }),
    idempotencyKey: asChatRequest(IdempotencyKey, `ag-ui:${input.runId}`, 'runId'),
  };
}

/** `value` checked by a chat stream schema; a refusal names the AG-UI fields the bad values came from. */
function asChatRequest<T extends z.ZodType>(schema: T, value: unknown, where = '(body)'): z.infer<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw validationFailed(
    result.error.issues.map((issue) => ({
      message: issue.message,
      path: issue.path.length
        ? [AG_UI_FIELDS[String(issue.path[0])] ?? issue.path[0], ...issue.path.slice(1)]
        : [where],
    })),
    where,
  );
}

/**
 * Turns one Procura run's events into AG-UI events: `token` into a text message, front-end `tool_call`s into tool
 * calls, `progress` into steps and into the run state (`steps` by id, patched as they change), `interrupt` into a
 * run finished with an interrupt outcome (answered by the next run's `resume`), `done` and `error` into the end of
 * the run. Whatever is open is closed before the run ends, as AG-UI clients require.
 */
export class AgUiTranslator {
  private text?: string;
  private readonly activeSteps = new Map<string, string>();
  private readonly knownSteps = new Set<string>();
  private finished = false;

  constructor(
    private readonly threadId: string,
    private readonly runId: string,
  ) {}

  start(): BaseEvent[] {
    return [
      { type: EventType.RUN_STARTED, threadId: this.threadId, runId: this.runId } as BaseEvent,
      { type: EventType.STATE_SNAPSHOT, snapshot: { session_id: this.threadId, steps: {} } } as BaseEvent,
    ];
  }

  translate(event: RunEvent): BaseEvent[] {
    const data = JSON.parse(event.data) as Record<string, unknown>;
    const id = `${event.runId}-${event.seq}`;
    if (event.event === 'token') {
      const out: BaseEvent[] = [];
      if (!this.text) {
        this.text = id;
        out.push({ type: EventType.TEXT_MESSAGE_START, messageId: id, role: 'assistant' } as BaseEvent);
      }
      if (data.content)
        out.push({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: this.text, delta: data.content } as BaseEvent);
      return out;
    }
    const out = this.closeText();
    switch (event.event) {
      case 'progress':
        return [...out, ...this.progress(data)];
      case 'tool_call':
        return [
          ...out,
          { type: EventType.TOOL_CALL_START, toolCallId: id, toolCallName: data.tool } as BaseEvent,
          { type: EventType.TOOL_CALL_ARGS, toolCallId: id, delta: JSON.stringify(data.params ?? {}) } as BaseEvent,
          { type: EventType.TOOL_CALL_END, toolCallId: id } as BaseEvent,
        ];
      case 'interrupt':
        return [...out, ...this.finish({ type: 'interrupt', interrupts: [interruptOf(data)] })];
      case 'done':
        return [
          ...out,
          ...this.finish(data.status === 'cancelled' ? { type: 'cancelled' } : { type: 'success' }, {
            run_id: data.run_id,
            usage: data.usage,
          }),
        ];
      case 'error':
        this.finished = true;
        return [
          ...out,
          ...this.closeSteps(),
          {
            type: EventType.RUN_ERROR,
            message: String(data.message),
            code: String(data.detail ?? 'error'),
          } as BaseEvent,
        ];
      default:
        return [...out, { type: EventType.CUSTOM, name: event.event, value: data } as BaseEvent];
    }
  }

  /** Ends a run whose event stream stopped without saying how (an order decision on an ended run). */
  end(): BaseEvent[] {
    return this.finished ? [] : [...this.closeText(), ...this.finish({ type: 'success' })];
  }

  private progress(data: Record<string, unknown>): BaseEvent[] {
    const stepId = String(data.id);
    const value = { title: data.title, status: data.status, agent: data.agent, detail: data.detail ?? null };
    const out: BaseEvent[] = [
      {
        type: EventType.STATE_DELTA,
        delta: [{ op: 'add', path: `/steps/${stepId.replace(/~/g, '~0').replace(/\//g, '~1')}`, value }],
      } as BaseEvent,
    ];
    const name = this.activeSteps.get(stepId);
    if (!name && !this.knownSteps.has(stepId)) {
      this.knownSteps.add(stepId);
      const taken = [...this.activeSteps.values()].includes(String(data.title));
      const stepName = taken ? `${data.title} (${stepId})` : String(data.title);
      this.activeSteps.set(stepId, stepName);
      out.push({ type: EventType.STEP_STARTED, stepName } as BaseEvent);
    }
    if (data.status !== 'running') out.push(...this.closeStep(stepId));
    return out;
  }

  private closeStep(stepId: string): BaseEvent[] {
    const stepName = this.activeSteps.get(stepId);
    if (!stepName) return [];
    this.activeSteps.delete(stepId);
    return [{ type: EventType.STEP_FINISHED, stepName } as BaseEvent];
  }

  private closeSteps(): BaseEvent[] {
    return [...this.activeSteps.keys()].flatMap((stepId) => this.closeStep(stepId));
  }

  private closeText(): BaseEvent[] {
    if (!this.text) return [];
    const messageId = this.text;
    this.text = undefined;
    return [{ type: EventType.TEXT_MESSAGE_END, messageId } as BaseEvent];
  }

  private finish(outcome: Record<string, unknown>, result?: Record<string, unknown>): BaseEvent[] {
    this.finished = true;
    return [
      ...this.closeSteps(),
      {
        type: EventType.RUN_FINISHED,
        threadId: this.threadId,
        runId: this.runId,
        outcome,
        ...(result && { result }),
      } as BaseEvent,
    ];
  }
}

/** A Procura interrupt as an AG-UI interrupt: its id, its kind as the reason, its card as metadata. */
function interruptOf(data: Record<string, unknown>): Interrupt {
  const message = (data.question ?? data.label ?? data.reason) as string | undefined;
  return {
    id: String(data.interrupt_id),
    reason: String(data.kind),
    ...(message && { message }),
    responseSchema: DECISION_SCHEMA,
    metadata: { procura: data },
  };
}

/**
 * The AG-UI response following one run: the client's run id on RUN_STARTED and RUN_FINISHED, then Procura's events
 * translated, encoded as the client asked (SSE). A client going away stops only its own stream, never the run.
 */
export function agUiStream(c: Context<ApiEnv>, events: RunEventLog, ref: RunRef, runId: string, log: Logger): Response {
  markConversation({ sessionId: ref.sessionId, userId: c.var.user.username, runId: ref.runId });
  const encoder = new EventEncoder({ accept: c.req.header('accept') ?? undefined });
  c.header('Content-Type', encoder.getContentType());
  c.header('Cache-Control', 'no-cache, no-transform');
  c.header('X-Accel-Buffering', 'no');
  c.header('X-Session-Id', ref.sessionId);
  c.header('X-Run-Id', ref.runId);
  const translator = new AgUiTranslator(ref.sessionId, runId);
  return stream(c, async (out) => {
    const stop = new AbortController();
    out.onAbort(() => stop.abort());
    const send = async (batch: BaseEvent[]) => {
      for (const event of batch) await out.write(encoder.encodeSSE(event));
    };
    try {
      await send(translator.start());
      for await (const event of events.follow(ref.runId, ref.afterSeq, stop.signal, ref.resumedAfter)) {
        await send(translator.translate(event));
      }
      if (!stop.signal.aborted) await send(translator.end());
    } catch (error) {
      log.error({ err: error, runId: ref.runId }, 'AG-UI stream failed');
      await send([
        {
          type: EventType.RUN_ERROR,
          message: '事件流中断 / the event stream broke',
          code: 'stream',
        } as BaseEvent,
      ]).catch(() => undefined);
    }
  });
}
