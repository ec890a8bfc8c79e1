/**
 * Drops every key typed before now and for `guardMs` more, so that nothing typed ahead — an Enter hit while the run
 * was still working — answers the prompt that follows. Resolves whether a Ctrl-C was among the dropped keys (the
 * terminal is raw meanwhile, so Ctrl-C arrives as a key, not a signal). Without a terminal there is nothing to drop.
 */
export async function discardTypeAhead(input: NodeJS.ReadStream, guardMs: number): Promise<boolean> {
  if (!input.isTTY) return false;
  let interrupted = false;
  const drop = (chunk: Buffer | string) => {
    if (String(chunk).includes('\x03')) interrupted = true;
  };
  const wasRaw = input.isRaw;
  // Raw: a line still being typed (no Enter yet) is readable now too, and is dropped with the rest.
  input.setRawMode(true);
  input.on('data', drop);
  input.resume();
  await new Promise((resolve) => setTimeout(resolve, guardMs));
  input.off('data', drop);
  input.pause();
  input.setRawMode(wasRaw);
  return interrupted;
}

/** Whether a prompt ended because the person pressed Ctrl-C (or the terminal closed) rather than answering. */
export function isPromptExit(error: unknown): boolean {
  return error instanceof Error && error.name === 'ExitPromptError';
}
