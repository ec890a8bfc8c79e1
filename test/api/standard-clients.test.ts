import { fetchEventSource } from '@microsoft/fetch-event-source';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { EventSource } from 'eventsource';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type ApiHarness, startApiHarness } from './harness.ts';

// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document is read field by field
type Any = any;

/** The chat API as clients nobody on the project wrote see it: an OpenAPI validator, EventSource, fetch-event-source. */
describe('chat API: standard clients', () => {
  let h: ApiHarness;
  beforeAll(async () => {
    h = await startApiHarness();
  }, 90_000);
  afterAll(() => h?.close());

  describe('OpenAPI document', () => {
    let doc: Any;
    beforeAll(async () => {
      const res = await fetch(`${h.url}/api/v1/openapi.json`);
      expect(res.status).toBe(200);
      doc = await res.json();
    });

    it('is served without a token and valid against the OpenAPI 3.1 schema', async () => {
      const result = await new Validator().validate(doc);
      expect(result.errors ?? []).toEqual([]);
      expect(result.valid).toBe(true);
      expect(doc.openapi).toBe('3.1.0');
    });

    it('declares every route the router serves, each with an operationId and its problems', () => {
      const served = new Set(
        h.api.routes
          .filter((r) => r.path.startsWith('/api/v1/') && r.method !== 'ALL')
          .map((r) => `${r.method.toLowerCase()} ${r.path.slice('/api/v1'.length).replace(/:(\w+)/g, '{$1}')}`),
      );
      const declared = new Set(
        Object.entries(doc.paths).flatMap(([path, ops]) =>
          Object.keys(ops as object).map((method) => `${method} ${path.replace('{path}', '*')}`),
        ),
      );
      expect([...served].sort()).toEqual([...declared].sort());
      const ids = Object.values(doc.paths).flatMap((ops) => Object.values(ops as Any).map((op: Any) => op.operationId));
      expect(ids.every(Boolean)).toBe(true);
      expect(new Set(ids).size).toBe(ids.length);
      const start = doc.paths['/agent/chat/stream'].post;
      expect(Object.keys(start.responses)).toEqual(expect.arrayContaining(['200', '401', '409', '413', '415', '422']));
      expect(start.parameters.map((p: Any) => p.name)).toEqual(
        expect.arrayContaining(['idempotency-key', 'last-event-id']),
      );
    });

    it('gives every successful JSON answer a schema of its own, never an open object (held to it in every test)', () => {
      const open: string[] = [];
      for (const [path, ops] of Object.entries(doc.paths))
        for (const [method, op] of Object.entries(ops as Any))
          for (const [status, response] of Object.entries((op as Any).responses as Record<string, Any>)) {
            const schema = response.content?.['application/json']?.schema;
            if (!status.startsWith('2') || !schema) continue;
            const described = schema.properties || schema.anyOf || schema.oneOf || schema.allOf || schema.items;
            if (!described) open.push(`${method} ${path} ${status}`);
          }
      expect(open).toEqual([]);
      // The tests run with the check on: an answer that drifts from its schema is a 500 in whichever test meets it.
      expect(process.env.PROCURA_CHECK_RESPONSES).toBe('1');
    });

    it('validates requests by the schemas it publishes: what its body schema refuses, the API answers 422', async () => {
      const ajv = new Ajv2020({ strict: false });
      const bodies: Array<{ path: string; body: unknown }> = [];
      for (const [path, ops] of Object.entries(doc.paths) as Array<[string, Any]>) {
        const op = ops.post ?? ops.patch;
        if (!op?.requestBody || path.includes('{')) continue;
        const schema = op.requestBody.content['application/json'].schema;
        for (const body of [
          {},
          { message: '' },
          { message: 'x'.repeat(8_001) },
          { message: 'hi', extra: 1 },
          { message: 'hi', session_id: 'not a session id!' },
          { session_id: 'x'.repeat(65) },
          { session_id: 's1', interrupt_id: '', decision: { type: 'approve' } },
          { session_id: 's1', interrupt_id: 'i', decision: { type: 'maybe' } },
          { username: '' },
          { name: 'n', cron: '* * * * *', kind: 'nothing' },
        ]) {
          if (!ajv.validate(schema, body)) bodies.push({ path, body });
        }
      }
      expect(bodies.length).toBeGreaterThan(20);
      for (const { path, body } of bodies) {
        const res = await h.call('POST', `/api/v1${path}`, { body });
        expect([path, body, res.status]).toEqual([path, body, 422]);
      }
    });
  });

  it('EventSource: a rejoin after the run ended gets 204 and the client stops reconnecting', async () => {
    const run = await h.chat(h.tokens.laoxiao, { message: '你好' });
    expect(run.events.at(-1)?.event).toBe('done');
    const sessionId = run.headers.get('x-session-id') as string;
    const requests: Array<{ lastEventId: string | null; status: number }> = [];
    const received: number[] = [];
    const source = new EventSource(`${h.url}/api/v1/agent/chat/stream/${sessionId}`, {
      fetch: async (url, init) => {
        const headers = new Headers(init?.headers);
        headers.set('authorization', `Bearer ${h.tokens.laoxiao}`);
        const res = await fetch(url, { ...init, headers });
        requests.push({ lastEventId: headers.get('last-event-id'), status: res.status });
        return res;
      },
    });
    for (const name of ['progress', 'token', 'done'])
      source.addEventListener(name, (e) => received.push(+e.lastEventId));
    await vi.waitFor(() => expect(source.readyState).toBe(EventSource.CLOSED), { timeout: 15_000, interval: 100 });
    const last = run.events.at(-1)?.id as number;
    expect(received).toEqual(run.events.map((e) => e.id));
    expect(requests).toEqual([
      { lastEventId: null, status: 200 },
      { lastEventId: String(last), status: 204 },
    ]);
  }, 30_000);

  describe('fetch-event-source: a retried POST with an Idempotency-Key', () => {
    beforeAll(() => {
      // The library reaches for the browser's timers and document; Node has the timers on globalThis.
      vi.stubGlobal('window', globalThis);
      vi.stubGlobal('document', { hidden: false, addEventListener() {}, removeEventListener() {} });
    });
    afterAll(() => vi.unstubAllGlobals());

    /** Posts `body` with the key; the first response's stream breaks after `breakAfter` events, and the client retries. */
    async function postWithRetry(body: object, key: string, breakAfter: number) {
      const responses: Array<{ status: number; runId: string | null; sessionId: string | null; lastEventId?: string }> =
        [];
      const events: Array<{ id: number; event: string; data: Any }> = [];
      await fetchEventSource(`${h.url}/api/v1/agent/chat/stream`, {
        method: 'POST',
        openWhenHidden: true,
        headers: {
          authorization: `Bearer ${h.tokens.laoxiao}`,
          'content-type': 'application/json',
          'idempotency-key': key,
        },
        body: JSON.stringify(body),
        fetch: async (url, init) => {
          const res = await fetch(url, init);
          const lastEventId = new Headers(init?.headers).get('last-event-id') ?? undefined;
          responses.push({
            status: res.status,
            runId: res.headers.get('x-run-id'),
            sessionId: res.headers.get('x-session-id'),
            lastEventId,
          });
          return responses.length === 1 ? cutAfterEvents(res, breakAfter) : res;
        },
        onmessage: (e) => events.push({ id: +e.id, event: e.event, data: JSON.parse(e.data) }),
        onerror: () => 50,
      });
      return { responses, events };
    }

    it('joins the same run after the break: every event once, one run, one session', async () => {
      const key = crypto.randomUUID();
      const { responses, events } = await postWithRetry({ message: '给博世下 240 个 F7TC 火花塞的采购单' }, key, 2);
      expect(responses).toHaveLength(2);
      expect(responses[1]).toMatchObject({ status: 200, runId: responses[0].runId, lastEventId: '2' });
      expect(responses[1].sessionId).toBe(responses[0].sessionId);
      expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
      expect(events.at(-1)?.event).toBe('interrupt');
      const session = await h.call('GET', `/api/v1/history/sessions/${responses[0].sessionId}`);
      expect(session.body.messages.filter((m: Any) => m.role === 'user')).toHaveLength(1);

      // The same POST again once the run waits: no second run, the stream closes at once after what was seen.
      const again = await postWithRetry({ message: '给博世下 240 个 F7TC 火花塞的采购单' }, key, 1_000);
      expect(again.responses).toHaveLength(1);
      expect(again.responses[0].runId).toBe(responses[0].runId);
      expect(again.events.map((e) => e.id)).toEqual(events.map((e) => e.id));
    }, 60_000);

    it('with a session chosen by the client, a retry after the run ended starts nothing new', async () => {
      const sessionId = `s-${crypto.randomUUID()}`;
      const key = crypto.randomUUID();
      const first = await postWithRetry({ message: '你好', session_id: sessionId }, key, 1);
      expect(first.events.at(-1)?.event).toBe('done');
      const retry = await postWithRetry({ message: '你好', session_id: sessionId }, key, 1_000);
      expect(retry.responses[0].runId).toBe(first.responses[0].runId);
      const session = await h.call('GET', `/api/v1/history/sessions/${sessionId}`);
      expect(session.body.messages.filter((m: Any) => m.role === 'user')).toHaveLength(1);
      // The key names one message: with another, it is refused.
      const reused = await fetch(`${h.url}/api/v1/agent/chat/stream`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${h.tokens.laoxiao}`,
          'content-type': 'application/json',
          'idempotency-key': key,
        },
        body: JSON.stringify({ message: '另一条消息' }),
      });
      expect(reused.status).toBe(422);
    }, 60_000);
  });
});

/** The response with its body cut (an error, as a dropped connection) after `count` SSE events. */
function cutAfterEvents(res: Response, count: number): Response {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let seen = 0;
  let buffer = '';
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { value, done } = await reader.read();
      if (done) return controller.close();
      buffer += decoder.decode(value, { stream: true });
      const blocks = buffer.split('\n\n');
      buffer = blocks.at(-1) as string;
      const kept: string[] = [];
      for (const block of blocks.slice(0, -1)) {
        if (seen >= count) break;
        kept.push(`${block}\n\n`);
        if (/^id:/m.test(block)) seen += 1;
      }
      if (kept.length) controller.enqueue(new TextEncoder().encode(kept.join('')));
      if (seen >= count) {
        await reader.cancel();
        controller.error(new Error('connection dropped'));
      }
    },
  });
  return new Response(body, { status: res.status, headers: res.headers });
}
