import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { getEncoding } from 'js-tiktoken';
import { describe, expect, it } from 'vitest';
import { countTokens, listToolsForModel } from '../../src/tools/index.ts';
import { createToolbox } from '../../src/tools/toolbox.ts';

const reference = getEncoding('cl100k_base');
// special-token text counted as ordinary text, as the model sees it inside a tool description
const tiktoken = (text: string) => reference.encode(text, [], []).length;

describe('countTokens', () => {
  it('counts what js-tiktoken counts for cl100k_base', () => {
    for (const text of [
      '',
      'hello world',
      '火花塞 F7TC 价格是多少？',
      '  leading and trailing  \n\n\t',
      "it's 1234567 o'clock, they'll say",
      '😀 emoji 🚀🚀 and ✓ marks',
      'ÀÉÎõü ß Привет مرحبا こんにちは',
      '{"name":"part_query","parameters":{"type":"object","properties":{"size":{"maximum":50}}}}',
      'a tool may mention <|endoftext|> in passing',
      // one long piece: a run of Chinese text merges in many steps, with many equal ranks
      '对一个零部件分类做全网比价取中该分类的零部件逐个抓取其供应商官网的报价'.repeat(8),
      'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
    ])
      expect(countTokens(text), text).toBe(tiktoken(text));
  });

  it('agrees with js-tiktoken on any text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => countTokens(text) === tiktoken(text)),
      { numRuns: 400 },
    );
  });

  it('agrees with js-tiktoken on every tool definition a model is sent', async () => {
    const asked: string[] = [];
    const toolbox = createToolbox({
      erp: {
        baseUrl: 'http://127.0.0.1:9/api',
        fetch: async (request: Request) => {
          asked.push(request.url);
          return Response.json({ items: [] });
        },
      },
      web: { suppliersUrl: 'http://127.0.0.1:9' },
    });
    const listed = await listToolsForModel(toolbox.registry, { userId: 't', role: 'buyer', traceId: 't' });
    expect(listed.length).toBeGreaterThan(10);
    // without a user's token the listing asks the ERP nothing (it would refuse anyway)
    expect(asked).toEqual([]);
    await listToolsForModel(toolbox.registry, { userId: 't', role: 'buyer', traceId: 't', token: 'tok' });
    expect(asked).toEqual([expect.stringContaining('/categories')]);
    for (const t of listed) {
      const text = JSON.stringify({ name: t.name, description: t.description, parameters: t.parameters });
      expect(t.tokens, t.name).toBe(tiktoken(text));
    }
    await toolbox.close();
  });

  it('counts a text once across processes: the next process answers from the memo without loading the ranks', () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-tokens-'));
    const text = `tool text ${Date.now()} 火花塞`;
    const script = [
      "import { createRequire } from 'node:module';",
      `import { countTokens } from ${JSON.stringify(path.resolve('src/tools/tokens.ts'))};`,
      `const count = countTokens(${JSON.stringify(text)});`,
      "const loaded = Object.keys(createRequire(import.meta.url).cache).some((f) => f.includes('cl100k_base'));",
      'console.log(JSON.stringify({ count, loaded }));',
    ].join('\n');
    const file = path.join(tmp, 'count.mts');
    fs.writeFileSync(file, script);
    const run = () =>
      JSON.parse(
        execFileSync(process.execPath, ['--import', 'tsx', file], { env: { ...process.env, TMPDIR: tmp } }).toString(),
      ) as { count: number; loaded: boolean };
    try {
      expect(run()).toEqual({ count: tiktoken(text), loaded: true });
      expect(run()).toEqual({ count: tiktoken(text), loaded: false });
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  }, 60_000);
});
