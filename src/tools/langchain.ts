import type { StructuredToolInterface } from '@langchain/core/tools';
import type { HumanDecision, HumanRequest } from '../protocol/index.ts';
import { modelSchema } from './model-schema.ts';
import type { ToolContext, ToolControl, ToolRegistry, ToolStreamEvent } from './registry.ts';
import { ToolScheduler } from './scheduler.ts';
import { fenceFields } from './untrusted.ts';

/** Resolves the context a call runs in from the LangGraph tool runtime (e.g. its `context`), for graphs shared by many users. */
export type ContextResolver = (
  runtime: { context?: unknown; configurable?: Record<string, unknown> } | undefined,
) => ToolContext;

export interface LangChainToolOptions {
  /** The user and run the tools act for: fixed, or resolved per call for a graph shared by many users. */
  ctx: ToolContext | ContextResolver;
  /** Who decides which tools are listed when `ctx` is resolved per call (a read-only run lists no writes). */
  visibility?: Pick<ToolContext, 'role' | 'readOnly'>;
  /** Only these groups/names (an agent's tool set); all visible tools without it. */
  filter?: { groups?: readonly string[]; names?: readonly string[] };
  /** Shared by the run's tools so one model turn's calls are scheduled together; a new one per binding by default,
   *  or one per run (by the resolved context) for shared graphs. */
  scheduler?: ToolScheduler | ((ctx: ToolContext) => ToolScheduler);
  /** Whether a human approved this tool call (filled by the run's approval step). Unapproved writes are refused. */
  isApproved?: (callId: string) => boolean;
  /** Where front-end `tool_call` events go; defaults to the graph's custom stream (`config.writer`). */
  emit?: (event: ToolStreamEvent) => void;
}

/**
 * The registry's tools for a LangChain/LangGraph agent: each model-visible name, description (with live values)
 * and JSON schema come from the declaration; every call goes through the scheduler and `registry.execute`, and its
 * result (a failure too) goes back to the model as JSON.
 */
export async function toLangChainTools(
  registry: ToolRegistry,
  options: LangChainToolOptions,
): Promise<StructuredToolInterface[]> {
  const fixed = typeof options.ctx === 'function' ? undefined : options.ctx;
  const resolve = typeof options.ctx === 'function' ? options.ctx : () => fixed as ToolContext;
  const shared =
    typeof options.scheduler === 'function' ? undefined : (options.scheduler ?? new ToolScheduler(registry));
  const schedulerFor = typeof options.scheduler === 'function' ? options.scheduler : () => shared as ToolScheduler;
  const visibility = fixed ?? options.visibility ?? { role: 'viewer' as const };
  const definitions = registry.list(visibility, options.filter);
  // LangChain is loaded by the agent that binds tools, not by every user of the registry (the CLI lists tools).
  const { tool } = await import('@langchain/core/tools');
  const { interrupt } = await import('@langchain/langgraph');
  return Promise.all(
    definitions.map(async (definition) => {
      // What other users wrote reaches the model fenced as data, however the tool arrived (an MCP tool's list comes
      // from its server); an MCP server's own clients get the plain result.
      const untrusted = definition.untrusted?.length ? new Set(definition.untrusted) : undefined;
      return tool(
        async (input: unknown, config) => {
          const callId = config?.toolCall?.id;
          const writer = (config as { writer?: (chunk: unknown) => void } | undefined)?.writer;
          const ctx = resolve(config as Parameters<ContextResolver>[0]);
          const control: ToolControl = {
            signal: config?.signal,
            // Some model servers reuse call ids across conversations: scoped to the session, a write's idempotency
            // key still only ever matches a retry of the same call.
            callId: callId && ctx.sessionId ? `${ctx.sessionId}:${callId}` : callId,
            approved: callId !== undefined && options.isApproved?.(callId) === true,
            emit: options.emit ?? (writer ? (event) => writer({ type: 'tool_call', ...event }) : undefined),
            // A question the tool's server asks the user pauses the run as an interrupt, like `ask_user`.
            ask: (request) => interrupt<HumanRequest, HumanDecision>(request),
            // A long tool's progress goes to the user's stream as an update of its step.
            progress: writer
              ? (message) => writer({ type: 'tool_progress', call_id: callId, tool: definition.name, message })
              : undefined,
          };
          const result = await schedulerFor(ctx).run(definition.name, input, ctx, control);
          return JSON.stringify(untrusted ? fenceFields(result, untrusted, definition.name) : result);
        },
        {
          name: definition.name,
          // Live values that need no user (e.g. the chart types of the connected server) still reach a shared graph.
          description: await registry.describe(
            definition.name,
            fixed ?? { userId: 'agent', traceId: 'bind', ...visibility },
          ),
          // A compact copy (the JSON-schema validator annotates the object it is given); `registry.execute` still
          // validates every call against the full declaration.
          schema: modelSchema(registry.offered(definition, visibility).jsonSchema) as Record<string, unknown>,
          verboseParsingErrors: true,
          metadata: { label: definition.label, safety: definition.safety, group: definition.group },
        },
      );
    }),
  );
}

/** Names of the tools whose calls wait for a human decision — the agent's human-in-the-loop list. */
export function approvalRequiredTools(registry: ToolRegistry, ctx: Pick<ToolContext, 'role' | 'readOnly'>): string[] {
  return registry
    .list(ctx)
    .filter((d) => d.approval === 'required')
    .map((d) => d.name);
}
