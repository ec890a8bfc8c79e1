/** A time limit on one piece of work, linked to the caller's signal, that ends when the work does. */
export interface Deadline {
  /** Aborts after the time limit (a `TimeoutError`, as `AbortSignal.timeout` gives) or with the caller's signal. */
  readonly signal: AbortSignal;
  /** Whether the time limit, not the caller, aborted it. */
  readonly timedOut: boolean;
  /** Stops the timer and unlinks the caller's signal: call it once the work ended, however it ended. */
  clear(): void;
}

/**
 * `AbortSignal.any([signal, AbortSignal.timeout(ms)])` that can be cleared. A timeout signal's timer lives until it
 * fires, and a timer holds the async context it was made in: inside an agent run that is the whole run (its graph
 * state, messages and callbacks), so each request pinned its run in memory for the full time limit after it ended.
 */
export function deadline(ms: number, signal?: AbortSignal): Deadline {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
  }, ms);
  // Like AbortSignal.timeout: a pending limit does not keep the process alive.
  timer.unref();
  const forward = () => controller.abort(signal?.reason);
  const clear = () => {
    clearTimeout(timer);
    signal?.removeEventListener('abort', forward);
  };
  if (signal?.aborted) {
    clearTimeout(timer);
    controller.abort(signal.reason);
  } else signal?.addEventListener('abort', forward, { once: true });
  return {
    signal: controller.signal,
    get timedOut() {
      return timedOut;
    },
    clear,
  };
}

/**
 * A signal of one piece of work's own that follows `signal` until `clear()`. For a library that subscribes to the
 * signal it is given and never unsubscribes: its listener then goes with the work instead of staying on the
 * caller's signal, which a run keeps (and Node keeps alive while it has listeners, when it combines others).
 */
export function linkedSignal(signal?: AbortSignal): {
  signal: AbortSignal;
  clear(): void;
  /** Aborts the linked signal alone (the one it follows stays as it is). */
  abort(reason?: unknown): void;
} {
  const controller = new AbortController();
  const forward = () => controller.abort(signal?.reason);
  if (signal?.aborted) controller.abort(signal.reason);
  else signal?.addEventListener('abort', forward, { once: true });
  return {
    signal: controller.signal,
    clear: () => signal?.removeEventListener('abort', forward),
    abort: (reason) => controller.abort(reason),
  };
}
