/**
 * Waits `ms`, or rejects with the signal's reason as soon as it is (or already was) aborted. The abort listener
 * leaves the signal when the wait ends: a run's signal (often combined with others, and then kept alive while it
 * has listeners) would otherwise hold every finished wait, and through its timer the run that waited, for good.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
