import type { ToolListing } from '../protocol/index.ts';
import { modelSchema } from './model-schema.ts';
import type { ToolContext, ToolRegistry } from './registry.ts';
import { countTokens } from './tokens.ts';

export type { ToolListing } from '../protocol/index.ts';

/** What the model sees of each visible tool (descriptions with live values for `ctx`), in registry order. */
export async function listToolsForModel(
  registry: ToolRegistry,
  ctx: ToolContext,
  filter?: { groups?: readonly string[]; names?: readonly string[] },
): Promise<ToolListing[]> {
  return Promise.all(
    registry.list(ctx, filter).map(async (d) => {
      const description = await registry.describe(d.name, ctx);
      const parameters = modelSchema(registry.offered(d, ctx).jsonSchema) as Record<string, unknown>;
      return {
        name: d.name,
        label: d.label,
        group: d.group,
        safety: d.safety,
        approval: d.approval,
        execution: d.execution,
        background: d.background,
        description,
        parameters,
        tokens: countTokens(JSON.stringify({ name: d.name, description, parameters })),
      };
    }),
  );
}
