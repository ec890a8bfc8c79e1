/** Writes skills/procurement/chart-params/<type>.md, one file per chart type, from the chart MCP server's live tool
 *  schemas (`npm run charts:params`). */
import fs from 'node:fs';
import path from 'node:path';
import { CHART_EXAMPLES } from '../src/charts/index.ts';
import { renderParamsReference, withLocalChartServer } from '../src/tools/charts/index.ts';

const dir = path.resolve('skills/procurement/chart-params');
const files = await withLocalChartServer(async ({ tools }) => renderParamsReference(tools, CHART_EXAMPLES));
fs.rmSync(dir, { recursive: true, force: true });
fs.mkdirSync(dir, { recursive: true });
for (const [type, markdown] of Object.entries(files)) fs.writeFileSync(path.join(dir, `${type}.md`), markdown);
console.log(`${dir}: ${Object.keys(files).length} chart types`);
