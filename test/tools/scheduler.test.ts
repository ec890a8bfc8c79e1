import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BackgroundTasks, registerBackgroundTasks } from '../../src/tools/background.ts';
import { Tool, type ToolContext, ToolError, ToolRegistry } from '../../src/tools/index.ts';
import { ToolScheduler } from '../../src/tools/scheduler.ts';

/** Every tool records when it starts and ends; order of these events (not wall-clock time) proves overlap. */
const events: string[] = [];
const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

class Probe {
  @Tool({
    name: 'test_probe_read',
    label: '读',
    description: 'parallel-safe read',
    schema: z.object({ id: z.string() }),
    safety: 'read-only',
    group: 'probe',
  })
  async read(input: { id: string }) {
    events.push(`start ${input.id}`);
    await tick();
    events.push(`end ${input.id}`);
    return { id: input.id };
  }

  @Tool({
    name: 'test_probe_write',
    label: '写',
    description: 'write',
    schema: z.object({ id: z.string() }),
    safety: 'write',
    approval: 'none',
    group: 'probe',
  })
  async write(input: { id: string }) {
    events.push(`start ${input.id}`);
    await tick();
    events.push(`end ${input.id}`);
    return { written: input.id };
  }

  @Tool({
    name: 'test_probe_fail',
    label: '失败',
    description: 'always fails',
    schema: z.object({}),
    safety: 'read-only',
    group: 'probe',
  })
  async fail(): Promise<never> {
    events.push('start fail');
    throw new ToolError('nothing there', 'try another id');
  }

  @Tool({
    name: 'test_probe_crash',
    label: '崩溃',
    description: 'throws an unexpected error',
    schema: z.object({}),
    safety: 'read-only',
    group: 'probe',
  })
  async crash(): Promise<never> {
    throw new Error('disk on fire');
  }

  @Tool({
    name: 'test_probe_report',
    label: '报告',
    description: 'slow report',
    schema: z.object({ topic: z.string() }),
    safety: 'read-only',
    background: true,
    group: 'probe',
  })
  async report(input: { topic: string }) {
    await tick();
    return { report: `report on ${input.topic}` };
  }
}

const tasks = new BackgroundTasks();
const registry = registerBackgroundTasks(
  new ToolRegistry().register(Probe, () => new Probe()),
  tasks,
);
const ctx: ToolContext = { userId: 'laoxiao', role: 'buyer', traceId: 't', sessionId: 's' };

/** Pairs of [start, end] indexes per call id. */
function spans(log: string[]) {
  const ids = log.filter((e) => e.startsWith('start ')).map((e) => e.slice(6));
  return Object.fromEntries(ids.map((id) => [id, [log.indexOf(`start ${id}`), log.indexOf(`end ${id}`)]]));
}
const overlaps = (a: number[], b: number[]) => a[0] < b[1] && b[0] < a[1];

describe('ToolScheduler', () => {
  it('overlaps five parallel-safe calls of one turn', async () => {
    events.length = 0;
    const calls = ['a', 'b', 'c', 'd', 'e'].map((id) => ({ name: 'test_probe_read', input: { id } }));
    const results = await new ToolScheduler(registry).runTurn(calls, ctx);
    expect(results).toEqual(['a', 'b', 'c', 'd', 'e'].map((id) => ({ id })));
    // Every call started before any ended: all five were running at once.
    expect(events.slice(0, 5).every((e) => e.startsWith('start'))).toBe(true);
  });

  it('runs at most five at once', async () => {
    events.length = 0;
    const calls = ['1', '2', '3', '4', '5', '6', '7'].map((id) => ({ name: 'test_probe_read', input: { id } }));
    await new ToolScheduler(registry).runTurn(calls, ctx);
    let running = 0;
    let peak = 0;
    for (const event of events) {
      running += event.startsWith('start') ? 1 : -1;
      peak = Math.max(peak, running);
    }
    expect(peak).toBe(5);
  });

  it('never lets a write overlap another call, and keeps the order of sequential calls', async () => {
    events.length = 0;
    const turn = [
      { name: 'test_probe_read', input: { id: 'r1' } },
      { name: 'test_probe_read', input: { id: 'r2' } },
      { name: 'test_probe_write', input: { id: 'w1' } },
      { name: 'test_probe_read', input: { id: 'r3' } },
      { name: 'test_probe_write', input: { id: 'w2' } },
      { name: 'test_probe_read', input: { id: 'r4' } },
      { name: 'test_probe_read', input: { id: 'r5' } },
    ];
    await new ToolScheduler(registry).runTurn(turn, ctx);
    const s = spans(events);
    for (const write of ['w1', 'w2'])
      for (const [id, span] of Object.entries(s)) if (id !== write) expect(overlaps(s[write], span)).toBe(false);
    expect(overlaps(s.r1, s.r2)).toBe(true);
    expect(overlaps(s.r4, s.r5)).toBe(true);
    expect(s.w1[0]).toBeLessThan(s.w2[0]);
  });

  it('returns a failing call as data and runs the rest of the turn', async () => {
    events.length = 0;
    const reported: Array<[unknown, string]> = [];
    const scheduler = new ToolScheduler(registry, { onUnexpected: (error, c) => reported.push([error, c.traceId]) });
    const results = await scheduler.runTurn(
      [
        { name: 'test_probe_fail', input: {} },
        { name: 'test_probe_read', input: { id: 'after' } },
        { name: 'test_probe_read', input: { id: 42 } },
        { name: 'test_probe_crash', input: {} },
      ],
      ctx,
    );
    expect(results[3]).toMatchObject({
      success: false,
      stateChanged: false,
      error: expect.stringContaining('disk on fire'),
    });
    expect(reported).toEqual([[expect.any(Error), 't']]);
    expect(results[0]).toEqual({
      success: false,
      error: 'nothing there',
      stateChanged: false,
      suggestion: 'try another id',
    });
    expect(results[1]).toEqual({ id: 'after' });
    expect(results[2]).toMatchObject({ success: false, stateChanged: false });
  });

  it('gives a background tool a task id at once and its result later', async () => {
    const scheduler = new ToolScheduler(registry, { tasks });
    const started = (await scheduler.run('test_probe_report', { topic: 'spark plugs' }, ctx)) as {
      task_id: string;
      status: string;
    };
    expect(started.status).toBe('running');
    const first = (await scheduler.run('check_background_tasks', { task_id: started.task_id }, ctx)) as {
      tasks: Array<{ status: string; result?: unknown }>;
    };
    expect(first.tasks[0].status).toBe('running');
    await expect
      .poll(async () => ((await scheduler.run('check_background_tasks', {}, ctx)) as typeof first).tasks[0])
      .toMatchObject({ status: 'completed', result: { report: 'report on spark plugs' } });
    // Another user's session does not see it.
    const other = await scheduler.run('check_background_tasks', { task_id: started.task_id }, { ...ctx, userId: 'x' });
    expect(other).toMatchObject({ success: false });
    // Invalid input is refused now, not as a failed task.
    expect(await scheduler.run('test_probe_report', {}, ctx)).toMatchObject({ success: false });
  });
});
