import { z } from 'zod';
import { parseSettings } from '../../shared/index.ts';

/** Settings of the web tools, from the environment; addresses of the local sites come from the caller. */
const webSettingsSchema = z.object({
  chromiumPath: z.string().min(1).default('/usr/bin/chromium').meta({ env: 'PROCURA_CHROMIUM_PATH' }),
  cacheTtlSeconds: z.coerce.number().int().min(0).max(86_400).default(600).meta({ env: 'PROCURA_WEB_CACHE_TTL' }),
  timeoutMs: z.coerce.number().int().min(1000).max(120_000).default(20_000).meta({ env: 'PROCURA_WEB_TIMEOUT_MS' }),
  maxBytes: z.coerce
    .number()
    .int()
    .min(10_000)
    .max(50_000_000)
    .default(3_000_000)
    .meta({ env: 'PROCURA_WEB_MAX_BYTES' }),
  maxRedirects: z.coerce.number().int().min(0).max(20).default(5).meta({ env: 'PROCURA_WEB_MAX_REDIRECTS' }),
  maxRetryAfterSeconds: z.coerce
    .number()
    .int()
    .min(0)
    .max(120)
    .default(10)
    .meta({ env: 'PROCURA_WEB_MAX_RETRY_AFTER' }),
  /** Extra `host:port` entries the SSRF guard lets through (comma-separated in the environment). */
  allowlist: z.array(z.string().min(1)).default([]).meta({ env: 'PROCURA_WEB_ALLOWLIST' }),
  searchProvider: z.enum(['local', 'zhipu', 'tavily']).default('local').meta({ env: 'PROCURA_WEB_SEARCH' }),
  zhipuApiKey: z.string().optional().meta({ env: 'ZHIPU_API_KEY' }),
  zhipuUrl: z.url().default('https://open.bigmodel.cn/api/paas/v4/web_search').meta({ env: 'ZHIPU_SEARCH_URL' }),
  zhipuEngine: z.string().default('search_std').meta({ env: 'ZHIPU_SEARCH_ENGINE' }),
  tavilyApiKey: z.string().optional().meta({ env: 'TAVILY_API_KEY' }),
  tavilyUrl: z.url().default('https://api.tavily.com/search').meta({ env: 'TAVILY_SEARCH_URL' }),
});

export type WebSettings = z.infer<typeof webSettingsSchema>;

/** Web settings from the environment, overridden by explicit values. Invalid values fail fast, naming the variable. */
export function loadWebSettings(
  overrides: Partial<WebSettings> = {},
  env: NodeJS.ProcessEnv = process.env,
): WebSettings {
  return parseSettings({
    schema: webSettingsSchema,
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
