import path from 'node:path';
import { z } from 'zod';

const IMAP_URL_SHAPE =
  '须为含用户名和密码的 imap:// 或 imaps:// 地址 / an imap:// or imaps:// URL with user and password, e.g. imaps://user:pass@imap.example.com:993/INBOX';
const httpUrl = z.url({ protocol: /^https?$/ }).transform((url) => url.replace(/\/+$/, ''));

/** Every address and storage location is a setting; defaults are the embedded single-machine layout. */
const settingsSchema = z.object({
  host: z.string().min(1).default('127.0.0.1').meta({ env: 'PROCURA_HOST' }),
  dataDir: z.string().min(1).default('./data').meta({ env: 'PROCURA_DATA_DIR' }),
  databaseUrl: z
    .url({ protocol: /^postgres(ql)?$/ })
    .optional()
    .meta({ env: 'DATABASE_URL' }),
  redisUrl: z
    .url({ protocol: /^rediss?$/ })
    .optional()
    .meta({ env: 'REDIS_URL' }),
  erpPort: z.coerce.number().int().min(0).max(65535).default(8080).meta({ env: 'ERP_PORT' }),
  suppliersPort: z.coerce.number().int().min(0).max(65535).default(8090).meta({ env: 'SUPPLIERS_PORT' }),
  chartsPort: z.coerce.number().int().min(0).max(65535).default(8070).meta({ env: 'CHARTS_PORT' }),
  chartMcpPort: z.coerce.number().int().min(0).max(65535).default(1122).meta({ env: 'CHART_MCP_PORT' }),
  /** A chart MCP server to use instead of spawning the local one (e.g. a hosted AntV server). */
  chartMcpUrl: httpUrl.optional().meta({ env: 'CHART_MCP_URL' }),
  /** The chart MCP server's bearer token (a local one started by Procura gets a fresh one unless this is set). */
  chartMcpToken: z.string().min(16).max(200).optional().meta({ env: 'CHART_MCP_TOKEN' }),
  erpMcpPort: z.coerce.number().int().min(0).max(65535).default(8000).meta({ env: 'ERP_MCP_PORT' }),
  /** The agent MCP server's port (`procura mcp agent`); its `/mcp` URL there is the resource its tokens name. */
  agentMcpPort: z.coerce.number().int().min(0).max(65535).default(8010).meta({ env: 'AGENT_MCP_PORT' }),
  /** The authorization server where MCP clients sign in as a Procura user (OAuth 2.1). */
  oauthPort: z.coerce.number().int().min(0).max(65535).default(8020).meta({ env: 'OAUTH_PORT' }),
  /** Its public issuer URL, when clients reach it by another address than `http://<host>:<OAUTH_PORT>`. */
  oauthIssuer: httpUrl.optional().meta({ env: 'OAUTH_ISSUER' }),
  /** Seconds a client registered there lives until a token is issued to it (a day by default). */
  oauthUnusedClientSeconds: z.coerce
    .number()
    .int()
    .min(1)
    .max(30 * 24 * 60 * 60)
    .optional()
    .meta({ env: 'OAUTH_UNUSED_CLIENT_SECONDS' }),
  /**
   * The key that seals the MCP servers' OAuth tokens Procura keeps per user (at least 16 characters; every API
   * process of a deployment needs the same); a random key in `<data-dir>/mcp-tokens.key` when unset.
   */
  mcpTokenKey: z.string().min(16).optional().meta({ env: 'PROCURA_MCP_TOKEN_KEY' }),
  apiPort: z.coerce.number().int().min(0).max(65535).default(3000).meta({ env: 'API_PORT' }),
  /** The chat API's address as suppliers and colleagues reach it (links in mail: the quote form); default its own. */
  publicUrl: httpUrl.optional().meta({ env: 'PROCURA_PUBLIC_URL' }),
  /** Sandbox limits; unset means the built-in defaults (see the README, "Sandbox"). */
  sandboxMemoryMb: z.coerce.number().int().min(1).max(4096).optional().meta({ env: 'SANDBOX_MEMORY_MB' }),
  sandboxTimeoutMs: z.coerce.number().int().min(100).optional().meta({ env: 'SANDBOX_TIMEOUT_MS' }),
  sandboxCpuMs: z.coerce.number().int().min(100).optional().meta({ env: 'SANDBOX_CPU_MS' }),
  sandboxOutputChars: z.coerce.number().int().min(100).optional().meta({ env: 'SANDBOX_OUTPUT_CHARS' }),
  sandboxDiskQuotaMb: z.coerce.number().int().min(1).optional().meta({ env: 'SANDBOX_DISK_QUOTA_MB' }),
  sandboxSpares: z.coerce.number().int().min(0).max(64).optional().meta({ env: 'SANDBOX_SPARES' }),
  sandboxMaxConcurrent: z.coerce.number().int().min(1).max(256).optional().meta({ env: 'SANDBOX_MAX_CONCURRENT' }),
  /** The ERP REST API (`…/api`) when it is not the local one. */
  erpUrl: httpUrl.optional().meta({ env: 'ERP_URL' }),
  /** The supplier web shops when they are not the local ones. */
  suppliersUrl: httpUrl.optional().meta({ env: 'SUPPLIERS_URL' }),
  /** The ERP MCP server the agent uses; pointing it at another server replaces the demo ERP for the agent. */
  erpMcpUrl: httpUrl.optional().meta({ env: 'ERP_MCP_URL' }),
  /**
   * Host names (no port) Procura's MCP endpoints answer to in `Host` and `Origin`, comma-separated; loopback names
   * and the bind address by default. Name the public host here when the endpoint is reached through one.
   */
  mcpAllowedHosts: z
    .string()
    .trim()
    .regex(/^[\w.\-[\]:]+(,[\w.\-[\]:]+)*$/, 'comma-separated host names, e.g. erp-mcp.example.com,127.0.0.1')
    .transform((list) => list.split(',').map((host) => host.toLowerCase()))
    .optional()
    .meta({ env: 'PROCURA_MCP_ALLOWED_HOSTS' }),
  /**
   * A company's own agent YAML directory, outside the package: a file there replaces the shipped agent of the same
   * name or adds one (e.g. giving the analyst the company's MCP server under `servers`).
   */
  agentsDir: z.string().trim().min(1).optional().meta({ env: 'PROCURA_AGENTS_DIR' }),
  /** More MCP servers for the agents: a JSON array, or the path of a JSON file holding one (see `src/mcp/config.ts`). */
  mcpServers: z.string().trim().min(1).optional().meta({ env: 'PROCURA_MCP_SERVERS' }),
  /**
   * RFQ mail. The SMTP relay invitations go out through (`smtp://user:pass@host:587`, `smtps://…:465`); unset, the
   * simulated suppliers' own SMTP server, which answers the invitations.
   */
  smtpUrl: z
    .url({
      protocol: /^smtps?$/,
      error: '须为 smtp:// 或 smtps:// 地址 / an smtp:// or smtps:// URL, e.g. smtp://user:pass@smtp.example.com:587',
    })
    .optional()
    .meta({ env: 'SMTP_URL' }),
  /**
   * The mailbox supplier replies are read from over IMAP (`imaps://user:pass@host:993/INBOX`, `imap://…:143/…`)
   * instead of the embedded SMTP listener; the relay in `SMTP_URL` delivers them there.
   */
  imapUrl: z
    .url({ protocol: /^imaps?$/, error: IMAP_URL_SHAPE })
    .refine((url) => {
      const { username, password, hostname } = new URL(url);
      return Boolean(username && password && hostname);
    }, `缺少用户名、密码或主机 / names no user, password or host: ${IMAP_URL_SHAPE}`)
    .optional()
    .meta({ env: 'PROCURA_IMAP_URL' }),
  /** The port of the embedded SMTP listener replies come back to (loopback); unset or 0, a free port. */
  mailPort: z.coerce.number().int().min(0).max(65535).optional().meta({ env: 'PROCURA_MAIL_PORT' }),
  /** The domain of reply addresses (`rfq+<token>@domain`): its mail must reach the listener or the IMAP mailbox. */
  mailDomain: z
    .string()
    .trim()
    .toLowerCase()
    .regex(/^[a-z0-9-]+(\.[a-z0-9-]+)+$/, '须为域名 / a domain name, e.g. procura.example.com')
    .default('procura.local')
    .meta({ env: 'PROCURA_MAIL_DOMAIN' }),
  /** The sender of invitations and reminders. */
  mailFrom: z.email().default('procurement@procura.local').meta({ env: 'PROCURA_MAIL_FROM' }),
  /** Runs one user may start per minute on one API process (past it: 429 with Retry-After). */
  runStartsPerMinute: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .default(30)
    .meta({ env: 'PROCURA_RUN_STARTS_PER_MINUTE' }),
  /** Runs one user may have executing at once on one API process; the user's further runs wait their turn. */
  runsPerUser: z.coerce.number().int().min(1).max(1_000).default(3).meta({ env: 'PROCURA_RUNS_PER_USER' }),
  /** A tool an agent's YAML, prompt or skills rely on but that does not reach it: `warn` at start-up, or `fail`. */
  toolSetCheck: z.enum(['warn', 'fail']).default('warn').meta({ env: 'PROCURA_TOOLSET_CHECK' }),
});

