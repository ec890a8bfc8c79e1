import { isReadOnly } from '../protocol/index.ts';
import { BackgroundTasks, registerBackgroundTasks } from './background.ts';
import { DynamicHttpCall } from './dynamic-http.ts';
import { type ErpEndpoint, erpClientFor, registerErpTools } from './erp/index.ts';
import { FrontendTools } from './frontend.ts';
import { ToolRegistry } from './registry.ts';
import { registerWebTools, type WebToolsOptions } from './web/index.ts';

export interface ToolboxOptions {
  /** The ERP API every ERP tool and `dynamic_http_call` calls as the user. */
  erp: ErpEndpoint;
  /** The process's background task board (one per process, so results outlive a model turn). */
  tasks?: BackgroundTasks;
  /** `false` leaves the ERP business tools to the ERP MCP server (`McpConnections.registerInto`); the default
   *  registers them here, calling the ERP's REST API directly. */
  erpTools?: boolean;
  /** Adds `web_search` and `fetch_url`. */
  web?: WebToolsOptions;
}

export interface Toolbox {
  registry: ToolRegistry;
  tasks: BackgroundTasks;
  /** Releases what the tools hold (browser, connection pools). */
  close(): Promise<void>;
}

/** Procura's tools in one registry: ERP, `dynamic_http_call`, front-end tools, background tasks and, when asked, web. */
export function createToolbox(options: ToolboxOptions): Toolbox {
  const tasks = options.tasks ?? new BackgroundTasks();
  const registry = new ToolRegistry();
  if (options.erpTools !== false) registerErpTools(registry, options.erp);
  registry.register(DynamicHttpCall, (ctx) => new DynamicHttpCall(erpClientFor(options.erp, ctx), !isReadOnly(ctx)));
  registry.register(
    FrontendTools,
    (ctx) => new FrontendTools((orderId) => registry.execute('order_get', { orderId }, ctx)),
  );
  registerBackgroundTasks(registry, tasks);
  const web = options.web ? registerWebTools(registry, options.web) : undefined;
  return { registry, tasks, close: async () => web?.close() };
}
