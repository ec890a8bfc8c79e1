import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_TOOLSETS } from '../../src/tools/agent-toolsets.ts';
import { listToolsForModel } from '../../src/tools/listing.ts';
import { createToolbox } from '../../src/tools/toolbox.ts';
import { startTestErp } from './harness.ts';

const run = promisify(execFile);
let env: Awaited<ReturnType<typeof startTestErp>>;

beforeAll(async () => {
  env = await startTestErp();
});
afterAll(() => env?.close());

async function procura(...args: string[]) {
  const { stdout } = await run(process.execPath, [path.resolve('bin/procura.js'), ...args, '--data-dir', env.dataDir], {
    env: { ...process.env, DATABASE_URL: '', REDIS_URL: '', LOG_LEVEL: 'silent' },
    timeout: 60_000,
  });
  return stdout;
}

describe('procura tools', () => {
  it('--json prints exactly what the registry gives each agent’s model, with token counts', async () => {
    const toolbox = createToolbox({ erp: { baseUrl: env.baseUrl }, web: { suppliersUrl: 'http://127.0.0.1:8090' } });
    try {
      const printedBy: Record<string, { tools: Array<{ name: string; description: string }> }> = {};
      for (const [agent, user] of [
        ['analyst', 'laoxiao'],
        ['order', 'viewer'],
      ] as const) {
        const printed = JSON.parse(await procura('tools', '--agent', agent, '--json', '--user', user));
        printedBy[agent] = printed;
        const expected = await listToolsForModel(toolbox.registry, env.context(user), AGENT_TOOLSETS[agent]);
        expect(printed.tools).toEqual(expected);
        expect(printed.totalTokens).toBe(expected.reduce((sum, t) => sum + t.tokens, 0));
        expect(printed.tools.every((t: { tokens: number }) => t.tokens > 10)).toBe(true);
        if (user === 'viewer') expect(printed.tools.some((t: { safety: string }) => t.safety === 'write')).toBe(false);
      }
      const analyst = printedBy.analyst.tools;
      const names = analyst.map((t) => t.name);
      expect(names).toEqual(
        expect.arrayContaining([
          'supplier_query',
          'part_query',
          'inventory_warning',
          'order_search_details',
          'web_search',
        ]),
      );
      expect(names).not.toContain('order_create');
      expect(analyst.find((t) => t.name === 'part_query')?.description).toContain('spark_plug(火花塞)');
    } finally {
      await toolbox.close();
    }
  }, 180_000);

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
