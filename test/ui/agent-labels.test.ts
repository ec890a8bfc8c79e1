import { AIMessage } from '@langchain/core/messages';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ModelCall, recordingModels } from '../agent/stand-ins.ts';
import { agentsOnlyInYaml, delegatingOrchestratorYaml, type ScriptedApi, startScriptedApi } from '../api/harness.ts';
import { buildUi, hasChromium, launchChromium } from './browser.ts';

const RUN_MS = 60_000;

const ORCHESTRATOR = delegatingOrchestratorYaml();

// Names and labels differ on every run: nothing but the YAML can have told the browser about them.
const { labelled, unlabelled, files } = agentsOnlyInYaml();

/** The orchestrator delegates to the labelled agent first, then the unlabelled one, in one turn. */
function script(call: ModelCall): AIMessage {
  if (call.messages.some((m) => m.getType() === 'tool')) return new AIMessage('办好了 / done');
  return new AIMessage({
    content: '',
    tool_calls: [labelled.name, unlabelled].map((agent) => ({
      id: `task-${agent}`,
      name: 'task',
      args: { subagent_type: agent, description: '检查' },
      type: 'tool_call' as const,
    })),
  });
}

describe.skipIf(!hasChromium)('the step list names agents added only as YAML files', () => {
  let api: ScriptedApi;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    await buildUi();
    api = await startScriptedApi({
      orchestrator: ORCHESTRATOR,
      agents: files,
      models: recordingModels([], script),
    });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1440, height: 900 }, locale: 'zh-CN' });
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });

  it(
    'groups steps in configuration order under each agent’s label, in the chosen language',
    async () => {
      await page.goto(api.url);
      await page.locator('input[name=token]').fill(api.tokens.laoxiao);
      await page.getByRole('button', { name: '登录' }).click();
      await page.getByTestId('composer').fill('请检查');
      await page.getByTestId('send').click();
      await page.locator('[data-testid=steps] .step-completed').nth(1).waitFor({ timeout: RUN_MS });
      const headings = () => page.locator('[data-testid=steps] .step-group h4').allTextContents();
      expect(await headings()).toEqual([unlabelled, labelled.label.zh]);
      await page.getByRole('button', { name: 'English' }).click();
      await expect.poll(headings).toEqual([unlabelled, labelled.label.en]);
    },
    RUN_MS + 30_000,
  );
});
