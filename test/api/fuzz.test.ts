import http from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Api, createApi } from '../../src/api/index.ts';
import { listen, type RunningServer } from '../../src/shared/index.ts';
import { type AgentHarness, startAgentHarness } from '../agent/harness.ts';
import { tempStorage } from './harness.ts';

/**
 * Property-based attack on every HTTP route of the chat API and the ERP: malformed JSON, wrong types,
 * huge/unicode/control-character strings, invalid UTF-8, bad percent-escapes in paths and queries, and bad
 * auth forms. No answer may be a 5xx, and every error is `application/problem+json` (but a page a browser is sent
 * to answers HTML, as its OpenAPI declaration says). Routes come from the running apps (the chat API's router, the
 * ERP's OpenAPI document), so a new route is fuzzed without a change here.
 */
const RUNS_PER_ROUTE = Number(process.env.FUZZ_RUNS_PER_ROUTE ?? 60);
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

interface Route {
  method: string;
  /** Pattern with `:name`/`{name}` parameters and a trailing `*` wildcard. */
  path: string;
}

interface Answer {
  status: number;
  contentType: string;
  body: string;
}

/** One raw request (no URL normalisation, so malformed escapes and `..` reach the server as written). */
function send(
  base: URL,
  request: { method: string; path: string; headers: Record<string, string>; body?: Buffer },
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: base.hostname,
        port: base.port,
        method: request.method,
        path: `${base.pathname.replace(/\/$/, '')}${request.path}`,
        headers: { ...request.headers, ...(request.body ? { 'content-length': request.body.length } : {}) },
        timeout: 20_000,
        agent: false, // a fresh connection each time: a refused body may close the previous one
      },
      (res) => {
        const contentType = String(res.headers['content-type'] ?? '');
        // A stream that was accepted is not under test here: stop reading it.
        if (contentType.includes('text/event-stream')) {
          res.destroy();
          return resolve({ status: res.statusCode ?? 0, contentType, body: '' });
        }
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, contentType, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`timeout: ${request.method} ${request.path}`)));
    req.on('error', reject);
    req.end(request.body);
  });
}

