import { randomBytes } from 'node:crypto';
import type { Command } from 'commander';
import type { AgentRuntime } from '../../agent/index.ts';
import type { Erp } from '../../erp/index.ts';
import { audiencesTakenBy, type OAuthResources, oauthResources, type Settings } from '../../shared/index.ts';
import { closeOnSignal, settingsFrom, urlHost, withCommonOptions } from '../options.ts';
import { ensureWebUi } from '../web-ui.ts';

/** One running part of Procura, as `start` reports it. */
export interface StartedPart {
  name: string;
  url: string;
  /** What the start-up report shows instead of `url` when that holds a secret. */
  shownUrl?: string;
  detail?: string;
  /** Seconds from the process's start (Node's own start-up and loading the CLI included) until this part was ready,
   *  and how much wall time its own start took once the parts it needs were ready. */
  readyAt?: number;
  took?: number;
  demoTokens?: Record<string, string>;
  /** The ERP itself (its database and services), for whoever started it in-process (the tests' stack). */
  erp?: Erp;
  runtime?: AgentRuntime;
  /** The chat API builds the agent before it answers: when that was done and how long it took (ms, wall). */
  agentReady?: { at: number; took: number };
  /** A part built inside another one's start (the agent, inside the chat API's) reports those times (s). */
  own?: { readyAt: number; took: number };
  close(): Promise<void>;
}

/**
 * A part of `procura start`: it starts as soon as the parts it needs are ready, so independent parts start
 * side by side. Each loads its own modules when it starts, so `procura start --help` loads none of them.
 */
interface PartSpec {
  name: string;
  needs: string[];
  start(plan: Plan, started: Map<string, StartedPart>, options: StartOptions): Promise<Omit<StartedPart, 'name'>>;
}

/** How `startParts` runs beyond the settings: what `procura start` does by default. */
export interface StartOptions {
  /** The environment the agent reads its model settings from. */
  env?: NodeJS.ProcessEnv;
  /** Build the browser UI when `web/dist` is missing (on by default; the chat API serves whatever is built). */
  buildWebUi?: boolean;
}

/**
 * The settings with every address fixed before anything starts (free ports picked for port 0), so parts that
 * only need another part's address start beside it. The chart renderer listens on loopback whatever `--host`
 * says (only the chart MCP server beside it draws) and requires a fresh secret path segment.
 */
type Plan = Settings & {
  rendererHost: string;
  rendererToken: string;
  /** The parts' OAuth resources (what clients' tokens are issued for) and the issuer they sign in at. */
  resources: OAuthResources;
  oauthIssuer: string;
};

export async function planOf(settings: Settings): Promise<Plan> {
  const { freePort } = await import('../../tools/index.ts');
  const rendererHost = /^(127\.|::1$|localhost$)/.test(settings.host) ? settings.host : '127.0.0.1';
  // The ERP MCP server and the authorization server name each other (metadata, token audience): their ports are fixed
  // first. A wildcard bind is reached, and named, by loopback.
  const erpMcpPort = settings.erpMcpPort || (await freePort(settings.host));
  const oauthPort = settings.oauthPort || (await freePort(settings.host));
  // Known before the chat API starts: its resource, and the RFQ mail links each invitation's quote form under it.
  const apiPort = settings.apiPort || (await freePort(settings.host));
  const named = urlHost(['0.0.0.0', '::'].includes(settings.host) ? '127.0.0.1' : settings.host);
  return {
    ...settings,
    erpMcpPort,
    oauthPort,
    apiPort,
    resources: oauthResources({ ...settings, erpMcpPort, apiPort }),
    oauthIssuer: settings.oauthIssuer ?? `http://${named}:${oauthPort}`,
    rendererHost,
    rendererToken: randomBytes(24).toString('base64url'),
    chartsPort: settings.chartsPort || (await freePort(rendererHost)),
    chartMcpPort: settings.chartMcpUrl || settings.chartMcpPort ? settings.chartMcpPort : await freePort('127.0.0.1'),
    chartMcpToken: settings.chartMcpToken ?? randomBytes(24).toString('base64url'),
  };
}

