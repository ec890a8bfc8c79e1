import type { ToolContext, ToolDefinition, ToolRegistry } from './registry.ts';

export interface ToolFilter {
  groups?: readonly string[];
  names?: readonly string[];
}

/**
 * Which tools each agent's model is offered, by group or name (seed 002's agent tables). Tools that are not
 * registered in a process are simply absent; a read-only context loses the write tools on top of this.
 */
export const AGENT_TOOLSETS = {
  /** The orchestrator answers and delegates; it does not call ERP business tools. */
  main: { names: ['web_search', 'ask_user', 'assign_skill', 'check_background_tasks'] },
  /** Data collection and analysis: ERP reads, web prices, charts. */
  analyst: {
    groups: ['supplier', 'part', 'inventory', 'chart', 'web'],
    names: ['order_search_details', 'order_get', 'show_chart', 'show_table', 'check_background_tasks'],
  },
  /** Orders: read, validate, write after approval, ask for missing data. */
  order: {
    groups: ['order'],
    names: [
      'supplier_query',
      'part_search',
      'price_check',
      'request_order_info',
      'ask_user',
      'open_order',
      'web_search',
    ],
  },
} as const satisfies Record<string, ToolFilter>;

export type AgentName = keyof typeof AGENT_TOOLSETS;

export const isAgentName = (name: string): name is AgentName => Object.hasOwn(AGENT_TOOLSETS, name);

/** The tools an agent's model sees in a context. */
export function agentTools(
  registry: ToolRegistry,
  agent: AgentName,
  ctx?: Pick<ToolContext, 'role' | 'readOnly'>,
): ToolDefinition[] {
  return registry.list(ctx, AGENT_TOOLSETS[agent]);
}
