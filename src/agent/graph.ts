import type { BaseStore } from '@langchain/langgraph';
import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import { type BackendFactory, createDeepAgent, createSummarizationMiddleware, type SubAgent } from 'deepagents';
import {
  type ContextResolver,
  type ToolContext,
  type ToolRegistry,
  type ToolScheduler,
  toLangChainTools,
} from '../tools/index.ts';
import { writesToStore } from './backends/index.ts';
import { builtinTexts } from './builtins.ts';
import { runContext, runContextSchema } from './context.ts';
import { type ApprovalLedger, createApprovalMiddleware } from './middleware/approval.ts';
import { approvalDetails } from './middleware/approval-details.ts';
import { createCompactionMiddleware } from './middleware/compaction.ts';
import { createContextInjectionMiddleware } from './middleware/context-injection.ts';
import { createRunGuardsMiddleware, createToolErrorGuardMiddleware } from './middleware/guards.ts';
import { createMemoryMiddleware } from './middleware/memory.ts';
import { createMemoryUpdateMiddleware } from './middleware/memory-update.ts';
import {
  createSkillsDiscoveryMiddleware,
  createSkillsSyncMiddleware,
  createUserSkillsRestoreMiddleware,
} from './middleware/skills.ts';
import { createToolResultsMiddleware } from './middleware/tool-results.ts';
import { createToolSetMiddleware } from './middleware/toolset.ts';
import type { AgentModels } from './models/index.ts';
import { createModelRetryMiddleware } from './models/resilience.ts';
import type { SkillsSync } from './skills/sync.ts';
import { ORCHESTRATOR } from './subagents/loader.ts';
import { type AgentToolPlan, agentConfigs, liveDescriber, planAgentTools } from './toolset.ts';

/** The graph's name: its id in `langgraph.json` and on the Agent Protocol, and the root of its traces. */
export const PROCURA_GRAPH = 'procura';

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
  const builtins = builtinTexts(configs);
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
  const memory = (sources: string[]) => (sources.length ? [createMemoryMiddleware(deps.backend, sources)] : []);
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
      createToolSetMiddleware({ allowed: plan.allowed, describe, builtins }),
      createToolResultsMiddleware({ backend: deps.backend, compacts: (tool) => deps.registry.get(tool) !== undefined }),
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
      systemPrompt: plan.config.prompt,
      tools: parts.bound as SubAgent['tools'],
      model: parts.model,
      // Who the user is closes the system prompt: everything before it is the same for every user, so it caches.
      middleware: [
        ...skillsDiscovery(plan.config.skills),
        ...memory(plan.config.memory),
        createContextInjectionMiddleware(),
        summarization(),
        createCompactionMiddleware({ model: deps.models.light, backend: deps.backend }),
        ...parts.tail,
      ],
    });
  }
  const main = orchestrator!;
  return createDeepAgent({
    name: PROCURA_GRAPH,
    model: main.model,
    systemPrompt: main.config.prompt,
    tools: main.bound as never,
    subagents,
    // deepagents still types factories with its deprecated shape; a factory receiving the runtime is what it calls.
    backend: deps.backend as never,
    store: deps.store,
    checkpointer: deps.checkpointer,
    contextSchema: runContextSchema,
    middleware: [
      createSkillsSyncMiddleware(deps.skills, deps.backend),
      createUserSkillsRestoreMiddleware(deps.backend),
      ...skillsDiscovery(main.config.skills),
      ...memory(main.config.memory),
      createContextInjectionMiddleware(),
      summarization(),
      createCompactionMiddleware({ model: deps.models.light, backend: deps.backend }),
      createMemoryUpdateMiddleware({ model: deps.models.light, backend: deps.backend }),
      ...main.tail,
    ],
  });
}

export type ProcuraGraph = Awaited<ReturnType<typeof buildAgentGraph>>;
