import fs from 'node:fs';
import path from 'node:path';
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import type { BackendRuntime } from 'deepagents';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type AgentStorage,
  agentBackendFor,
  createAgentStorage,
  userNamespace,
} from '../../../src/agent/backends/index.ts';
import { STORE_KINDS, tempDir } from './harness.ts';

const databaseUrl = process.env.DATABASE_URL;

describe.each(STORE_KINDS)('agent backend over the $name store', (kind) => {
  let storage: AgentStorage;
  let dataDir: string;
  let schema: string | undefined;

  beforeEach(async () => {
    if (!kind.enabled) return;
    dataDir = tempDir('procura-agent-backend-');
    schema =
      kind.name === 'postgres' ? `backend_test_${process.pid}_${Math.random().toString(36).slice(2, 8)}` : undefined;
    storage = await createAgentStorage({
      dataDir,
      databaseUrl: kind.name === 'postgres' ? databaseUrl : undefined,
      schema,
    });
  });
  afterEach(async () => {
    if (!kind.enabled) return;
    await storage.close();
    if (schema && databaseUrl) {
      const pg = (await import('pg')).default;
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const backendOf = (userId: string, sessionId: string) =>
    agentBackendFor({ store: storage.store, workspaces: storage.workspaces }, { userId, sessionId });

  it.skipIf(!kind.enabled)(
    'routes /memories/ and /persisted-skills/ to the store, everything else to the workspace',
    async () => {
      const files = backendOf('u1', 's1');
      expect((await files.write('/memories/u1/preferences.md', '# 偏好\n- 博世')).error).toBeUndefined();
      expect(
        (await files.write('/persisted-skills/price-check/SKILL.md', '---\nname: price-check\n---')).error,
      ).toBeUndefined();
      expect((await files.write('/data/quotes.csv', 'supplier,price\nNGK,11')).error).toBeUndefined();

      const memory = await storage.store.get(userNamespace('u1', 'memories'), '/u1/preferences.md');
      expect(memory?.value.content).toContain('博世');
      const skill = await storage.store.get(userNamespace('u1', 'skills'), '/price-check/SKILL.md');
      expect(skill?.value.content).toContain('price-check');
      const workspace = storage.workspaces.sandbox('u1', 's1').rootDir;
      expect(fs.readFileSync(path.join(workspace, 'data/quotes.csv'), 'utf8')).toContain('NGK');
      expect(fs.existsSync(path.join(workspace, 'memories'))).toBe(false);

      expect((await files.read('/memories/u1/preferences.md')).content).toContain('博世');
      expect((await files.ls('/')).files?.map((f) => f.path)).toEqual(
        expect.arrayContaining(['/data/', '/memories/', '/persisted-skills/']),
      );
      const run = await files.execute('js: console.log((await fs.readFile("/data/quotes.csv")).split("\\n").length)');
      expect(run).toMatchObject({ exitCode: 0, output: '2' });
    },
  );

  it.skipIf(!kind.enabled)('keeps users apart: memories, skills and workspaces (u1 vs u10)', async () => {
    const u1 = backendOf('u1', 's1');
    const u10 = backendOf('u10', 's1');
    await u1.write('/memories/u1/preferences.md', 'u1 prefers 博世');
    await u1.write('/persisted-skills/mine/SKILL.md', 'u1 skill');
    await u1.write('/analysis/report.md', 'u1 report');

    expect((await u10.read('/memories/u1/preferences.md')).error).toBeTruthy();
    expect((await u10.ls('/memories/')).files).toEqual([]);
    expect((await u10.glob('**/*', '/persisted-skills/')).files).toEqual([]);
    expect((await u10.grep('u1', '/')).matches ?? []).toEqual([]);
    expect((await u10.read('/analysis/report.md')).error).toBeTruthy();
    expect((await u10.execute('js: console.log(JSON.stringify(await fs.listDir("/")))')).output).toBe('[]');

    // u10 writing to "u1's" memory path writes into u10's own namespace, never into u1's.
    await u10.write('/memories/u1/preferences.md', 'u10 was here');
    expect((await u1.read('/memories/u1/preferences.md')).content).toBe('u1 prefers 博世');
    // …and u1 (whose label is a text prefix of u10's) never sees u10's files either.
    await u10.write('/memories/u10/notes.md', 'u10 notes');
    expect((await u1.glob('**/*', '/memories/')).files?.map((f) => f.path)).toEqual(['/memories/u1/preferences.md']);

    // The same user's memories follow them into a new session; the sandbox workspace does not.
    const u1Later = backendOf('u1', 's2');
    expect((await u1Later.read('/memories/u1/preferences.md')).content).toBe('u1 prefers 博世');
    expect((await u1Later.read('/analysis/report.md')).error).toBeTruthy();
  });

  it.skipIf(!kind.enabled)('resolves the user from the runtime context, or from the LangGraph run config', async () => {
    await backendOf('u1', 's1').write('/memories/u1/preferences.md', 'u1 prefers NGK');
    const fromRuntime = await storage.backend({ context: { userId: 'u1', sessionId: 's1' } } as BackendRuntime);
    expect((await fromRuntime.read('/memories/u1/preferences.md')).content).toBe('u1 prefers NGK');
    expect(() => storage.backend({ state: {} } as BackendRuntime)).toThrow(/userId and sessionId/);

    // deepagents sometimes passes only the state; inside a run the context still comes from the run config.
    const State = Annotation.Root({ seen: Annotation<string> });
    const graph = new StateGraph(State)
      .addNode('read', async () => {
        const files = await storage.backend({ state: {} } as BackendRuntime);
        return { seen: String((await files.read('/memories/u1/preferences.md')).content) };
      })
      .addEdge(START, 'read')
      .addEdge('read', END)
      .compile();
    const result = await graph.invoke({ seen: '' }, { context: { userId: 'u1', sessionId: 's1' } });
    expect(result.seen).toBe('u1 prefers NGK');
  });
});
