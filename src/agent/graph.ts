import type { BaseStore } from '@langchain/langgraph';
import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import {
  type BackendFactory,
  createDeepAgent,
  createMemoryMiddleware,
  createSummarizationMiddleware,
  type SubAgent,
} from 'deepagents';
import type { PriceSeverity } from '../erp/index.ts';
import type { ApprovalDetails } from '../protocol/index.ts';
import {
  type ContextResolver,
  type ToolContext,
  type ToolRegistry,
  type ToolScheduler,
  toLangChainTools,
} from '../tools/index.ts';
import { SANDBOX_EXECUTE_GUIDE, writesToStore } from './backends/index.ts';
import { runContext, runContextSchema } from './context.ts';
import { type ApprovalLedger, createApprovalMiddleware } from './middleware/approval.ts';
import { createCompactionMiddleware } from './middleware/compaction.ts';
import { createContextInjectionMiddleware } from './middleware/context-injection.ts';
import { createRunGuardsMiddleware, createToolErrorGuardMiddleware } from './middleware/guards.ts';
import { createMemoryUpdateMiddleware } from './middleware/memory-update.ts';
import {
  createSkillsDiscoveryMiddleware,
  createSkillsSyncMiddleware,
  createUserSkillsRestoreMiddleware,
} from './middleware/skills.ts';
import { createToolSetMiddleware } from './middleware/toolset.ts';
import type { AgentModels } from './models/index.ts';
import { createModelRetryMiddleware } from './models/resilience.ts';
import type { SkillsSync } from './skills/sync.ts';
import { ORCHESTRATOR } from './subagents/loader.ts';
import { type AgentToolPlan, agentConfigs, liveDescriber, planAgentTools } from './toolset.ts';

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
  /** Agent configs (YAML); the packaged ones by default. */
  configDir?: string;
}

/** Reads the per-run context the chat API passes as the graph's runtime context. */
const resolveContext: ContextResolver = (runtime) => {
  const ctx = runContext(runtime);
  if (!ctx) throw new Error('run context missing: every run must carry the user it acts for');
  return ctx;
};

/**
 * Builds the compiled Procura graph for one visibility: the full graph, or the read-only one (viewers and
 * read-only runs) in which no write tool exists at all. Users share a graph; who acts travels in the runtime context.
 */
