import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentHarness, startAgentHarness } from './harness.ts';

describe('canonical analysis on the offline model (real sandbox, charts, supplier sites)', () => {
  let h: AgentHarness;
  beforeAll(async () => {
    h = await startAgentHarness();
  }, 90_000);
  afterAll(() => h?.close());

  it('compares spark-plug suppliers from ERP and web prices: result JSON, 2 served charts, a report', async () => {
    const ctx = h.contextFor('laoxiao', 'analysis-1');
    const turn = await h.send(ctx, '帮我对摩托车火花塞做供应商比价分析');
    expect(turn.interrupts).toEqual([]);
    expect(turn.answer).toContain('供应商比价结果');

    const workspace = path.join(h.dataDir, 'workspaces');
    const files = fs.readdirSync(workspace, { recursive: true }).map(String);
    const resultFile = files.find((f) => f.endsWith('data/analysis_result.json'));
    expect(resultFile, files.join('\n')).toBeDefined();
    const result = JSON.parse(fs.readFileSync(path.join(workspace, resultFile!), 'utf8'));
    expect(result.model).toBe('F7TC');
    expect(result.suppliers).toHaveLength(6);
    // ERP list prices and supplier web prices both made it in.
    expect(result.suppliers.every((s: { erpPrice: number }) => s.erpPrice > 0)).toBe(true);
    expect(
      result.suppliers.filter((s: { webPrice: number | null }) => typeof s.webPrice === 'number').length,
    ).toBeGreaterThanOrEqual(5);
    expect(result.trend.length).toBeGreaterThanOrEqual(2);

    const reportFile = files.find((f) => /analysis\/report_\d{8}\.md$/.test(f));
    expect(reportFile).toBeDefined();
    const report = fs.readFileSync(path.join(workspace, reportFile!), 'utf8');
    expect(report).toContain('ERP 目录价');
    expect(report).toContain('官网报价');
    const charts = [...report.matchAll(/!\[[^\]]*\]\((http[^)]+\.png)\)/g)].map((m) => m[1]);
    expect(charts.length).toBeGreaterThanOrEqual(2);
    expect(charts.length).toBeLessThanOrEqual(4);
    for (const url of charts) {
      const res = await fetch(url);
      expect(res.status).toBe(200);
      const png = new Uint8Array(await res.arrayBuffer());
      expect([...png.slice(1, 4)].map((c) => String.fromCharCode(c)).join('')).toBe('PNG');
    }
  }, 120_000);

  it('remembers the suppliers and the query in the user’s preferences', async () => {
    const storage = await h.runtime.storage();
    const ctx = h.contextFor('laoxiao', 'analysis-1');
    const backend = (await storage.backend({ context: ctx, state: {} } as never)) as unknown as {
      downloadFiles(p: string[]): Promise<Array<{ content: Uint8Array | null }>>;
    };
    const [prefs] = await backend.downloadFiles(['/memories/laoxiao/preferences.md']);
    const text = new TextDecoder().decode(prefs.content!);
    expect(text).toContain('## recent_queries');
    expect(text).toContain('火花塞');
  });
});
