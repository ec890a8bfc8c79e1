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
  it('--agent prints what that agent’s model is sent for the user, ERP tools over MCP and built-ins included', async () => {
    type Listed = {
      tools: Array<{ name: string; description: string; safety: string; approval: string; tokens: number }>;
      totalTokens: number;
    };
    const listed = async (agent: string, user: string): Promise<Listed> =>
      JSON.parse(await procura('tools', '--agent', agent, '--json', '--user', user));
    const analyst = await listed('analyst', 'laoxiao');
    const names = analyst.tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(['supplier_query', 'part_query', 'inventory_warning', 'ask_user', 'dynamic_http_call']),
    );
    expect(names).toEqual(expect.arrayContaining(['execute', 'read_file', 'write_file']));
    // Only the tools its prompt uses are bound: compaction is the orchestrator's.
    expect(names).not.toContain('compact_conversation');
    expect(names).not.toContain('order_create');
    expect(names).not.toContain('task');
    // Live values for this user, as the ERP MCP server describes the tool with the user's token.
    expect(analyst.tools.find((t) => t.name === 'part_query')?.description).toContain('spark_plug(火花塞)');
    expect(analyst.totalTokens).toBe(analyst.tools.reduce((sum, t) => sum + t.tokens, 0));
    expect(analyst.tools.every((t) => t.tokens > 10)).toBe(true);

    const order = await listed('procurement-order', 'viewer');
    expect(order.tools.some((t) => t.safety === 'write')).toBe(false);
    expect(order.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['order_search_details', 'open_order']));
    // The sourcing agent's RFQ writes reach a buyer (each waiting for approval), never a viewer.
    const sourcing = await listed('sourcing', 'laoxiao');
    const writes = sourcing.tools.filter((t) => t.safety === 'write');
    expect(writes.map((t) => t.name)).toEqual(
      expect.arrayContaining(['rfq_create', 'rfq_send', 'rfq_close', 'rfq_award']),
    );
    expect(writes.every((t) => t.approval === 'required')).toBe(true);
    const viewing = (await listed('procurement-sourcing', 'viewer')).tools;
    expect(viewing.some((t) => t.safety === 'write')).toBe(false);
    expect(viewing.map((t) => t.name)).toEqual(expect.arrayContaining(['rfq_get', 'rfq_proposal', 'rfq_list']));

    const main = (await listed('main', 'laoxiao')).tools.map((t) => t.name);
    expect(main).toEqual(expect.arrayContaining(['task', 'assign_skill', 'web_search', 'compact_conversation']));
    expect(main).not.toContain('part_search');
    await expect(procura('tools', '--agent', 'nobody', '--user', 'laoxiao')).rejects.toMatchObject({
      stderr: expect.stringContaining('unknown agent nobody'),
    });
  }, 180_000);

  it('--json prints only JSON on stdout; what it logs (a chart server that is down) goes to stderr', async () => {
    const { stdout, stderr } = await procuraWithLogs(
      'info',
      'tools',
      '--agent',
      'analyst',
      '--json',
      '--user',
      'laoxiao',
    );
    expect(JSON.parse(stdout).tools.length).toBeGreaterThan(5);
    expect(stderr).toContain('chart MCP server unreachable');
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
