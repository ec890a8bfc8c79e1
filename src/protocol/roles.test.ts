import { describe, expect, it } from 'vitest';
import { isReadOnly, ROLES } from './roles.ts';

describe('roles', () => {
  it('makes viewers and runs marked read-only read-only, nobody else', () => {
    expect(ROLES.filter((role) => isReadOnly({ role }))).toEqual(['viewer']);
    expect(isReadOnly({ role: 'admin', readOnly: true })).toBe(true);
    expect(isReadOnly({ role: 'buyer', readOnly: false })).toBe(false);
    expect(isReadOnly(undefined)).toBe(false);
  });
});
