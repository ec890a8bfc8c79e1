import fs from 'node:fs';
import path from 'node:path';
import { Hono } from 'hono';
import { listen, logger, type RunningServer } from '../shared/index.ts';
import { type ErpDatabase, openErpDatabase } from './db/database.ts';
import { createErpApp, routeNotFound } from './http/app.ts';
import { AccessTokenVerifier, loadOAuthKeys, type OAuthKeys, type OAuthSettings } from './oauth/keys.ts';
import { DEMO_USERS, isSeeded, seedDemoData } from './seed.ts';
import { createErpServices, type ErpServices } from './services/index.ts';
import { UserDirectory } from './services/users.ts';

export interface ErpOptions {
  dataDir: string;
  databaseUrl?: string;
  /** PostgreSQL schema (tests and multi-tenant set-ups). */
  schema?: string;
  /**
   * The ERP's authorization server, whose access tokens for these resources the ERP takes besides API tokens
   * (its keys live in the data dir). Without it, only API tokens.
   */
  oauth?: OAuthSettings;
}

export interface Erp {
  database: ErpDatabase;
  services: ErpServices;
  /** Root fetch handler serving the API under `/api`. */
  fetch: (request: Request) => Response | Promise<Response>;
  /** Demo users' tokens, when this data dir was seeded by Procura. */
  demoTokens: Record<string, string>;
  /** The authorization server's settings and keys, when the ERP takes its tokens. */
  oauth?: OAuthSettings & { keys: OAuthKeys };
  close(): Promise<void>;
}

const TOKENS_FILE = 'demo-tokens.json';

/** Opens the ERP: database (migrated, demo-seeded on first start), services and the HTTP app. */
export async function createErp(options: ErpOptions): Promise<Erp> {
  const log = logger.child({ part: 'erp' });
  const database = await openErpDatabase({
    dataDir: options.dataDir,
    databaseUrl: options.databaseUrl,
    schema: options.schema,
  });
  const tokensPath = path.join(options.dataDir, TOKENS_FILE);
  let demoTokens: Record<string, string> = {};
  if (!(await isSeeded(database.db))) {
    log.info('seeding demo data');
    demoTokens = await seedDemoData(database);
    fs.mkdirSync(options.dataDir, { recursive: true });
    fs.writeFileSync(tokensPath, `${JSON.stringify(demoTokens, null, 2)}\n`, { mode: 0o600 });
  } else if (fs.existsSync(tokensPath)) {
    demoTokens = JSON.parse(fs.readFileSync(tokensPath, 'utf8'));
  } else {
    // A database seeded from another data dir (e.g. a shared PostgreSQL): give this one fresh demo tokens.
    const users = new UserDirectory(database.db);
    for (const u of DEMO_USERS) demoTokens[u.username] = await users.issueToken(u.username, 'demo').catch(() => '');
    demoTokens = Object.fromEntries(Object.entries(demoTokens).filter(([, token]) => token));
    fs.mkdirSync(options.dataDir, { recursive: true });
    fs.writeFileSync(tokensPath, `${JSON.stringify(demoTokens, null, 2)}\n`, { mode: 0o600 });
  }
  const services = createErpServices(database);
  let oauth: Erp['oauth'];
  if (options.oauth) {
    const keys = await loadOAuthKeys(options.dataDir);
    services.users.acceptAccessTokens(new AccessTokenVerifier(keys.jwks, options.oauth));
    oauth = { ...options.oauth, keys };
  }
  const root = new Hono().route('/api', createErpApp(services, log));
  root.notFound(routeNotFound(root));
  return { database, services, fetch: root.fetch, demoTokens, oauth, close: () => database.close() };
}

/** Runs the ERP as an HTTP service. */
export async function startErpServer(
  options: ErpOptions & { host: string; port: number },
): Promise<Erp & { server: RunningServer }> {
  const erp = await createErp(options);
  const server = await listen(erp.fetch, options);
  return {
    ...erp,
    server,
    close: async () => {
      await server.close();
      await erp.close();
    },
  };
}
