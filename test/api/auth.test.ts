import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErpUsers } from '../../src/api/auth.ts';
import { listen, type RunningServer } from '../../src/shared/index.ts';

/** A stand-in for the ERP's `GET /me` that counts its calls and answers slowly, so callers overlap. */
let erp: RunningServer;
const calls: string[] = [];
/** Tokens the stand-in ERP has revoked. */
const revoked = new Set<string>();

beforeAll(async () => {
  erp = await listen(
    async (request) => {
      const token = (request.headers.get('authorization') ?? '').replace(/^Bearer /, '');
      calls.push(token);
      await new Promise((r) => setTimeout(r, 50));
      if (!token.startsWith('pk_good') || revoked.has(token)) return new Response('{}', { status: 401 });
      return Response.json({ username: token.slice(3), displayName: '老肖', role: 'buyer', projectId: 'P001' });
    },
    { host: '127.0.0.1', port: 0 },
  );
});
afterAll(() => erp.close());

describe('ERP users', () => {
  it('requests arriving together with one token ask the ERP once; another token asks on its own', async () => {
    const users = new ErpUsers(erp.url);
    calls.length = 0;
    const resolved = await Promise.all([
      ...Array.from({ length: 20 }, () => users.resolve('Bearer pk_good_a', undefined)),
      users.resolve('Bearer pk_good_b', undefined),
    ]);
    expect(calls.sort()).toEqual(['pk_good_a', 'pk_good_b']);
    expect(new Set(resolved.slice(0, 20).map((u) => u.username))).toEqual(new Set(['good_a']));
    expect(resolved[20]).toMatchObject({ username: 'good_b', token: 'pk_good_b', projectId: 'P001' });
    // Answered from the cache now.
    await users.resolve('Bearer pk_good_a', undefined);
    expect(calls).toHaveLength(2);
  });

  it('a refused token fails every request that waited on it, and the next request asks again', async () => {
    const users = new ErpUsers(erp.url);
    calls.length = 0;
    const results = await Promise.allSettled(
      Array.from({ length: 5 }, () => users.resolve('Bearer pk_bad_token', undefined)),
    );
    expect(results.map((r) => r.status)).toEqual(Array(5).fill('rejected'));
    expect(results.map((r) => (r as PromiseRejectedResult).reason.status)).toEqual(Array(5).fill(401));
    expect(calls).toEqual(['pk_bad_token']);
    await expect(users.resolve('Bearer pk_bad_token', undefined)).rejects.toMatchObject({ status: 401 });
    expect(calls).toHaveLength(2);
  });

  it.each(['pk_good_c', 'pk_good_d'])(
    'the ERP refusing %s under one project drops its answers for all',
    async (token) => {
      const users = new ErpUsers(erp.url);
      const signedIn = await users.resolve(`Bearer ${token}`, undefined);
      await users.resolve(`Bearer ${token}`, 'P002');
      expect(await users.stillSignedIn(signedIn)).toBe(true);
      revoked.add(token);
      calls.length = 0;
      // Still cached under both projects until the ERP refuses it under one of them.
      expect(await users.stillSignedIn(signedIn)).toBe(true);
      expect(calls).toEqual([]);
      users.forget(token);
      expect(await users.stillSignedIn(signedIn)).toBe(false);
      await expect(users.resolve(`Bearer ${token}`, 'P002')).rejects.toMatchObject({ status: 401 });
      expect(calls).toEqual([token, token]);
    },
  );
});
