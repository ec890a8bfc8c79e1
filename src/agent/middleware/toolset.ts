import { ToolMessage } from '@langchain/core/messages';
import { convertToOpenAITool } from '@langchain/core/utils/function_calling';
import { createMiddleware } from 'langchain';
import { failure, type ToolContext } from '../../tools/index.ts';
import { type BuiltinText, builtinDefinition } from '../builtins.ts';
import { runContext, runContextSchema } from '../context.ts';

/** A tool as the model request carries it: a LangChain tool, or a tool definition given as data. */
type RequestTool = { name?: unknown; description?: unknown } & object;

export interface ToolSetOptions {
  /** The agent's tools as its YAML declares them: nothing else reaches its model or runs. */
  allowed: ReadonlySet<string>;
  /** The description the user of `ctx` is shown, when it depends on them (live values); undefined keeps the declared one. */
  describe: (tool: string, ctx: ToolContext) => Promise<string | undefined>;
  /** Procura's texts for the harness's built-in tools, sent in place of the harness's own. */
  builtins?: Readonly<Record<string, BuiltinText>>;
}

/**
 * Gives the model exactly the agent's declared tools — built-in ones (file system, `task`) included only when the
 * YAML names them — with each description as the run's user sees it (e.g. the categories of their project).
 * A call to any other tool is answered as a failure, never run.
 */
export function createToolSetMiddleware(options: ToolSetOptions) {
  return createMiddleware({
    name: 'ToolSetMiddleware',
    contextSchema: runContextSchema,
    wrapModelCall: async (request, handler) => {
      const ctx = runContext(request.runtime);
      const tools = await Promise.all(
        ((request.tools ?? []) as RequestTool[])
          .filter((tool) => typeof tool.name === 'string' && options.allowed.has(tool.name))
          .map((tool) => {
            const builtin = options.builtins?.[String(tool.name)];
            // Sent as data, like a live description: calls still run the harness's tool of that name.
            if (builtin) return { type: 'function', function: builtinDefinition(tool, builtin) } as RequestTool;
            return ctx ? withLiveDescription(tool, ctx, options.describe) : tool;
          }),
      );
      return handler({ ...request, tools: tools as typeof request.tools });
    },
    wrapToolCall: async (request, handler) => {
      const { name, id } = request.toolCall;
      if (options.allowed.has(name)) return handler(request);
      return new ToolMessage({
        tool_call_id: id ?? '',
        name,
        status: 'error',
        content: JSON.stringify(
          failure(
            `本 Agent 没有工具 ${name} / ${name} is not this agent's tool`,
            '只使用提供的工具 / use the tools given',
          ),
        ),
      });
    },
  });
}

async function withLiveDescription(
  tool: RequestTool,
  ctx: ToolContext,
  describe: ToolSetOptions['describe'],
): Promise<RequestTool> {
  const description = await describe(String(tool.name), ctx);
  if (description === undefined || description === tool.description) return tool;
  // The bound tool is shared by every user's runs and the agent refuses a replaced instance: the model is sent this
  // user's definition as data, and calls still run the registered tool of that name.
  const definition = convertToOpenAITool(tool as Parameters<typeof convertToOpenAITool>[0]);
  return { ...definition, function: { ...definition.function, description } } as RequestTool;
}
