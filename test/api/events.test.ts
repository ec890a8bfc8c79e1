import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunEventLog, TOKEN_FLUSH_CHARS, TOKEN_FLUSH_MS } from '../../src/api/chat/events.ts';
import { migrateRuns, RunStore } from '../../src/api/chat/run-store.ts';
import { type ApiDatabase, openApiDatabase } from '../../src/api/db.ts';
import { logger } from '../../src/shared/index.ts';

/** The emit path on a real SQLite file: coalesced text keeps its order and a rejoin from any id misses nothing. */
describe('run events: coalesced streaming text', () => {
  let root: string;
  let database: ApiDatabase;
  let store: RunStore;
  let log: RunEventLog;
  beforeAll(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-api-events-'));
    database = await openApiDatabase({ dataDir: root, migrations: [migrateRuns] });
    store = new RunStore(database.db);
    log = new RunEventLog(store, undefined, logger.child({ part: 'test' }));
  });
  afterAll(async () => {
    await log?.close();
    await database?.close();
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  const text = (events: Array<{ event: string; data: string }>) =>
    events
      .filter((e) => e.event === 'token')
      .map((e) => JSON.parse(e.data).content)
      .join('');

  it('merges tokens into few events, in order, sealed by any other event, the size cap and the time cap', async () => {
    const runId = crypto.randomUUID();
    const follower = new AbortController();
    const live = (async () => {
      const seen = [];
      for await (const event of log.follow(runId, 0, follower.signal)) seen.push(event);
      return seen;
    })();
    const emitter = log.emitter({ runId, sessionId: 's1', afterSeq: 0, secrets: [] });
    const sent: string[] = [];
    const say = (piece: string, agent = 'orchestrator') => {
      sent.push(piece);
      emitter.emit({ event: 'token', data: { content: piece, agent } });
    };
    // 3,000 small pieces at once: split only by the size cap.
    for (let i = 0; i < 3_000; i++) say(`第${i}段 `);
    emitter.emit({
      event: 'progress',
      data: { id: 't1', phase: 'tool', status: 'running', title: 'x', detail: '', agent: 'orchestrator' },
    });
    say('after the step ');
    // A pause longer than the time cap seals the text on its own.
    await new Promise((r) => setTimeout(r, TOKEN_FLUSH_MS * 3));
    say('late ');
    say('sub-agent words', 'procurement-analyst');
    emitter.emit({ event: 'done', data: { run_id: runId, status: 'completed' } });
    await emitter.flush();

    const stored = await log.replay(runId, 0);
    expect(stored.map((e) => e.seq)).toEqual(stored.map((_, i) => i + 1));
    expect(text(stored)).toBe(sent.join(''));
    const tokens = stored.filter((e) => e.event === 'token');
    expect(tokens.length).toBeLessThan(sent.length / 50);
    for (const e of tokens) expect(JSON.parse(e.data).content.length).toBeLessThan(TOKEN_FLUSH_CHARS + 20);
    const kinds = stored.map((e) => e.event);
    const progressAt = kinds.indexOf('progress');
    expect(text(stored.slice(0, progressAt))).toBe(sent.slice(0, 3_000).join(''));
    // The timed seal: the text before the pause is its own event, and an agent change starts a new one.
    expect(tokens.slice(-3).map((e) => JSON.parse(e.data))).toMatchObject([
      { content: 'after the step ', agent: 'orchestrator' },
      { content: 'late ', agent: 'orchestrator' },
      { content: 'sub-agent words', agent: 'procurement-analyst' },
    ]);
    // A live follower saw exactly what was stored; a rejoin from any id gets exactly the rest.
    expect(await live).toEqual(stored);
    for (const after of [0, 1, Math.floor(stored.length / 2), stored.length - 1]) {
      const rest = [];
      for await (const event of log.follow(runId, after, new AbortController().signal)) rest.push(event);
      expect(rest).toEqual(stored.slice(after));
    }
  });

  it('an emitter opened on a stored run continues its numbering', async () => {
    const runId = crypto.randomUUID();
    const first = log.emitter({ runId, sessionId: 's2', afterSeq: 0, secrets: ['pk_secret_value_123'] });
    first.emit({ event: 'token', data: { content: 'key pk_secret_value_123', agent: 'orchestrator' } });
    first.emit({
      event: 'interrupt',
      data: { interrupt_id: 'i1', agent: 'orchestrator', kind: 'ask_user', question: 'q', options: [] } as never,
    });
    await first.flush();
    const later = await log.emitterAfterStored({ runId, sessionId: 's2', secrets: [] });
    later.emit({ event: 'done', data: { run_id: runId, status: 'cancelled' } });
    await later.flush();
    const stored = await log.replay(runId, 0);
    expect(stored.map((e) => [e.seq, e.event])).toEqual([
      [1, 'token'],
      [2, 'interrupt'],
      [3, 'done'],
    ]);
    expect(stored[0].data).not.toContain('pk_secret_value_123');
  });
});
