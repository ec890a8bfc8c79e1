import path from 'node:path';
import { z } from 'zod';

const httpUrl = z.url({ protocol: /^https?$/ }).transform((url) => url.replace(/\/+$/, ''));

/** Every address and storage location is a setting; defaults are the embedded single-machine layout. */
const settingsSchema = z.object({
  host: z.string().min(1).default('127.0.0.1'),
  dataDir: z.string().min(1).default('./data'),
  databaseUrl: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
  redisUrl: z.url({ protocol: /^rediss?$/ }).optional(),
  erpPort: z.coerce.number().int().min(0).max(65535).default(8080),
  suppliersPort: z.coerce.number().int().min(0).max(65535).default(8090),
  chartsPort: z.coerce.number().int().min(0).max(65535).default(8070),
  chartMcpPort: z.coerce.number().int().min(0).max(65535).default(1122),
  /** A chart MCP server to use instead of spawning the local one (e.g. a hosted AntV server). */
  chartMcpUrl: httpUrl.optional(),
  erpMcpPort: z.coerce.number().int().min(0).max(65535).default(8000),
  apiPort: z.coerce.number().int().min(0).max(65535).default(3000),
  /** Sandbox limits; unset means the built-in defaults (see the README, "Sandbox"). */
  sandboxMemoryMb: z.coerce.number().int().min(1).max(4096).optional(),
  sandboxTimeoutMs: z.coerce.number().int().min(100).optional(),
  sandboxCpuMs: z.coerce.number().int().min(100).optional(),
  sandboxOutputChars: z.coerce.number().int().min(100).optional(),
  sandboxDiskQuotaMb: z.coerce.number().int().min(1).optional(),
  sandboxSpares: z.coerce.number().int().min(0).max(64).optional(),
  sandboxMaxConcurrent: z.coerce.number().int().min(1).max(256).optional(),
  /** The ERP REST API (`…/api`) when it is not the local one. */
  erpUrl: httpUrl.optional(),
  /** The supplier web shops when they are not the local ones. */
  suppliersUrl: httpUrl.optional(),
  /** The ERP MCP server the agent uses; pointing it at another server replaces the demo ERP for the agent. */
  erpMcpUrl: httpUrl.optional(),
  /** More MCP servers for the agents: a JSON array, or the path of a JSON file holding one (see `src/mcp/config.ts`). */
  mcpServers: z.string().trim().min(1).optional(),
});

export type Settings = z.infer<typeof settingsSchema>;

const envNames: Record<keyof Settings, string> = {
  host: 'PROCURA_HOST',
  dataDir: 'PROCURA_DATA_DIR',
  databaseUrl: 'DATABASE_URL',
  redisUrl: 'REDIS_URL',
  erpPort: 'ERP_PORT',
  suppliersPort: 'SUPPLIERS_PORT',
  chartsPort: 'CHARTS_PORT',
  chartMcpPort: 'CHART_MCP_PORT',
  chartMcpUrl: 'CHART_MCP_URL',
  erpMcpPort: 'ERP_MCP_PORT',
  apiPort: 'API_PORT',
  sandboxMemoryMb: 'SANDBOX_MEMORY_MB',
  sandboxTimeoutMs: 'SANDBOX_TIMEOUT_MS',
  sandboxCpuMs: 'SANDBOX_CPU_MS',
  sandboxOutputChars: 'SANDBOX_OUTPUT_CHARS',
  sandboxDiskQuotaMb: 'SANDBOX_DISK_QUOTA_MB',
  sandboxSpares: 'SANDBOX_SPARES',
  sandboxMaxConcurrent: 'SANDBOX_MAX_CONCURRENT',
  erpUrl: 'ERP_URL',
  suppliersUrl: 'SUPPLIERS_URL',
  erpMcpUrl: 'ERP_MCP_URL',
  mcpServers: 'PROCURA_MCP_SERVERS',
};

/** Settings from the environment, overridden by explicit values (CLI flags). Invalid values fail fast, naming the setting. */
export function loadSettings(
  overrides: Partial<Record<keyof Settings, unknown>> = {},
  env: NodeJS.ProcessEnv = process.env,
): Settings {
  const parsed = parseSettings({
    schema: settingsSchema,
    envNames,
    read: (key, envName) => overrides[key] ?? env[envName],
    invalid: '配置无效 / invalid settings',
  });
  return { ...parsed, dataDir: path.resolve(parsed.dataDir) };
}

/**
 * Validates settings named by environment variables: each key's value from `read` (unset when empty), then
 * `overrides` on top. Invalid values fail fast, each named with its variable, under the `invalid` heading.
 */
export function parseSettings<S extends z.ZodObject>(options: {
  schema: S;
  envNames: Record<keyof z.output<S>, string>;
  read: (key: keyof z.output<S>, envName: string) => unknown;
  overrides?: Record<string, unknown>;
  invalid: string;
}): z.output<S> {
  const envNames: Record<string, string> = options.envNames;
  const raw: Record<string, unknown> = {};
  for (const [key, envName] of Object.entries(envNames)) {
    const value = options.read(key as keyof z.output<S>, envName);
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const parsed = options.schema.safeParse({ ...raw, ...options.overrides });
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const key = String(issue.path[0]);
      return `${key} (${envNames[key]}): ${issue.message}`;
    });
    throw new Error(`${options.invalid}:\n  ${problems.join('\n  ')}`);
  }
  return parsed.data;
}

/** Where each part is reached. */
export interface PartAddresses {
  /** ERP REST API base, e.g. `http://127.0.0.1:8080/api`. */
  erpUrl: string;
  suppliersUrl: string;
  erpMcpUrl: string;
  chartMcpUrl: string;
  /** The chart renderer's images (`/charts/<id>.png`), which reports link. */
  chartsUrl: string;
}

/** The address of every part: the configured one, else the local part on this host and its port. */
export function partAddresses(settings: Settings): PartAddresses {
  const host = settings.host.includes(':') ? `[${settings.host}]` : settings.host;
  return {
    erpUrl: settings.erpUrl ?? `http://${host}:${settings.erpPort}/api`,
    suppliersUrl: settings.suppliersUrl ?? `http://${host}:${settings.suppliersPort}`,
    erpMcpUrl: settings.erpMcpUrl ?? `http://${host}:${settings.erpMcpPort}/mcp`,
    chartMcpUrl: settings.chartMcpUrl ?? `http://${host}:${settings.chartMcpPort}/mcp`,
    chartsUrl: `http://${host}:${settings.chartsPort}`,
  };
}
