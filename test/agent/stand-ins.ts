import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BaseChatModel, type BaseChatModelCallOptions } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { convertToOpenAITool } from '@langchain/core/utils/function_calling';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { z } from 'zod';
import { AGENT_CONFIG_DIR, type AgentModels, createAgentModels } from '../../src/agent/index.ts';
import { listen, type RunningServer } from '../../src/shared/index.ts';

/** A tool as a model is sent it (OpenAI function format, as every chat model converts it). */
export interface SentTool {
  name: string;
  description: string;
  parameters: unknown;
}

/** One model call: which agent asked (by its system prompt), the tools it was sent and the messages. */
export interface ModelCall {
  agent: string;
  tools: SentTool[];
  messages: BaseMessage[];
}

type Script = (call: ModelCall) => AIMessage;

const AGENT_MARKS: Array<[string, string]> = [
  ['procurement-analyst', '你是采购分析师'],
  ['procurement-order', '你是采购订单专员'],
  ['procurement-sourcing', '你是询价寻源专员'],
  ['orchestrator', '主 Agent（协调者）'],
];

const text = (m: BaseMessage) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content));

/** A chat model double: records the tools each call is sent and answers by a script. */
export class RecordingModel extends BaseChatModel {
  private bound: SentTool[] = [];

  constructor(
    readonly calls: ModelCall[],
    private readonly script: Script,
  ) {
    super({});
  }

  _llmType(): string {
    return 'recording-double';
  }

  override bindTools(tools: unknown[]): this {
    const copy = new RecordingModel(this.calls, this.script) as this;
    copy.bound = tools.map((tool) => {
      const { name, description = '', parameters } = convertToOpenAITool(tool as never).function;
      return { name, description, parameters };
    });
    return copy;
  }

  async _generate(messages: BaseMessage[], _options?: BaseChatModelCallOptions): Promise<ChatResult> {
    const system = messages
      .filter((m) => m.getType() === 'system')
      .map(text)
      .join('\n');
    const agent = AGENT_MARKS.find(([, mark]) => system.includes(mark))?.[0] ?? 'other';
    const call = { agent, tools: this.bound, messages };
    if (agent !== 'other') this.calls.push(call);
    const message = agent === 'other' ? new AIMessage('{"suppliers": [], "query": ""}') : this.script(call);
    return { generations: [{ text: text(message), message }] };
  }
}

/** The models of a runtime, both the double. */
export function recordingModels(calls: ModelCall[], script: Script): AgentModels {
  const model = new RecordingModel(calls, script);
  // The offline settings' call policy and price table: the double stands where the offline model would.
  const { policy, prices } = createAgentModels({});
  return {
    main: model,
    light: model,
    provider: 'offline',
    mainName: 'recording-double',
    contextWindow: 1_000_000,
    policy,
    prices,
  };
}

/** What one MCP call arrived with. */
export interface ReceivedCall {
  tool: string;
  args: unknown;
  authorization?: string;
  project?: string;
  trace?: string;
}

/**
 * A company's own ERP MCP server, standing in for the embedded one: the tool names and shapes the agent expects,
 * answering from a fixed catalogue, with the user's categories in `part_query`'s description when a token comes.
 */
