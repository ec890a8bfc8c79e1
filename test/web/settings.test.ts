import { describe, expect, it } from 'vitest';
import { loadWebSettings } from '../../src/tools/web/index.ts';

describe('web tool settings', () => {
  it('reads the environment: empty values unset, the allowlist split on commas', () => {
    const s = loadWebSettings({}, { PROCURA_WEB_SEARCH: '', PROCURA_WEB_ALLOWLIST: ' shop.test:80, ,erp.test:8080 ' });
    expect(s.searchProvider).toBe('local');
    expect(s.allowlist).toEqual(['shop.test:80', 'erp.test:8080']);
  });

  it('lets explicit values override the environment', () => {
    const s = loadWebSettings({ timeoutMs: 5000 }, { PROCURA_WEB_TIMEOUT_MS: '9000', PROCURA_WEB_MAX_REDIRECTS: '2' });
    expect(s.timeoutMs).toBe(5000);
    expect(s.maxRedirects).toBe(2);
  });

  it('names each invalid setting and its variable', () => {
    const load = () => loadWebSettings({}, { PROCURA_WEB_TIMEOUT_MS: '5', PROCURA_WEB_SEARCH: 'bing' });
    expect(load).toThrow(/invalid web settings/);
    expect(load).toThrow(/timeoutMs \(PROCURA_WEB_TIMEOUT_MS\)/);
    expect(load).toThrow(/searchProvider \(PROCURA_WEB_SEARCH\)/);
  });
});
