import { cruise, type IViolation } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import { describe, expect, it } from 'vitest';

const describeViolation = (v: IViolation) =>
  `${v.rule.name}: ${v.from} -> ${v.to}${v.cycle?.length ? ` (${v.cycle.map((c) => c.name).join(' -> ')})` : ''}`;

describe('import graph', () => {
  it('has no loops, no import running up the layers, and parts that meet only at their index.ts', async () => {
    const result = await cruise(['src', 'web/src'], await extractDepcruiseOptions('./.dependency-cruiser.mjs'));
    if (typeof result.output === 'string') throw new Error(result.output);
    expect(result.output.summary.violations.map(describeViolation)).toEqual([]);
    // The rules saw the code: an empty answer from an empty graph proves nothing.
    expect(result.output.summary.totalCruised).toBeGreaterThan(300);
  }, 60_000);
});
