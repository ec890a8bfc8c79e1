import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_CONFIG_DIR, loadAgentConfigs } from '../../src/agent/index.ts';

const known = { toolNames: new Set(['web_search', 'task']), groups: new Set(['order']) };
const dirs: string[] = [];
function configDir(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-agents-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const agent = (name: string, tools: string) => `name: ${name}
description: 一个测试用的 Agent / a test agent
tools:
  ${tools}
limits:
  model_calls: 5
  tool_calls: 5
prompt: |
  你是一个测试用的 Agent，只在测试里运行。
`;

describe('agent configs', () => {
  it('loads the packaged configs: the orchestrator and its three sub-agents', () => {
    const names = loadAgentConfigs(known, AGENT_CONFIG_DIR, () => undefined).map((c) => c.name);
    expect(names.sort()).toEqual(['orchestrator', 'procurement-analyst', 'procurement-order', 'procurement-sourcing']);
  });

  it('fails on an invalid file, naming it and the bad entry', () => {
    const dir = configDir({ 'orchestrator.yaml': agent('orchestrator', 'names: [task]'), 'bad.yaml': 'name: X\n' });
    expect(() => loadAgentConfigs(known, dir)).toThrow(/bad\.yaml.*name/);
    const broken = configDir({ 'orchestrator.yaml': 'name: [unclosed' });
    expect(() => loadAgentConfigs(known, broken)).toThrow(/orchestrator\.yaml.*YAML/);
  });

  it('needs exactly one orchestrator', () => {
    expect(() => loadAgentConfigs(known, configDir({ 'a.yaml': agent('helper', 'names: [task]') }))).toThrow(
      /no orchestrator config/,
    );
  });

  it('reports the tools a config names that nothing offers, without failing', () => {
    const missing: Array<[string, string[]]> = [];
    const dir = configDir({ 'orchestrator.yaml': agent('orchestrator', 'names: [task, kb_lookup]\n  groups: [kb]') });
    const [config] = loadAgentConfigs(known, dir, (name, tools) => missing.push([name, tools]));
    expect(config.tools.names).toEqual(['task', 'kb_lookup']);
    expect(missing).toEqual([['orchestrator', ['kb_lookup', 'group kb']]]);
  });
});
