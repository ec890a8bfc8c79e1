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

  it('a company directory replaces a shipped agent by its name and adds its own; the rest stay shipped', () => {
    const shipped = loadAgentConfigs(known, undefined, () => undefined);
    const dir = configDir({
      'analyst.yaml': agent('procurement-analyst', 'names: [web_search]'),
      'helper.yml': agent('contracts-helper', 'names: [task]'),
      'notes.txt': 'not an agent',
    });
    const configs = loadAgentConfigs(known, dir, () => undefined);
    expect(configs.map((c) => c.name)).toEqual([...shipped.map((c) => c.name), 'contracts-helper']);
    expect(configs.find((c) => c.name === 'procurement-analyst')?.tools.names).toEqual(['web_search']);
    expect(configs.find((c) => c.name === 'procurement-order')).toEqual(
      shipped.find((c) => c.name === 'procurement-order'),
    );
  });

  it('fails on an invalid file, naming it and the bad entry; on a name given twice; on a directory it cannot read', () => {
    expect(() => loadAgentConfigs(known, configDir({ 'bad.yaml': 'name: X\n' }))).toThrow(/bad\.yaml.*name/);
    expect(() => loadAgentConfigs(known, configDir({ 'orchestrator.yaml': 'name: [unclosed' }))).toThrow(
      /orchestrator\.yaml.*YAML/,
    );
    const twice = configDir({ 'a.yaml': agent('helper', 'names: [task]'), 'b.yaml': agent('helper', 'names: [task]') });
    expect(() => loadAgentConfigs(known, twice)).toThrow(/helper.*configured twice/);
    expect(() => loadAgentConfigs(known, path.join(os.tmpdir(), 'procura-no-such-dir'))).toThrow(/cannot be read/);
  });

  it('reports the tools a company’s agent names that nothing offers, without failing', () => {
    const missing: Array<[string, string[]]> = [];
    const dir = configDir({ 'orchestrator.yaml': agent('orchestrator', 'names: [task, kb_lookup]\n  groups: [kb]') });
    const configs = loadAgentConfigs(known, dir, (name, tools) => missing.push([name, tools]));
    expect(configs.find((c) => c.name === 'orchestrator')?.tools.names).toEqual(['task', 'kb_lookup']);
    expect(missing.find(([name]) => name === 'orchestrator')).toEqual(['orchestrator', ['kb_lookup', 'group kb']]);
  });
});
