import { listen, logger, type RunningServer } from '../shared/index.ts';
import { createChartsApp } from './http.ts';
import { ChartService } from './service.ts';
import { ChartStore } from './store.ts';

export interface ChartsServerOptions {
  host: string;
  port: number;
  dataDir: string;
  /** Base URL put into image links when clients reach the renderer under another address. */
  publicUrl?: string;
}

/** The chart renderer: GPT-Vis protocol at /api/gpt-vis, images at /charts/<id>.png|svg. */
export async function startChartsServer(
  options: ChartsServerOptions,
): Promise<{ server: RunningServer; service: ChartService; close(): Promise<void> }> {
  const service = new ChartService(new ChartStore(options.dataDir));
  const app = createChartsApp(service, logger.child({ part: 'charts' }), options.publicUrl);
  const server = await listen(app.fetch, options);
  return { server, service, close: () => server.close() };
}
