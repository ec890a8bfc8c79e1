import { AIMessage } from '@langchain/core/messages';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { listen, type RunningServer } from '../../src/shared/index.ts';
import { recordingModels } from '../agent/stand-ins.ts';
import { type ScriptedApi, startScriptedApi } from '../api/harness.ts';
import { collect, openSse, type SseEvent } from '../api/sse.ts';

// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field
type Any = any;

/** What the server's users answered, each call. */
const answers: Array<{ action: string; content?: Record<string, unknown> }> = [];
let clientCanElicit: unknown;

/** A company's MCP server, built from the SDK, whose tool asks the user how to ship before it quotes. */
function shippingServer(): McpServer {
  const server = new McpServer({ name: 'shipping', version: '1.0.0' });
  server.registerTool(
    'shipment_confirm',
    {
      description: 'quotes the shipping of an order by the carrier and speed the user picks (writes nothing)',
      inputSchema: { order: z.string() },
      annotations: { readOnlyHint: true },
    },
    async ({ order }, extra) => {
      clientCanElicit = server.server.getClientCapabilities()?.elicitation;
      const answer = await server.server.elicitInput(
        {
          message: `订单 ${order} 现在发货吗？/ ship order ${order} now?`,
          requestedSchema: {
            type: 'object',
            properties: {
              ship: { type: 'boolean', title: '发货 / ship' },
              carrier: { type: 'string', title: '承运商 / carrier', enum: ['sf', 'ems'], enumNames: ['顺丰', 'EMS'] },
            },
            required: ['ship', 'carrier'],
          },
        },
        // Asked on the call's own stream, as the specification wants for a request that belongs to a call.
        { relatedRequestId: extra.requestId },
      );
      answers.push({ action: answer.action, content: answer.content });
      const shipped = answer.action === 'accept' && answer.content?.ship === true;
      return {
        content: [{ type: 'text', text: JSON.stringify({ shipped, carrier: answer.content?.carrier ?? null }) }],
      };
    },
  );
  return server;
}

const ORCHESTRATOR = `name: orchestrator
description: 只会发货的主 Agent / an orchestrator that ships
servers: [shipping]
tools:
  names: []
limits:
  model_calls: 5
  tool_calls: 5
prompt: |
  你是测试用的主 Agent（协调者）。用 shipment_confirm 发货。
`;

describe('MCP client: elicitation', () => {
  let mcp: RunningServer;
  let api: ScriptedApi;
  beforeAll(async () => {
    // A stateful server, as elicitation needs: the session remembers that the client can be asked.
    const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
    mcp = await listen(
      async (request) => {
        const known = sessions.get(request.headers.get('mcp-session-id') ?? '');
        if (known) return known.handleRequest(request);
        const transport = new WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: () => crypto.randomUUID(),
          onsessioninitialized: (id) => void sessions.set(id, transport),
        });
        await shippingServer().connect(transport);
        return transport.handleRequest(request);
      },
      { host: '127.0.0.1', port: 0 },
    );
    api = await startScriptedApi({
      orchestrator: ORCHESTRATOR,
      mcpServers: [{ name: 'shipping', url: `${mcp.url}/mcp` }],
      models: recordingModels([], (call) => {
        const result = call.messages.find((m) => m.getType() === 'tool');
        return result
          ? new AIMessage(`结果 / result: ${String(result.content)}`)
          : new AIMessage({
              content: '',
              tool_calls: [{ id: 'ship-1', name: 'shipment_confirm', args: { order: 'PO-1' }, type: 'tool_call' }],
            });
      }),
    });
  }, 60_000);
  afterAll(async () => {
    await api?.close();
    await mcp?.close();
  });

  it('declares the capability; each field of the server’s form is an ask_user card, and the answers go back', async () => {
    const first = await api.chat(api.tokens.laoxiao, { message: '把 PO-1 发货' });
    expect(clientCanElicit).toBeTruthy();
    const ask = first.events.at(-1) as SseEvent;
    expect(ask).toMatchObject({
      event: 'interrupt',
      data: { kind: 'ask_user', multiple: false, options: [{ value: 'true' }, { value: 'false' }] },
    });
    expect(ask.data.question).toContain('shipping: 订单 PO-1 现在发货吗？');
    // While the user thinks, the server's question is cancelled with its call: nothing was accepted. The resume calls
    // the tool again, and the server asks again.
    expect(answers.filter((a) => a.action === 'accept')).toEqual([]);
    const sessionId = ask.data.session_id as string;
    const resume = async (interrupt: SseEvent, answer: string) =>
      collect(
        (
          await openSse(`${api.url}/api/v1/agent/chat/resume`, {
            token: api.tokens.laoxiao,
            body: {
              session_id: sessionId,
              interrupt_id: interrupt.data.interrupt_id,
              decision: { type: 'answer', answer },
            },
          })
        ).events,
      );
    const second = await resume(ask, 'true');
    const carrier = second.at(-1) as SseEvent;
    expect(carrier).toMatchObject({ event: 'interrupt', data: { kind: 'ask_user' } });
    expect(carrier.data.options).toEqual([
      { label: '顺丰', value: 'sf' },
      { label: 'EMS', value: 'ems' },
    ]);
    const third = await resume(carrier, 'ems');
    expect(third.at(-1)).toMatchObject({ event: 'done', data: { status: 'completed' } });
    const text = third
      .filter((e) => e.event === 'token')
      .map((e) => e.data.content)
      .join('');
    expect(text).toContain('"shipped":true');
    // The server is not declared trusted: what it sends back, the user's own answer included, is fenced as data.
    expect(text).toMatch(
      /"carrier":"<<<UNTRUSTED_TEXT source=\\"shipment_confirm carrier\\"[^>]*>>>ems<<<END_UNTRUSTED_TEXT>>>"/,
    );
    expect(answers.at(-1)).toEqual({ action: 'accept', content: { ship: true, carrier: 'ems' } });
    expect(answers.filter((a: Any) => a.action === 'accept')).toHaveLength(1);
  }, 60_000);
});
