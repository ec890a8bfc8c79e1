import type { AgentSuggestions } from '../../../protocol/index.ts';
import type { ToolContext, ToolRegistry } from '../../../tools/index.ts';
import { type PartRef, type SupplierRef, suggestRequests } from './catalogue.ts';

/**
 * Example requests for a user, computed from the ERP as that user through the same tools the agents call
 * (`supplier_query`, `part_query`), so they work on any ERP the tools reach.
 */
export async function suggestionsFor(
  registry: ToolRegistry,
  ctx: ToolContext,
  model: { provider: string; mainName: string },
): Promise<AgentSuggestions> {
  const [suppliers, parts] = (await Promise.all([
    registry.execute('supplier_query', {}, ctx),
    registry.execute('part_query', { size: 50 }, ctx),
  ])) as Array<{ items?: unknown[] }>;
  return {
    offline: model.provider === 'offline',
    model: model.mainName,
    suggestions: suggestRequests(
      Array.isArray(parts?.items) ? (parts.items as PartRef[]) : [],
      Array.isArray(suppliers?.items) ? (suppliers.items as SupplierRef[]) : [],
    ),
  };
}
