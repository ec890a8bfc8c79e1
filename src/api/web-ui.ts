import fs from 'node:fs';
import path from 'node:path';
import { serveStatic } from '@hono/node-server/serve-static';
import type { Hono } from 'hono';
import type { ApiEnv } from './http.ts';

/**
 * Serves the built browser UI (`webDir`, when it has an `index.html`) at `/` under {@link uiContentSecurityPolicy};
 * every other GET is the single-page app's own route. Mounted after the API's routes.
 */
export function serveWebUi(app: Hono<ApiEnv>, webDir: string | undefined, imageOrigins: string[]): void {
  if (!webDir || !fs.existsSync(path.join(webDir, 'index.html'))) return;
  const root = path.relative(process.cwd(), webDir) || '.';
  const policy = uiContentSecurityPolicy(imageOrigins);
  app.use('*', async (c, next) => {
    await next();
    c.header('content-security-policy', policy);
  });
  app.use('*', serveStatic({ root }));
  app.get('*', serveStatic({ root, path: 'index.html' }));
}

/**
 * What the browser UI may load: its own code, styles and API, and images from itself and the chart renderer.
 * Answers are model output, which a hostile web page can steer: an image from anywhere else could carry data away
 * in its address, so the browser refuses it.
 */
export function uiContentSecurityPolicy(imageOrigins: string[]): string {
  const images = ["'self'", 'data:', 'blob:', ...imageOrigins.map((o) => new URL(o).origin)];
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    `img-src ${[...new Set(images)].join(' ')}`,
    "connect-src 'self'",
    "font-src 'self' data:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}