export async function buildAgentGraph(deps: AgentGraphDeps, visibility: { readOnly: boolean }) {
  const audience: Pick<ToolContext, 'role' | 'readOnly'> = visibility.readOnly
    ? { role: 'viewer', readOnly: true }
    : { role: 'buyer' };
  const configs = agentConfigs(deps.registry, deps.configDir);
  const describe = liveDescriber(deps.registry);
  // A read-only agent's writes are refused when they run: there is nothing for a human to approve.
  // A write into the user's store (memories, persisted skills) reaches every later session: a person approves it,
  // whichever agent asks.
  const approval = (readOnly: boolean) =>
    createApprovalMiddleware({
      needsApproval: (tool, args) =>
        (!readOnly && deps.registry.requiresApproval(tool, args)) ||
        writesToStore(tool, args as Record<string, unknown>),
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
  const skillsDiscovery = (sources: string[]) =>
    sources.length ? [createSkillsDiscoveryMiddleware(deps.backend, sources)] : [];
  /** Each agent's own tools, and the middleware every agent ends with (its tool set, limits, guards, approval). */
  const agentParts = async (plan: AgentToolPlan) => {
    const readOnly = plan.config.read_only;
    const bound = await toLangChainTools(deps.registry, {
      ctx: readOnly ? (runtime) => ({ ...resolveContext(runtime), readOnly: true }) : resolveContext,
      visibility: plan.visibility,
      filter: { names: plan.tools.map((d) => d.name) },
      scheduler: deps.schedulerFor,
      isApproved: deps.ledger.isApproved,
    });
    const limits = { modelCalls: plan.config.limits.model_calls, toolCalls: plan.config.limits.tool_calls };
    const tail = [
      createRunGuardsMiddleware(limits, plan.config.name),
      createToolErrorGuardMiddleware(),
      createToolSetMiddleware({ allowed: plan.allowed, describe }),
      approval(readOnly),
      // Innermost around the model call: a failing model service is retried before anything else sees it.
      modelRetry,
    ];
    const base = plan.config.model === 'light' ? deps.models.light : deps.models.main;
    const model = deps.models.forAgent?.(plan.config.name, base) ?? base;
    return { bound, tail, model };
  };

  const plans = planAgentTools(deps.registry, configs, audience);
  const subagents: SubAgent[] = [];
  let orchestrator: (AgentToolPlan & Awaited<ReturnType<typeof agentParts>>) | undefined;
  for (const plan of plans) {
    const parts = await agentParts(plan);
    if (plan.config.name === ORCHESTRATOR) {
      orchestrator = { ...plan, ...parts };
      continue;
    }
    subagents.push({
      name: plan.config.name,
      description: plan.config.description,
      systemPrompt: plan.allowed.has('execute')
        ? `${plan.config.prompt}\n${SANDBOX_EXECUTE_GUIDE}`
        : plan.config.prompt,
      tools: parts.bound as SubAgent['tools'],
      model: parts.model,
      middleware: [
        createContextInjectionMiddleware(),
        ...skillsDiscovery(plan.config.skills),
        ...(plan.config.memory.length
          ? [createMemoryMiddleware({ backend: deps.backend, sources: plan.config.memory })]
          : []),
        summarization(),
        createCompactionMiddleware({ model: deps.models.light, backend: deps.backend }),
        ...parts.tail,
      ],
    });
  }
  const main = orchestrator!;
  return createDeepAgent({
    name: 'procura',
    model: main.model,
    systemPrompt: main.config.prompt,
    tools: main.bound as never,
    subagents,
    memory: main.config.memory,
    // deepagents still types factories with its deprecated shape; a factory receiving the runtime is what it calls.
    backend: deps.backend as never,
    store: deps.store,
    checkpointer: deps.checkpointer,
    contextSchema: runContextSchema,
    middleware: [
      createContextInjectionMiddleware(),
      createSkillsSyncMiddleware(deps.skills, deps.backend),
      createUserSkillsRestoreMiddleware(deps.backend),
      ...skillsDiscovery(main.config.skills),
      summarization(),
      createCompactionMiddleware({ model: deps.models.light, backend: deps.backend }),
      createMemoryUpdateMiddleware({ model: deps.models.light, backend: deps.backend }),
      ...main.tail,
    ],
  });
}

/** What the approval card shows besides the call's arguments: what the tool declares (a skill's text), or the
 *  names, codes and list prices behind the ids of an order write, read as the user. */
async function approvalDetails(
  registry: ToolRegistry,
  tool: string,
  args: Record<string, unknown>,
  ctx: ToolContext,
): Promise<ApprovalDetails | undefined> {
  const declared = await registry.approvalDetails(tool, args, ctx);
  if (declared) return declared;
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
  const asked = (Array.isArray(args.lines) ? args.lines : []) as Array<{ partId?: number; unitPrice?: number }>;
  details.supplier = parts.items?.[0]?.supplier.name;
  details.lines = await Promise.all(
    (parts.items ?? [])
      .filter((p) => asked.some((l) => l.partId === p.id))
      .map(async (p) => {
        // The price the order would pay, checked against what the project paid over 12 months.
        const unitPrice = asked.find((l) => l.partId === p.id)?.unitPrice ?? p.unitPrice;
        const check = (await registry.execute('price_check', { partId: p.id, unitPrice, supplierId }, ctx)) as {
          severity?: PriceSeverity;
          deviationPct?: number | null;
          median12m?: number | null;
        };
        return {
          partId: p.id,
          code: p.code,
          name: p.name,
          unit: p.unit,
          listPrice: p.unitPrice,
          ...(check.severity
            ? {
                priceCheck: {
                  unitPrice,
                  severity: check.severity,
                  deviationPct: check.deviationPct ?? null,
                  median12m: check.median12m ?? null,
                },
              }
            : {}),
        };
      }),
  );
  if (tool === 'order_create' && details.lines?.length) {
    const preview = await orderPreview(registry, args, ctx);
    if (preview) details.preview = preview;
  }
  return tool.startsWith('order_') ? details : undefined;
}

/** The ERP's preview of a new order: its total and the approval policy's decision, or the ERP's reason to refuse. */
async function orderPreview(
  registry: ToolRegistry,
  args: Record<string, unknown>,
  ctx: ToolContext,
): Promise<ApprovalDetails['preview']> {
  // A company's ERP MCP server may offer no preview; the card then shows the lines and their checks alone.
  if (!registry.get('order_preview')) return undefined;
  const { submit: _submit, idempotencyKey: _key, ...order } = args;
  const answer = (await registry.execute('order_preview', order, ctx)) as {
    success?: false;
    error?: string;
    unavailable?: string;
    totalAmount?: number;
    approval?: Extract<ApprovalDetails['preview'], { approval: unknown }>['approval'];
  };
  // The ERP being down is no refusal of the order: the card goes without a preview.
  if (answer.success === false && answer.unavailable) return undefined;
  if (answer.success === false || answer.totalAmount === undefined || !answer.approval)
    return { refused: answer.error ?? 'no preview' };
  return { totalAmount: answer.totalAmount, approval: answer.approval };
}

export type ProcuraGraph = Awaited<ReturnType<typeof buildAgentGraph>>;
