import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AdapterFactory } from 'oidc-provider';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { dropPostgresSchema, type ErpDatabase, openErpDatabase } from '../../src/erp/db/database.ts';
import { OAuthRecords } from '../../src/erp/oauth/records.ts';
import { BACKENDS } from './harness.ts';

const databaseUrl = process.env.DATABASE_URL;

/** The authorization server's records in the ERP database, on each back-end, as oidc-provider's Adapter uses them. */
describe.each(BACKENDS)('OAuth records on $name', (backend) => {
  let database: ErpDatabase;
  let dataDir: string;
  let schema: string | undefined;
  let adapter: AdapterFactory;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-oauth-records-'));
    schema = backend.name === 'postgres' ? `oauth_test_${process.pid}_${Date.now().toString(36)}` : undefined;
    database = await openErpDatabase({ dataDir, databaseUrl: schema ? databaseUrl : undefined, schema });
    adapter = OAuthRecords.adapter(database.db);
  });
  afterAll(async () => {
    await database?.close();
    if (schema && databaseUrl) await dropPostgresSchema(databaseUrl, schema);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it.skipIf(!backend.enabled)('keeps records per model, replaces them on upsert and finds them by uid', async () => {
    const sessions = adapter('Session');
    await sessions.upsert('s1', { uid: 'u1', accountId: 'laoxiao' }, 3600);
    await adapter('Client').upsert('s1', { client_id: 's1', client_name: 'Desktop' });
    expect(await sessions.find('s1')).toEqual({ uid: 'u1', accountId: 'laoxiao' });
    expect(await adapter('Client').find('s1')).toEqual({ client_id: 's1', client_name: 'Desktop' });
    expect(await sessions.findByUid('u1')).toEqual({ uid: 'u1', accountId: 'laoxiao' });
    await sessions.upsert('s1', { uid: 'u2', accountId: 'laoxiao' }, 3600);
    expect(await sessions.findByUid('u1')).toBeUndefined();
    expect(await sessions.findByUid('u2')).toMatchObject({ uid: 'u2' });
    expect(await adapter('Interaction').findByUid('u2')).toBeUndefined();
    await sessions.destroy('s1');
    expect(await sessions.find('s1')).toBeUndefined();
    expect(await adapter('Client').find('s1')).toBeDefined();
  });

  it.skipIf(!backend.enabled)(
    'deletes every record of one account, and only those, when its user is revoked',
    async () => {
      await adapter('Grant').upsert('g-lx', { accountId: 'lx', clientId: 'c' }, 3600);
      await adapter('Session').upsert('s-lx', { uid: 'su-lx', accountId: 'lx' }, 3600);
      await adapter('RefreshToken').upsert('r-lx', { accountId: 'lx', grantId: 'g-lx' }, 3600);
      await adapter('AuthorizationCode').upsert('a-lx', { accountId: 'lx', grantId: 'g-lx' }, 60);
      await adapter('Interaction').upsert('i-done', { uid: 'i1', result: { login: { accountId: 'lx' } } }, 600);
      await adapter('Interaction').upsert('i-consent', { uid: 'i2', session: { accountId: 'lx', uid: 'su-lx' } }, 600);
      await adapter('Grant').upsert('g-zw', { accountId: 'zw', clientId: 'c' }, 3600);
      await adapter('Client').upsert('c', { client_id: 'c' });
      expect(await OAuthRecords.revokeAccount(database.db, 'lx')).toBe(6);
      for (const [model, id] of [
        ['Grant', 'g-lx'],
        ['Session', 's-lx'],
        ['RefreshToken', 'r-lx'],
        ['AuthorizationCode', 'a-lx'],
        ['Interaction', 'i-done'],
        ['Interaction', 'i-consent'],
      ])
        expect(await adapter(model).find(id), `${model} ${id}`).toBeUndefined();
      expect(await adapter('Grant').find('g-zw')).toBeDefined();
      expect(await adapter('Client').find('c')).toBeDefined();
    },
  );

  it.skipIf(!backend.enabled)('marks a record consumed once and keeps it consumed when saved again', async () => {
    const codes = adapter('AuthorizationCode');
    await codes.upsert('c1', { grantId: 'g1', kind: 'AuthorizationCode' }, 60);
    expect((await codes.find('c1'))?.consumed).toBeUndefined();
    const before = Math.floor(Date.now() / 1000);
    await codes.consume('c1');
    const consumed = (await codes.find('c1'))?.consumed;
    expect(consumed).toBeGreaterThanOrEqual(before);
    await codes.upsert('c1', { grantId: 'g1', kind: 'AuthorizationCode' }, 60);
    expect((await codes.find('c1'))?.consumed).toBe(consumed);
  });

  it.skipIf(!backend.enabled)("revokes a grant's records of the model asked, and nothing else", async () => {
    const access = adapter('AccessToken');
    const refresh = adapter('RefreshToken');
    await access.upsert('a1', { grantId: 'g2' }, 600);
    await access.upsert('a2', { grantId: 'g2' }, 600);
    await access.upsert('a3', { grantId: 'g3' }, 600);
    await refresh.upsert('r1', { grantId: 'g2' }, 600);
    await access.revokeByGrantId('g2');
    expect(await access.find('a1')).toBeUndefined();
    expect(await access.find('a2')).toBeUndefined();
    expect(await access.find('a3')).toMatchObject({ grantId: 'g3' });
    expect(await refresh.find('r1')).toMatchObject({ grantId: 'g2' });
    await refresh.revokeByGrantId('g2');
    expect(await refresh.find('r1')).toBeUndefined();
  });

  it.skipIf(!backend.enabled)('finds a device code by its user code', async () => {
    const devices = adapter('DeviceCode');
    await devices.upsert('d1', { userCode: 'ABCD-EFGH', grantId: 'g4' }, 600);
    expect(await devices.findByUserCode('ABCD-EFGH')).toMatchObject({ userCode: 'ABCD-EFGH' });
    expect(await devices.findByUserCode('ABCD-XXXX')).toBeUndefined();
  });

  it.skipIf(!backend.enabled)('treats an expired record as absent and sweeps it later', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const interactions = adapter('Interaction');
    await interactions.upsert('i1', { uid: 'i1', kind: 'Interaction' }, 60);
    await interactions.upsert('i2', { uid: 'i2', kind: 'Interaction' }, 3600);
    await adapter('Client').upsert('forever', { client_id: 'forever' });
    vi.advanceTimersByTime(61_000);
    expect(await interactions.find('i1')).toBeUndefined();
    expect(await interactions.findByUid('i1')).toBeUndefined();
    expect(await interactions.find('i2')).toBeDefined();
    const stored = async (id: string) =>
      (await database.db.selectFrom('oauth_records').select('id').where('id', '=', id).execute()).length;
    expect(await stored('i1')).toBe(1);
    // The next write after the sweep interval deletes it; what has not expired stays.
    vi.advanceTimersByTime(10 * 60 * 1000);
    await interactions.upsert('i3', { uid: 'i3' }, 60);
    expect(await stored('i1')).toBe(0);
    expect(await stored('i2')).toBe(1);
    expect(await adapter('Client').find('forever')).toEqual({ client_id: 'forever' });
    expect(await interactions.find('i3')).toBeDefined();
  });
});
