import { z } from 'zod';
import { parseSettings } from '../../shared/index.ts';

/** Settings of the web tools, from the environment; addresses of the local sites come from the caller. */
const webSettingsSchema = z.object({
  chromiumPath: z.string().min(1).default('/usr/bin/chromium'),
  cacheTtlSeconds: z.coerce.number().int().min(0).max(86_400).default(600),
  timeoutMs: z.coerce.number().int().min(1000).max(120_000).default(20_000),
  maxBytes: z.coerce.number().int().min(10_000).max(50_000_000).default(3_000_000),
  maxRedirects: z.coerce.number().int().min(0).max(20).default(5),
  maxRetryAfterSeconds: z.coerce.number().int().min(0).max(120).default(10),
  /** Extra `host:port` entries the SSRF guard lets through (comma-separated in the environment). */
  allowlist: z.array(z.string().min(1)).default([]),
  searchProvider: z.enum(['local', 'zhipu', 'tavily']).default('local'),
  zhipuApiKey: z.string().optional(),
  zhipuUrl: z.url().default('https://open.bigmodel.cn/api/paas/v4/web_search'),
  zhipuEngine: z.string().default('search_std'),
  tavilyApiKey: z.string().optional(),
  tavilyUrl: z.url().default('https://api.tavily.com/search'),
});

export type WebSettings = z.infer<typeof webSettingsSchema>;

const envNames: Record<keyof WebSettings, string> = {
  chromiumPath: 'PROCURA_CHROMIUM_PATH',
  cacheTtlSeconds: 'PROCURA_WEB_CACHE_TTL',
  timeoutMs: 'PROCURA_WEB_TIMEOUT_MS',
  maxBytes: 'PROCURA_WEB_MAX_BYTES',
  maxRedirects: 'PROCURA_WEB_MAX_REDIRECTS',
  maxRetryAfterSeconds: 'PROCURA_WEB_MAX_RETRY_AFTER',
  allowlist: 'PROCURA_WEB_ALLOWLIST',
  searchProvider: 'PROCURA_WEB_SEARCH',
  zhipuApiKey: 'ZHIPU_API_KEY',
  zhipuUrl: 'ZHIPU_SEARCH_URL',
  zhipuEngine: 'ZHIPU_SEARCH_ENGINE',
  tavilyApiKey: 'TAVILY_API_KEY',
  tavilyUrl: 'TAVILY_SEARCH_URL',
};

/** Web settings from the environment, overridden by explicit values. Invalid values fail fast, naming the variable. */
export function loadWebSettings(
  overrides: Partial<WebSettings> = {},
  env: NodeJS.ProcessEnv = process.env,
): WebSettings {
  return parseSettings({
    schema: webSettingsSchema,
    envNames,
    read: (key, envName) => {
      const value = env[envName];
      return key === 'allowlist' && value
        ? value
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean)
        : value;
    },
    overrides,
    invalid: '网络工具配置无效 / invalid web settings',
  });
}
