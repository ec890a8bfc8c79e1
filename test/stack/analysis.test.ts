import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StartedStack, stackHarness, startStack, workspaceFile } from '../../bench/eval/stack.ts';
import { notEnglishComparison } from '../fresh-requests.ts';

/**
 * The system a user runs: `procura start`'s own code, every part, the agents' ERP tools over the ERP MCP server, the
 * offline model, and the tool-set check strict — so a tool that an agent relies on but that does not reach it over
 * MCP stops this start.
 */
let stack: StartedStack;

beforeAll(async () => {
  stack = await startStack();
}, 120_000);
afterAll(() => stack?.close());

interface AnalysisResult {
  model: string;
  suppliers: Array<{ supplier: string; code: string; erpPrice: number; webPrice: number | null }>;
  priceChecks: Array<{ supplier: string; code: string; source: 'erp' | 'web'; unitPrice: number; severity: string }>;
}

describe('an analysis on the started stack', () => {
  it.each([
    ['帮我对摩托车火花塞做供应商比价分析', 'spark plugs'],
    ['compare suppliers for brake pads', 'brake pads'],
  ])(
    '「%s」: every ERP list price and web quote has its price check (%s)',
    async (message) => {
      const h = stackHarness(stack);
      const session = `stack-analysis-${Buffer.from(message).toString('hex').slice(0, 16)}`;
      const turn = await h.send(h.contextFor('laoxiao', session), message);
      expect(turn.error, turn.answer).toBeUndefined();
      const result = JSON.parse(
        workspaceFile(stack.dataDir, session, /data\/analysis_result\.json$/) ?? 'null',
      ) as AnalysisResult;
      expect(result, turn.answer).not.toBeNull();
      expect(result.suppliers.length).toBeGreaterThanOrEqual(2);
      const expected = result.suppliers.flatMap((s) => [
        { code: s.code, source: 'erp', unitPrice: s.erpPrice },
        ...(s.webPrice === null ? [] : [{ code: s.code, source: 'web', unitPrice: s.webPrice }]),
      ]);
      expect(result.suppliers.some((s) => s.webPrice !== null)).toBe(true);
      const checked = result.priceChecks.map(({ code, source, unitPrice }) => ({ code, source, unitPrice }));
      expect(checked).toEqual(expect.arrayContaining(expected));
      expect(checked).toHaveLength(expected.length);
      // The section is headed in the request's language (one language per answer).
      const english = !/[\u3400-\u9fff]/.test(message);
      const report = workspaceFile(stack.dataDir, session, /analysis\/report_\d{8}_\d{6}\.md$/) ?? '';
      expect(report).toContain(english ? '## Price anomalies' : '## 价格异常 / Price anomalies');
      // In English the suppliers go by the English names the ERP keeps, in the answer and the report alike.
      if (english) {
        const names = await stack.erp.database.db.selectFrom('suppliers').select('name_en').execute();
        const compared = result.suppliers.map((s) => s.supplier);
        const englishNames = names.map((n) => n.name_en);
        expect(notEnglishComparison(compared, englishNames, turn.answer, report)).toBeUndefined();
      }
    },
    180_000,
  );
});
