import { type BackendFactory, createMemoryMiddleware as createLibraryMemoryMiddleware } from 'deepagents';
import { withOwnPromptSection } from './prompt-section.ts';

/** What an agent is told about the memory files loaded into its prompt: Procura keeps them, the agent reads them. */
export function memoryText(contents: string): string {
  return [
    '## 准则与记忆 / Guidelines and memory',
    '以下内容每次运行自动加载；用户偏好由 Procura 在每次运行后自动更新，你不需要编辑这些文件。/ Loaded into every run; Procura updates the user’s preferences itself after each run, you never edit these files.',
    contents,
  ].join('\n');
}

/**
 * The memory files (seed 002: the global `/AGENTS.md`) in the system prompt: deepagents' memory middleware loads them
 * once as the agent starts; the prompt section is Procura's own (the library's tells a model to edit its memory,
 * which Procura maintains itself). Same name as the library's, so it takes its place.
 */
export function createMemoryMiddleware(backend: BackendFactory, sources: string[]) {
  // deepagents still types backend factories with its deprecated shape.
  const library = createLibraryMemoryMiddleware({ backend: backend as never, sources });
  return withOwnPromptSection<{ memoryContents?: Record<string, string> }>(library, library.beforeAgent, (state) => {
    const loaded = state.memoryContents ?? {};
    const contents = sources
      .filter((source) => loaded[source])
      .map((source) => loaded[source].trim())
      .join('\n\n');
    return contents ? memoryText(contents) : undefined;
  });
}
