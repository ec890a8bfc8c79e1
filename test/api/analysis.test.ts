import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgentStorage } from '../../src/agent/backends/index.ts';
import { type ApiHarness, startApiHarness } from './harness.ts';
import { answerText } from './sse.ts';

describe('chat API: the canonical analysis streams its stages (real sandbox storage)', () => {
  let h: ApiHarness;
  beforeAll(async () => {
    h = await startApiHarness({}, {}, createAgentStorage);
  }, 90_000);
  afterAll(() => h?.close());

  it('streams progress for each stage under the analyst, the orchestrator’s answer as tokens, then done; the report downloads', async () => {
    const run = await h.chat(h.tokens.laoxiao, { message: '帮我对摩托车火花塞做供应商比价分析' });
    expect(run.status).toBe(200);
    const events = run.events;
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'completed' } });
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
    const steps = new Map<string, { title: string; agent: string; status: string; phase: string }>();
    for (const e of events.filter((e) => e.event === 'progress')) steps.set(e.data.id, e.data);
    const analyst = [...steps.values()].filter((s) => s.agent === 'procurement-analyst');
    expect([...steps.values()].find((s) => s.phase === 'subagent')).toMatchObject({
      agent: 'procurement-analyst',
      status: 'completed',
    });
    // ERP data, supplier web prices, sandbox analysis, charts and the report each show up as a step.
    const titles = analyst.map((s) => s.title).join(' | ');
    expect(analyst.length, titles).toBeGreaterThanOrEqual(5);
    expect(analyst.every((s) => s.status !== 'running')).toBe(true);
    expect(new Set(analyst.map((s) => s.title)).size, titles).toBeGreaterThanOrEqual(4);
    // Every step shows a label, never a tool's raw name (file tools included).
    for (const step of steps.values()) expect(step.title, titles).not.toMatch(/^[a-z]+(_[a-z]+)*$/);
    const answer = answerText(events);
    expect(answer).toContain('供应商比价结果');
    expect(events.filter((e) => e.event === 'token').every((e) => e.data.agent === 'orchestrator')).toBe(true);

    const sessionId = run.headers.get('x-session-id') as string;
    const detail = await h.call('GET', `/api/v1/history/sessions/${sessionId}`);
    const report = detail.body.files.find((f: { path: string }) => /\/analysis\/report_\d{8}_\d{6}\.md$/.test(f.path));
    expect(report, JSON.stringify(detail.body.files)).toBeDefined();
    const download = await h.call('GET', `/api/v1/files/${sessionId}${report.path}`);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-disposition')).toContain('attachment');
    expect(download.body).toContain('官网报价');
    expect((await h.call('GET', `/api/v1/files/${sessionId}${report.path}`, { token: h.tokens.admin })).status).toBe(
      404,
    );
  }, 180_000);
});
