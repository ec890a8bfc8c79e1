import { AIMessage } from '@langchain/core/messages';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type ModelCall, recordingModels } from '../agent/stand-ins.ts';
import { type ScriptedApi, startScriptedApi } from './harness.ts';
import { answerText } from './sse.ts';

const MODEL_CALLS = 3;

/** An orchestrator with a small model-call budget and one harmless tool. */
const ORCHESTRATOR = `name: orchestrator
description: 预算很小的主 Agent / an orchestrator on a small budget
tools:
  names: [note_down]
limits:
  model_calls: ${MODEL_CALLS}
  tool_calls: 50
prompt: |
  你是测试用的主 Agent（协调者）。用 note_down 记录。
`;

const GREETING = '你好，我在 / hello, here I am';

/**
 * A model that answers a greeting, and otherwise never stops calling the tool, each time with new arguments (so
 * only the budget can stop it).
 */
function script(call: ModelCall): AIMessage {
  if (call.messages.some((m) => m.getType() === 'human' && m.content === '你好')) return new AIMessage(GREETING);
  const notes = call.messages.filter((m) => m.getType() === 'tool').length;
  return new AIMessage({
    content: '',
    tool_calls: [{ id: `note-${notes}`, name: 'note_down', args: { text: `note ${notes}` }, type: 'tool_call' }],
  });
}

const calls: ModelCall[] = [];
let api: ScriptedApi;

beforeAll(async () => {
  api = await startScriptedApi({
    orchestrator: ORCHESTRATOR,
    models: recordingModels(calls, script),
    tools: [
      {
        spec: {
          name: 'note_down',
          label: '记录',
          description: 'notes a line down',
          schema: z.object({ text: z.string() }),
          safety: 'read-only',
          group: 'test',
        },
        jsonSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        run: async (input) => ({ noted: (input as { text: string }).text }),
      },
    ],
  });
}, 60_000);

afterAll(() => api?.close());

const answerOf = async (message: string) => {
  const { events } = await api.chat(api.tokens.laoxiao, { message });
  return { events, answer: answerText(events) };
};

describe('run limits over the chat API', () => {
  it('sends a model reply once', async () => {
    const { answer } = await answerOf('你好');
    expect(answer).toBe(GREETING);
  }, 60_000);

  it('sends the stopping message of a run at its model-call limit as the answer, and ends the run', async () => {
    calls.length = 0;
    const { events, answer } = await answerOf('一直记下去');
    expect(answer).toContain(`模型调用上限（${MODEL_CALLS} 次）`);
    expect(answer).toContain(`reached its limit of ${MODEL_CALLS} model calls`);
    expect(calls).toHaveLength(MODEL_CALLS);
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'completed' } });
  }, 60_000);
});
