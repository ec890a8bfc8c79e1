import type { BaseStore } from '@langchain/langgraph';
import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import { type BackendFactory, createDeepAgent, createSummarizationMiddleware, type SubAgent } from 'deepagents';
import type { ToolContext, ToolRegistry } from '../tools/index.ts';
import { type ContextResolver, toLangChainTools } from '../tools/langchain.ts';
import type { ToolScheduler } from '../tools/scheduler.ts';
import { SANDBOX_EXECUTE_GUIDE } from './backends/index.ts';
import { runContext, runContextSchema } from './context.ts';
import { type ApprovalLedger, createApprovalMiddleware } from './middleware/approval.ts';
import { createCompactionMiddleware } from './middleware/compaction.ts';
import { createContextInjectionMiddleware } from './middleware/context-injection.ts';
import { createRunGuardsMiddleware, createToolErrorGuardMiddleware } from './middleware/guards.ts';
import { createMemoryUpdateMiddleware } from './middleware/memory-update.ts';
import { createSkillsSyncMiddleware, createUserSkillsRestoreMiddleware } from './middleware/skills.ts';
import type { AgentModels } from './models/index.ts';
import { createModelRetryMiddleware } from './models/resilience.ts';
import { ORCHESTRATOR_PROMPT } from './prompts.ts';
import type { SkillsSync } from './skills/sync.ts';
import { loadSubagentConfigs, type SubagentConfig } from './subagents/loader.ts';
import type { ApprovalDetails } from './tools/human-input.ts';

/** Tools deepagents provides itself (file system, sandbox execution, delegation). */
export const BUILTIN_AGENT_TOOLS = [
  'ls',
  'read_file',
  'write_file',
  'edit_file',
  'delete',
  'glob',
  'grep',
  'execute',
  'task',
] as const;

export const ORCHESTRATOR_LIMITS = { modelCalls: 50, toolCalls: 200 };

/** The orchestrator's own tools: coordinator only, no ERP business tools (seed "主 Agent"). */
export const ORCHESTRATOR_TOOLS = {
  names: ['web_search', 'assign_skill', 'ask_user', 'compact_conversation', 'check_background_tasks'],
};

export interface AgentGraphDeps {
  registry: ToolRegistry;
  models: AgentModels;
  backend: BackendFactory;
  store: BaseStore;
  checkpointer: BaseCheckpointSaver;
  ledger: ApprovalLedger;
  skills: SkillsSync;
  /** One scheduler per run (session), so a model turn's calls are scheduled together. */
  schedulerFor: (ctx: ToolContext) => ToolScheduler;
  subagentConfigDir?: string;
}

/** Reads the per-run context the chat API passes as the graph's runtime context. */
const resolveContext: ContextResolver = (runtime) => {
  const ctx = runContext(runtime);
  if (!ctx) throw new Error('run context missing: every run must carry the user it acts for');
  return ctx;
};

/** Sub-agent configs (YAML), checked against the tools that exist in this process. */
export function subagentConfigs(registry: ToolRegistry, dir?: string): SubagentConfig[] {
  const all = registry.list();
  return loadSubagentConfigs(
    {
      toolNames: new Set([...all.map((d) => d.name), ...BUILTIN_AGENT_TOOLS]),
      groups: new Set(all.map((d) => d.group)),
    },
    dir,
  );
}

/**
 * Builds the compiled Procura graph for one visibility: the full graph, or the read-only one (viewers and
 * read-only runs) in which no write tool exists at all. Users share a graph; who acts travels in the runtime context.
 */
