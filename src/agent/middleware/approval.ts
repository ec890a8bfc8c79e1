import { ToolMessage } from '@langchain/core/messages';
import { interrupt } from '@langchain/langgraph';
import { createMiddleware } from 'langchain';
import type { ApprovalDetails, HumanDecision, HumanRequest } from '../../protocol/index.ts';
import { failure } from '../../tools/index.ts';
import { runContext, runContextSchema } from '../context.ts';
import { silently } from './silent.ts';

/**
 * Tool calls a human has approved in this process. Only the approval middleware adds to it (after an interrupt
 * resumed with a human's decision); the tool adapter consults it, so nothing the model writes can approve a write.
 */
export class ApprovalLedger {
  private readonly approved = new Set<string>();

  grant(callId: string): void {
    this.approved.add(callId);
  }

  isApproved = (callId: string): boolean => this.approved.has(callId);

  release(callId: string): void {
    this.approved.delete(callId);
  }
}

export interface ApprovalOptions {
  /** Whether this call waits for a human (the registry's `approval`, narrowed by its input where declared). */
  needsApproval: (tool: string, args: unknown) => boolean;
  label: (tool: string) => string;
  ledger: ApprovalLedger;
  /** Looks up what the call's ids name, as the user (read-only), for the approval card. */
  details?: (
    tool: string,
    args: Record<string, unknown>,
    ctx: NonNullable<ReturnType<typeof runContext>>,
  ) => Promise<ApprovalDetails | undefined>;
}

/**
 * Human in the loop for writes: the run pauses with an `approval` interrupt carrying the tool, its arguments and
 * the allowed decisions; approve runs the call as is, reject answers the model without running anything, and edit
 * shows the card again for the edited arguments, previewed afresh (total, price checks, the approval policy's
 * decision), so what is approved is exactly what the card then shows. Each call is decided on its own, so rejecting
 * one never drops another.
 */
export function createApprovalMiddleware(options: ApprovalOptions) {
  return createMiddleware({
    name: 'ApprovalMiddleware',
    contextSchema: runContextSchema,
    wrapToolCall: async (request, handler) => {
      const { toolCall } = request;
      if (!options.needsApproval(toolCall.name, toolCall.args)) return handler(request);
      const ctx = runContext(request.runtime);
      const detailsOf = (args: Record<string, unknown>) =>
        ctx && options.details
          ? silently('ApprovalMiddleware', request.runtime, () => options.details!(toolCall.name, args, ctx))
          : Promise.resolve(undefined);
      const callId = toolCall.id ?? '';
      let args = toolCall.args as Record<string, unknown>;
      let revision = 0;
      // Each edit is a new card: on a resume the graph replays the earlier decisions in order, so the loop reaches the
      // card that waits with the arguments it showed.
      for (;;) {
        const details = await detailsOf(args);
        const decision = interrupt<HumanRequest, HumanDecision>({
          kind: 'approval',
          tool: toolCall.name,
          label: options.label(toolCall.name),
          args,
          allowed: ['approve', 'edit', 'reject'],
          ...(details ? { details } : {}),
          ...(revision ? { revision } : {}),
        });
        if (decision?.type === 'edit' && decision.args && typeof decision.args === 'object') {
          args = decision.args;
          revision += 1;
          continue;
        }
        if (decision?.type === 'approve') {
          options.ledger.grant(callId);
          try {
            return await handler({ ...request, toolCall: { ...toolCall, args } });
          } finally {
            options.ledger.release(callId);
          }
        }
        const reason = decision?.type === 'reject' && decision.reason ? `：${decision.reason}` : '';
        return new ToolMessage({
          tool_call_id: callId,
          name: toolCall.name,
          content: JSON.stringify(
            failure(
              `用户拒绝了 ${toolCall.name}${reason}，未写入 ERP / the user rejected ${toolCall.name}; nothing was written`,
              '告诉用户操作已取消，不要重试 / tell the user it was not done; do not retry',
            ),
          ),
        });
      }
    },
  });
}
