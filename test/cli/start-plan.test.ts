import { describe, expect, it } from 'vitest';
import { planOf } from '../../src/cli/commands/start.ts';
import { loadSettings } from '../../src/shared/index.ts';

describe('procura start plan', () => {
  it('keeps the chart renderer on loopback whatever --host says, with a fresh token, and fixes free ports', async () => {
    const open = await planOf(loadSettings({ host: '0.0.0.0', chartsPort: 0, chartMcpPort: 0 }, {}));
    expect(open).toMatchObject({ host: '0.0.0.0', rendererHost: '127.0.0.1' });
    expect(open.chartsPort).toBeGreaterThan(0);
    expect(open.chartMcpPort).toBeGreaterThan(0);
    const lan = await planOf(loadSettings({ host: '192.0.2.10', chartsPort: 0 }, {}));
    expect(lan).toMatchObject({ host: '192.0.2.10', rendererHost: '127.0.0.1', chartMcpPort: 1122 });
    const local = await planOf(loadSettings({ host: '::1' }, {}));
    expect(local.rendererHost).toBe('::1');
    expect(local.chartsPort).toBe(8070);
    const [a, b] = await Promise.all([planOf(loadSettings({}, {})), planOf(loadSettings({}, {}))]);
    expect(a.rendererToken).toMatch(/^[\w-]{32}$/);
    expect(a.rendererToken).not.toBe(b.rendererToken);
  });
});