/** An IMAP mailbox is read only beside the relay that delivers to it: the simulated suppliers answer the listener. */
const checkedSettings = settingsSchema.refine((s) => !s.imapUrl || s.smtpUrl, {
  path: ['imapUrl'],
  message:
    '需要同时设置 SMTP_URL / needs SMTP_URL too: replies are read from the mailbox your mail server delivers them to, and invitations go out through it',
});

export type Settings = z.infer<typeof settingsSchema>;

/** Settings from the environment, overridden by explicit values (CLI flags). Invalid values fail fast, naming the setting. */
export function loadSettings(
  overrides: Partial<Record<keyof Settings, unknown>> = {},
  env: NodeJS.ProcessEnv = process.env,
): Settings {
  const parsed = parseSettings({
    schema: checkedSettings,
    read: (key, envName) => overrides[key] ?? env[envName],
    invalid: '配置无效 / invalid settings',
  });
  return { ...parsed, dataDir: path.resolve(parsed.dataDir) };
}

/**
 * Validates settings that each name their environment variable (`.meta({ env })` on the field): each key's value
 * from `read` (unset when empty), then `overrides` on top. Invalid values fail fast, each named with its
 * variable, under the `invalid` heading.
 */
export function parseSettings<S extends z.ZodObject>(options: {
  schema: S;
  read: (key: keyof z.output<S>, envName: string) => unknown;
  overrides?: Record<string, unknown>;
  invalid: string;
}): z.output<S> {
  const envNames = envNamesOf(options.schema);
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

/** Each setting's environment variable, as its field declares it. */
function envNamesOf(schema: z.ZodObject): Record<string, string> {
  return Object.fromEntries(
    Object.entries(schema.shape).map(([key, field]) => {
      const env = (field as z.ZodType).meta()?.env;
      if (typeof env !== 'string') throw new Error(`setting ${key} names no environment variable`);
      return [key, env];
    }),
  );
}

/**
 * The OAuth resources (RFC 8707) of Procura's parts, each the audience of the access tokens issued for it. Front to
 * back, each part acts as its user through the next with the token it was given: the agent MCP server runs the
 * chat API, whose agent calls the ERP MCP server, which calls the ERP.
 */
export interface OAuthResources {
  /** The agent MCP server's `/mcp` URL. */
  agentMcp: string;
  /** The chat API's base, `…/api/v1` (under `PROCURA_PUBLIC_URL` when set). */
  api: string;
  /** The ERP MCP server's `/mcp` URL: the resource of a token asked for without naming one. */
  erpMcp: string;
}

const FRONT_TO_BACK = ['agentMcp', 'api', 'erpMcp'] as const;

/** The resources of the parts on this host and their ports; a part bound to every interface is named by loopback. */
export function oauthResources(
  settings: Pick<Settings, 'host' | 'agentMcpPort' | 'apiPort' | 'erpMcpPort' | 'publicUrl'>,
): OAuthResources {
  const named = ['0.0.0.0', '::'].includes(settings.host) ? '127.0.0.1' : settings.host;
  const host = named.includes(':') ? `[${named}]` : named;
  return {
    agentMcp: `http://${host}:${settings.agentMcpPort}/mcp`,
    api: `${settings.publicUrl ?? `http://${host}:${settings.apiPort}`}/api/v1`,
    erpMcp: `http://${host}:${settings.erpMcpPort}/mcp`,
  };
}

/**
 * The audiences a part takes: its own, and those of the parts in front of it, which reach it as their user with the
 * token they were given. Never those behind it: a token for the ERP MCP server opens no chat API, whose runs, history
 * and files are more than the ERP tools the user granted that client.
 */
export function audiencesTakenBy(resources: OAuthResources, part: keyof OAuthResources): string[] {
  return FRONT_TO_BACK.slice(0, FRONT_TO_BACK.indexOf(part) + 1).map((front) => resources[front]);
}

/** Where each part is reached. */
export interface PartAddresses {
  /** ERP REST API base, e.g. `http://127.0.0.1:8080/api`. */
  erpUrl: string;
  suppliersUrl: string;
  erpMcpUrl: string;
  /** The authorization server's issuer (where MCP clients sign in). */
  oauthIssuer: string;
  chartMcpUrl: string;
  chartMcpToken?: string;
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
    oauthIssuer: settings.oauthIssuer ?? `http://${host}:${settings.oauthPort}`,
    // The local chart MCP server listens on loopback only, whatever the host.
    chartMcpUrl: settings.chartMcpUrl ?? `http://127.0.0.1:${settings.chartMcpPort}/mcp`,
    chartMcpToken: settings.chartMcpToken,
    chartsUrl: `http://${host}:${settings.chartsPort}`,
  };
}
