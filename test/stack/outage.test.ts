import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StartedStack, startStack } from '../../bench/eval/stack.ts';
import { startErpMcpServer } from '../../src/mcp/index.ts';
import type { ChatEvent } from '../../src/protocol/index.ts';

/**
 * An outage is named, never read as "nothing found": with the ERP MCP server gone mid-session, an analysis and an
 * order both end with a retryable error naming the server, their step marked failed; once the server is back, Retry
 * takes the run up again and it completes.
 */
let stack: StartedStack;

beforeAll(async () => {
  stack = await startStack();
}, 120_000);
afterAll(() => stack?.close());

async function chat(session: string, message: string) {
  const events: ChatEvent[] = [];
  await stack.client('laoxiao').start(message, session, (e) => events.push(e));
  return events;
}

const field = (e: ChatEvent | undefined, key: string) => (e?.data as Record<string, unknown> | undefined)?.[key];

describe('the ERP MCP server killed while Procura runs', () => {
  let erpMcpUrl: string;

  beforeAll(async () => {
    // A first analysis works: the outage below comes mid-session, not at start-up.
    const before = await chat('outage-warm', '帮我对摩托车火花塞做供应商比价分析');
    expect(before.some((e) => e.event === 'done')).toBe(true);
    erpMcpUrl = stack.parts.get('ERP MCP')!.url;
    await stack.stop('ERP MCP');
  }, 180_000);

  it.each([
    ['an analysis', 'outage-analysis', '帮我对刹车片做供应商比价分析'],
    ['an order', 'outage-order', '给博世下 200 个 F7TC 火花塞的采购单'],
  ])(
    '%s ends with “服务不可用 / unavailable” naming the server, as an error step — never “not found”',
    async (_kind, session, message) => {
      const events = await chat(session, message);
      const error = events.find((e) => e.event === 'error');
      expect(String(field(error, 'message'))).toMatch(/服务不可用.*MCP erp.*unavailable/);
      expect(field(error, 'retryable')).toBe(true);
      // The step that met the outage is recorded as failed, with the reason.
      const failedSteps = events.filter((e) => e.event === 'progress' && field(e, 'status') === 'error');
      expect(failedSteps.some((e) => field(e, 'phase') === 'tool' || field(e, 'phase') === 'subagent')).toBe(true);
      // No answer claims the ERP had nothing, and nothing is asked again.
      const answer = events
        .filter((e) => e.event === 'token')
        .map((e) => field(e, 'content'))
        .join('');
      expect(answer).not.toMatch(/没有找到|No part in the ERP/);
      expect(events.some((e) => e.event === 'interrupt')).toBe(false);
    },
    120_000,
  );

  it('Retry, once the server is back, takes the analysis up again and completes it', async () => {
    const { port } = new URL(erpMcpUrl);
    const back = await startErpMcpServer({ erp: { baseUrl: stack.erpUrl }, host: '127.0.0.1', port: Number(port) });
    try {
      const events: ChatEvent[] = [];
      await stack.client('laoxiao').retry('outage-analysis', (e) => events.push(e));
      expect(events.find((e) => e.event === 'error')).toBeUndefined();
      expect(events.some((e) => e.event === 'done')).toBe(true);
      const answer = events
        .filter((e) => e.event === 'token')
        .map((e) => field(e, 'content'))
        .join('');
      expect(answer).toMatch(/供应商比价/);
    } finally {
      await back.close();
    }
  }, 180_000);
});
