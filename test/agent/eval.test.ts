import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentHarness } from '../../bench/eval/local-stack.ts';
import { SCENARIOS } from '../../bench/eval/scenarios.ts';
import { stackHarness, startStack } from '../../bench/eval/stack.ts';

// The same suite `npm run eval` prints as a table, here as tests on the offline model, through the chat API of a
// started Procura (every part, the ERP over MCP).
describe('agent evaluation scenarios (offline model, started stack)', () => {
  let h: AgentHarness;
  beforeAll(async () => {
    h = stackHarness(await startStack());
  }, 120_000);
  afterAll(() => h?.close());

  it('has at least 12 scenarios', () => {
    expect(SCENARIOS.length).toBeGreaterThanOrEqual(12);
  });

  SCENARIOS.forEach((scenario, i) => {
    it(scenario.name, async () => {
      expect(await scenario.run(h, `eval-test-${i}`)).toBeUndefined();
    }, 240_000);
  });
});
