import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ListedTool } from '../../charts/index.ts';

export interface ChartCallResult {
  isError: boolean;
  texts: string[];
}

/** A connection to a chart MCP server (ours or a hosted one) over streamable HTTP. */
export class ChartMcpClient {
  private constructor(
    private readonly client: Client,
    readonly url: string,
  ) {}

  /** `token`: the server's bearer token (ours always wants one). */
  static async connect(url: string, token?: string): Promise<ChartMcpClient> {
    const client = new Client({ name: 'procura-charts', version: '0.1.0' });
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
    return new ChartMcpClient(client, url);
  }

  async listTools(): Promise<ListedTool[]> {
    const tools: ListedTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.client.listTools(cursor ? { cursor } : {});
      tools.push(...(page.tools as ListedTool[]));
      cursor = page.nextCursor;
    } while (cursor);
    return tools;
  }

  /** Calls a tool; protocol-level errors (invalid params, renderer failures) come back as `isError`. */
  async call(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<ChartCallResult> {
    try {
      const result = await this.client.callTool({ name, arguments: args }, undefined, { signal, timeout: 60_000 });
      const content = (result.content ?? []) as Array<{ type: string; text?: string }>;
      return {
        isError: result.isError === true,
        texts: content.filter((c) => c.type === 'text' && c.text).map((c) => c.text!),
      };
    } catch (error) {
      if (signal?.aborted) throw error;
      return { isError: true, texts: [error instanceof Error ? error.message : String(error)] };
    }
  }

  close(): Promise<void> {
    return this.client.close();
  }
}
