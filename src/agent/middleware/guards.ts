import { AIMessage, type BaseMessage, ToolMessage } from '@langchain/core/messages';
import { createMiddleware } from 'langchain';
import { logger } from '../../shared/index.ts';
import { failure } from '../../tools/index.ts';
import { runContext, runContextSchema } from '../context.ts';
import { modelServiceFailure } from '../models/resilience.ts';
import { outageOf, serviceUnavailable } from '../outage.ts';

export interface RunLimits {
  /** Model calls per run (seed: main 50, analyst 50, order 20). */
  modelCalls: number;
  /** Tool calls per run (seed: 200, 200, 50). */
  toolCalls: number;
}

/** Messages of the current run: everything after the latest human message. */
function currentRun(messages: BaseMessage[]): BaseMessage[] {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i].getType() === 'human') return messages.slice(i + 1);
  return messages;
}

/** Why the run must stop before its next model call, in words the user can read; undefined while it may go on. */
function stopReason(messages: BaseMessage[], limits: RunLimits, agent: string): string | undefined {
  const run = currentRun(messages);
  const replies = run.filter((m): m is AIMessage => AIMessage.isInstance(m));
  if (replies.length >= limits.modelCalls) {
    return `本次任务已达到 ${agent} 的模型调用上限（${limits.modelCalls} 次），已停止。请把问题拆小后重试。\nStopped: ${agent} reached its limit of ${limits.modelCalls} model calls.`;
  }
  const calls = replies.flatMap((m) => m.tool_calls ?? []);
  if (calls.length > limits.toolCalls) {
    return `本次任务已达到 ${agent} 的工具调用上限（${limits.toolCalls} 次），已停止。\nStopped: ${agent} reached its limit of ${limits.toolCalls} tool calls.`;
  }
  const recent = calls.slice(-6).map((c) => `${c.name}:${JSON.stringify(c.args)}`);
  const repeated = recent.find((key) => recent.filter((k) => k === key).length >= 3);
  if (repeated) {
    return `检测到重复调用（${repeated.split(':')[0]} 连续重复），已停止以免空转。\nStopped: the same tool call repeated 3 times.`;
  }
  return undefined;
}

/**
 * [6]+[7] Ends a run cleanly when it exceeds its model/tool-call budget, or when it repeats itself
 * (the same call 3 times within its last 6 calls): the model call is answered with the stopping message, which
 * has no tool calls, so the agent ends. It wraps the call rather than running as a step before it, so a run
 * takes no extra graph step (and checkpoint) per model call.
 */
export function createRunGuardsMiddleware(limits: RunLimits, agent: string) {
  return createMiddleware({
    name: `RunGuardsMiddleware`,
    contextSchema: runContextSchema,
    wrapModelCall: (request, handler) => {
      const reason = stopReason(request.state.messages, limits, agent);
      return reason ? new AIMessage({ content: reason }) : handler(request);
    },
  });
}

/**
 * What a model is told of a tool's exception: its message without the harness's wrapping ("Error invoking tool …
 * with kwargs … with error:") and without a stack trace, which it cannot act on and which costs tokens on every
 * later call.
 */
export function readableToolError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message
    .replace(/^Error invoking tool '[^']*' with kwargs [\s\S]*? with error: (?:Error: )?/, '')
    .split('\n')
    .filter((line) => !/^\s+at /.test(line))
    .join('\n')
    .replace(/\s*Please fix the error and try again\.?\s*$/, '')
    .trim();
}

/**
 * Turns a tool that throws (built-in file tools, adapters) into a failure the model can read; interrupts pass
 * through, and so does a failing model service inside a sub-agent (the run ends with it instead of asking the
 * same failing service again). A tool result reporting an outage of a service the run needs (the ERP) ends the run
 * with a retryable error naming it, instead of letting a model read "nothing found" into it; retrying takes the run
 * up again before that call.
 */
export function createToolErrorGuardMiddleware() {
  return createMiddleware({
    name: 'ToolErrorGuardMiddleware',
    contextSchema: runContextSchema,
    wrapToolCall: async (request, handler) => {
      let result: Awaited<ReturnType<typeof handler>>;
      try {
        result = await handler(request);
      } catch (error) {
        if ((error as { is_bubble_up?: boolean } | undefined)?.is_bubble_up) throw error;
        if (modelServiceFailure(error) || serviceUnavailable(error)) throw error;
        logger.warn(
          { err: error, tool: request.toolCall.name, traceId: runContext(request.runtime)?.traceId },
          'tool failed',
        );
        return new ToolMessage({
          tool_call_id: request.toolCall.id ?? '',
          name: request.toolCall.name,
          status: 'error',
          content: JSON.stringify(
            failure(
              `工具 ${request.toolCall.name} 出错 / failed: ${readableToolError(error)}`,
              '检查参数后重试，或换一种方式 / check the arguments or take another route',
            ),
          ),
        });
      }
      const outage = outageOf((result as { content?: unknown }).content);
      if (outage) throw outage;
      return result;
    },
  });
}
