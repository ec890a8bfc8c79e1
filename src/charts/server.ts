import { randomBytes } from 'node:crypto';
import { listen, logger, type RunningServer } from '../shared/index.ts';
import { createChartsApp } from './http.ts';
import { ChartService } from './service.ts';
import { type CacheLimits, ChartStore } from './store.ts';

export interface ChartsServerOptions {
  host: string;
  port: number;
  dataDir: string;
  /** Base URL put into image links when clients reach the renderer under another address. */
  publicUrl?: string;
  /** The secret path segment that drawing requires; a random one when not given. */
  token?: string;
  /** Bounds of the on-disk image cache. */
  cache?: Partial<CacheLimits>;
}

export interface ChartsServer {
  server: RunningServer;
  service: ChartService;
  /** Base of the drawing endpoints, token included: `<renderUrl>/api/gpt-vis` is what the AntV server calls. */
  renderUrl: string;
  close(): Promise<void>;
}

/** The chart renderer: GPT-Vis protocol at /<token>/api/gpt-vis, images at /charts/<id>.png|svg. */
export async function startChartsServer(options: ChartsServerOptions): Promise<ChartsServer> {
  const token = options.token ?? randomBytes(24).toString('base64url');
  if (!/^[\w-]{16,}$/.test(token))
    throw new Error('图表服务令牌须为至少 16 个字母数字 / the chart renderer token needs 16+ letters, digits, - or _');
  const service = new ChartService(new ChartStore(options.dataDir, options.cache));
  const app = createChartsApp(service, logger.child({ part: 'charts' }), token, options.publicUrl);
  const server = await listen(app.fetch, options);
  return { server, service, renderUrl: `${server.url}/${token}`, close: () => server.close() };
}
