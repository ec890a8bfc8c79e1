import { describe, expect, it } from 'vitest';
import { redact, redactValue } from '../../src/api/redact.ts';

describe('redaction where a message enters', () => {
  it('takes out API tokens, demo sign-in sessions, bearer headers and provider keys, and the given secrets', () => {
    const text =
      '令牌 pk_Rru7dQ1LAuwtKk6OuCyt0tpXO3nsjuUoylljo86wiD4，演示会话 pds_cAp0By5WhWRZ-2_LcsfVU7IOoefFBDKkKT4gqQt3UP4，' +
      'Authorization: Bearer abc.def.ghi-123，key sk-live9f8e7d6c5b4a3210fedcba，口令 hunter2hunter2';
    const out = redact(text, ['hunter2hunter2']);
    expect(out).not.toMatch(/pk_R|pds_c|abc\.def|sk-live|hunter2/);
    expect(out.match(/\[redacted\]/g)).toHaveLength(5);
    // Ordinary words that merely start like a token stay.
    expect(redact('pds_short 与 pk_ 前缀')).toBe('pds_short 与 pk_ 前缀');
  });

  it('keeps JSON valid', () => {
    expect(redactValue({ note: 'pds_cAp0By5WhWRZ-2_LcsfVU7IOoefFBDKkKT4gqQt3UP4' })).toEqual({ note: '[redacted]' });
  });
});
