import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSupplierSites } from '../../src/suppliers/index.ts';
import { ToolScheduler } from '../../src/tools/index.ts';
import { createToolbox, type Toolbox } from '../../src/tools/toolbox.ts';
import { startTestErp } from './harness.ts';

// biome-ignore lint/suspicious/noExplicitAny: tool results are asserted field by field
type Any = any;

let env: Awaited<ReturnType<typeof startTestErp>>;
let sites: Awaited<ReturnType<typeof startSupplierSites>>;
let toolbox: Toolbox;

beforeAll(async () => {
  env = await startTestErp();
  sites = await startSupplierSites({ host: '127.0.0.1', port: 0 });
  toolbox = createToolbox({ erp: { baseUrl: env.baseUrl }, web: { suppliersUrl: sites.server.url } });
}, 60_000);
afterAll(async () => {
  await toolbox?.close();
  await sites?.server.close();
  await env?.close();
});

describe('price_sweep in the background', () => {
  it('returns a task id at once; check_background_tasks reports its progress, then every shop’s prices', async () => {
    const ctx = env.context('laoxiao');
    const scheduler = new ToolScheduler(toolbox.registry, { tasks: toolbox.tasks });
    const started = (await scheduler.run('price_sweep', { category: 'spark_plug', maxParts: 12 }, ctx)) as Any;
    expect(started).toMatchObject({ status: 'running', task_id: expect.any(String) });

    const seen = new Set<string>();
    let task: Any;
    for (let i = 0; i < 600; i++) {
      const report = (await toolbox.registry.execute(
        'check_background_tasks',
        { task_id: started.task_id },
        ctx,
      )) as Any;
      task = report.tasks[0];
      if (task.progress) seen.add(task.progress);
      if (task.status !== 'running') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(task.status).toBe('completed');
    expect(seen.size).toBeGreaterThan(0);
    expect([...seen][0]).toMatch(/^\d+\/\d+ /);
    const { rows } = task.result;
    expect(task.result.parts).toBeGreaterThan(1);
    expect(task.result.priced).toBeGreaterThan(1);
    // Prices come from the shops (each shop prices its own way), compared with the ERP list price.
    const priced = rows.filter((r: Any) => r.webPrice !== undefined);
    expect(new Set(priced.map((r: Any) => r.supplier)).size).toBeGreaterThan(1);
    for (const r of priced) expect(r.url).toContain(sites.server.url);
    // Another user's session does not see the task.
    const other = (await toolbox.registry.execute('check_background_tasks', {}, env.context('zhangwei'))) as Any;
    expect(other.tasks.map((t: Any) => t.task_id)).not.toContain(started.task_id);
  }, 120_000);

  it('refuses bad input at once instead of starting a task', async () => {
    const scheduler = new ToolScheduler(toolbox.registry, { tasks: toolbox.tasks });
    const refused = (await scheduler.run('price_sweep', { category: '' }, env.context('laoxiao'))) as Any;
    expect(refused).toMatchObject({ success: false });
  });
});
