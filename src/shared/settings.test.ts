import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadSettings, parseSettings, partAddresses } from './settings.ts';

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

  it('reads the host names MCP endpoints answer to as a list, refusing anything else', () => {
    expect(loadSettings({}, { PROCURA_MCP_ALLOWED_HOSTS: 'ERP-MCP.example.com,127.0.0.1' }).mcpAllowedHosts).toEqual([
      'erp-mcp.example.com',
      '127.0.0.1',
    ]);
    expect(loadSettings({}, {}).mcpAllowedHosts).toBeUndefined();
    expect(() => loadSettings({}, { PROCURA_MCP_ALLOWED_HOSTS: 'http://x/ y' })).toThrow(
      /mcpAllowedHosts \(PROCURA_MCP_ALLOWED_HOSTS\)/,
    );
  });

  it('reads the RFQ mail settings, refusing an IMAP mailbox it could not read and one without SMTP_URL', () => {
    const smtp = 'smtp://buyer:pw@smtp.example.com:587';
    const imap = 'imaps://rfq%40example.com:secret@imap.example.com:993/INBOX';
    expect(loadSettings({}, {})).toMatchObject({ mailDomain: 'procura.local', mailFrom: 'procurement@procura.local' });
    expect(
      loadSettings({}, { SMTP_URL: smtp, PROCURA_IMAP_URL: imap, PROCURA_MAIL_DOMAIN: 'Mail.Example.com' }),
    ).toMatchObject({ smtpUrl: smtp, imapUrl: imap, mailDomain: 'mail.example.com' });
    for (const bad of ['https://imap.example.com/INBOX', 'imaps://imap.example.com:993/INBOX', 'imap://rfq@host/INBOX'])
      expect(() => loadSettings({}, { SMTP_URL: smtp, PROCURA_IMAP_URL: bad }), bad).toThrow(
        /imapUrl \(PROCURA_IMAP_URL\): .*imaps:\/\/user:pass@/,
      );
    expect(() => loadSettings({}, { PROCURA_IMAP_URL: imap })).toThrow(/imapUrl \(PROCURA_IMAP_URL\): .*SMTP_URL/);
    expect(() => loadSettings({}, { SMTP_URL: 'http://relay' })).toThrow(/smtpUrl \(SMTP_URL\)/);
    expect(() => loadSettings({}, { PROCURA_MAIL_FROM: 'nobody' })).toThrow(/mailFrom \(PROCURA_MAIL_FROM\)/);
  });

  it('refuses a setting that names no environment variable', () => {
    const parse = () =>
      parseSettings({ schema: z.object({ port: z.number().optional() }), read: () => undefined, invalid: 'x' });
    expect(parse).toThrow(/setting port names no environment variable/);
  });

  it('gives every part an address: the configured URL, else the local part on its port', () => {
    const local = partAddresses(loadSettings({ erpPort: 9001, erpMcpPort: 9002, chartsPort: 9003 }, {}));
    expect(local).toEqual({
      erpUrl: 'http://127.0.0.1:9001/api',
      suppliersUrl: 'http://127.0.0.1:8090',
      erpMcpUrl: 'http://127.0.0.1:9002/mcp',
      chartMcpUrl: 'http://127.0.0.1:1122/mcp',
      chartsUrl: 'http://127.0.0.1:9003',
      oauthIssuer: 'http://127.0.0.1:8020',
    });
    const remote = loadSettings(
      { suppliersUrl: 'http://shops.example/' },
      { ERP_URL: 'https://erp.example/api/', ERP_MCP_URL: 'https://erp.example/mcp', PROCURA_MCP_SERVERS: '[]' },
    );
    expect(partAddresses(remote)).toMatchObject({
      erpUrl: 'https://erp.example/api',
      suppliersUrl: 'http://shops.example',
      erpMcpUrl: 'https://erp.example/mcp',
    });
    expect(remote.mcpServers).toBe('[]');
    expect(() => loadSettings({}, { ERP_MCP_URL: 'ftp://erp.example/mcp' })).toThrow(/erpMcpUrl \(ERP_MCP_URL\)/);
  });
});
