import { AIMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { tool } from '@langchain/core/tools';
import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRunGuardsMiddleware, createToolErrorGuardMiddleware } from '../../src/agent/middleware/guards.ts';

const lookup = tool(async ({ q }: { q: string }) => `result for ${q}`, {
  name: 'lookup',
  description: 'look up',
  schema: z.object({ q: z.string() }),
});
const broken = tool(
  async () => {
    throw new Error('disk on fire');
  },
  { name: 'broken', description: 'always fails', schema: z.object({}) },
);

const lastText = (result: { messages: Array<{ content: unknown }> }) => String(result.messages.at(-1)?.content);

describe('run guards', () => {
  it('stops a run that repeats the same call three times, with a readable message', async () => {
    const model = fakeModel();
    for (let i = 0; i < 10; i++) model.respondWithTools([{ name: 'lookup', args: { q: 'same' } }]);
    const agent = createAgent({
      model,
      tools: [lookup],
      middleware: [createRunGuardsMiddleware({ modelCalls: 50, toolCalls: 200 }, 'test-agent')],
    });
    const result = await agent.invoke({ messages: [{ role: 'user', content: 'go' }] });
    expect(lastText(result)).toContain('重复调用');
    expect(model.callCount).toBe(3);
  });

  it('ends a run at its model-call limit instead of throwing', async () => {
    const model = fakeModel();
    for (let i = 0; i < 10; i++) model.respondWithTools([{ name: 'lookup', args: { q: `q${i}` } }]);
    const agent = createAgent({
      model,
      tools: [lookup],
      middleware: [createRunGuardsMiddleware({ modelCalls: 4, toolCalls: 200 }, 'test-agent')],
    });
    const result = await agent.invoke({ messages: [{ role: 'user', content: 'go' }] });
    expect(lastText(result)).toContain('模型调用上限（4 次）');
    expect(model.callCount).toBe(4);
  });

  it('ends a run at its tool-call limit', async () => {
    const model = fakeModel();
    for (let i = 0; i < 10; i++)
      model.respondWithTools([
        { name: 'lookup', args: { q: `a${i}` } },
        { name: 'lookup', args: { q: `b${i}` } },
      ]);
    const agent = createAgent({
      model,
      tools: [lookup],
      middleware: [createRunGuardsMiddleware({ modelCalls: 50, toolCalls: 5 }, 'test-agent')],
    });
    const result = await agent.invoke({ messages: [{ role: 'user', content: 'go' }] });
    expect(lastText(result)).toContain('工具调用上限（5 次）');
  });

  it('turns a throwing tool into a failure the model reads, and the run goes on', async () => {
    const model = fakeModel()
      .respondWithTools([{ name: 'broken', args: {} }])
      .respond((messages) => {
        const failure = JSON.parse(String(messages.at(-1)?.content));
        expect(failure).toMatchObject({ success: false, stateChanged: false });
        expect(failure.error).toContain('disk on fire');
        return new AIMessage('recovered');
      });
    const agent = createAgent({ model, tools: [broken], middleware: [createToolErrorGuardMiddleware()] });
    const result = await agent.invoke({ messages: [{ role: 'user', content: 'go' }] });
    expect(lastText(result)).toBe('recovered');
  });
});