const parts: PartSpec[] = [
  {
    name: 'ERP',
    needs: [],
    async start(settings) {
      const { startErpServer } = await import('../../erp/index.ts');
      const erp = await startErpServer({
        ...settings,
        port: settings.erpPort,
        // The ERP MCP server's resource first: a token asked for without naming one is for it.
        oauth: {
          issuer: settings.oauthIssuer,
          resources: [settings.resources.erpMcp, settings.resources.api, settings.resources.agentMcp],
        },
      });
      return {
        url: `${erp.server.url}/api`,
        detail: `docs ${erp.server.url}/api/docs · ${erp.database.dialect} ${erp.database.location}`,
        demoTokens: erp.demoTokens,
        erp,
        close: erp.close,
      };
    },
  },
  {
    name: 'ERP MCP',
    needs: ['ERP'],
    async start(settings, started) {
      const { startErpMcpServer } = await import('../../mcp/index.ts');
      const mcp = await startErpMcpServer({
        erp: { baseUrl: started.get('ERP')!.url },
        host: settings.host,
        port: settings.erpMcpPort,
        allowedHosts: settings.mcpAllowedHosts,
        resourceUrl: settings.resources.erpMcp,
        audiences: audiencesTakenBy(settings.resources, 'erpMcp'),
        authorizationServers: [settings.oauthIssuer],
      });
      return { url: mcp.mcpUrl, detail: 'streamable HTTP, Bearer token or OAuth sign-in', close: mcp.close };
    },
  },
  {
    name: 'MCP sign-in',
    // The OAuth 2.1 authorization server where MCP clients sign in as an ERP user; its tokens are for the ERP MCP
    // server, and the ERP in this process takes them.
    needs: ['ERP'],
    async start(settings, started) {
      const erp = started.get('ERP')!.erp!;
      const [{ startAuthorizationServer, DEMO_USERS }, { demoSignInMode }] = await Promise.all([
        import('../../erp/index.ts'),
        import('../../api/index.ts'),
      ]);
      const mode = demoSignInMode(settings.host).mode;
      const server = await startAuthorizationServer({
        ...erp.oauth!,
        users: erp.services.users,
        db: erp.database.db,
        host: settings.host,
        port: settings.oauthPort,
        demo: mode === 'off' ? undefined : { mode, users: DEMO_USERS.filter((u) => erp.demoTokens[u.username]) },
        registration: settings.oauthUnusedClientSeconds ? { unusedClientTtlS: settings.oauthUnusedClientSeconds } : {},
      });
      return {
        url: server.issuer,
        detail: `OAuth 2.1 for MCP clients, metadata ${server.issuer}/.well-known/openid-configuration`,
        close: server.close,
      };
    },
  },
  {
    name: 'RFQ mail',
    // Invitations out through SMTP_URL (default: the simulated suppliers' own SMTP server, which answer by mail);
    // replies in from the IMAP mailbox of PROCURA_IMAP_URL, else on an embedded SMTP listener for the reply domain.
    needs: ['ERP'],
    async start(settings, started) {
      const erp = started.get('ERP')!.erp;
      if (!erp) return { url: 'off', detail: 'ERP not in this process', close: async () => undefined };
      const [{ RfqMail }, { SupplierMailDesk }, { freePort }, { quoteFormPath }, { logger }, path] = await Promise.all([
        import('../../mail/index.ts'),
        import('../../suppliers/index.ts'),
        import('../../tools/index.ts'),
        import('../../api/index.ts'),
        import('../../shared/index.ts'),
        import('node:path'),
      ]);
      const publicUrl = settings.publicUrl ?? `http://${urlHost(settings.host)}:${settings.apiPort}`;
      const inboundPort = settings.imapUrl ? undefined : settings.mailPort || (await freePort('127.0.0.1'));
      // Settings refuse an IMAP mailbox without SMTP_URL: the simulated suppliers answer the embedded listener.
      const desk = settings.smtpUrl
        ? undefined
        : await new SupplierMailDesk({
            dataDir: path.join(settings.dataDir, 'supplier-mail'),
            replySmtpUrl: `smtp://127.0.0.1:${inboundPort}`,
            port: await freePort('127.0.0.1'),
          }).start();
      const mail = await new RfqMail(erp.services.rfqs, {
        smtpUrl: settings.smtpUrl ?? `smtp://127.0.0.1:${desk?.port}`,
        replyDomain: settings.mailDomain,
        from: settings.mailFrom,
        inbound: settings.imapUrl ? { imapUrl: settings.imapUrl } : { host: '127.0.0.1', port: inboundPort! },
        quoteFormUrl: (token) => `${publicUrl}${quoteFormPath(token)}`,
        log: logger.child({ part: 'rfq-mail' }),
      }).start();
      const out = desk ? `simulated suppliers smtp://127.0.0.1:${desk.port}` : 'out through SMTP_URL';
      return {
        url: mail.mailboxAddress ?? `smtp://127.0.0.1:${inboundPort}`,
        detail: mail.mailboxAddress
          ? `replies read over IMAP, ${out}`
          : desk
            ? out
            : `replies on this listener, ${out}`,
        close: async () => {
          await mail.close();
          await desk?.close();
        },
      };
    },
  },
  {
    name: 'Supplier sites',
    needs: [],
    async start(settings) {
      const { startSupplierSites } = await import('../../suppliers/index.ts');
      const sites = await startSupplierSites({ host: settings.host, port: settings.suppliersPort });
      return {
        url: `${sites.server.url}/`,
        detail: `${sites.shops.length} shops, news ${sites.server.url}/news/`,
        close: sites.server.close,
      };
    },
  },
  {
    name: 'Chart renderer',
    needs: [],
    async start(plan) {
      const { startChartsServer } = await import('../../charts/index.ts');
      const charts = await startChartsServer({
        ...plan,
        host: plan.rendererHost,
        port: plan.chartsPort,
        token: plan.rendererToken,
      });
      return {
        url: charts.renderUrl,
        shownUrl: `${charts.server.url}/<token>/api/gpt-vis`,
        detail: `images ${charts.server.url}/charts/`,
        close: charts.close,
      };
    },
  },
  {
    name: 'Chart MCP',
    // It calls the renderer only to draw, so it starts beside it, from the renderer's planned address.
    needs: [],
    async start(plan) {
      if (plan.chartMcpUrl) return { url: plan.chartMcpUrl, detail: 'external', close: async () => undefined };
      const { startChartMcpServer } = await import('../../tools/index.ts');
      const mcp = await startChartMcpServer({
        port: plan.chartMcpPort,
        token: plan.chartMcpToken,
        rendererUrl: `http://${urlHost(plan.rendererHost)}:${plan.chartsPort}/${plan.rendererToken}`,
      });
      return { url: mcp.url, detail: `@antv/mcp-server-chart, pid ${mcp.pid}`, close: mcp.close };
    },
  },
  {
    name: 'Chat API + UI',
    // The agent connects to the ERP MCP server and the chart MCP server before the API answers.
    needs: ['ERP', 'ERP MCP', 'Supplier sites', 'Chart MCP', 'Browser UI'],
    async start(settings, started, options) {
      const [{ startApi }, { DEMO_USERS }, { demoSignInMode }, { partAddresses }] = await Promise.all([
        import('./api.ts'),
        import('../../erp/index.ts'),
        import('../../api/index.ts'),
        import('../../shared/index.ts'),
      ]);
      const demoTokens = started.get('ERP')!.demoTokens ?? {};
      const api = await startApi(settings, {
        ...partAddresses(settings),
        erpUrl: started.get('ERP')!.url,
        suppliersUrl: started.get('Supplier sites')!.url.replace(/\/$/, ''),
        erpMcpUrl: settings.erpMcpUrl ?? started.get('ERP MCP')!.url,
        chartMcpUrl: started.get('Chart MCP')!.url,
        // Reports exported as PDF embed the renderer's images (readable without its drawing token).
        chartsUrl: `http://${urlHost(settings.rendererHost)}:${settings.chartsPort}`,
        demoSignIn: demoSignInMode(settings.host).mode,
        demoUsers: DEMO_USERS.filter((u) => demoTokens[u.username]).map((u) => ({
          username: u.username,
          displayName: u.displayName,
          role: u.role,
          token: demoTokens[u.username],
        })),
        env: options.env,
      });
      return {
        url: `${api.server.url}/`,
        detail: `SSE ${api.server.url}/api/v1/agent/chat/stream`,
        runtime: api.runtime,
        agentReady: api.agentReady,
        close: api.close,
      };
    },
  },
  {
    name: 'Agent',
    needs: ['Chat API + UI', 'Chart MCP'],
    // Built now rather than on the first chat, so the first answer does not wait for it; it lists the chart
    // tools of the chart MCP server, hence after that.
    async start(_settings, started) {
      const api = started.get('Chat API + UI')!;
      const models = await api.runtime!.models();
      // Its time is its build inside the chat API's start, not the moment this step took to find it ready.
      const own = api.agentReady && { readyAt: api.agentReady.at / 1000, took: api.agentReady.took / 1000 };
      return {
        own,
        url: 'in-process',
        detail: `model ${models.mainName}${models.provider === 'offline' ? ' (offline / 离线模型)' : ''}`,
        close: async () => undefined,
      };
    },
  },
];

