import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { awaitAllCallbacks } from '@langchain/core/callbacks/promises';
import type { AIMessageChunk } from '@langchain/core/messages';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgentModels, OfflineChatModel } from '../../src/agent/models/index.ts';
import { costOf, DEFAULT_PRICES, priceTable, UsageMeter } from '../../src/agent/models/usage.ts';
import { ModelStandIn } from './model-stand-in.ts';

describe('model selection', () => {
  it('uses the offline model without any key, labelled as such', () => {
    const models = createAgentModels({});
    expect(models.provider).toBe('offline');
    expect(models.main).toBeInstanceOf(OfflineChatModel);
  });

  it('prefers DeepSeek with a key, then an OpenAI-compatible endpoint', () => {
    expect(createAgentModels({ DEEPSEEK_API_KEY: 'sk-test' })).toMatchObject({
      provider: 'deepseek',
      mainName: 'deepseek-v4-pro',
    });
    expect(createAgentModels({ OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1', OPENAI_MODEL: 'qwen3' })).toMatchObject({
      provider: 'openai-compatible',
      mainName: 'qwen3',
    });
  });

  it('refuses incomplete or invalid settings with a clear message', () => {
    expect(() => createAgentModels({ OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1' })).toThrow(/OPENAI_MODEL/);
    expect(() => createAgentModels({ OPENAI_BASE_URL: 'not a url' })).toThrow(/OPENAI_BASE_URL/);
  });
});

describe('model service settings', () => {
  const standIn = new ModelStandIn();
  beforeAll(() => standIn.start());
  afterAll(() => standIn.close());

  it('DEEPSEEK_BASE_URL sends DeepSeek calls through a gateway, with the key, streaming reasoning apart', async () => {
    standIn.script([{ reply: { reasoning: '想一想', text: '你好', usage: { input: 12, output: 3 } } }]);
    const models = createAgentModels({ DEEPSEEK_API_KEY: 'sk-gateway-test', DEEPSEEK_BASE_URL: standIn.url });
    // Streamed, as the agent calls it (a plain invoke would also estimate tokens with an encoder fetched online).
    let reply = undefined as unknown as AIMessageChunk;
    for await (const chunk of await models.main.stream('hi')) reply = reply ? reply.concat(chunk) : chunk;
    expect(reply.content).toBe('你好');
    expect(reply.additional_kwargs.reasoning_content).toBe('想一想');
    expect(reply.usage_metadata).toMatchObject({ input_tokens: 12, output_tokens: 3 });
    expect(standIn.requests[0]).toMatchObject({ model: 'deepseek-v4-pro', authorization: 'Bearer sk-gateway-test' });
  });

  it('the offline model reports 0 tokens and costs nothing', async () => {
    const models = createAgentModels({});
    const meter = new UsageMeter(models.prices);
    await models.main.invoke('你好', { callbacks: [meter] });
    await awaitAllCallbacks();
    expect(meter.calls).toBe(1);
    expect(meter.totals).toEqual({ input_tokens: 0, output_tokens: 0, cost: 0 });
  });

  it('prices calls from the table; PROCURA_MODEL_PRICES overrides it and is validated', () => {
    const usage = { model: 'deepseek-v4-flash', inputTokens: 1_000_000, outputTokens: 1_000_000, cachedInputTokens: 0 };
    expect(costOf(priceTable(), usage)).toBeCloseTo(DEFAULT_PRICES['deepseek-v4-flash'].input + 0.28);
    const cached = { ...usage, cachedInputTokens: 1_000_000 };
    expect(costOf(priceTable(), cached)).toBeCloseTo(0.0028 + 0.28);
    const table = priceTable('{"qwen3":{"input":1,"output":2}}');
    expect(costOf(table, { ...usage, model: 'qwen3' })).toBe(3);
    expect(costOf(table, { ...usage, model: 'unknown' })).toBe(0);
    expect(() => createAgentModels({ PROCURA_MODEL_PRICES: '{"m":{"input":-1,"output":1}}' })).toThrow(
      /PROCURA_MODEL_PRICES/,
    );
    expect(() => createAgentModels({ PROCURA_MODEL_RETRIES: 'many' })).toThrow(/PROCURA_MODEL_RETRIES/);
  });

  it('reads the prices from a dated price list with its source; PROCURA_MODEL_PRICES_FILE names another', () => {
    const packaged = createAgentModels({}).priceList;
    expect(packaged.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(packaged.source).toMatch(/^https:\/\//);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-prices-'));
    for (let i = 1; i <= 5; i++) {
      const price = { provider: `p${i}`, input: i * 0.37, cached_input: i * 0.01, output: i * 1.13 };
      const file = path.join(dir, `prices-${i}.json`);
      const list = { date: `2027-0${i}-1${i}`, source: `https://example.com/pricing/${i}`, unit: 'USD per 1M tokens' };
      fs.writeFileSync(file, JSON.stringify({ ...list, models: { [`model-${i}`]: price } }));
      const models = createAgentModels({ PROCURA_MODEL_PRICES_FILE: file });
      expect(models.priceList).toEqual({ date: list.date, source: list.source });
      const usage = {
        model: `model-${i}`,
        inputTokens: 2_000_000,
        outputTokens: 1_000_000,
        cachedInputTokens: 1_000_000,
      };
      expect(costOf(models.prices, usage)).toBeCloseTo(price.input + price.cached_input + price.output, 6);
      // The packaged models are not priced by another list.
      expect(models.prices['deepseek-v4-pro']).toBeUndefined();
      const overridden = createAgentModels({
        PROCURA_MODEL_PRICES_FILE: file,
        PROCURA_MODEL_PRICES: '{"x":{"input":1,"output":1}}',
      });
      expect(overridden.priceList.source).toBe(`${list.source} + PROCURA_MODEL_PRICES`);
      expect(overridden.prices[`model-${i}`]).toBeDefined();
    }
    const undated = path.join(dir, 'undated.json');
    fs.writeFileSync(undated, JSON.stringify({ source: 'x', unit: 'USD per 1M tokens', models: {} }));
    expect(() => createAgentModels({ PROCURA_MODEL_PRICES_FILE: undated })).toThrow(/undated\.json.*date/);
    expect(() => createAgentModels({ PROCURA_MODEL_PRICES_FILE: path.join(dir, 'missing.json') })).toThrow(
      /PROCURA_MODEL_PRICES_FILE/,
    );
  });
});
