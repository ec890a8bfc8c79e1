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

/** What a client shows for an agent: its label in `lang`, or its raw name when no configured agent has that name. */
export function agentTitle(agents: readonly AgentLabel[], name: string, lang: keyof AgentLabel['label']): string {
  return agents.find((a) => a.name === name)?.label[lang] ?? name;
}

/** Where an agent's steps are listed among the others: configuration order, unknown agents last. */
export function agentRank(agents: readonly AgentLabel[], name: string): number {
  const index = agents.findIndex((a) => a.name === name);
  return index < 0 ? agents.length : index;
}
