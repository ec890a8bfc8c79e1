import { AIMessage } from '@langchain/core/messages';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type ModelCall, recordingModels } from '../agent/stand-ins.ts';
import { type ScriptedApi, startScriptedApi } from './harness.ts';

const STEPS = 6;
const STEP_MS = 500;
const INACTIVITY_MS = 1_500;

/** An orchestrator that may only count slowly. */
const ORCHESTRATOR = `name: orchestrator
description: 只会慢慢数数的主 Agent / an orchestrator that counts slowly
tools:
  names: [slow_count]
limits:
  model_calls: 5
  tool_calls: 5
prompt: |
  你是测试用的主 Agent（协调者）。用 slow_count 数数。
`;

function script(call: ModelCall): AIMessage {
  const counted = call.messages.some((m) => m.getType() === 'tool');
  if (counted) return new AIMessage('数完了 / counted');
  return new AIMessage({
    content: '',
    tool_calls: [{ id: 'count-1', name: 'slow_count', args: {}, type: 'tool_call' }],
  });
}

let api: ScriptedApi;

beforeAll(async () => {
  api = await startScriptedApi({
    orchestrator: ORCHESTRATOR,
    models: recordingModels([], script),
    limits: { inactivityMs: INACTIVITY_MS },
    tools: [
      {
        spec: {
          name: 'slow_count',
          label: '慢慢数数',
          description: 'counts to six, slowly, reporting each step',
          schema: z.object({}),
          safety: 'read-only',
          group: 'test',
        },
        jsonSchema: { type: 'object', properties: {} },
        run: async (_input, _ctx, control) => {
          for (let i = 1; i <= STEPS; i++) {
            await new Promise((resolve) => setTimeout(resolve, STEP_MS));
            control.progress?.(`数到 ${i} / counted ${i} of ${STEPS}`);
          }
          return { counted: STEPS };
        },
      },
    ],
  });
}, 60_000);

afterAll(() => api?.close());

describe('tool progress', () => {
  it('streams a tool’s progress() as updates of its step, each resetting the inactivity timer', async () => {
    const { events } = await api.chat(api.tokens.laoxiao, { message: '数到六' });
    const updates = events.filter((e) => e.event === 'progress' && (e.data as { id?: string }).id === 'count-1');
    const details = updates.map((e) => (e.data as { status: string; detail: string }).detail);
    // Running longer than the inactivity limit, the run lives on because each update counts as activity.
    expect(STEPS * STEP_MS).toBeGreaterThan(INACTIVITY_MS);
    expect(events.at(-1)?.event).toBe('done');
    expect(details).toEqual(
      expect.arrayContaining([`数到 1 / counted 1 of ${STEPS}`, `数到 ${STEPS} / counted ${STEPS} of ${STEPS}`]),
    );
    expect(updates.at(-1)?.data).toMatchObject({ status: 'completed' });
  }, 60_000);
});
