import { buildCli } from '../../scripts/build-cli.js';
import { buildUi } from './browser.ts';

/**
 * Vitest's global setup: before any test file runs, the browser UI and the compiled CLI in dist/ (what `npm start`
 * runs, and what every started stack runs) are built once, or found up to date.
 */
export default async function setup(): Promise<void> {
  await Promise.all([buildUi(), buildCli({ quiet: true })]);
}
