import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentHarness, startAgentHarness } from '../../src/agent/eval/local-stack.ts';
import { SCENARIOS } from '../../src/agent/eval/scenarios.ts';

// The same suite `npm run eval` prints as a table, here as tests on the offline model.
describe('agent evaluation scenarios (offline model)', () => {
  let h: AgentHarness;
  beforeAll(async () => {
    h = await startAgentHarness();
  }, 90_000);
  afterAll(() => h?.close());

  it('has at least 12 scenarios', () => {
    expect(SCENARIOS.length).toBeGreaterThanOrEqual(12);
  });

  SCENARIOS.forEach((scenario, i) => {
    it(scenario.name, async () => {
      expect(await scenario.run(h, `eval-test-${i}`)).toBeUndefined();
    }, 120_000);
  });
});
