import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { FilesystemBackend } from 'deepagents';
import { describe, expect, it, vi } from 'vitest';
import { userContextText } from '../../src/agent/middleware/context-injection.ts';
import {
  MEMORY_LIMITS,
  memorableRun,
  mergeRecent,
  parsePreferences,
  renderPreferences,
} from '../../src/agent/middleware/memory-update.ts';
import { SkillsSync } from '../../src/agent/skills/sync.ts';

const tmp = (prefix: string) => fs.mkdtempSync(path.join(os.tmpdir(), prefix));

describe('context injection', () => {
  it('falls back in three levels: no context, no user id, no name', () => {
    expect(userContextText(undefined)).toBeUndefined();
    expect(userContextText({ role: 'buyer' })).toBeUndefined();
    const text = userContextText({ userId: 'laoxiao', role: 'buyer', traceId: 't', sessionId: 's' });
    expect(text).toContain('user_id: laoxiao，姓名: laoxiao');
    expect(text).toContain('/memories/laoxiao/preferences.md');
    expect(
      userContextText({ userId: 'laoxiao', username: '老肖', role: 'viewer', traceId: 't', sessionId: 's' }),
    ).toContain('只读');
  });
});

describe('memory update', () => {
  it('keeps at most 10 suppliers and 5 queries, newest first, without duplicates', () => {
    let prefs = parsePreferences('# 我的偏好\n喜欢国产品牌');
    for (let i = 0; i < 15; i++) {
      prefs.recentSuppliers = mergeRecent(prefs.recentSuppliers, [`供应商${i}`, '博世'], MEMORY_LIMITS.suppliers);
      prefs.recentQueries = mergeRecent(prefs.recentQueries, [`查询 ${i}`], MEMORY_LIMITS.queries);
      prefs = parsePreferences(renderPreferences(prefs));
    }
    expect(prefs.recentSuppliers).toHaveLength(10);
    expect(prefs.recentSuppliers.filter((s) => s === '博世')).toHaveLength(1);
    expect(prefs.recentSuppliers[0]).toBe('供应商14');
    expect(prefs.recentQueries).toEqual(['查询 14', '查询 13', '查询 12', '查询 11', '查询 10']);
    expect(prefs.notes).toContain('喜欢国产品牌');
  });

  it('skips small talk and remembers ERP work', () => {
    expect(memorableRun([new HumanMessage('你好'), new AIMessage('您好！')])).toBeUndefined();
    const run = memorableRun([
      new HumanMessage('帮我对摩托车火花塞做供应商比价分析'),
      new AIMessage({ content: '', tool_calls: [{ name: 'task', args: {}, id: 'c1' }] }),
      new ToolMessage({ content: 'done', tool_call_id: 'c1' }),
      new AIMessage('x'.repeat(500)),
    ]);
    expect(run?.request).toContain('火花塞');
    expect(run?.answer).toHaveLength(300);
  });
});

describe('skills sync', () => {
  it('uploads everything once, then only the changed file', async () => {
    const skills = tmp('procura-skills-');
    fs.mkdirSync(path.join(skills, 'procurement/a'), { recursive: true });
    fs.writeFileSync(path.join(skills, 'procurement/a/SKILL.md'), '# A');
    fs.writeFileSync(path.join(skills, 'procurement/b.md'), '# B');
    const sandbox = new FilesystemBackend({ rootDir: tmp('procura-sandbox-'), virtualMode: true });
    const sync = new SkillsSync(skills);
    expect((await sync.sync('u/s', sandbox)).sort()).toEqual([
      '/skills/procurement/a/SKILL.md',
      '/skills/procurement/b.md',
    ]);
    expect(await sync.sync('u/s', sandbox)).toEqual([]);
    fs.writeFileSync(path.join(skills, 'procurement/b.md'), '# B, revised');
    expect(await sync.sync('u/s', sandbox)).toEqual(['/skills/procurement/b.md']);
    const [file] = await sandbox.downloadFiles(['/skills/procurement/b.md']);
    expect(new TextDecoder().decode(file.content!)).toBe('# B, revised');
    // A new process (fresh cache) learns what the sandbox already holds instead of re-uploading it.
    expect(await new SkillsSync(skills).sync('u/s', sandbox)).toEqual([]);
  });

  it('reads an unchanged local file once, however many sandboxes it goes to', async () => {
    const skills = tmp('procura-skills-');
    const file = path.join(skills, 'SKILL.md');
    fs.writeFileSync(file, '# A');
    const sandbox = new FilesystemBackend({ rootDir: tmp('procura-sandbox-'), virtualMode: true });
    const sync = new SkillsSync(skills);
    const reads = vi.spyOn(fs, 'readFileSync');
    const readsOfSkill = () => reads.mock.calls.filter(([p]) => p === file).length;
    try {
      for (const session of ['u/s1', 'u/s2', 'u/s3']) await sync.sync(session, sandbox);
      expect(readsOfSkill()).toBe(1);
      fs.writeFileSync(file, '# A, revised');
      expect(await sync.sync('u/s1', sandbox)).toEqual(['/skills/SKILL.md']);
      expect(readsOfSkill()).toBe(2);
    } finally {
      reads.mockRestore();
    }
  });

  it('remembers the 1,000 most recently synced sandboxes and asks a forgotten one again', async () => {
    const skills = tmp('procura-skills-');
    fs.writeFileSync(path.join(skills, 'SKILL.md'), '# A');
    const sandbox = new FilesystemBackend({ rootDir: tmp('procura-sandbox-'), virtualMode: true });
    const asked: string[] = [];
    let workspace = '';
    const counted = {
      uploadFiles: (files: Array<[string, Uint8Array]>) => sandbox.uploadFiles(files),
      downloadFiles: (paths: string[]) => {
        asked.push(workspace);
        return sandbox.downloadFiles(paths);
      },
    };
    const sync = new SkillsSync(skills);
    const syncs = async (...workspaces: string[]) => {
      for (workspace of workspaces) await sync.sync(workspace, counted);
    };
    await syncs(...Array.from({ length: 1_001 }, (_, i) => `u/s${i}`));
    expect(asked).toHaveLength(1_001);
    asked.length = 0;
    await syncs('u/s1000', 'u/s1');
    expect(asked).toEqual([]);
    // The oldest one fell out: learning what it holds again finds its files there and uploads nothing.
    await syncs('u/s0');
    expect(asked).toEqual(['u/s0']);
    expect(await sync.sync('u/s0', counted)).toEqual([]);
  });
});
