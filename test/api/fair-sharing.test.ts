import { AIMessage } from '@langchain/core/messages';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { QUEUED } from '../../src/api/chat/run-execution.ts';
import { type ModelCall, recordingModels } from '../agent/stand-ins.ts';
import { type ScriptedApi, startScriptedApi } from './harness.ts';
import { answerText, collect, openSse, type SseEvent } from './sse.ts';

const ORCHESTRATOR = `name: orchestrator
description: 测试用主 Agent / a test orchestrator
tools:
  names: [hold]
limits:
  model_calls: 10
  tool_calls: 10
prompt: |
  你是测试用的主 Agent（协调者），用 hold 等待。
`;
const GREETING = '你好，我在 / hello, here I am';
const FLOOD = 9;
const PER_USER = 3;

/** Greets a greeting; otherwise calls `hold` once (which waits for the gate), then answers. */
function script(call: ModelCall): AIMessage {
  if (call.messages.some((m) => m.getType() === 'human' && m.content === '你好')) return new AIMessage(GREETING);
  if (call.messages.some((m) => m.getType() === 'tool')) return new AIMessage('好了 / done');
  return new AIMessage({
    content: '',
    tool_calls: [{ id: 'hold-1', name: 'hold', args: {}, type: 'tool_call' }],
  });
}

let api: ScriptedApi;
let openGate: () => void = () => undefined;
const gate = new Promise<void>((resolve) => {
  openGate = resolve;
});
let holding = 0;

beforeAll(async () => {
  api = await startScriptedApi({
    orchestrator: ORCHESTRATOR,
    models: recordingModels([], script),
    // Slots enough for the flood's cap and more; fixed slots (no event-loop check) so only the policy decides.
    limits: {
      maxConcurrent: PER_USER + 1,
      perUserConcurrent: PER_USER,
      loopDelayMs: Number.POSITIVE_INFINITY,
      startsPerMinute: 1_000,
    },
    tools: [
      {
        spec: {
          name: 'hold',
          label: '等待',
          description: 'waits until the test lets it go',
          schema: z.object({}),
          safety: 'read-only',
          group: 'test',
        },
        jsonSchema: { type: 'object', properties: {} },
        run: async () => {
          holding += 1;
          await gate;
          return { held: true };
        },
      },
    ],
  });
}, 60_000);

afterAll(async () => {
  openGate();
  await api?.close();
});

const progressTitle = (e: SseEvent) => (e.event === 'progress' && e.data.phase === 'run' ? e.data.title : undefined);

describe('fair sharing of runs across users', () => {
  it('one user’s flood of streams waits behind its own cap; another user’s run is admitted and answered first', async () => {
    const url = `${api.url}/api/v1/agent/chat/stream`;
    const flood = await Promise.all(
      Array.from({ length: FLOOD }, (_, i) =>
        openSse(url, { token: api.tokens.laoxiao, body: { message: `等 ${i}` } }),
      ),
    );
    expect(flood.map((s) => s.status)).toEqual(Array(FLOOD).fill(200));
    // The flood's first events: PER_USER runs work, the others say they wait for a slot.
    const firstTitles = await Promise.all(flood.map(async (s) => progressTitle((await s.events.next()).value)));
    expect(firstTitles.filter((t) => t === QUEUED)).toHaveLength(FLOOD - PER_USER);
    await expect.poll(() => holding, { timeout: 30_000 }).toBe(PER_USER);

    // Another user, while the flood holds its slots and has runs queued: admitted at once, answered before any of
    // the flood's queued runs starts.
    const other = await openSse(url, { token: api.tokens.viewer, body: { message: '你好' } });
    expect(other.status).toBe(200);
    const events = await collect(other.events);
    expect(progressTitle(events[0])).not.toBe(QUEUED);
    expect(events.map(progressTitle)).not.toContain(QUEUED);
    expect(answerText(events)).toBe(GREETING);
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'completed' } });
    expect(holding).toBe(PER_USER);

    // The flood goes on once its runs may: every one of them ends.
    openGate();
    const ends = await Promise.all(flood.map(async (s) => (await collect(s.events)).at(-1)));
    for (const end of ends) expect(end).toMatchObject({ event: 'done', data: { status: 'completed' } });
    expect(holding).toBe(FLOOD);
  }, 120_000);
});
