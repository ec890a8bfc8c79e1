import { describe, expect, it } from 'vitest';
import { createAgentModels, OfflineChatModel } from '../../src/agent/models/index.ts';

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
