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

describe('compact_conversation', () => {
  it('replaces the history with a summary, keeps the calling turn, and saves the full history', async () => {
    const { createCompactionMiddleware } = await import('../../src/agent/middleware/compaction.ts');
    const { OfflineChatModel } = await import('../../src/agent/models/index.ts');
    const { FilesystemBackend } = await import('deepagents');
    const fs = await import('node:fs');
    const os = await import('node:os');
    const path = await import('node:path');
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-compact-'));
    const backend = new FilesystemBackend({ rootDir: root, virtualMode: true });
    const model = fakeModel()
      .respondWithTools([{ name: 'compact_conversation', args: {} }])
      .respond((messages) => {
        expect(messages[0].getType()).toBe('human');
        expect(String(messages[0].content)).toContain('【对话摘要】');
        expect(String(messages[0].content)).toContain('火花塞');
        return new AIMessage('continuing');
      });
    const agent = createAgent({
      model,
      tools: [],
      middleware: [createCompactionMiddleware({ model: new OfflineChatModel(), backend: (() => backend) as never })],
    });
    const history = [
      { role: 'user', content: '帮我对摩托车火花塞做供应商比价分析' },
      { role: 'assistant', content: '火炬 F7TC 最便宜，¥9.18。' },
      { role: 'user', content: '再看看刹车片' },
      { role: 'assistant', content: '布雷博刹车片最贵。' },
      { role: 'user', content: '压缩一下上下文' },
    ];
    const result = await agent.invoke({ messages: history });
    expect(String(result.messages.at(-1)?.content)).toBe('continuing');
    expect(result.messages.length).toBeLessThan(history.length + 2);
    const saved = fs.readdirSync(path.join(root, 'conversation_history'));
    expect(saved).toHaveLength(1);
    expect(fs.readFileSync(path.join(root, 'conversation_history', saved[0]), 'utf8')).toContain('布雷博刹车片最贵');
  });
});
