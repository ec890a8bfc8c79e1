import { describe, expect, it } from 'vitest';
import { passHatK, summarize, type TrialResult, toMarkdown } from '../../bench/eval/report.ts';

const trial = (scenario: string, n: number, ok: boolean, extra: Partial<TrialResult> = {}): TrialResult => ({
  scenario,
  trial: n,
  ok,
  why: ok ? undefined : 'no order',
  seconds: n,
  inputTokens: 100,
  outputTokens: 10,
  cost: 0.001,
  ...extra,
});

describe('evaluation report (τ-bench pass^k)', () => {
  it('estimates pass^k as C(c,k)/C(n,k)', () => {
    expect(passHatK(4, 4, 4)).toBe(1);
    expect(passHatK(4, 3, 4)).toBe(0);
    expect(passHatK(4, 3, 1)).toBe(0.75);
    expect(passHatK(4, 3, 2)).toBe(0.5); // C(3,2)/C(4,2) = 3/6
    expect(passHatK(8, 6, 4)).toBeCloseTo(15 / 70);
  });

  it('summarizes per scenario and in total, and renders one Markdown row per scenario', () => {
    const results = [
      trial('下单', 1, true),
      trial('下单', 2, true),
      trial('下单', 3, false),
      trial('下单', 4, true),
      trial('比价 | 分析', 1, true, { cost: 0.002 }),
      trial('比价 | 分析', 2, true),
      trial('比价 | 分析', 3, true),
      trial('比价 | 分析', 4, true),
    ];
    const report = summarize(results, { model: 'openai', modelName: 'm', trials: 4, startedAt: 'now' });
    expect(report.scenarios.map((s) => [s.scenario, s.passed, s.pass1, s.passK])).toEqual([
      ['下单', 3, 0.75, 0],
      ['比价 | 分析', 4, 1, 1],
    ]);
    expect(report.total).toMatchObject({ trials: 8, passed: 7, pass1: 0.875, passK: 0.5, inputTokens: 800 });
    expect(report.total.cost).toBeCloseTo(0.009);
    const md = toMarkdown(report);
    expect(md).toContain('| 下单 | 3/4 | 0.750 | 0.000 |');
    expect(md).toContain('| 比价 \\| 分析 | 4/4 | 1.000 | 1.000 |');
    expect(md).toContain('- 下单 — trial 3: no order');
  });
});
