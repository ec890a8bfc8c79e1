import { buildUi } from './browser.ts';

/** Vitest's global setup: the browser UI is built (or found up to date) once, before any test file runs. */
export default async function setup(): Promise<void> {
  await buildUi();
}
