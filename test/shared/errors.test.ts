import { describe, expect, it } from 'vitest';
import { findNamedError } from '../../src/shared/errors.ts';

class Named extends Error {
  constructor(
    name: string,
    readonly detail = '',
  ) {
    super(`${name} happened`);
    this.name = name;
  }
}

describe('findNamedError', () => {
  it('finds the error itself, a cause, and one inside the aggregate of parallel failures', () => {
    const outage = new Named('ServiceUnavailableError', 'erp down');
    expect(findNamedError(outage, 'ServiceUnavailableError')).toBe(outage);
    expect(findNamedError(new Error('wrapped', { cause: outage }), 'ServiceUnavailableError')).toBe(outage);
    const parallel = new AggregateError([new Error('other'), new Error('x', { cause: outage })], 'superstep 5');
    expect(findNamedError(parallel, 'ServiceUnavailableError')?.detail).toBe('erp down');
  });

  it('finds nothing in unrelated errors, plain values or a cycle of causes', () => {
    expect(findNamedError(new AggregateError([new Error('a')]), 'ServiceUnavailableError')).toBeUndefined();
    expect(findNamedError('text', 'ServiceUnavailableError')).toBeUndefined();
    expect(findNamedError(undefined, 'ServiceUnavailableError')).toBeUndefined();
    const loop = new Error('loop') as Error & { cause?: unknown };
    loop.cause = loop;
    expect(findNamedError(loop, 'ServiceUnavailableError')).toBeUndefined();
  });
});
