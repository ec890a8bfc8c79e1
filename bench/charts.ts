/**
 * `npm run bench:charts`: render time per chart type (SVG, PNG), a 10k-point line chart, throughput of the
 * renderer's HTTP endpoint under 8 concurrent requests, and the token cost of generate_visualization's
 * description against the chart server's raw tool schemas (cl100k_base).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { getEncoding } from 'js-tiktoken';
import { CHART_EXAMPLES, ChartService, ChartStore, chartTypeOfTool, svgToPng } from '../src/charts/index.ts';
import { ChartCatalog, VisualizationTools, withLocalChartServer } from '../src/tools/charts/index.ts';
import { ToolRegistry } from '../src/tools/index.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 12);
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const ms = (n: number) => n.toFixed(1).padStart(7);

async function time<T>(run: () => T | Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const value = await run();
  return [value, performance.now() - started];
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-bench-'));
const service = new ChartService(new ChartStore(scratch));

console.log(`render time per type, ${ROUNDS} rounds (ms)`);
console.log(
  `${'type'.padEnd(20)} ${'svg p50'.padStart(7)} ${'svg p99'.padStart(7)} ${'png p50'.padStart(7)} ${'png p99'.padStart(7)}`,
);
for (const [tool, args] of Object.entries(CHART_EXAMPLES)) {
  const type = chartTypeOfTool(tool)!;
  const svgTimes: number[] = [];
  const pngTimes: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const [drawn, svgMs] = await time(() => service.draw(type, args));
    const [, pngMs] = await time(() => svgToPng(drawn.svg));
    svgTimes.push(svgMs);
    pngTimes.push(pngMs);
  }
  svgTimes.sort((a, b) => a - b);
  pngTimes.sort((a, b) => a - b);
  console.log(
    `${type.padEnd(20)} ${ms(percentile(svgTimes, 50))} ${ms(percentile(svgTimes, 99))} ${ms(percentile(pngTimes, 50))} ${ms(percentile(pngTimes, 99))}`,
  );
}

const bigLine = {
  title: '1 万点价格序列',
  data: Array.from({ length: 10_000 }, (_, i) => ({
    time: `T${String(i).padStart(5, '0')}`,
    value: 12 + Math.sin(i / 200) + ((i * 7919) % 100) / 250,
  })),
};
const [bigDrawn, bigSvgMs] = await time(() => service.draw('line', bigLine));
const [bigPng, bigPngMs] = await time(() => svgToPng(bigDrawn.svg));
console.log(
  `\n10k-point line chart: svg ${bigSvgMs.toFixed(0)} ms (${(bigDrawn.svg.length / 1024).toFixed(0)} KiB), png ${bigPngMs.toFixed(0)} ms (${(bigPng.length / 1024).toFixed(0)} KiB)`,
);

await withLocalChartServer(async ({ tools, rendererUrl }) => {
  // throughput: distinct requests (no store hits), 8 in flight at a time, over the GPT-Vis endpoint
  const total = 48;
  const examples = Object.entries(CHART_EXAMPLES).filter(([tool]) => !tool.includes('map'));
  let next = 0;
  const latencies: number[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < total) {
        const i = next++;
        const [tool, args] = examples[i % examples.length];
        const sent = performance.now();
        const response = await fetch(`${rendererUrl}/api/gpt-vis`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ type: chartTypeOfTool(tool), ...args, title: `并发 ${i}` }),
        });
        const body = (await response.json()) as { success: boolean; errorMessage: string };
        if (!body.success) throw new Error(body.errorMessage);
        latencies.push(performance.now() - sent);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  console.log(
    `throughput, 8 concurrent, ${total} distinct charts (SVG+PNG+store): ${(total / seconds).toFixed(1)} charts/s, latency p50 ${percentile(latencies, 50).toFixed(0)} ms, p99 ${percentile(latencies, 99).toFixed(0)} ms`,
  );

  const encoder = getEncoding('cl100k_base');
  const registry = new ToolRegistry().register(
    VisualizationTools,
    () => new VisualizationTools(new ChartCatalog(tools), null as never),
  );
  const description = await registry.describe('generate_visualization', {
    userId: 'bench',
    role: 'buyer',
    traceId: 'bench',
  });
  const declared = JSON.stringify(registry.get('generate_visualization')!.jsonSchema);
  const raw = tools.map((t) =>
    JSON.stringify({ name: t.name, description: t.description, input_schema: t.inputSchema }),
  );
  const rawTokens = raw.reduce((sum, text) => sum + encoder.encode(text).length, 0);
  console.log(
    `\ntokens (cl100k_base): generate_visualization description ${encoder.encode(description).length} (+ its input schema ${encoder.encode(declared).length}); the ${tools.length} raw tool schemas ${rawTokens}`,
  );
});
fs.rmSync(scratch, { recursive: true, force: true });
