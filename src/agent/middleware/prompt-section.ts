import { createMiddleware } from 'langchain';

/**
 * A deepagents middleware that loads its files into state once, as the agent starts, with Procura's own prompt section
 * in place of the library's: `section` reads the loaded state and returns the text appended to the system message, or
 * nothing to leave it as it is. Keeps the library's name, so it takes the library middleware's place.
 */
export function withOwnPromptSection<State>(
  library: { name: string; stateSchema?: unknown },
  load: unknown,
  section: (state: State) => string | undefined,
) {
  return createMiddleware({
    name: library.name,
    stateSchema: library.stateSchema as never,
    beforeAgent: load as never,
    wrapModelCall: (request, handler) => {
      const text = section(request.state as State);
      if (!text) return handler(request);
      return handler({ ...request, systemMessage: request.systemMessage.concat(`\n\n${text}`) });
    },
  });
}