export async function startStandInErpMcp(): Promise<RunningServer & { mcpUrl: string; received: ReceivedCall[] }> {
  const received: ReceivedCall[] = [];
  const parts = [
    {
      id: 7,
      code: 'SP-ACME-1',
      name: '火花塞 ACME-1',
      category: 'ignition',
      unitPrice: 12.5,
      supplier: { id: 3, name: '艾克米' },
    },
  ];
  const server = await listen(
    async (request) => {
      const headers = request.headers;
      const token = /^Bearer (\S+)$/.exec(headers.get('authorization') ?? '')?.[1];
      const mcp = new McpServer({ name: 'acme-erp', version: '1.0.0' });
      const read = { readOnlyHint: true };
      const record = (tool: string, args: unknown) =>
        received.push({
          tool,
          args,
          authorization: headers.get('authorization') ?? undefined,
          project: headers.get('x-project-id') ?? undefined,
          trace: headers.get('x-trace-id') ?? undefined,
        });
      const json = (value: unknown) => ({ content: [{ type: 'text' as const, text: JSON.stringify(value) }] });
      mcp.registerTool(
        'supplier_query',
        {
          description: '按名称搜索供应商 / suppliers by name',
          inputSchema: { name: z.string().optional() },
          annotations: read,
        },
        async (args) => {
          record('supplier_query', args);
          return json({ items: [{ id: 3, name: '艾克米' }], total: 1 });
        },
      );
      mcp.registerTool(
        'part_search',
        { description: '按名称搜索零部件 / parts by name', inputSchema: { name: z.string() }, annotations: read },
        async (args) => {
          record('part_search', args);
          return json({ items: parts.filter((p) => p.name.includes(args.name)), total: 1 });
        },
      );
      mcp.registerTool(
        'part_query',
        {
          description: `分页查询零部件 / paged parts${token ? `\n当前可用分类 / valid categories: ignition-for-${token}` : ''}`,
          inputSchema: { category: z.string().optional() },
          annotations: read,
        },
        async (args) => {
          record('part_query', args);
          return json({ items: parts, total: parts.length });
        },
      );
      mcp.registerTool(
        'order_create',
        {
          description: '创建采购订单 / create an order',
          inputSchema: {
            supplierId: z.number(),
            lines: z.array(z.object({ partId: z.number(), quantity: z.number() })),
          },
          annotations: { readOnlyHint: false },
        },
        async (args) => {
          record('order_create', args);
          return json({ success: true, stateChanged: true, order: { orderNo: 'ACME-1' } });
        },
      );
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      await mcp.connect(transport);
      const response = await transport.handleRequest(request);
      await mcp.close();
      return response;
    },
    { host: '127.0.0.1', port: 0 },
  );
  return { ...server, mcpUrl: `${server.url}/mcp`, received };
}

/** Another MCP server a company adds (a knowledge base), with one tool. */
export async function startKnowledgeMcp(port = 0): Promise<RunningServer & { mcpUrl: string; calls: number }> {
  const state = { calls: 0 };
  const server = await listen(
    async (request) => {
      const mcp = new McpServer({ name: 'kb', version: '1.0.0' });
      mcp.registerTool(
        'kb_lookup',
        {
          description: '查询采购知识库 / look up the procurement knowledge base',
          inputSchema: { topic: z.string() },
          annotations: { readOnlyHint: true },
        },
        async (args) => {
          state.calls++;
          return {
            content: [{ type: 'text' as const, text: JSON.stringify({ topic: args.topic, answer: '双供应商策略' }) }],
          };
        },
      );
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      await mcp.connect(transport);
      const response = await transport.handleRequest(request);
      await mcp.close();
      return response;
    },
    { host: '127.0.0.1', port },
  );
  return {
    ...server,
    mcpUrl: `${server.url}/mcp`,
    get calls() {
      return state.calls;
    },
  };
}

/**
 * The packaged agent configs copied into a temp dir, with `servers` added to the named agents' YAML (how a company
 * gives an agent the tools of its own MCP server). Returns the dir; remove it when done.
 */
export function agentConfigsWithServers(servers: Record<string, string[]>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-agent-configs-'));
  for (const file of fs.readdirSync(AGENT_CONFIG_DIR)) {
    let yaml = fs.readFileSync(path.join(AGENT_CONFIG_DIR, file), 'utf8');
    const name = /^name: (\S+)$/m.exec(yaml)?.[1] ?? '';
    if (servers[name]) yaml = yaml.replace(/^tools:$/m, `servers: [${servers[name].join(', ')}]\ntools:`);
    fs.writeFileSync(path.join(dir, file), yaml);
  }
  return dir;
}
