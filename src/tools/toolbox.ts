import { BackgroundTasks, registerBackgroundTasks } from './background.ts';
import { DynamicHttpCall } from './dynamic-http.ts';
import { type ErpEndpoint, erpClientFor, registerErpTools } from './erp/index.ts';
import { FrontendTools } from './frontend.ts';
import { ToolRegistry } from './registry.ts';

export interface ToolboxOptions {
  /** The ERP API every ERP tool and `dynamic_http_call` calls as the user. */
  erp: ErpEndpoint;
  /** The process's background task board (one per process, so results outlive a model turn). */
  tasks?: BackgroundTasks;
}

/** The registry of Procura's own tools: ERP, `dynamic_http_call`, front-end tools and background tasks. */
export function createToolRegistry(options: ToolboxOptions): ToolRegistry {
  const registry = registerErpTools(new ToolRegistry(), options.erp);
  registry.register(
    DynamicHttpCall,
    (ctx) => new DynamicHttpCall(erpClientFor(options.erp, ctx), !(ctx.readOnly || ctx.role === 'viewer')),
  );
  const frontend = new FrontendTools();
  registry.register(FrontendTools, () => frontend);
  return registerBackgroundTasks(registry, options.tasks ?? new BackgroundTasks());
}
