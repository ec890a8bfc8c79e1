/** Writes skills/procurement/chart_params.md from the chart MCP server's live tool schemas (`npm run charts:params`). */
import fs from 'node:fs';
import path from 'node:path';
import { CHART_EXAMPLES } from '../src/charts/index.ts';
import { renderParamsReference, withLocalChartServer } from '../src/tools/charts/index.ts';

const target = path.resolve('skills/procurement/chart_params.md');
const markdown = await withLocalChartServer(async ({ tools }) => renderParamsReference(tools, CHART_EXAMPLES));
fs.mkdirSync(path.dirname(target), { recursive: true });
fs.writeFileSync(target, markdown);
console.log(`${target} (${markdown.length} chars)`);