export async function buildAgentGraph(deps: AgentGraphDeps, visibility: { readOnly: boolean }) {
  const audience: Pick<ToolContext, 'role' | 'readOnly'> = visibility.readOnly
    ? { role: 'viewer', readOnly: true }
    : { role: 'buyer' };
  const bind = (filter: { groups?: readonly string[]; names?: readonly string[] }) =>
    toLangChainTools(deps.registry, {
      ctx: resolveContext,
      visibility: audience,
      filter,
      scheduler: deps.schedulerFor,
      isApproved: deps.ledger.isApproved,
    });
  const approval = createApprovalMiddleware({
    needsApproval: (tool, args) => deps.registry.requiresApproval(tool, args),
    label: (tool) => deps.registry.get(tool)?.label ?? tool,
    ledger: deps.ledger,
    details: (tool, args, ctx) => approvalDetails(deps.registry, tool, args, ctx),
  });
  const summarization = () =>
    createSummarizationMiddleware({
      model: deps.models.light,
      backend: deps.backend,
      trigger: { type: 'tokens', value: Math.floor(deps.models.contextWindow * 0.85) },
      keep: { type: 'messages', value: 20 },
    });

  const modelRetry = createModelRetryMiddleware(deps.models.policy);

  const subagents: SubAgent[] = [];
  for (const config of subagentConfigs(deps.registry, deps.subagentConfigDir)) {
    const limits = { modelCalls: config.limits.model_calls, toolCalls: config.limits.tool_calls };
    subagents.push({
      name: config.name,
      description: config.description,
      systemPrompt: config.tools.names.includes('execute')
        ? `${config.prompt}\n${SANDBOX_EXECUTE_GUIDE}`
        : config.prompt,
      tools: (await bind({ groups: config.tools.groups, names: config.tools.names })) as SubAgent['tools'],
      model: config.model === 'light' ? deps.models.light : deps.models.main,
      skills: config.skills,
      middleware: [
        createContextInjectionMiddleware(),
        summarization(),
        createCompactionMiddleware({ model: deps.models.light, backend: deps.backend }),
        createRunGuardsMiddleware(limits, config.name),
        createToolErrorGuardMiddleware(),
        approval,
        modelRetry,
      ],
    });
  }

  return createDeepAgent({
    name: 'procura',
    model: deps.models.main,
    systemPrompt: ORCHESTRATOR_PROMPT,
    tools: (await bind(ORCHESTRATOR_TOOLS)) as never,
    subagents,
    // deepagents still types factories with its deprecated shape; a factory receiving the runtime is what it calls.
    backend: deps.backend as never,
    store: deps.store,
    checkpointer: deps.checkpointer,
    contextSchema: runContextSchema,
    middleware: [
      createContextInjectionMiddleware(),
      createSkillsSyncMiddleware(deps.skills, deps.backend),
      createUserSkillsRestoreMiddleware(deps.backend),
      summarization(),
      createCompactionMiddleware({ model: deps.models.light, backend: deps.backend }),
      createMemoryUpdateMiddleware({ model: deps.models.light, backend: deps.backend }),
      createRunGuardsMiddleware(ORCHESTRATOR_LIMITS, 'orchestrator'),
      createToolErrorGuardMiddleware(),
      approval,
      modelRetry,
    ],
  });
}

/** Names, codes and list prices behind the ids of an order write, read as the user, for the approval card. */
async function approvalDetails(
  registry: ToolRegistry,
  tool: string,
  args: Record<string, unknown>,
  ctx: ToolContext,
): Promise<ApprovalDetails | undefined> {
  const orderId = Number(args.orderId);
  let supplierId = Number(args.supplierId);
  const details: ApprovalDetails = {};
  if (orderId) {
    const order = (await registry.execute('order_get', { orderId }, ctx)) as {
      orderNo?: string;
      status?: string;
      totalAmount?: number;
      supplier?: { id: number; name: string };
    };
    if (order.orderNo)
      details.order = { orderNo: order.orderNo, status: order.status ?? '', totalAmount: order.totalAmount ?? 0 };
    if (order.supplier) supplierId ||= order.supplier.id;
  }
  if (!supplierId) return details.order ? details : undefined;
  const parts = (await registry.execute('part_by_supplier', { supplierId }, ctx)) as {
    items?: Array<{
      id: number;
      code: string;
      name: string;
      unit: string;
      unitPrice: number;
      supplier: { name: string };
    }>;
  };
  const wanted = new Set((Array.isArray(args.lines) ? args.lines : []).map((l: { partId?: number }) => l.partId));
  details.supplier = parts.items?.[0]?.supplier.name;
  details.lines = (parts.items ?? [])
    .filter((p) => wanted.has(p.id))
    .map((p) => ({ partId: p.id, code: p.code, name: p.name, unit: p.unit, listPrice: p.unitPrice }));
  return tool.startsWith('order_') ? details : undefined;
}

export type ProcuraGraph = Awaited<ReturnType<typeof buildAgentGraph>>;
