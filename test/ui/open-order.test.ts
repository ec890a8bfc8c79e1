import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AIMessage } from '@langchain/core/messages';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentRuntime } from '../../src/agent/index.ts';
import { type Api, createApi, WEB_DIST } from '../../src/api/index.ts';
import { startErpMcpServer } from '../../src/mcp/index.ts';
import { listen, type RunningServer } from '../../src/shared/index.ts';
import { type ModelCall, recordingModels } from '../agent/stand-ins.ts';
import { startTestErp } from '../tools/harness.ts';

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = fs.existsSync(CHROMIUM);

let orderId = 0;

/** The orchestrator hands the request to the order agent, which opens the order in the user's browser. */
function script(call: ModelCall): AIMessage {
  const done = call.messages.filter((m) => m.getType() === 'tool');
  if (done.length > 0) return new AIMessage('订单已在右侧打开 / the order is open on the right');
  const [name, args] =
    call.agent === 'orchestrator'
      ? ['task', { subagent_type: 'procurement-order', description: '打开订单' }]
      : ['open_order', { orderId }];
  return new AIMessage({ content: '', tool_calls: [{ id: `${call.agent}-1`, name, args, type: 'tool_call' }] });
}

describe.skipIf(!hasChromium)('open_order in the browser', () => {
  let env: Awaited<ReturnType<typeof startTestErp>>;
  let mcp: Awaited<ReturnType<typeof startErpMcpServer>>;
  let dir: string;
  let runtime: AgentRuntime;
  let api: Api;
  let server: RunningServer;
  let browser: Browser;
  let orderNo = '';

  beforeAll(async () => {
    env = await startTestErp();
    const token = env.erp.demoTokens.laoxiao;
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const found = (await (await fetch(`${env.baseUrl}/parts/search?name=F7TC`, { headers })).json()) as {
      items: Array<{ id: number; moq: number; supplier: { id: number } }>;
    };
    const part = found.items[0];
    const created = (await (
      await fetch(`${env.baseUrl}/orders/create`, {
        method: 'POST',
        headers: { ...headers, 'idempotency-key': 'open-order-test' },
        body: JSON.stringify({ supplierId: part.supplier.id, lines: [{ partId: part.id, quantity: part.moq }] }),
      })
    ).json()) as { id: number; orderNo: string };
    orderId = created.id;
    orderNo = created.orderNo;
    mcp = await startErpMcpServer({ erp: { baseUrl: env.baseUrl }, host: '127.0.0.1', port: 0 });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-open-order-'));
    runtime = new AgentRuntime({
      dataDir: dir,
      erpUrl: env.baseUrl,
      suppliersUrl: 'http://127.0.0.1:9',
      mcpServers: [{ name: 'erp', url: mcp.mcpUrl, forwardCredentials: true, required: true }],
      models: recordingModels([], script),
      env: { ...process.env, DEEPSEEK_API_KEY: '', OPENAI_BASE_URL: '' },
    });
    api = await createApi({ runtime, erpUrl: env.baseUrl, dataDir: dir, webDir: WEB_DIST });
    server = await listen(api.fetch, { host: '127.0.0.1', port: 0 });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await api?.close();
    await runtime?.close();
    await mcp?.close();
    await env?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('shows the order the agent opened in the side panel', async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 }, locale: 'zh-CN' });
    await page.goto(server.url);
    await page.locator('input[name=token]').fill(env.erp.demoTokens.laoxiao);
    await page.getByRole('button', { name: '登录' }).click();
    await page.getByTestId('composer').fill('打开我刚下的订单');
    await page.getByTestId('send').click();
    const panel = page.getByTestId('order-panel');
    await panel.waitFor({ timeout: 60_000 });
    // Still in front once the run has ended.
    await page.getByTestId('send').waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('order-no').textContent()).toBe(orderNo);
    expect(await page.getByTestId('order-status').textContent()).toBe('draft');
    expect(await page.getByTestId('order-tab').getAttribute('aria-selected')).toBe('true');
    await page.close();
  }, 120_000);
});
