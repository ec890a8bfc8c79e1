import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Sqlite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Api, createApi } from '../../src/api/index.ts';
import { defaultTimezone } from '../../src/api/schedules/cron.ts';
import { MAX_SCHEDULES_PER_USER, scheduleSealer } from '../../src/api/schedules/schedules.ts';
import { dropPostgresSchema } from '../../src/erp/index.ts';
import { type ApiHarness, startApiHarness } from './harness.ts';
import { answerText, collect, openSse } from './sse.ts';

const ORDER = '给博世下 210 个 F7TC 火花塞的采购单';
const databaseUrl = process.env.DATABASE_URL;

/** A clock the tests set; the schedulers read it and their timers are off. */
function testClock(start: string) {
  let now = new Date(start);
  return { now: () => now, set: (iso: string) => (now = new Date(iso)) };
}

/** Follows the session's latest run to its end (done, or the interrupt it waits on). */
async function runToEnd(h: ApiHarness, token: string, sessionId: string) {
  const res = await openSse(`${h.url}/api/v1/agent/chat/stream/${sessionId}`, { token, lastEventId: 0 });
  expect(res.status).toBe(200);
  return collect(res.events);
}

describe('scheduled digests: settings', () => {
  it('the default time zone is Asia/Shanghai, or PROCURA_TIMEZONE when it names a time zone', () => {
    expect(defaultTimezone({})).toBe('Asia/Shanghai');
    expect(defaultTimezone({ PROCURA_TIMEZONE: 'Europe/Berlin' })).toBe('Europe/Berlin');
    expect(() => defaultTimezone({ PROCURA_TIMEZONE: 'Mars/Olympus' })).toThrow(/PROCURA_TIMEZONE/);
  });

  it('credentials are sealed with PROCURA_SCHEDULE_KEY, or a key file made once in the data directory', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-seal-'));
    try {
      const a = scheduleSealer(dir, {});
      expect(fs.statSync(path.join(dir, 'schedule.key')).mode & 0o777).toBe(0o600);
      const sealed = a.seal('pk_secret_token_0001');
      expect(sealed).not.toContain('pk_secret');
      // A second process on the same data directory reads the same key.
      expect(scheduleSealer(dir, {}).unseal(sealed)).toBe('pk_secret_token_0001');
      const keyed = scheduleSealer(dir, { PROCURA_SCHEDULE_KEY: 'a shared deployment key' });
      expect(keyed.unseal(sealed)).toBeUndefined();
      const other = scheduleSealer(fs.mkdtempSync(path.join(os.tmpdir(), 'procura-seal-')), {
        PROCURA_SCHEDULE_KEY: 'a shared deployment key',
      });
      expect(other.unseal(keyed.seal('pk_secret_token_0002'))).toBe('pk_secret_token_0002');
      expect(() => scheduleSealer(dir, { PROCURA_SCHEDULE_KEY: 'short' })).toThrow(/16/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('scheduled digests: the /api/v1/schedules API', () => {
  let h: ApiHarness;
  const clock = testClock('2026-12-03T06:30:00.000Z');
  beforeAll(async () => {
    h = await startApiHarness({ scheduler: { now: clock.now, timer: false } });
  }, 90_000);
  afterAll(() => h?.close());

  it('creates, lists and deletes a schedule; the next run is computed in its time zone (Asia/Shanghai by default)', async () => {
    const created = await h.call('POST', '/api/v1/schedules', {
      body: { name: '每日库存', cron: '0 8 * * *', kind: 'inventory_digest' },
    });
    expect(created.status).toBe(201);
    // 14:30 in Shanghai: the next 08:00 there is tomorrow, 00:00 UTC.
    expect(created.body).toMatchObject({
      name: '每日库存',
      cron: '0 8 * * *',
      timezone: 'Asia/Shanghai',
      kind: 'inventory_digest',
      project_id: 'P001',
      next_run_at: '2026-12-04T00:00:00.000Z',
      last_run_at: null,
    });
    expect(JSON.stringify(created.body)).not.toContain(h.tokens.laoxiao);
    const utc = await h.call('POST', '/api/v1/schedules', {
      body: {
        name: 'Watch plugs',
        cron: '0 8 * * 1-5',
        timezone: 'UTC',
        kind: 'price_watch',
        parts: ['F7TC'],
        categories: ['火花塞'],
        threshold_pct: 5,
      },
    });
    expect(utc.status).toBe(201);
    expect(utc.body).toMatchObject({
      next_run_at: '2026-12-03T08:00:00.000Z',
      parts: ['F7TC'],
      categories: ['火花塞'],
      threshold_pct: 5,
    });

    const list = await h.call('GET', '/api/v1/schedules');
    expect(list.status).toBe(200);
    expect(list.body.items.map((s: { id: string }) => s.id).sort()).toEqual([created.body.id, utc.body.id].sort());

    expect((await h.call('DELETE', `/api/v1/schedules/${created.body.id}`)).status).toBe(204);
    expect((await h.call('DELETE', `/api/v1/schedules/${created.body.id}`)).status).toBe(404);
    expect((await h.call('DELETE', `/api/v1/schedules/${utc.body.id}`)).status).toBe(204);
    expect((await h.call('GET', '/api/v1/schedules')).body.items).toEqual([]);
  });

  it('stores a custom schedule’s name and text with their secrets redacted', async () => {
    const key = 'sk_live_51HqLyjWDarjtT1zdp7dcXYZabc';
    const created = await h.call('POST', '/api/v1/schedules', {
      body: {
        name: `周报 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`,
        cron: '0 8 * * 1',
        kind: 'custom',
        request: `汇总上周订单，用 ${key} 查付款，password: Hunter2Hunter2!`,
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.name).toBe('周报 [redacted]');
    expect(created.body.request).toBe('汇总上周订单，用 [redacted] 查付款，password: [redacted]');
    expect(JSON.stringify((await h.call('GET', '/api/v1/schedules')).body)).not.toMatch(/ghp_|sk_live|Hunter2/);
    expect((await h.call('DELETE', `/api/v1/schedules/${created.body.id}`)).status).toBe(204);
  });

  it('keeps the owner’s token sealed in the database, not in clear', async () => {
    const created = await h.call('POST', '/api/v1/schedules', {
      body: { name: 'sealed', cron: '0 9 * * *', kind: 'inventory_digest' },
    });
    const sqlite = new Sqlite(path.join(h.agent.dataDir, 'api.sqlite'), { readonly: true });
    try {
      const row = sqlite.prepare('select * from schedules where id = ?').get(created.body.id) as Record<string, string>;
      expect(row.credential).toMatch(/^v1\./);
      expect(JSON.stringify(row)).not.toContain(h.tokens.laoxiao);
    } finally {
      sqlite.close();
    }
    await h.call('DELETE', `/api/v1/schedules/${created.body.id}`);
  });

  it.each([
    ['a value out of range', { cron: '61 8 * * *' }, 400],
    ['four fields', { cron: '0 8 * *' }, 400],
    ['seconds (six fields)', { cron: '0 0 8 * * *' }, 400],
    ['a date instead of a pattern', { cron: '2026-12-04T08:00 * * * *' }, 400],
    ['words', { cron: 'every morning at 8' }, 400],
    ['an unknown time zone', { timezone: 'Mars/Olympus' }, 400],
    ['an unknown kind', { kind: 'weather' }, 422],
    ['a price watch without parts or categories', { kind: 'price_watch', threshold_pct: 5 }, 422],
    ['a price watch without a threshold', { kind: 'price_watch', parts: ['F7TC'] }, 422],
    ['a negative threshold', { kind: 'price_watch', parts: ['F7TC'], threshold_pct: -3 }, 422],
    ['a custom schedule without its request', { kind: 'custom' }, 422],
    ['an empty name', { name: '  ' }, 422],
    ['an unknown field', { owner: 'admin' }, 422],
  ])('refuses %s with a problem response', async (_what, change, status) => {
    const body = { name: 'x', cron: '0 8 * * *', kind: 'inventory_digest', ...change };
    const res = await h.call('POST', '/api/v1/schedules', { body });
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(res.body.status).toBe(status);
    expect((await h.call('GET', '/api/v1/schedules')).body.items).toEqual([]);
  });

  it('keeps at most MAX_SCHEDULES_PER_USER per user: the next gets 409 in both languages, in parallel too', async () => {
    const before = (await h.call('GET', '/api/v1/schedules')).body.items.length as number;
    const body = (i: number) => ({ body: { name: `上限 ${i}`, cron: '0 9 * * 1', kind: 'inventory_digest' } });
    const tries = MAX_SCHEDULES_PER_USER - before + 5;
    const results = await Promise.all(
      Array.from({ length: tries }, (_, i) => h.call('POST', '/api/v1/schedules', body(i))),
    );
    const created = results.filter((r) => r.status === 201);
    expect(created).toHaveLength(MAX_SCHEDULES_PER_USER - before);
    const refused = results.filter((r) => r.status !== 201);
    expect(refused.map((r) => r.status)).toEqual(Array(5).fill(409));
    expect(refused[0].body).toMatchObject({ code: 'too_many_schedules', max_schedules: MAX_SCHEDULES_PER_USER });
    expect(refused[0].body.detail).toMatch(/[\u4e00-\u9fff].* \/ .*[a-z]/);
    // Another user is not held to this one's count.
    expect((await h.call('POST', '/api/v1/schedules', { ...body(0), token: h.tokens.admin })).status).toBe(201);
    // Deleting one makes room again.
    expect((await h.call('DELETE', `/api/v1/schedules/${created[0].body.id}`)).status).toBe(204);
    const again = await h.call('POST', '/api/v1/schedules', body(99));
    expect(again.status).toBe(201);
    for (const r of [...created.slice(1), again]) await h.call('DELETE', `/api/v1/schedules/${r.body.id}`);
  });

  it('needs a signed-in user', async () => {
    expect((await h.call('GET', '/api/v1/schedules', { token: null })).status).toBe(401);
    expect(
      (await h.call('POST', '/api/v1/schedules', { token: null, body: { name: 'x', cron: '0 8 * * *' } })).status,
    ).toBe(401);
  });

  it('shows, deletes and runs a schedule for its owner only: anyone else gets 404', async () => {
    const mine = await h.call('POST', '/api/v1/schedules', {
      body: { name: '我的', cron: '30 7 * * *', kind: 'inventory_digest' },
    });
    const other = h.tokens.viewer;
    expect((await h.call('GET', '/api/v1/schedules', { token: other })).body.items).toEqual([]);
    expect((await h.call('DELETE', `/api/v1/schedules/${mine.body.id}`, { token: other })).status).toBe(404);
    expect((await h.call('POST', `/api/v1/schedules/${mine.body.id}/run`, { token: other })).status).toBe(404);
    expect((await h.call('POST', '/api/v1/schedules/not-a-uuid/run')).status).toBe(404);
    expect((await h.call('GET', '/api/v1/schedules')).body.items).toHaveLength(1);
    await h.call('DELETE', `/api/v1/schedules/${mine.body.id}`);
  });
});

describe('scheduled digests: runs on a controllable clock', () => {
  let h: ApiHarness;
  const clock = testClock('2026-12-03T23:50:00.000Z');
  beforeAll(async () => {
    h = await startApiHarness({ scheduler: { now: clock.now, timer: false } });
  }, 90_000);
  afterAll(() => h?.close());

  it('runs at the due minute in its time zone, once, then not before its next time; the run lands in history marked as scheduled and unseen until opened', async () => {
    const created = await h.call('POST', '/api/v1/schedules', {
      body: { name: '早间库存', cron: '0 8 * * *', kind: 'inventory_digest' },
    });
    expect(created.body.next_run_at).toBe('2026-12-04T00:00:00.000Z');

    expect(await h.api.scheduler.runDue(new Date('2026-12-03T23:59:59.000Z'))).toEqual([]);
    const started = await h.api.scheduler.runDue(new Date('2026-12-04T00:00:10.000Z'));
    expect(started).toHaveLength(1);
    expect(started[0]).toMatchObject({ schedule_id: created.body.id, due_at: '2026-12-04T00:00:00.000Z' });
    expect(await h.api.scheduler.runDue(new Date('2026-12-04T00:00:40.000Z'))).toEqual([]);
    expect(await h.api.scheduler.runDue(new Date('2026-12-04T12:00:00.000Z'))).toEqual([]);
    const [listed] = (await h.call('GET', '/api/v1/schedules')).body.items;
    expect(listed).toMatchObject({
      next_run_at: '2026-12-05T00:00:00.000Z',
      last_run_at: '2026-12-04T00:00:00.000Z',
      last_error: null,
    });

    const sessionId = started[0].session_id;
    const events = await runToEnd(h, h.tokens.laoxiao, sessionId);
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'completed' } });
    const answer = answerText(events);
    expect(answer).toContain('库存预警');

    const history = await h.call('GET', '/api/v1/history/sessions');
    const item = history.body.items.find((s: { id: string }) => s.id === sessionId);
    expect(item).toMatchObject({
      origin: 'schedule',
      schedule: { id: created.body.id, name: '早间库存' },
      unseen: true,
      title: '早间库存 · 2026-12-04 08:00',
    });
    expect(history.body.unseen_scheduled).toBe(1);
    // Someone else's history does not show it.
    const others = await h.call('GET', '/api/v1/history/sessions', { token: h.tokens.viewer });
    expect(others.body.items.map((s: { id: string }) => s.id)).not.toContain(sessionId);
    expect(others.body.unseen_scheduled).toBe(0);

    const opened = await h.call('GET', `/api/v1/history/sessions/${sessionId}`);
    expect(opened.body).toMatchObject({ origin: 'schedule', schedule: { name: '早间库存' } });
    expect(opened.body.messages[0].content).toContain('低于安全库存');
    const after = await h.call('GET', '/api/v1/history/sessions');
    expect(after.body.unseen_scheduled).toBe(0);
    expect(after.body.items.find((s: { id: string }) => s.id === sessionId).unseen).toBe(false);

    // The next morning it runs again, once.
    const nextDay = await h.api.scheduler.runDue(new Date('2026-12-05T00:00:00.000Z'));
    expect(nextDay).toHaveLength(1);
    await runToEnd(h, h.tokens.laoxiao, nextDay[0].session_id);
    expect((await h.call('GET', '/api/v1/history/sessions')).body.unseen_scheduled).toBe(1);
    await h.call('DELETE', `/api/v1/schedules/${created.body.id}`);
  });

  it('a process that was down at the due time runs the missed time once when it comes back', async () => {
    const created = await h.call('POST', '/api/v1/schedules', {
      body: { name: '每小时', cron: '0 * * * *', timezone: 'UTC', kind: 'inventory_digest' },
    });
    const late = await h.api.scheduler.runDue(new Date('2026-12-06T05:20:00.000Z'));
    expect(late).toHaveLength(1);
    expect((await h.call('GET', '/api/v1/schedules')).body.items[0].next_run_at).toBe('2026-12-06T06:00:00.000Z');
    await runToEnd(h, h.tokens.laoxiao, late[0].session_id);
    await h.call('DELETE', `/api/v1/schedules/${created.body.id}`);
  });

  it('the timer of an API process starts what is due at start-up and later without being asked', async () => {
    const created = await h.call('POST', '/api/v1/schedules', {
      body: { name: '定时器', cron: '0 10 * * *', timezone: 'UTC', kind: 'inventory_digest' },
    });
    clock.set('2026-12-10T10:00:00.000Z');
    const timed = await createApi({ ...h.apiOptions(), scheduler: { now: clock.now, intervalMs: 100 } });
    try {
      const sessions = async () => (await h.call('GET', '/api/v1/history/sessions?size=100')).body.items;
      const ofSchedule = async () =>
        (await sessions()).filter((s: { schedule?: { id: string } }) => s.schedule?.id === created.body.id);
      await expect.poll(ofSchedule, { timeout: 10_000 }).toHaveLength(1);
      clock.set('2026-12-11T10:00:00.000Z');
      await expect.poll(ofSchedule, { timeout: 10_000 }).toHaveLength(2);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await ofSchedule()).toHaveLength(2);
      for (const s of await ofSchedule()) await settled(h, s.id);
    } finally {
      await timed.close();
    }
    await h.call('DELETE', `/api/v1/schedules/${created.body.id}`);
  });

  it('a timed run whose owner’s token the ERP no longer accepts does not start: the schedule shows why', async () => {
    const created = await h.call('POST', '/api/v1/schedules', {
      body: { name: '失效', cron: '0 12 * * *', timezone: 'UTC', kind: 'inventory_digest' },
    });
    const sealed = scheduleSealer(h.agent.dataDir, {}).seal('pk_revoked_or_unknown_token_000000');
    const sqlite = new Sqlite(path.join(h.agent.dataDir, 'api.sqlite'));
    sqlite.prepare('update schedules set credential = ? where id = ?').run(sealed, created.body.id);
    sqlite.close();
    const before = (await h.call('GET', '/api/v1/history/sessions?size=100')).body.total;
    expect(await h.api.scheduler.runDue(new Date('2026-12-12T12:00:00.000Z'))).toEqual([]);
    const [listed] = (await h.call('GET', '/api/v1/schedules')).body.items;
    expect(listed.last_error).toMatch(/401|token|令牌|认证|登录/i);
    expect(listed.next_run_at).toBe('2026-12-13T12:00:00.000Z');
    expect((await h.call('GET', '/api/v1/history/sessions?size=100')).body.total).toBe(before);
    // Run now as the signed-in owner works, and keeps their current token for the timed runs.
    const now = await h.call('POST', `/api/v1/schedules/${created.body.id}/run`);
    expect(now.status).toBe(202);
    await runToEnd(h, h.tokens.laoxiao, now.body.session_id);
    const timed = await h.api.scheduler.runDue(new Date('2026-12-13T12:00:00.000Z'));
    expect(timed).toHaveLength(1);
    await runToEnd(h, h.tokens.laoxiao, timed[0].session_id);
    expect((await h.call('GET', '/api/v1/schedules')).body.items[0].last_error).toBeNull();
    await h.call('DELETE', `/api/v1/schedules/${created.body.id}`);
  });

  it('a scheduled run that proposes a write waits for the owner’s approval: nothing is written', async () => {
    const created = await h.call('POST', '/api/v1/schedules', {
      body: { name: '自定义', cron: '0 9 * * *', kind: 'custom', request: ORDER },
    });
    clock.set('2026-12-07T03:00:00.000Z');
    const run = await h.call('POST', `/api/v1/schedules/${created.body.id}/run`);
    expect(run.status).toBe(202);
    const events = await runToEnd(h, h.tokens.laoxiao, run.body.session_id);
    expect(events.at(-1)).toMatchObject({ event: 'interrupt', data: { kind: 'approval', tool: 'order_create' } });
    expect(await h.ordersNoted(ORDER)).toEqual([]);
    const session = await h.call('GET', `/api/v1/history/sessions/${run.body.session_id}`);
    expect(session.body.pending_interrupts).toHaveLength(1);
    expect(session.body.active_run).toBe(run.body.run_id);
    await h.call('POST', '/api/v1/agent/chat/cancel', { body: { session_id: run.body.session_id } });
    await h.call('DELETE', `/api/v1/schedules/${created.body.id}`);
  });

  it('run now streams like a chat run and is recorded as the schedule’s last run', async () => {
    const created = await h.call('POST', '/api/v1/schedules', {
      body: { name: '比价', cron: '0 8 1 * *', kind: 'price_watch', categories: ['火花塞'], threshold_pct: 10 },
    });
    clock.set('2026-12-08T02:00:00.000Z');
    const run = await h.call('POST', `/api/v1/schedules/${created.body.id}/run`);
    expect(run.status).toBe(202);
    expect(run.body).toMatchObject({ schedule_id: created.body.id, due_at: '2026-12-08T02:00:00.000Z' });
    const events = await runToEnd(h, h.tokens.laoxiao, run.body.session_id);
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
    expect(events.at(-1)?.event).toBe('done');
    const session = await h.call('GET', `/api/v1/history/sessions/${run.body.session_id}`);
    expect(session.body.messages[0].content).toContain('变动超过 10%');
    expect(session.body.messages[0].content).toContain('火花塞');
    const [listed] = (await h.call('GET', '/api/v1/schedules')).body.items;
    expect(listed.last_run_at).toBe('2026-12-08T02:00:00.000Z');
    // Its timetable is untouched by a run now.
    expect(listed.next_run_at).toBe('2027-01-01T00:00:00.000Z');
    expect((await h.call('DELETE', `/api/v1/schedules/${created.body.id}`)).status).toBe(204);
    // The sessions it started stay in the history; a chat's session is marked as such.
    const kept = await h.call('GET', `/api/v1/history/sessions/${run.body.session_id}`);
    expect(kept.body).toMatchObject({ origin: 'schedule', schedule: { name: '比价' } });
    const chat = await h.chat(h.tokens.laoxiao, { message: '你好' });
    const chatId = chat.headers.get('x-session-id');
    const items = (await h.call('GET', '/api/v1/history/sessions?size=100')).body.items;
    expect(items.find((s: { id: string }) => s.id === chatId)).toMatchObject({ origin: 'chat' });
    expect(items.find((s: { id: string }) => s.id === chatId)).not.toHaveProperty('unseen');
  });
});

/** Waits until the session has no active run (whichever process executes it). */
async function settled(h: ApiHarness, sessionId: string) {
  for (let i = 0; i < 200; i++) {
    const session = await h.call('GET', `/api/v1/history/sessions/${sessionId}`);
    if (session.status === 200 && session.body.active_run === null) return session.body;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`session ${sessionId} did not settle`);
}

const backends = [{ name: 'sqlite' }, ...(databaseUrl ? [{ name: 'postgres' }] : [])];

describe.each(backends)('scheduled digests: two API processes on one database ($name)', ({ name }) => {
  let h: ApiHarness;
  let second: Api;
  const schema = `schedules_test_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const clock = testClock('2026-12-03T10:00:00.000Z');

  beforeAll(async () => {
    const shared = name === 'postgres' ? { databaseUrl, databaseSchema: schema, redisUrl: process.env.REDIS_URL } : {};
    h = await startApiHarness({ ...shared, scheduler: { now: clock.now, timer: false } });
    second = await createApi(h.apiOptions());
  }, 90_000);
  afterAll(async () => {
    await second?.close();
    await h?.close();
    if (name === 'postgres' && databaseUrl) await dropPostgresSchema(databaseUrl, schema);
  });

  it('both passes at the same due time start each schedule exactly once', async () => {
    const ids: string[] = [];
    for (const minute of ['0', '15', '30']) {
      const created = await h.call('POST', '/api/v1/schedules', {
        body: { name: `race ${minute}`, cron: `${minute} 19 * * *`, kind: 'inventory_digest' },
      });
      expect(created.status).toBe(201);
      ids.push(created.body.id);
    }
    const at = new Date('2026-12-03T11:45:00.000Z'); // 19:45 in Shanghai: all three are due
    const [a, b] = await Promise.all([h.api.scheduler.runDue(at), second.scheduler.runDue(at)]);
    const started = [...a, ...b];
    expect(started.map((r) => r.schedule_id).sort()).toEqual([...ids].sort());
    // Again, from either process: nothing more.
    expect(await second.scheduler.runDue(at)).toEqual([]);
    expect(await h.api.scheduler.runDue(at)).toEqual([]);
    // Each process executes the runs it claimed: wait for them through the shared history.
    for (const run of started) await settled(h, run.session_id);
    const history = await h.call('GET', '/api/v1/history/sessions?size=100');
    const scheduled = history.body.items.filter((s: { origin: string }) => s.origin === 'schedule');
    expect(scheduled).toHaveLength(3);
    expect(new Set(scheduled.map((s: { schedule: { id: string } }) => s.schedule.id))).toEqual(new Set(ids));
  });
});
