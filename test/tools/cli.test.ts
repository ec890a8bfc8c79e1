import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestErp } from './harness.ts';

const run = promisify(execFile);
let env: Awaited<ReturnType<typeof startTestErp>>;

beforeAll(async () => {
  env = await startTestErp();
});
afterAll(() => env?.close());

async function procuraWithLogs(logLevel: string, ...args: string[]) {
  return run(process.execPath, [path.resolve('bin/procura.js'), ...args, '--data-dir', env.dataDir], {
    env: { ...process.env, DATABASE_URL: '', REDIS_URL: '', LOG_LEVEL: logLevel },
    timeout: 60_000,
  });
}

async function procura(...args: string[]) {
  return (await procuraWithLogs('silent', ...args)).stdout;
}

describe('procura tools', () => {
  it('tools call runs one tool as the user and prints its result', async () => {
    const found = JSON.parse(
      await procura('tools', 'call', 'part_search', '--input', '{"name":"F7TC"}', '--user', 'laoxiao'),
    );
    expect(found.items[0].model).toContain('F7TC');
    const refused = await procura(
      'tools',
      'call',
      'order_create',
      '--input',
      '{"supplierId":1,"lines":[{"partId":1,"quantity":100}]}',
      '--user',
      'viewer',
    ).catch((error: { code: number; stdout: string }) => error);
    expect(refused).toMatchObject({ code: 2 });
    expect(JSON.parse((refused as { stdout: string }).stdout)).toMatchObject({ success: false, stateChanged: false });
  }, 180_000);
});