/** Every byte of the string's UTF-8 (lone surrogates become U+FFFD) as %XX, except unreserved ASCII. */
const encodeAll = (s: string) =>
  [...Buffer.from(s, 'utf8')]
    .map((b) => (/[A-Za-z0-9_.~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16)}`))
    .join('');

const BAD_ESCAPES = [
  '%ZZ',
  'x%',
  '%E0%A4%A',
  '%',
  '%%',
  '%C0%AF',
  '%FF',
  '%00',
  '%2e%2e',
  '%u0041',
  '%F0%9F%98',
  '%e2%80%ae',
];
const badEscape = fc.constantFrom(...BAD_ESCAPES);
const controlChars = fc.string({ unit: fc.integer({ min: 0, max: 31 }).map((c) => String.fromCharCode(c)) });
const nastyString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  controlChars,
  fc.constantFrom('..', '../../etc/passwd', '/', '\\', '\u202e', '😀', ' ', '0', '-1', '1e309', 'null', 'true', 'P001'),
  fc.integer({ min: 500, max: 3_000 }).map((n) => 'x'.repeat(n)),
);
/** Mostly well-formed ids (so requests get past auth and id checks to the code behind them), often broken. */
const pathSegment = fc.oneof(
  { weight: 4, arbitrary: fc.stringMatching(/^[A-Za-z0-9_-]{1,24}$/) },
  { weight: 1, arbitrary: fc.integer({ min: -5, max: 100 }).map(String) },
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.string({ maxLength: 5 }).map(encodeAll), badEscape, fc.string({ maxLength: 5 }).map(encodeAll))
      .map((parts) => parts.join('')),
  },
  { weight: 2, arbitrary: nastyString.map(encodeAll) },
);
const query = fc
  .array(
    fc.tuple(fc.oneof(fc.constantFrom('page', 'size', 'keyword', 'q', 'last_event_id'), pathSegment), pathSegment),
    {
      maxLength: 4,
    },
  )
  .map((pairs) => (pairs.length ? `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}` : ''));

/** Latin-1 header text (what HTTP allows), from the nasty strings. */
const headerText = nastyString.map((s) =>
  [...s]
    .map((ch) => (ch.charCodeAt(0) >= 0x20 && ch.charCodeAt(0) <= 0xff && ch.charCodeAt(0) !== 0x7f ? ch : '?'))
    .join('')
    .slice(0, 1000),
);

function routeArbitraries(fieldNames: string[], validToken: string) {
  const jsonLeaf = fc.oneof(nastyString, fc.double(), fc.integer(), fc.boolean(), fc.constant(null));
  const wrongTypes = fc
    .dictionary(
      fc.oneof(fc.constantFrom(...fieldNames), fc.string({ maxLength: 10 })),
      fc.oneof(jsonLeaf, fc.jsonValue()),
      {
        maxKeys: 6,
      },
    )
    .map((o) => JSON.stringify(o));
  const malformedJson = fc.constantFrom(
    '{',
    '{"a":',
    '[1,2',
    'nul',
    '"\\ud800"',
    '{"message":"\\u0000"}',
    'NaN',
    '1e999999',
    '{"__proto__":{"polluted":1},"constructor":{"prototype":{"x":1}}}',
    `${'['.repeat(10_000)}${']'.repeat(10_000)}`,
    '',
    '\uFEFF{}',
  );
  const body = fc.oneof(
    wrongTypes.map((s) => Buffer.from(s)),
    fc.jsonValue().map((v) => Buffer.from(JSON.stringify(v) ?? 'null')),
    malformedJson.map((s) => Buffer.from(s)),
    fc.uint8Array({ maxLength: 200 }).map((a) => Buffer.from(a)),
    fc.integer({ min: 60_000, max: 200_000 }).map((n) => Buffer.from(JSON.stringify({ message: 'x'.repeat(n) }))),
  );
  const contentType = fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'application/json; charset=latin1',
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    undefined,
  );
  const authorization = fc.oneof(
    { weight: 6, arbitrary: fc.constant(`Bearer ${validToken}`) },
    fc.constantFrom(undefined, 'Bearer', 'Bearer ', 'bearer', `Basic ${Buffer.from('admin:admin').toString('base64')}`),
    fc.constantFrom(
      `Bearer ${validToken} extra`,
      `Bearer  ${validToken}`,
      `Token ${validToken}`,
      `Bearer pds_${'A'.repeat(43)}`,
    ),
    headerText.map((t) => `Bearer ${t}`),
    fc.integer({ min: 513, max: 2_000 }).map((n) => `Bearer ${'t'.repeat(n)}`),
  );
  const extraHeaders = fc.record(
    {
      'x-project-id': fc.oneof({ weight: 3, arbitrary: fc.constant('P001') }, headerText),
      'last-event-id': headerText,
      'x-trace-id': headerText,
      'content-encoding': fc.constantFrom('gzip', 'br', 'identity', 'bogus'),
      'idempotency-key': headerText,
    },
    { requiredKeys: [] },
  );
  return { body, contentType, authorization, extraHeaders };
}

/** Fills a route pattern's parameters and wildcard with generated segments. */
const concretePath = (pattern: string) =>
  fc.tuple(fc.array(pathSegment, { minLength: 8, maxLength: 8 }), query).map(([segments, q]) => {
    let i = 0;
    const filled = pattern
      .replace(/:[A-Za-z_]+|\{[A-Za-z_]+\}/g, () => segments[i++ % segments.length])
      .replace(/\*$/, () => segments.slice(4, 4 + 1 + (segments[7].length % 3)).join('/'));
    return `${filled}${q}`;
  });

type Operations = Record<string, Record<string, { responses?: Record<string, { content?: object }> }>>;

/** Paths (router form) whose errors are documented as HTML pages: a browser is sent there, not an API client. */
function pagePaths(doc: { paths: Operations }): Set<string> {
  const answersHtml = (ops: Operations[string]) =>
    Object.values(ops).some((op) => Object.values(op.responses ?? {}).some((r) => 'text/html' in (r.content ?? {})));
  return new Set(
    Object.entries(doc.paths)
      .filter(([, ops]) => answersHtml(ops))
      .map(([path]) => `/api/v1${path.replace(/\{(\w+)\}/g, ':$1')}`),
  );
}

function checkAnswer(route: string, method: string, answer: Answer, page = false) {
  const where = `${method} ${route} → ${answer.status} ${answer.body.slice(0, 300)}`;
  expect(answer.status, where).toBeLessThan(500);
  if (page && answer.contentType.startsWith('text/html')) return;
  if (answer.status >= 400 && method !== 'HEAD') {
    expect(answer.contentType, where).toContain('application/problem+json');
    const problem = JSON.parse(answer.body) as { status: number; detail: string };
    expect(problem.status, where).toBe(answer.status);
    expect(typeof problem.detail, where).toBe('string');
  }
}

async function fuzzRoutes(
  base: URL,
  routes: Route[],
  fieldNames: string[],
  token: string,
  pages = new Set<string>(),
): Promise<number> {
  const { body, contentType, authorization, extraHeaders } = routeArbitraries(fieldNames, token);
  let sent = 0;
  for (const route of routes) {
    const method = route.method === 'ALL' ? fc.constantFrom(...METHODS) : fc.constant(route.method);
    await fc.assert(
      fc.asyncProperty(
        method,
        concretePath(route.path),
        authorization,
        extraHeaders,
        contentType,
        fc.option(body, { freq: 3 }),
        async (m, path, auth, extra, type, payload) => {
          const headers: Record<string, string> = { ...extra };
          if (auth !== undefined) headers.authorization = auth;
          if (type !== undefined) headers['content-type'] = type;
          const withBody = payload !== null && m !== 'GET' && m !== 'OPTIONS';
          sent++;
          checkAnswer(
            route.path,
            m,
            await send(base, { method: m, path, headers, body: withBody ? payload : undefined }),
            pages.has(route.path),
          );
        },
      ),
      { numRuns: RUNS_PER_ROUTE, reporter: shortReport },
    );
  }
  return sent;
}

describe('fuzzing every HTTP route', () => {
  let agent: AgentHarness;
  let api: Api;
  let server: RunningServer;
  let erpDoc: { paths: Record<string, Record<string, unknown>> };

  beforeAll(async () => {
    agent = await startAgentHarness(tempStorage, {
      env: { ...process.env, DEEPSEEK_API_KEY: '', OPENAI_BASE_URL: '' },
    });
    api = await createApi({ runtime: agent.runtime, erpUrl: agent.runtime.options.erpUrl, dataDir: agent.dataDir });
    server = await listen(api.fetch, { host: '127.0.0.1', port: 0 });
    erpDoc = (await (await fetch(`${agent.runtime.options.erpUrl}/openapi.json`)).json()) as typeof erpDoc;
  }, 90_000);
  afterAll(async () => {
    await server?.close();
    await api?.close();
    await agent?.close();
  });

  it('answers malformed percent-escapes in a file path with 400 problem+json', async () => {
    const base = new URL(server.url);
    const headers = { authorization: `Bearer ${agent.tokens.laoxiao}` };
    for (const bad of ['%ZZ', 'x%', '%E0%A4%A', 'dir/%ZZ/report.md']) {
      const answer = await send(base, { method: 'GET', path: `/api/v1/files/some-session/${bad}`, headers });
      expect(answer.status, bad).toBe(400);
      checkAnswer('/api/v1/files/:session_id/*', 'GET', answer);
    }
  });

  it('chat API: no 5xx, problem+json errors, on every route of its router', async () => {
    const routes = uniqueRoutes(api.routes.filter((r) => r.path.startsWith('/api/')));
    // The router is the source: it must at least hold the documented chat endpoints.
    expect(routes.map((r) => `${r.method} ${r.path}`)).toEqual(
      expect.arrayContaining(['POST /api/v1/agent/chat/stream', 'GET /api/v1/files/:session_id/*']),
    );
    const fields = [
      'message',
      'session_id',
      'interrupt_id',
      'decision',
      'type',
      'args',
      'answer',
      'reason',
      'title',
      'username',
    ];
    const doc = (await (await fetch(`${server.url}/api/v1/openapi.json`)).json()) as { paths: Operations };
    const sent = await fuzzRoutes(new URL(server.url), routes, fields, agent.tokens.laoxiao, pagePaths(doc));
    expect(sent).toBeGreaterThanOrEqual(routes.length * RUNS_PER_ROUTE);
  }, 300_000);

  it('ERP: no 5xx, problem+json errors, on every route of its OpenAPI document', async () => {
    const routes = Object.entries(erpDoc.paths).flatMap(([path, ops]) =>
      Object.keys(ops)
        .filter((method) => METHODS.includes(method.toUpperCase()))
        .map((method) => ({ method: method.toUpperCase(), path })),
    );
    expect(routes.length).toBeGreaterThan(10);
    const fields = [...new Set(JSON.stringify(erpDoc).match(/"([a-zA-Z_]+)":\{"type"/g) ?? [])].map((m) =>
      m.slice(1, m.indexOf('"', 1)),
    );
    const sent = await fuzzRoutes(new URL(agent.runtime.options.erpUrl), routes, fields, agent.tokens.laoxiao);
    expect(sent).toBeGreaterThanOrEqual(routes.length * RUNS_PER_ROUTE);
  }, 300_000);
});

/** fast-check's report with long generated strings cut, so a failure stays readable. */
function shortReport<T>(details: fc.RunDetails<T>): void {
  if (!details.failed) return;
  const cut = JSON.stringify(details.counterexample, (_k, v) =>
    typeof v === 'string' && v.length > 120 ? `${v.slice(0, 120)}…(${v.length})` : v,
  );
  const error = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
  throw new Error(`fuzz failure (seed ${details.seed}, path "${details.counterexamplePath}"): ${error}\n${cut}`);
}

/** Middleware entries share paths with handlers; fuzz each method and pattern once. */
function uniqueRoutes(routes: readonly Route[]): Route[] {
  const seen = new Map<string, Route>();
  for (const r of routes) seen.set(`${r.method} ${r.path}`, r);
  return [...seen.values()];
}
