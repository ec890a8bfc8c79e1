import type { ErpConnection } from '../../erp/index.ts';
import type { ToolContext, ToolRegistry } from '../registry.ts';
import { ErpClient } from './client.ts';
import { ProcureToPayTools } from './p2p.ts';
import { RfqTools } from './rfq.ts';

export { ErpClient } from './client.ts';
export { ProcureToPayTools } from './p2p.ts';
export { RfqTools } from './rfq.ts';

/** Where the ERP API is; the user's token, project and trace id come from each call's context. */
export type ErpEndpoint = Pick<ErpConnection, 'baseUrl' | 'fetch' | 'timeoutMs'>;

/** The ERP client acting for the user of `ctx`. */
export function erpClientFor(endpoint: ErpEndpoint, ctx: ToolContext): ErpClient {
  return new ErpClient({ ...endpoint, token: ctx.token, projectId: ctx.projectId, traceId: ctx.traceId });
}

/** Registers the ERP tools (the `@Tool` methods of `ErpClient`, `RfqTools` and `ProcureToPayTools`), each call bound
 *  to its caller's credentials. */
export function registerErpTools(registry: ToolRegistry, endpoint: ErpEndpoint): ToolRegistry {
  const connection = (ctx: ToolContext) => ({
    ...endpoint,
    token: ctx.token,
    projectId: ctx.projectId,
    traceId: ctx.traceId,
  });
  return registry
    .register(ErpClient, (ctx) => erpClientFor(endpoint, ctx))
    .register(RfqTools, (ctx) => new RfqTools(connection(ctx)))
    .register(ProcureToPayTools, (ctx) => new ProcureToPayTools(connection(ctx)));
}
