import { createHash } from 'node:crypto';
import type { Context } from 'hono';
import { escapeHtml } from '../shared/index.ts';
import type { ApiEnv } from './http.ts';

/**
 * A page the chat API serves to a browser outside the UI (the quote form, an MCP sign-in's answer): it runs no script
 * and loads nothing, its one style block allowed by its hash. Its address may carry a secret (a quote token, a
 * sign-in's code), so no page it links to, no cache and no search engine may keep it.
 */
export function htmlPage(
  c: Context<ApiEnv>,
  status: number,
  page: { title: string; style: string; body: string },
): Response {
  const policy = [
    "default-src 'none'",
    `style-src 'sha256-${createHash('sha256').update(page.style).digest('base64')}'`,
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
  c.header('content-security-policy', policy);
  c.header('referrer-policy', 'no-referrer');
  c.header('cache-control', 'no-store');
  c.header('x-robots-tag', 'noindex, nofollow');
  c.header('x-content-type-options', 'nosniff');
  return c.html(
    `<!doctype html><html lang="zh-CN"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(page.title)}</title><style>${page.style}</style></head><body><main>${page.body}</main></body></html>`,
    status as 200,
  );
}
