import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSettings } from './settings.ts';

describe('settings', () => {
  it('has embedded defaults', () => {
    const s = loadSettings({}, {});
    expect(s).toMatchObject({ host: '127.0.0.1', erpPort: 8080, apiPort: 3000, dataDir: path.resolve('./data') });
    expect(s.databaseUrl).toBeUndefined();
  });

  it('lets flags override the environment', () => {
    const s = loadSettings({ erpPort: '9090' }, { ERP_PORT: '7070', DATABASE_URL: 'postgres://u@h:5432/db' });
    expect(s.erpPort).toBe(9090);
    expect(s.databaseUrl).toBe('postgres://u@h:5432/db');
  });

  it('names each invalid setting and its variable', () => {
    const load = () => loadSettings({}, { ERP_PORT: 'eighty', DATABASE_URL: 'mysql://x' });
    expect(load).toThrow(/erpPort \(ERP_PORT\)/);
    expect(load).toThrow(/databaseUrl \(DATABASE_URL\)/);
  });
});
