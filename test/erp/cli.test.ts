import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { createErp } from '../../src/erp/index.ts';

const run = promisify(execFile);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-cli-'));
const procura = (...args: string[]) =>
  run(process.execPath, ['bin/procura.js', ...args, '--data-dir', dataDir], {
    // The data dir is the point here: never the shared PostgreSQL of the suite's environment.
    env: { ...process.env, DATABASE_URL: '', REDIS_URL: '', LOG_LEVEL: 'error' },
  });

afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe('procura user', { timeout: 120_000 }, () => {
  it('issues a working token and prints only the token', async () => {
    const { stdout } = await procura('user', 'token', 'laoxiao');
    expect(stdout).toMatch(/^pk_[\w-]{43}\n$/);
    const erp = await createErp({ dataDir });
    try {
      const user = await erp.services.users.authenticate(stdout.trim());
      expect(user).toMatchObject({ username: 'laoxiao', role: 'buyer', projectIds: ['P001'] });
      const res = await erp.fetch(
        new Request('http://erp/api/parts?size=1', { headers: { authorization: `Bearer ${stdout.trim()}` } }),
      );
      expect(res.status).toBe(200);
    } finally {
      await erp.close();
    }
  });

  it('creates and lists users, refusing bad input with a clear message', async () => {
    const { stdout } = await procura('user', 'create', 'wang.fang', '--role', 'viewer', '--projects', 'P001,P002');
    expect(JSON.parse(stdout)).toMatchObject({ username: 'wang.fang', role: 'viewer', projectIds: ['P001', 'P002'] });
    const list = await procura('user', 'list');
    expect(list.stdout).toContain('wang.fang');
    expect(list.stdout).toContain('laoxiao');
    await expect(procura('user', 'create', 'x y', '--role', 'buyer')).rejects.toMatchObject({
      stderr: expect.stringContaining('invalid username'),
    });
    await expect(procura('user', 'create', 'li', '--role', 'boss')).rejects.toMatchObject({
      stderr: expect.stringContaining('--role'),
    });
    await expect(procura('user', 'create', 'li', '--role', 'buyer', '--projects', 'P999')).rejects.toMatchObject({
      stderr: expect.stringContaining('unknown project'),
    });
    await expect(procura('user', 'token', 'nobody')).rejects.toMatchObject({
      stderr: expect.stringContaining('no user nobody'),
    });
  });
});