/** The browser UI the chat API serves, built here on a fresh checkout (as `npm start` does). */
const browserUi: PartSpec = {
  name: 'Browser UI',
  needs: [],
  async start(_plan, _started, options) {
    if (options.buildWebUi === false)
      return { url: 'web/dist', detail: 'not built by this start', close: async () => undefined };
    const built = await ensureWebUi();
    return { url: 'web/dist', detail: built ? 'built now' : 'already built', close: async () => undefined };
  },
};

/**
 * Starts every part as soon as what it needs is ready; on a failure, stops what did start and names the part. This
 * is `procura start` (and the tests' started stack), part by part, keyed by each part's name.
 */
export async function startParts(settings: Settings, options: StartOptions = {}): Promise<Map<string, StartedPart>> {
  const plan = await planOf(settings);
  const started = new Map<string, StartedPart>();
  const pending = new Map<string, Promise<void>>();
  const startPart = async (spec: PartSpec) => {
    await Promise.all(spec.needs.map((name) => pending.get(name)));
    const from = performance.now();
    const part = await spec.start(plan, started, options).catch((error: Error) => {
      throw new Error(`${spec.name} 启动失败 / failed to start: ${error.message}`, { cause: error });
    });
    const now = performance.now();
    started.set(spec.name, { ...part, name: spec.name, took: (now - from) / 1000, readyAt: now / 1000, ...part.own });
  };
  for (const spec of [browserUi, ...parts]) pending.set(spec.name, startPart(spec));
  const results = await Promise.allSettled(pending.values());
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    for (const part of [...started.values()].reverse()) await part.close().catch(() => undefined);
    throw failed.reason;
  }
  return started;
}

