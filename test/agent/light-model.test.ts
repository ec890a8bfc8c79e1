import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUMMARY_MARKER } from '../../src/agent/prompts.ts';
import { type AgentHarness, startAgentHarness } from './harness.ts';
import { type ModelCall, recordingModels } from './stand-ins.ts';

const text = (m: BaseMessage) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content));

/** The light model of the runtime: records what it is asked and answers every request with a short summary. */
class LightModel extends BaseChatModel {
  readonly asked: BaseMessage[][] = [];

  _llmType(): string {
    return 'light-double';
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.asked.push(messages);
    const message = new AIMessage('摘要：用户在问火花塞供应商和交期。');
    return { generations: [{ text: text(message), message }] };
  }
}

const summarises = (messages: BaseMessage[]) =>
  messages.some((m) => m.getType() === 'system' && text(m).includes(SUMMARY_MARKER));

/**
 * Summaries are the light model's work: when the orchestrator compacts its conversation, the summarising request
 * goes to the runtime's light model and never to the main model — on the graph as it is built and run.
 */
describe('summaries on the light model', () => {
  const calls: ModelCall[] = [];
  const light = new LightModel({});
  let h: AgentHarness;
  beforeAll(async () => {
    const models = recordingModels(calls, (call) => {
      const last = call.messages.findLast((m) => m.getType() === 'human');
      const compacted = call.messages.some((m) => m.getType() === 'tool' && text(m).includes('compacted'));
      if (last && /压缩/.test(text(last)) && !compacted)
        return new AIMessage({
          content: '',
          tool_calls: [{ id: `c-${calls.length}`, name: 'compact_conversation', args: {}, type: 'tool_call' }],
        });
      return new AIMessage(compacted ? '已压缩，继续。/ Compacted.' : '好的。/ Noted.');
    });
    h = await startAgentHarness(undefined, { models: { ...models, light } });
  }, 120_000);
  afterAll(() => h?.close());

  it('sends the compaction summary to the light model, none to the main model', async () => {
    const ctx = h.contextFor('laoxiao', 'light-summary');
    const earlier = ['火花塞 F7TC 有哪些供应商？', '博世的交期多长？', 'NGK 呢？', '电装呢？'];
    for (const words of earlier.slice(0, 2 + (Date.now() % 3))) await h.send(ctx, words);
    await h.send(ctx, '压缩一下上下文 / compact the conversation');
    // The turn went on from the summary (which replaced the history the harness would read the answer from).
    expect(calls.at(-1)?.messages.some((m) => text(m).startsWith('【对话摘要】'))).toBe(true);
    const summaries = light.asked.filter(summarises);
    expect(summaries).toHaveLength(1);
    // What it summarised is this conversation.
    expect(text(summaries[0].at(-1)!)).toContain('博世的交期');
    expect(calls.length).toBeGreaterThan(2);
    expect(calls.filter((c) => summarises(c.messages))).toEqual([]);
  }, 120_000);
});
