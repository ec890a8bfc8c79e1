/**
 * `npm run bench:charts`: each chart type against its floor, measured in the same run.
 * - floor: a bare ECharts SSR render of the very option our module builds (init, setOption, renderToSVGString,
 *   dispose), then resvg to PNG at the renderer's pixel ratio with a font holding exactly the chart's characters,
 *   prepared outside the clock;
 * - ours: validation + option building + SVG (`ChartService.draw`), and SVG → PNG (`svgToPng`, fonts included);
 * - the whole path through the real @antv/mcp-server-chart (MCP call → AntV server → our renderer → SVG, PNG and
 *   store), against the floor plus its transport (an MCP call the AntV server answers itself, plus an HTTP round
 *   trip to the renderer).
 * Also a 10k-point line chart, throughput under 8 concurrent requests, and the token cost of
 * generate_visualization's description (cl100k_base).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Resvg } from '@resvg/resvg-js';
import { getEncoding } from 'js-tiktoken';
import { fontSubsets } from '../src/charts/fonts.ts';
import { frameOf } from '../src/charts/frame.ts';
import {
  CHART_EXAMPLES,
  CHART_MODULES,
  ChartService,
  ChartStore,
  chartTypeOfTool,
  PIXEL_RATIO,
  svgToPng,
} from '../src/charts/index.ts';
import { echarts } from '../src/charts/render.ts';
import { FONT_FAMILY } from '../src/charts/theme.ts';
import { ChartCatalog, VisualizationTools, withLocalChartServer } from '../src/tools/charts/index.ts';
import { ToolRegistry } from '../src/tools/index.ts';
import { recordResults } from './results.ts';

recordResults('charts');

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 12);
const MCP_ROUNDS = Number(process.env.BENCH_MCP_ROUNDS ?? 5);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];
const ms = (n: number) => n.toFixed(1).padStart(7);
const ratio = (n: number) => `${n.toFixed(2)}×`.padStart(6);

function time(run: () => unknown): number {
  const started = performance.now();
  run();
  return performance.now() - started;
}
async function timeAsync(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-bench-'));
const service = new ChartService(new ChartStore(scratch));

interface Row {
  type: string;
  tool: string;
  floorSvg: number;
  floorPng: number;
  svg: number;
  png: number;
  mcp?: number;
}
const rows: Row[] = [];

for (const [tool, args] of Object.entries(CHART_EXAMPLES)) {
  const type = chartTypeOfTool(tool)!;
  const module = CHART_MODULES.get(type)!;
  const frame = frameOf(args as never, module.defaultSize);
  const option = module.build(structuredClone(args) as never, frame, []);
  const exactFont = fontSubsets().exactFiles(service.draw(type, args).svg);
  const times = { floorSvg: [] as number[], floorPng: [] as number[], svg: [] as number[], png: [] as number[] };
  try {
    for (let round = 0; round < ROUNDS; round++) {
      let floorSvg = '';
      times.floorSvg.push(
        time(() => {
          const chart = echarts.init(null, null, {
            renderer: 'svg',
            ssr: true,
            width: frame.width,
            height: frame.height,
          });
          chart.setOption(option);
          floorSvg = chart.renderToSVGString();
          chart.dispose();
        }),
      );
      times.floorPng.push(
        time(() =>
          new Resvg(floorSvg, {
            fitTo: { mode: 'zoom', value: PIXEL_RATIO },
            font: { fontFiles: exactFont.files, loadSystemFonts: false, defaultFontFamily: FONT_FAMILY },
          })
            .render()
            .asPng(),
        ),
      );
      let drawn = '';
      times.svg.push(
        time(() => {
          drawn = service.draw(type, args).svg;
        }),
      );
      times.png.push(await timeAsync(() => svgToPng(drawn)));
    }
  } finally {
    exactFont.release();
  }
  rows.push({
    type,
    tool,
    floorSvg: median(times.floorSvg),
    floorPng: median(times.floorPng),
    svg: median(times.svg),
    png: median(times.png),
  });
}

const bigLine = {
  title: '1 万点价格序列',
  data: Array.from({ length: 10_000 }, (_, i) => ({
    time: `T${String(i).padStart(5, '0')}`,
    value: 12 + Math.sin(i / 200) + ((i * 7919) % 100) / 250,
  })),
};
const bigSvgMs = time(() => service.draw('line', bigLine));
const bigDrawn = service.draw('line', bigLine);
const bigPngMs = await timeAsync(() => svgToPng(bigDrawn.svg));

let transport = 0;
let throughput = '';
let tokens = '';
await withLocalChartServer(async ({ client, tools, rendererUrl }) => {
  // transport: an MCP call the AntV server rejects itself (its own argument check) + a renderer round trip
  const mcpHop: number[] = [];
  const httpHop: number[] = [];
  for (let round = 0; round < 10; round++) {
    mcpHop.push(await timeAsync(() => client.call('generate_column_chart', { data: 'not a list' })));
    httpHop.push(
      await timeAsync(async () => {
        const response = await fetch(`${rendererUrl}/api/gpt-vis`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        });
        await response.json();
      }),
    );
  }
  transport = median(mcpHop) + median(httpHop);

  // the whole path, distinct inputs (no store hits)
  let serial = 0;
  for (const row of rows) {
    const times: number[] = [];
    for (let round = 0; round < MCP_ROUNDS; round++) {
      const args = { ...(CHART_EXAMPLES[row.tool] as Record<string, unknown>), title: `路径 ${serial++}` };
      let answer: Awaited<ReturnType<typeof client.call>> | undefined;
      times.push(
        await timeAsync(async () => {
          answer = await client.call(row.tool, args);
        }),
      );
      if (answer?.isError) throw new Error(`${row.tool}: ${answer.texts.join(' ')}`);
    }
    row.mcp = median(times);
  }

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
  throughput = `throughput, 8 concurrent, ${total} distinct charts (SVG+PNG+store): ${(total / seconds).toFixed(1)} charts/s, latency p50 ${median(latencies).toFixed(0)} ms, p99 ${latencies[Math.ceil(0.99 * latencies.length) - 1].toFixed(0)} ms`;

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
  tokens = `tokens (cl100k_base): generate_visualization description ${encoder.encode(description).length} (+ its input schema ${encoder.encode(declared).length}); the ${tools.length} raw tool schemas ${rawTokens}`;
});

console.log(
  `chart render time, p50 of ${ROUNDS} rounds (ms), ${os.cpus().length} cores; floor = bare ECharts SSR + resvg of the same option; MCP = p50 of ${MCP_ROUNDS} calls through @antv/mcp-server-chart`,
);
console.log(
  `${'type'.padEnd(20)} ${'floor svg'.padStart(9)} ${'ours svg'.padStart(8)} ${'ratio'.padStart(6)} ${'floor png'.padStart(9)} ${'ours png'.padStart(8)} ${'ratio'.padStart(6)} ${'floor all'.padStart(9)} ${'MCP path'.padStart(8)} ${'(-transport) ratio'.padStart(18)}`,
);
let worst = 0;
for (const row of rows) {
  const floor = row.floorSvg + row.floorPng;
  const mcpRatio = (row.mcp! - transport) / floor;
  worst = Math.max(worst, row.svg / row.floorSvg, row.png / row.floorPng, mcpRatio);
  console.log(
    `${row.type.padEnd(20)} ${ms(row.floorSvg).padStart(9)} ${ms(row.svg).padStart(8)} ${ratio(row.svg / row.floorSvg)} ${ms(row.floorPng).padStart(9)} ${ms(row.png).padStart(8)} ${ratio(row.png / row.floorPng)} ${ms(floor).padStart(9)} ${ms(row.mcp!).padStart(8)} ${ratio(mcpRatio).padStart(18)}`,
  );
}
console.log(`transport (MCP call answered by the AntV server + renderer HTTP round trip): ${transport.toFixed(1)} ms`);
console.log(`worst ratio: ${worst.toFixed(2)}× (target ≤ 2×)`);
console.log(
  `\n10k-point line chart: svg ${bigSvgMs.toFixed(0)} ms (${(bigDrawn.svg.length / 1024).toFixed(0)} KiB), png ${bigPngMs.toFixed(0)} ms`,
);
console.log(throughput);
console.log(`\n${tokens}`);
fs.rmSync(scratch, { recursive: true, force: true });