export function registerStartCommand(program: Command): void {
  withCommonOptions(
    program.command('start').description('run every part of Procura on this machine / 启动全部服务'),
  ).action(async (opts) => {
    const settings = settingsFrom(opts);
    const started = await startParts(settings);
    const ordered = parts.map((spec) => started.get(spec.name)!);
    console.log('\nProcura 已启动 / Procura is running:');
    for (const part of ordered)
      console.log(`  ${part.name.padEnd(16)} ${part.shownUrl ?? part.url}${part.detail ? `   (${part.detail})` : ''}`);
    // performance.now() counts from the process's start: "ready at" includes Node's start-up and the CLI's loading.
    console.log('\n启动耗时 / start-up times (s, wall): part own · ready at (since the process started)');
    for (const part of [started.get(browserUi.name)!, ...ordered])
      console.log(
        `  ${part.name.padEnd(16)} ${part.took!.toFixed(2).padStart(6)} · ${part.readyAt!.toFixed(2).padStart(6)}`,
      );
    const demoTokens = started.get('ERP')!.demoTokens ?? {};
    if (Object.keys(demoTokens).length) {
      console.log('\n演示用户令牌 / demo tokens:');
      for (const [user, token] of Object.entries(demoTokens)) console.log(`  ${user.padEnd(9)} ${token}`);
      const { demoSignInMode } = await import('../../api/index.ts');
      console.log(`  ${demoSignInMode(settings.host).notice}`);
    }
    console.log(`\n数据目录 / data dir: ${settings.dataDir}   按 Ctrl-C 停止 / Ctrl-C to stop`);
    closeOnSignal(...ordered.map((p) => p.close));
  });
}
