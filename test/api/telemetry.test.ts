import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTelemetry } from '../../src/shared/telemetry.ts';
import { type ChatRequest, called, ModelStandIn, offers, type Reply, toolResult } from '../agent/model-stand-in.ts';
import { type ApiHarness, startApiHarness } from './harness.ts';
import { answerText } from './sse.ts';

const KEY = 'sk-standin-otel-secret-42';
const QUESTION = '帮我对 F7TC 火花塞做供应商比价分析';

type Value = { stringValue?: string; intValue?: string | number; arrayValue?: unknown };
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Array<{ key: string; value: Value }>;
}

/** An OTLP/HTTP JSON receiver on loopback: what an OpenTelemetry collector would get. */
async function startOtlpReceiver() {
  const spans: OtlpSpan[] = [];
  const metricNames = new Set<string>();
  const raw: string[] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    raw.push(text);
    const body = JSON.parse(text);
    if (req.url === '/v1/traces') {
      for (const r of body.resourceSpans ?? [])
        for (const s of r.scopeSpans ?? []) spans.push(...((s.spans ?? []) as OtlpSpan[]));
    } else if (req.url === '/v1/metrics') {
      for (const r of body.resourceMetrics ?? [])
        for (const s of r.scopeMetrics ?? []) for (const m of s.metrics ?? []) metricNames.add(m.name);
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    metricNames,
    raw,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const attr = (span: OtlpSpan, key: string) => {
  const v = span.attributes.find((a) => a.key === key)?.value;
  return v?.stringValue ?? (v?.intValue !== undefined ? Number(v.intValue) : undefined);
};

interface Part {
  code: string;
  unitPrice: number;
  supplier: { id: number; name: string };
}

/** The analyst as a real model would act: parts and stock in parallel, a chart from the ERP prices, a summary. */
function analyst(req: ChatRequest): Reply {
  if (!called(req, 'part_search')) {
    return {
      reasoning: '先查零件报价和库存。',
      toolCalls: [
        { name: 'part_search', args: { name: 'F7TC', limit: 50 } },
        { name: 'inventory_warning', args: {} },
      ],
    };
  }
  const parts = toolResult<{ items: Part[] }>(req, 'part_search')?.items ?? [];
  if (!called(req, 'show_chart')) {
    return {
      toolCalls: [
        {
          name: 'show_chart',
          args: {
            title: 'F7TC 各供应商单价',
            chart_type: 'bar',
            x_data: parts.map((p) => p.supplier.name),
            series: [{ name: '单价', data: parts.map((p) => p.unitPrice) }],
            unit: '元',
          },
        },
      ],
    };
  }
  const cheapest = [...parts].sort((a, b) => a.unitPrice - b.unitPrice)[0];
  return { text: `最低价供应商：${cheapest.supplier.name}，单价 ¥${cheapest.unitPrice}` };
}

function orchestrator(req: ChatRequest): Reply {
  const task = toolResult<{ text?: string }>(req, 'task');
  if (!task) {
    return { toolCalls: [{ name: 'task', args: { subagent_type: 'procurement-analyst', description: QUESTION } }] };
  }
  return { text: `分析完成。${task.text ?? ''}` };
}

describe('OpenTelemetry: GenAI spans and metrics of an analysis on a model service, sent over OTLP', () => {
  let h: ApiHarness;
  let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  const model = new ModelStandIn();

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    await model.start();
    h = await startApiHarness(
      {},
      {
        OPENAI_BASE_URL: model.url,
        OPENAI_MODEL: 'stand-in-pro',
        OPENAI_API_KEY: KEY,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_SERVICE_NAME: 'procura-test',
      },
    );
  }, 120_000);
  afterAll(async () => {
    await h?.close();
    await (await startTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }))?.shutdown();
    await model.close();
    await receiver?.close();
  });

  it('an analysis streams its chart and answer; spans nest agent → chat / tool with the GenAI attributes', async () => {
    model.script([
      { when: offers('task'), reply: orchestrator, times: Number.POSITIVE_INFINITY },
      { when: offers('show_chart'), reply: analyst, times: Number.POSITIVE_INFINITY },
      { when: (req) => !req.tools?.length, reply: { text: '{}' }, times: Number.POSITIVE_INFINITY },
    ]);
    const res = await h.chat(h.tokens.laoxiao, { message: QUESTION });
    const sessionId = res.headers.get('x-session-id') as string;
    expect(res.events.at(-1)).toMatchObject({ event: 'done', data: { status: 'completed' } });
    const chart = res.events.find((e) => e.event === 'tool_call' && e.data.tool === 'show_chart');
    const prices = await h.agent.erp.database.db
      .selectFrom('parts')
      .select(['unit_price_e4'])
      .where('model', '=', 'F7TC')
      .where('project_id', '=', 'P001')
      .execute()
      .then((rows) => rows.map((r) => ({ unit_price: r.unit_price_e4 / 10_000 })));
    expect(chart?.data.params.series[0].data.slice().sort()).toEqual(prices.map((p) => p.unit_price).sort());
    const cheapest = Math.min(...prices.map((p) => p.unit_price));
    expect(answerText(res.events)).toContain(`¥${cheapest}`);

    const telemetry = await startTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    await telemetry?.flush();

    const server = receiver.spans.find((s) => s.name === 'POST /api/v1/agent/chat/stream');
    expect(server?.kind).toBe(2); // SERVER
    expect(server && attr(server, 'http.route')).toBe('/api/v1/agent/chat/stream');
    expect(server && attr(server, 'http.response.status_code')).toBe(200);
    const run = receiver.spans.filter((s) => s.traceId === server?.traceId);
    const byName = (prefix: string) => run.filter((s) => s.name.startsWith(prefix));

    const agents = byName('invoke_agent');
    expect(agents.map((s) => attr(s, 'gen_ai.agent.name')).sort()).toEqual(['orchestrator', 'procurement-analyst']);
    const orchestratorSpan = agents.find((s) => attr(s, 'gen_ai.agent.name') === 'orchestrator') as OtlpSpan;
    const analystSpan = agents.find((s) => attr(s, 'gen_ai.agent.name') === 'procurement-analyst') as OtlpSpan;
    // The sub-agent runs inside the orchestrator's `task` tool.
    const taskSpan = run.find((s) => s.name === 'execute_tool task') as OtlpSpan;
    expect(ancestors(run, analystSpan)).toContain(taskSpan.spanId);
    expect(ancestors(run, taskSpan)).toContain(orchestratorSpan.spanId);

    const chats = byName('chat ');
    expect(chats.length).toBe(model.reported.length);
    for (const chat of chats) {
      expect(attr(chat, 'gen_ai.operation.name')).toBe('chat');
      expect(attr(chat, 'gen_ai.request.model')).toBe('stand-in-pro');
      expect(chat.kind).toBe(3); // CLIENT
    }
    const reportedInputs = model.reported.map((r) => r.input).sort();
    expect(chats.map((c) => attr(c, 'gen_ai.usage.input_tokens')).sort()).toEqual(reportedInputs);
    expect(chats.map((c) => attr(c, 'gen_ai.usage.output_tokens')).reduce((a, b) => Number(a) + Number(b), 0)).toBe(
      model.reported.reduce((s, r) => s + r.output, 0),
    );

    const tools = byName('execute_tool');
    expect(tools.map((s) => attr(s, 'gen_ai.tool.name')).sort()).toEqual(
      ['inventory_warning', 'part_search', 'show_chart', 'task'].sort(),
    );
    // Tool call ids are the ones the model service issued.
    const issued = new Set(
      model.requests.flatMap((r) => r.messages.flatMap((m) => (m.tool_calls ?? []).map((c) => c.id))),
    );
    for (const tool of tools) expect(issued.has(String(attr(tool, 'gen_ai.tool.call.id')))).toBe(true);

    // HTTP client spans: the model service and the ERP, under the same trace.
    const clients = run.filter((s) => s.kind === 3 && attr(s, 'http.request.method'));
    const hosts = new Set(clients.map((s) => String(attr(s, 'url.full') ?? '')).map((u) => new URL(u).port));
    expect(hosts.has(new URL(model.url).port)).toBe(true);
    expect(hosts.has(new URL(h.erpUrl).port)).toBe(true);

    // The server continued the caller's trace (this test's own fetch is the client span above it).
    const caller = run.find((s) => s.spanId === server?.parentSpanId);
    expect(caller && attr(caller, 'url.full')).toBe(`${h.url}/api/v1/agent/chat/stream`);
    // Every span of Procura's names the conversation and the user (the sign-in lookup precedes the session).
    const named = run.filter((s) => s !== caller && !String(attr(s, 'url.full') ?? '').endsWith('/me'));
    expect(named.length).toBeGreaterThan(10);
    for (const span of named) {
      expect([span.name, attr(span, 'gen_ai.conversation.id')]).toEqual([span.name, sessionId]);
      expect(attr(span, 'user.id')).toBe('laoxiao');
    }

    // No secrets: neither the provider key nor the user's token is in anything exported.
    const exported = receiver.raw.join('\n');
    expect(exported).not.toContain(KEY);
    expect(exported).not.toContain(h.tokens.laoxiao);

    expect([...receiver.metricNames]).toEqual(
      expect.arrayContaining([
        'gen_ai.client.token.usage',
        'gen_ai.client.operation.duration',
        'gen_ai.client.operation.time_to_first_chunk',
      ]),
    );
  });
});

/** Span ids above `span` in its trace. */
function ancestors(spans: OtlpSpan[], span: OtlpSpan): string[] {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const out: string[] = [];
  for (let p = span.parentSpanId; p && out.length < 100; p = byId.get(p)?.parentSpanId) out.push(p);
  return out;
}
