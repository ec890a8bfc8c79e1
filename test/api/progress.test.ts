import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AIMessage } from '@langchain/core/messages';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AgentRuntime } from '../../src/agent/index.ts';
import { type Api, createApi } from '../../src/api/index.ts';
import { listen, type RunningServer } from '../../src/shared/index.ts';
import { type ModelCall, recordingModels } from '../agent/stand-ins.ts';
import { startTestErp } from '../tools/harness.ts';
import { tempStorage } from './harness.ts';
import { collect, openSse } from './sse.ts';

const STEPS = 6;
const STEP_MS = 500;
const INACTIVITY_MS = 1_500;

/** An orchestrator that may only count slowly. */
const ORCHESTRATOR = `name: orchestrator
description: 只会慢慢数数的主 Agent / an orchestrator that counts slowly
tools:
  names: [slow_count]
limits:
  model_calls: 5
  tool_calls: 5
prompt: |
  你是测试用的主 Agent（协调者）。用 slow_count 数数。
`;

function script(call: ModelCall): AIMessage {
  const counted = call.messages.some((m) => m.getType() === 'tool');
  if (counted) return new AIMessage('数完了 / counted');
  return new AIMessage({
    content: '',
    tool_calls: [{ id: 'count-1', name: 'slow_count', args: {}, type: 'tool_call' }],
  });
}

let env: Awaited<ReturnType<typeof startTestErp>>;
let dir: string;
let runtime: AgentRuntime;
let api: Api;
let server: RunningServer;

beforeAll(async () => {
  env = await startTestErp();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-progress-'));
  const configDir = path.join(dir, 'agents');
  fs.mkdirSync(configDir);
  fs.writeFileSync(path.join(configDir, 'orchestrator.yaml'), ORCHESTRATOR);
  runtime = new AgentRuntime({
    dataDir: dir,
    erpUrl: env.baseUrl,
    models: recordingModels([], script),
    storage: tempStorage,
    configDir,
    extraTools: [
      async (registry) => {
        registry.registerRemote(
          {
            name: 'slow_count',
            label: '慢慢数数',
            description: 'counts to six, slowly, reporting each step',
            schema: z.object({}),
            safety: 'read-only',
            group: 'test',
          },
          { type: 'object', properties: {} },
          async (_input, _ctx, control) => {
            for (let i = 1; i <= STEPS; i++) {
              await new Promise((resolve) => setTimeout(resolve, STEP_MS));
              control.progress?.(`数到 ${i} / counted ${i} of ${STEPS}`);
            }
            return { counted: STEPS };
          },
        );
        return undefined;
      },
    ],
  });
  api = await createApi({ runtime, erpUrl: env.baseUrl, dataDir: dir, limits: { inactivityMs: INACTIVITY_MS } });
  server = await listen(api.fetch, { host: '127.0.0.1', port: 0 });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await api?.close();
  await runtime?.close();
  await env?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('tool progress', () => {
  it('streams a tool’s progress() as updates of its step, each resetting the inactivity timer', async () => {
    const res = await openSse(`${server.url}/api/v1/agent/chat/stream`, {
      token: env.erp.demoTokens.laoxiao,
      body: { message: '数到六' },
    });
    const events = await collect(res.events);
    const updates = events.filter((e) => e.event === 'progress' && (e.data as { id?: string }).id === 'count-1');
    const details = updates.map((e) => (e.data as { status: string; detail: string }).detail);
    // Running longer than the inactivity limit, the run lives on because each update counts as activity.
    expect(STEPS * STEP_MS).toBeGreaterThan(INACTIVITY_MS);
    expect(events.at(-1)?.event).toBe('done');
    expect(details).toEqual(
      expect.arrayContaining([`数到 1 / counted 1 of ${STEPS}`, `数到 ${STEPS} / counted ${STEPS} of ${STEPS}`]),
    );
    expect(updates.at(-1)?.data).toMatchObject({ status: 'completed' });
  }, 60_000);
});
