import { z } from 'zod';

/** The agents a step can belong to: the names the agents' YAML declares (the orchestrator always among them). */
export type AgentName = 'orchestrator' | (string & {});

/** An agent as clients show it, read from its YAML: its name and its label in each language. */
export const AgentLabelSchema = z.object({
  name: z.string(),
  label: z.object({ zh: z.string(), en: z.string() }),
});
export type AgentLabel = z.infer<typeof AgentLabelSchema>;

/** `GET /api/v1/agents`: every configured agent, the orchestrator first, then the sub-agents in configuration order. */
export const AgentListSchema = z.object({ items: z.array(AgentLabelSchema) });
export type AgentList = z.infer<typeof AgentListSchema>;

/** One tool as an agent's model is sent it: its declaration's policy, its text, its size in cl100k_base tokens. */
export const ToolListingSchema = z.object({
  name: z.string(),
  label: z.string(),
  group: z.string(),
  safety: z.enum(['read-only', 'write']),
  approval: z.enum(['none', 'required']),
  execution: z.enum(['parallel', 'sequential']),
  background: z.boolean(),
  description: z.string(),
  parameters: z.record(z.string(), z.unknown()),
  tokens: z.number().int().nonnegative(),
});
export type ToolListing = z.infer<typeof ToolListingSchema>;

/** `GET /api/v1/agents/{name}/tools`: what that agent's model is sent for the caller, as the running Procura binds it. */
export const AgentToolsSchema = z.object({
  agent: z.string(),
  tools: z.array(ToolListingSchema),
  totalTokens: z.number().int().nonnegative(),
});
export type AgentTools = z.infer<typeof AgentToolsSchema>;

/** What a client shows for an agent: its label in `lang`, or its raw name when no configured agent has that name. */
export function agentTitle(agents: readonly AgentLabel[], name: string, lang: keyof AgentLabel['label']): string {
  return agents.find((a) => a.name === name)?.label[lang] ?? name;
}

/** Where an agent's steps are listed among the others: configuration order, unknown agents last. */
export function agentRank(agents: readonly AgentLabel[], name: string): number {
  const index = agents.findIndex((a) => a.name === name);
  return index < 0 ? agents.length : index;
}
