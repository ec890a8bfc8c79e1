import { ToolMessage } from '@langchain/core/messages';
import type { BackendFactory } from 'deepagents';
import { createMiddleware } from 'langchain';
import { countTokens } from '../../tools/index.ts';
import { runContextSchema } from '../context.ts';
import type { FileUploader } from '../skills/sync.ts';
import { FULL_RESULT_KEY, tabulate } from '../tool-results.ts';
import { silently } from './silent.ts';

/** Where whole answers are kept in the session's workspace. */
export const TOOL_RESULTS_DIR = '/tool_results/';

export interface ToolResultsOptions {
  backend: BackendFactory;
  /** The tools whose answers are compacted: the registry's (JSON answers), not the file tools or `task`. */
  compacts: (tool: string) => boolean;
  /** Answers of at least this many tokens are sent as tables and kept whole in the workspace. */
  minTokens?: number;
}

/**
 * A large answer of a registry tool reaches the model with its lists as tables (`tabulate`: the same values, each
 * key once) and the path of a workspace file holding it exactly as the tool answered, for code in the sandbox to read.
 * Failures and small answers go as they are. Every answer is sent again with each later call of the run, so the
 * repeated keys of a 50-part list cost far more than once.
 */
export function createToolResultsMiddleware(options: ToolResultsOptions) {
  const minTokens = options.minTokens ?? 400;
  return createMiddleware({
    name: 'ToolResultsMiddleware',
    contextSchema: runContextSchema,
    wrapToolCall: async (request, handler) => {
      const result = await handler(request);
      const { name, id } = request.toolCall;
      if (!ToolMessage.isInstance(result) || !options.compacts(name) || result.status === 'error') return result;
      const content = typeof result.content === 'string' ? result.content : undefined;
      if (!content || countTokens(content) < minTokens) return result;
      let answer: unknown;
      try {
        answer = JSON.parse(content);
      } catch {
        return result;
      }
      if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) return result;
      if ((answer as { success?: unknown }).success === false) return result;
      const file = `${TOOL_RESULTS_DIR}${name}-${String(id ?? Date.now()).replace(/[^\w-]/g, '_')}.json`;
      const kept = await silently('ToolResultsMiddleware', request.runtime, async () => {
        const files = (await options.backend({ ...request.runtime, state: request.state } as never)) as FileUploader;
        const [written] = await files.uploadFiles([[file, new TextEncoder().encode(content)]]);
        return !written?.error;
      });
      const compact = JSON.stringify({ ...(tabulate(answer) as object), ...(kept ? { [FULL_RESULT_KEY]: file } : {}) });
      if (compact.length >= content.length) return result;
      return new ToolMessage({
        id: result.id,
        content: compact,
        tool_call_id: result.tool_call_id,
        name: result.name,
        status: result.status,
        artifact: result.artifact,
      });
    },
  });
}
