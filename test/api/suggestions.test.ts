import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHarness, startApiHarness } from './harness.ts';

describe('GET /api/v1/agent/suggestions', () => {
  let h: ApiHarness;
  beforeAll(async () => {
    h = await startApiHarness();
  }, 90_000);
  afterAll(() => h?.close());

  const modelsOf = async (projectId: string) =>
    new Set(
      (
        await h.agent.erp.database.db.selectFrom('parts').select('model').where('project_id', '=', projectId).execute()
      ).map((p) => p.model),
    );

  it('needs a signed-in user', async () => {
    expect((await h.call('GET', '/api/v1/agent/suggestions', { token: null })).status).toBe(401);
  });

  it('builds three requests from the catalogue of the user’s own project', async () => {
    for (const [user, project] of [
      ['laoxiao', 'P001'],
      ['zhangwei', 'P002'],
    ] as const) {
      const res = await h.call('GET', '/api/v1/agent/suggestions', { token: h.tokens[user] });
      expect(res.status).toBe(200);
      expect(res.body.offline).toBe(true);
      const suggestions = res.body.suggestions as Array<{ flow: string; text: string; textEn: string }>;
      expect(suggestions.map((s) => s.flow)).toEqual(['analysis', 'order', 'trend']);
      const order = suggestions.find((s) => s.flow === 'order');
      const model = /下 \d+ \S+ (\S+)/.exec(order?.text ?? '')?.[1] ?? '';
      expect((await modelsOf(project)).has(model), `${user}: ${order?.text}`).toBe(true);
    }
  });
});
