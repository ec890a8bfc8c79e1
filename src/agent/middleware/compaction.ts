import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  RemoveMessage,
  SystemMessage,
  ToolMessage,
} from '@langchain/core/messages';
import { type ToolRuntime, tool } from '@langchain/core/tools';
import { Command, REMOVE_ALL_MESSAGES } from '@langchain/langgraph';
import type { BackendFactory } from 'deepagents';
import { createMiddleware } from 'langchain';
import { z } from 'zod';
import { runContextSchema } from '../context.ts';
import { SUMMARY_PROMPT } from '../prompts.ts';
import type { FileUploader } from '../skills/sync.ts';

export const SUMMARY_HEADER = '【对话摘要】';
const text = (m: BaseMessage) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content));

/**
 * `compact_conversation`: the agent compacts its own context at a point it chooses (e.g. after a sub-agent's long
 * report). The full history goes to a workspace file, a light-model summary replaces it, and the call that asked
 * stays, so the model continues from where it was.
 */
export function createCompactionMiddleware(options: { model: BaseChatModel; backend: BackendFactory }) {
  const compact = tool(
    async (_input: Record<string, never>, config) => {
      const runtime = config as unknown as ToolRuntime<{ messages: BaseMessage[] }>;
      const state = runtime.state as { messages: BaseMessage[] };
      const at = state.messages.findLastIndex(
        (m) => AIMessage.isInstance(m) && (m.tool_calls ?? []).some((c) => c.id === runtime.toolCallId),
      );
      const older = state.messages.slice(0, at);
      if (at < 0 || older.length < 4) return '对话还很短，无需压缩。/ Nothing to compact yet.';
      const transcript = older.map((m) => `### ${m.getType()}\n${text(m)}`).join('\n\n');
      const file = `/conversation_history/${new Date().toISOString().replace(/[:.]/g, '-')}.md`;
      const files = (await options.backend({ ...runtime, state } as never)) as unknown as FileUploader;
      await files.uploadFiles([[file, new TextEncoder().encode(transcript)]]);
      const summary = await options.model.invoke([
        new SystemMessage(SUMMARY_PROMPT),
        new HumanMessage(transcript.slice(-60_000)),
      ]);
      return new Command({
        update: {
          messages: [
            new RemoveMessage({ id: REMOVE_ALL_MESSAGES }),
            new HumanMessage(`${SUMMARY_HEADER}（完整历史 / full history: ${file}）\n${text(summary)}`),
            state.messages[at],
            new ToolMessage({
              content: `已压缩 ${older.length} 条消息，完整历史在 ${file} / compacted ${older.length} messages`,
              tool_call_id: runtime.toolCallId,
              name: 'compact_conversation',
            }),
          ],
        },
      });
    },
    {
      name: 'compact_conversation',
      description:
        '压缩对话上下文：把之前的对话换成摘要，完整历史存入 /conversation_history/。收到子 Agent 的长篇报告后使用。/ Replace the conversation so far with a summary (full history saved to a file); use after long sub-agent reports.',
      schema: z.object({}),
    },
  );
  return createMiddleware({ name: 'CompactionMiddleware', contextSchema: runContextSchema, tools: [compact] });
}
