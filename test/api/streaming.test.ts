import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHarness, startApiHarness } from './harness.ts';
import { answerText } from './sse.ts';

/** The answer reaches the client as it is written: several text deltas, then `done` with the whole answer. */
describe('chat API: the final answer streams as text deltas', () => {
  let h: ApiHarness;
  beforeAll(async () => {
    h = await startApiHarness();
  }, 90_000);
  afterAll(() => h?.close());

  for (const message of ['你好', '查一下库存预警', 'hello, what can you do?']) {
    it(`"${message}": several deltas arrive before done, and they join to the final answer`, async () => {
      const run = await h.chat(h.tokens.laoxiao, { message });
      expect(run.status).toBe(200);
      const done = run.events.at(-1);
      expect(done?.event).toBe('done');
      const tokens = run.events.filter((e) => e.event === 'token');
      expect(tokens.length, JSON.stringify(tokens)).toBeGreaterThanOrEqual(3);
      expect(run.events.findIndex((e) => e.event === 'done')).toBeGreaterThan(run.events.indexOf(tokens.at(-1)!));
      expect(done?.data.answer.length).toBeGreaterThan(0);
      expect(answerText(run.events).endsWith(done?.data.answer)).toBe(true);
      // The text after the last step is exactly the final answer.
      const lastOther = run.events.findLastIndex(
        (e) => e.event !== 'token' && e.event !== 'done' && e.data.phase !== 'run',
      );
      expect(answerText(run.events.slice(lastOther + 1))).toBe(done?.data.answer);
    }, 60_000);
  }
});
