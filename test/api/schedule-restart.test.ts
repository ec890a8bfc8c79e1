import path from 'node:path';
import Sqlite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiProcess, type LocalParts, spawnApi, startLocalParts } from './process.ts';
import { collect, openSse, type SseEvent } from './sse.ts';

/**
 * `procura api` as its own process on SQLite, SIGKILLed while a scheduled analysis runs and started again on the same
 * data directory: the cut run is taken up from its checkpoint at start-up, once, and ends with its whole answer.
 */
describe('scheduled runs: a run cut by a restart runs again at start-up, once, with its answer', {
  timeout: 300_000,
}, () => {
  let parts: LocalParts;
  let api: ApiProcess;
  let token: string;
  const dataDir = () => path.join(parts.root, 'api');
  const start = () =>
    spawnApi(dataDir(), parts.urls, { PROCURA_OFFLINE_LATENCY_MS: '300', DATABASE_URL: '', REDIS_URL: '' });

  beforeAll(async () => {
    parts = await startLocalParts('procura-api-schedule-restart-');
    token = parts.erp.demoTokens.laoxiao;
    api = await start();
  }, 120_000);
  afterAll(async () => {
    await api?.stop();
    await parts?.close();
  });

  const call = (method: string, url: string, body?: unknown) =>
    fetch(`${api.url}${url}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }));

  it.each([
    { steps: 1, request: '帮我对摩托车火花塞做供应商比价分析' },
    { steps: 3, request: '对火花塞 F7TC 做供应商比价分析，给出图表' },
  ])('killed after $steps completed step(s)', async ({ steps, request }) => {
    const created = await call('POST', '/api/v1/schedules', {
      name: `比价 ${steps}`,
      cron: '0 8 * * *',
      kind: 'custom',
      request,
    });
    expect(created.status).toBe(201);
    const started = await call('POST', `/api/v1/schedules/${created.body.id}/run`);
    expect(started.status).toBe(202);
    const sessionId = started.body.session_id as string;

    const first = await openSse(`${api.url}/api/v1/agent/chat/stream/${sessionId}`, { token, lastEventId: 0 });
    let completed = 0;
    let lastSeen = 0;
    for await (const e of first.events) {
      lastSeen = e.id;
      if (e.event === 'progress' && e.data.phase !== 'run' && e.data.status === 'completed') completed += 1;
      if (completed >= steps) break;
    }
    expect(completed).toBe(steps);
    await api.kill();

    api = await start();
    const rest = await collect(
      (await openSse(`${api.url}/api/v1/agent/chat/stream/${sessionId}`, { token, lastEventId: lastSeen })).events,
      (e) => e.event === 'done',
    );
    const done = rest.at(-1) as SseEvent;
    expect(done).toMatchObject({ event: 'done', data: { status: 'completed' } });
    expect(String(done.data.answer).length).toBeGreaterThan(20);
    const history = (await call('GET', `/api/v1/history/sessions/${sessionId}`)).body as {
      messages: Array<{ role: string; content: string; status?: string }>;
    };
    const answer = history.messages.at(-1);
    expect(answer).toMatchObject({ role: 'assistant', status: 'done' });
    expect(answer?.content).toContain(done.data.answer);

    // A second restart finds nothing cut: the run is not taken up again, and one retry is on record.
    await api.stop();
    api = await start();
    const db = new Sqlite(path.join(dataDir(), 'api.sqlite'), { readonly: true });
    try {
      const rows = db
        .prepare('select trigger from schedule_runs where schedule_id = ? order by trigger')
        .all(created.body.id) as Array<{ trigger: string }>;
      expect(rows.map((r) => r.trigger)).toEqual(['manual', 'retry']);
      const runs = db.prepare('select status from chat_runs where session_id = ?').all(sessionId);
      expect(runs).toEqual([{ status: 'done' }]);
    } finally {
      db.close();
    }
  });
});
