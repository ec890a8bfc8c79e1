import { AIMessage } from '@langchain/core/messages';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TerminalRenderer } from '../../src/cli/chat/render.ts';
import { TerminalChat } from '../../src/cli/chat/terminal-chat.ts';
import { type AgentLabel, ChatClient, type ProgressData } from '../../src/protocol/index.ts';
import { type ModelCall, recordingModels } from '../agent/stand-ins.ts';
import { agentsOnlyInYaml, delegatingOrchestratorYaml, type ScriptedApi, startScriptedApi } from './harness.ts';

const ORCHESTRATOR = delegatingOrchestratorYaml({ zh: '总调度', en: 'Dispatcher' });

// Names and labels differ on every run: nothing but the YAML can have told the clients about them.
const { labelled, unlabelled, files } = agentsOnlyInYaml();
/** The sub-agent the orchestrator delegates the next message to. */
let delegateTo = labelled.name;

function script(call: ModelCall): AIMessage {
  if (call.messages.some((m) => m.getType() === 'tool')) return new AIMessage('办好了 / done');
  return new AIMessage({
    content: '',
    tool_calls: [
      {
        id: `task-${delegateTo}`,
        name: 'task',
        args: { subagent_type: delegateTo, description: '检查' },
        type: 'tool_call',
      },
    ],
  });
}

let api: ScriptedApi;

beforeAll(async () => {
  api = await startScriptedApi({
    orchestrator: ORCHESTRATOR,
    agents: files,
    models: recordingModels([], script),
  });
}, 60_000);

afterAll(() => api?.close());

const delegation = (events: Array<{ event: string; data: unknown }>) =>
  events
    .filter((e) => e.event === 'progress' && (e.data as ProgressData).phase === 'subagent')
    .map((e) => e.data as ProgressData);

describe('an agent added only as a YAML file', () => {
  it('is served with its labels by GET /api/v1/agents, declared in the OpenAPI document', async () => {
    const client = new ChatClient(api.url, api.tokens.laoxiao);
    const agents = await client.agents();
    // The orchestrator first (its file here replaces the shipped one), the shipped sub-agents, then the added ones.
    expect(agents[0]).toEqual({ name: 'orchestrator', label: { zh: '总调度', en: 'Dispatcher' } });
    expect(agents.map((a) => a.name)).toEqual(expect.arrayContaining(['procurement-analyst', 'procurement-order']));
    expect(agents.slice(-2)).toEqual([
      { name: unlabelled, label: { zh: unlabelled, en: unlabelled } },
      labelled,
    ] satisfies AgentLabel[]);
    const document = (await fetch(`${api.url}/api/v1/openapi.json`).then((r) => r.json())) as {
      paths: Record<string, Record<string, { operationId: string }>>;
    };
    expect(document.paths['/agents']?.get?.operationId).toBe('listAgents');
    expect((await fetch(`${api.url}/api/v1/agents`)).status).toBe(401);
  });

  it('names the step of a delegation to it by its labels in the stream', async () => {
    delegateTo = labelled.name;
    const { events } = await api.chat(api.tokens.laoxiao, { message: '请质检' });
    expect(events.at(-1)?.event).toBe('done');
    const steps = delegation(events);
    expect(steps.map((s) => s.agent)).toContain(labelled.name);
    expect(steps.find((s) => s.agent === labelled.name)?.title).toBe(
      `委派子智能体：${labelled.label.zh} / delegate to ${labelled.label.en}`,
    );
    delegateTo = unlabelled;
    const plain = delegation((await api.chat(api.tokens.laoxiao, { message: '请审计' })).events);
    expect(plain.find((s) => s.agent === unlabelled)?.title).toBe(
      `委派子智能体：${unlabelled} / delegate to ${unlabelled}`,
    );
  }, 60_000);

  it('shows with its label in procura chat', async () => {
    delegateTo = labelled.name;
    let written = '';
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written += String(chunk);
      return true;
    });
    try {
      const chat = new TerminalChat(new ChatClient(api.url, api.tokens.laoxiao), {
        json: false,
        yes: false,
        interactive: false,
      });
      expect(await chat.turn('请质检')).toBe('done');
    } finally {
      write.mockRestore();
    }
    const line = written.split('\n').find((l) => l.includes('委派子智能体'));
    expect(line).toContain(`[${labelled.label.zh}]`);
    expect(written).not.toContain(`[${labelled.name}]`);
  }, 60_000);

  it('falls back to the raw name in the terminal for an agent the API did not list', () => {
    let written = '';
    const out = { isTTY: false, write: (text: string) => (written += text) } as unknown as NodeJS.WriteStream;
    const renderer = new TerminalRenderer(out);
    renderer.agents = [labelled];
    const step = { id: 's1', phase: 'subagent', title: 't', detail: '' } as const;
    for (const agent of [labelled.name, 'ghost-agent']) {
      renderer.event({ event: 'progress', data: { ...step, id: agent, agent, status: 'running' } });
      renderer.event({ event: 'progress', data: { ...step, id: agent, agent, status: 'completed' } });
    }
    expect(written).toContain(`[${labelled.label.zh}] t`);
    expect(written).toContain('[ghost-agent] t');
  });
});
