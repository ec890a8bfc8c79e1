import { SystemMessage } from '@langchain/core/messages';
import { type BackendFactory, createSkillsMiddleware } from 'deepagents';
import { createMiddleware } from 'langchain';
import { runContext, runContextSchema } from '../context.ts';
import type { FileUploader, SkillsSync } from '../skills/sync.ts';
import { withOwnPromptSection } from './prompt-section.ts';
import { silently } from './silent.ts';

type Uploader = FileUploader & { glob(pattern: string, path?: string): unknown };

async function backendFor(factory: BackendFactory, state: unknown, runtime: object): Promise<Uploader> {
  return (await factory({ ...runtime, state } as Parameters<BackendFactory>[0])) as unknown as Uploader;
}

/** [2] Local `skills/` → the user's sandbox `/skills/`, incremental; tells the agent what changed. */
export function createSkillsSyncMiddleware(skills: SkillsSync, backend: BackendFactory) {
  return createMiddleware({
    name: 'SkillsSyncMiddleware',
    contextSchema: runContextSchema,
    beforeAgent: async (state, runtime) =>
      silently('SkillsSyncMiddleware', runtime, async () => {
        const ctx = runContext(runtime);
        if (!ctx) return undefined;
        const changed = await skills.sync(`${ctx.userId}/${ctx.sessionId}`, await backendFor(backend, state, runtime));
        if (changed.length === 0) return undefined;
        return {
          messages: [
            new SystemMessage(`以下技能文件已更新，需要时重新读取 / skill files updated: ${changed.join(', ')}`),
          ],
        };
      }),
  });
}

/** [3] Skills the user persisted (`/persisted-skills/…`, store-backed) → the sandbox's `/skills/…`. */
export function createUserSkillsRestoreMiddleware(backend: BackendFactory) {
  return createMiddleware({
    name: 'UserSkillsRestoreMiddleware',
    contextSchema: runContextSchema,
    beforeAgent: async (state, runtime) => {
      await silently('UserSkillsRestoreMiddleware', runtime, async () => {
        if (!runContext(runtime)) return;
        const files = await backendFor(backend, state, runtime);
        const found = (await files.glob('**/*', '/persisted-skills/')) as
          | { files?: Array<{ path: string; is_dir?: boolean }> }
          | Array<{ path: string; is_dir?: boolean }>;
        const paths = (Array.isArray(found) ? found : (found.files ?? []))
          .filter((f) => !f.is_dir)
          .map((f) =>
            f.path.startsWith('/persisted-skills/') ? f.path : `/persisted-skills/${f.path.replace(/^\//, '')}`,
          );
        if (paths.length === 0) return;
        const downloaded = await files.downloadFiles(paths);
        const restored = downloaded
          .filter((d) => d.content)
          .map(
            (d) =>
              [d.path.replace(/^\/persisted-skills\//, '/skills/'), d.content as Uint8Array] as [string, Uint8Array],
          );
        if (restored.length) await files.uploadFiles(restored);
      });
      return undefined;
    },
  });
}

/** A skill as the discovery step lists it. */
interface SkillListing {
  name: string;
  description: string;
  path: string;
}

/** What an agent is told about its skills: where they are, one line each, and how Procura's skills are used. */
export function skillsText(sources: readonly string[], skills: readonly SkillListing[]): string {
  const lines = skills.map((s) => `- ${s.name}: ${s.description} → \`${s.path}\``);
  return [
    `## 技能 / Skills（${sources.join(', ')}）`,
    lines.length ? lines.join('\n') : '（暂无技能 / no skills yet）',
    '用到某个技能时先 read_file 整份读它的 SKILL.md，按其步骤做；它的数据按它说的方式按需读取，不要整表读取。/ Read a skill’s SKILL.md whole before using it; read its data only as it says.',
  ].join('\n');
}

/**
 * [4] The sandbox's `/skills/` → the agent: deepagents' skills middleware reads the skills index once as the agent
 * starts, after [2] and [3] have filled the sandbox (deepagents reads it before a model call, which would make it a
 * graph step before every model call of the run). The prompt section is Procura's own, short and byte-stable.
 */
export function createSkillsDiscoveryMiddleware(backend: BackendFactory, sources: string[]) {
  // deepagents still types backend factories with its deprecated shape.
  const discovery = createSkillsMiddleware({ backend: backend as never, sources });
  return withOwnPromptSection<{ skillsMetadata?: SkillListing[] }>(discovery, discovery.beforeModel, (state) =>
    skillsText(
      sources,
      (state.skillsMetadata ?? []).toSorted((a, b) => a.name.localeCompare(b.name)),
    ),
  );
}
