import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ToolMessage } from '@langchain/core/messages';
import { FilesystemBackend } from 'deepagents';
import { describe, expect, it } from 'vitest';
import { createToolResultsMiddleware, TOOL_RESULTS_DIR } from '../../src/agent/middleware/tool-results.ts';
import { FULL_RESULT_KEY, tabulate, untabulate } from '../../src/agent/tool-results.ts';
import { seeded } from '../seeded.ts';

/** Any JSON value: scalars, records, lists — many of them lists of records sharing keys, some with a key missing. */
function value(next: () => number, depth: number): unknown {
  const pick = next();
  if (depth <= 0 || pick < 0.3) {
    const scalars = [null, true, false, Math.round(next() * 1e4) / 100, `文本 ${Math.floor(next() * 99)}`, '', 0];
    return scalars[Math.floor(next() * scalars.length)];
  }
  if (pick < 0.6) {
    const keys = ['id', 'code', 'unitPrice', 'supplier', 'months', 'columns', 'rows'].filter(() => next() < 0.5);
    const n = Math.floor(next() * 6);
    return Array.from({ length: n }, () =>
      Object.fromEntries(keys.filter(() => next() < 0.9).map((k) => [k, value(next, depth - 1)])),
    );
  }
  if (pick < 0.75) return Array.from({ length: Math.floor(next() * 4) }, () => value(next, depth - 1));
  return Object.fromEntries(
    ['items', 'total', 'series', 'traceId'].filter(() => next() < 0.6).map((k) => [k, value(next, depth - 1)]),
  );
}

describe('tool answers as tables', () => {
  it('reads back exactly the answer it was made from, for any JSON', () => {
    for (let seed = 1; seed <= 400; seed++) {
      const answer = value(seeded(seed).next, 4);
      const sent = JSON.parse(JSON.stringify(tabulate(answer)));
      expect(untabulate(sent), `seed ${seed}`).toEqual(answer);
    }
  });

  it('sends each key of a list of records once', () => {
    const { next } = seeded(7);
    const items = Array.from({ length: 30 }, (_, i) => ({
      id: i + 1,
      code: `P-${i}`,
      unitPrice: Math.round(next() * 5000) / 100,
      supplier: { id: i % 4, name: `供应商${i % 4}` },
    }));
    const sent = JSON.stringify(tabulate({ items, total: 30 }));
    expect(sent.match(/"unitPrice"/g)).toHaveLength(1);
    expect(sent.length).toBeLessThan(JSON.stringify({ items, total: 30 }).length * 0.75);
    for (const item of items) expect(sent).toContain(String(item.unitPrice));
  });
});

describe('tool results middleware', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-results-'));
  const backend = () => new FilesystemBackend({ rootDir: root, virtualMode: true });
  const middleware = createToolResultsMiddleware({
    backend: backend as never,
    compacts: (tool) => tool !== 'read_file',
    minTokens: 50,
  });
  const call = async (name: string, content: string, status: 'success' | 'error' = 'success') => {
    const id = `call-${name}-${content.length}`;
    const handler = async () => new ToolMessage({ content, tool_call_id: id, name, status });
    const request = { toolCall: { name, id, args: {} }, state: { messages: [] }, runtime: { context: {} } };
    return (await (middleware.wrapToolCall as (r: unknown, h: unknown) => Promise<ToolMessage>)(request, handler))
      .content as string;
  };
  const parts = Array.from({ length: 12 }, (_, i) => ({ id: i + 1, code: `BS-${i}`, unitPrice: 10 + i / 7 }));

  it('sends a large answer as tables with the path of the whole answer, kept exactly in the workspace', async () => {
    const original = JSON.stringify({ items: parts, total: 12, traceId: 't-1' });
    const sent = JSON.parse(await call('part_query', original));
    expect(sent.items.columns).toEqual(['id', 'code', 'unitPrice']);
    expect(untabulate({ ...sent, [FULL_RESULT_KEY]: undefined })).toEqual({ ...JSON.parse(original) });
    expect(sent[FULL_RESULT_KEY]).toMatch(new RegExp(`^${TOOL_RESULTS_DIR}part_query-`));
    expect(fs.readFileSync(path.join(root, sent[FULL_RESULT_KEY]), 'utf8')).toBe(original);
  });

  it('leaves small answers, failures, text and other tools as they are', async () => {
    const small = JSON.stringify({ items: parts.slice(0, 2) });
    expect(await call('part_query', small)).toBe(small);
    const failed = JSON.stringify({ success: false, error: 'x'.repeat(400), items: parts });
    expect(await call('part_query', failed)).toBe(failed);
    const errored = JSON.stringify({ items: parts });
    expect(await call('part_query', errored, 'error')).toBe(errored);
    const text = 'line\n'.repeat(200);
    expect(await call('part_query', text)).toBe(text);
    const file = JSON.stringify({ items: parts });
    expect(await call('read_file', file)).toBe(file);
  });
});
